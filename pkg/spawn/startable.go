package spawn

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"runtime"
)

// startable reports whether the daemon will plainly be able to start the
// command of cfg, so that Launch need not wait for it to: the command is
// an executable ELF file for this machine whose loader exists, or a script
// whose interpreter is one. The kernel accepts other files too
// (binfmt_misc, deeper interpreter chains), and those take the slow path,
// where the daemon reports the start's outcome. What this cannot foresee
// (a file being written, the kernel out of memory) ends the session as the
// command's exit, with the reason on its screen.
func startable(cfg DaemonConfig, env []string) bool {
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
	head := readHead(cfg.Command)
	if runnableELF(head) {
		return true
	}
	interp, ok := interpreter(head)
	return ok && isExec(interp) && runnableELF(readHead(interp))
}

// elfMachine is e_machine of the 64-bit little-endian architectures the
// check knows; elsewhere the launcher waits for the daemon.
var elfMachine = map[string]uint16{"amd64": 62, "arm64": 183, "riscv64": 243, "ppc64le": 21, "loong64": 258}

// readHead reads the start of an executable: the kernel's "#!" line, or an
// ELF file's header and program headers.
func readHead(path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	b := make([]byte, 4096)
	n, _ := io.ReadFull(f, b)
	return b[:n]
}

// runnableELF reports whether head starts an executable for this machine
// whose dynamic loader, if it names one, exists.
func runnableELF(head []byte) bool {
	le := binary.LittleEndian
	if len(head) < 64 || !bytes.HasPrefix(head, []byte("\x7fELF\x02\x01")) {
		return false
	}
	if typ := le.Uint16(head[16:]); typ != 2 && typ != 3 || le.Uint16(head[18:]) != elfMachine[runtime.GOARCH] {
		return false
	}
	off, size, n := le.Uint64(head[32:]), uint64(le.Uint16(head[54:])), uint64(le.Uint16(head[56:]))
	if size < 56 || off > uint64(len(head)) || n > (uint64(len(head))-off)/size {
		return false // program headers beyond what was read: let the daemon tell
	}
	for i := range n {
		ph := head[off+i*size:]
		if le.Uint32(ph) != 3 { // PT_INTERP
			continue
		}
		p, l := le.Uint64(ph[8:]), le.Uint64(ph[32:])
		if p > uint64(len(head)) || l > uint64(len(head))-p || l < 2 {
			return false
		}
		loader := string(bytes.TrimRight(head[p:p+l], "\x00"))
		return isExec(loader)
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
