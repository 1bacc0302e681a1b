package spawn

import (
	"bytes"
	"debug/elf"
	"github.com/ptyorg/pty/pkg/launchconfig"
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

// elfMachine is the machine of the architectures the check knows;
// elsewhere the launcher waits for the daemon.
var elfMachine = map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64, "riscv64": elf.EM_RISCV, "ppc64le": elf.EM_PPC64, "loong64": elf.EM_LOONGARCH}

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
// for this machine whose dynamic loader, if it names one, exists.
func runnableELF(path string) bool {
	f, err := elf.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if f.Class != elf.ELFCLASS64 || f.Data != elf.ELFDATA2LSB || f.Machine != elfMachine[runtime.GOARCH] ||
		f.Type != elf.ET_EXEC && f.Type != elf.ET_DYN {
		return false
	}
	for _, p := range f.Progs {
		if p.Type != elf.PT_INTERP {
			continue
		}
		loader, err := io.ReadAll(io.LimitReader(p.Open(), 4096))
		if err != nil || len(loader) < 2 {
			return false
		}
		return isExec(string(bytes.TrimRight(loader, "\x00")))
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
