package spawn

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"runtime"

	"github.com/ptyorg/pty/pkg/launchconfig"
)

// startable reports whether the daemon will plainly be able to start the
// command of cfg, so that Launch need not wait for it to: the command is
// an executable ELF file for this machine whose loader exists, or a script
// whose interpreter is one. The kernel accepts other files too
// (binfmt_misc, deeper interpreter chains), and those take the slow path,
// where the daemon reports the start's outcome. What this cannot foresee
// (a file being written, the kernel out of memory) ends the session as the
// command's exit, with the reason on its screen.
func startable(cfg launchconfig.Config, env []string) bool {
	if runtime.GOOS != "linux" || elfMachine[runtime.GOARCH] == 0 {
		return false
	}
	// The kernel refuses an argument or variable longer than 128 KiB, and
	// all of them past a quarter of the stack limit; well below both, the
	// size cannot be why an exec fails.
	size := len(cfg.Command)
	for _, s := range [][]string{cfg.Args, env} {
		for _, a := range s {
			if len(a) >= 128<<10 {
				return false
			}
			size += len(a) + 1
		}
	}
	for k, v := range cfg.ExtraEnv {
		size += len(k) + len(v) + 2
	}
	if size > 256<<10 {
		return false
	}
	if runnableELF(cfg.Command) {
		return true
	}
	interp, ok := interpreter(readHead(cfg.Command))
	return ok && isExec(interp) && runnableELF(interp)
}

// elfMachine is the ELF machine (e_machine) of the architectures the
// check knows; elsewhere the launcher waits for the daemon.
var elfMachine = map[string]uint16{"amd64": 62, "arm64": 183, "riscv64": 243, "ppc64le": 21, "loong64": 258}

// readHead reads the start of a file, where the kernel looks for "#!".
func readHead(path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	b := make([]byte, 256)
	n, _ := io.ReadFull(f, b)
	return b[:n]
}

// runnableELF reports whether path is a 64-bit little-endian executable
// for this machine whose dynamic loader, if it names one, exists. It reads
// the headers itself, as the kernel does, rather than through debug/elf,
// whose decompressors and DWARF reader would be linked and set up in every
// program that starts sessions (pty run -d above all) for 64 bytes and a
// table. Where it is stricter than the kernel (program headers beyond one
// page, say) the answer is false, the launcher's slow and safe path.
func runnableELF(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var h [64]byte // the ELF64 file header
	if _, err := f.ReadAt(h[:], 0); err != nil {
		return false
	}
	le := binary.LittleEndian
	const (
		class64, lsb, current = 2, 1, 1 // EI_CLASS, EI_DATA, EI_VERSION
		etExec, etDyn         = 2, 3
		phdrSize              = 56 // an ELF64 program header
		ptInterp              = 3
		pathMax               = 4096 // the kernel's bound on the loader's name
	)
	if string(h[:4]) != "\x7fELF" || h[4] != class64 || h[5] != lsb || h[6] != current {
		return false
	}
	if typ := le.Uint16(h[16:]); typ != etExec && typ != etDyn || le.Uint16(h[18:]) != elfMachine[runtime.GOARCH] {
		return false
	}
	phoff, phentsize, phnum := le.Uint64(h[32:]), le.Uint16(h[54:]), int(le.Uint16(h[56:]))
	// The kernel takes only this header size, and at most a page of them.
	if phentsize != phdrSize || phnum == 0 || phnum*phdrSize > 4096 || phoff > 1<<62 {
		return false
	}
	ph := make([]byte, phnum*phdrSize)
	if _, err := f.ReadAt(ph, int64(phoff)); err != nil {
		return false
	}
	for i := 0; i < phnum; i++ {
		p := ph[i*phdrSize:]
		if le.Uint32(p) != ptInterp {
			continue
		}
		off, size := le.Uint64(p[8:]), le.Uint64(p[32:])
		if size < 2 || size > pathMax || off > 1<<62 {
			return false
		}
		loader := make([]byte, size)
		if _, err := f.ReadAt(loader, int64(off)); err != nil || loader[size-1] != 0 {
			return false
		}
		loader, _, _ = bytes.Cut(loader, []byte{0})
		return isExec(string(loader))
	}
	return true
}

// interpreter is the absolute path a "#!" line names.
func interpreter(head []byte) (string, bool) {
	line, ok := bytes.CutPrefix(head, []byte("#!"))
	if !ok {
		return "", false
	}
	end := bytes.IndexByte(line, '\n')
	if end < 0 || end > 255 {
		return "", false // longer than the kernel reads
	}
	f := bytes.Fields(line[:end])
	if len(f) == 0 || f[0][0] != '/' {
		return "", false
	}
	return string(f[0]), true
}
