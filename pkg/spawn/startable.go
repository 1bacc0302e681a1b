package spawn

import (
	"bytes"
	"io"
	"os"
	"runtime"
)

// startable reports whether the daemon will plainly be able to start the
// command of cfg, so that Launch need not wait for it to: the command is
// an executable ELF file, or a script whose interpreter is one. The kernel
// accepts other files too (binfmt_misc, deeper interpreter chains), and
// those take the slow path, where the daemon reports the start's outcome.
// What this cannot foresee (the kernel out of memory, a binary whose
// dynamic loader is missing) ends the session as the command's exit, with
// the reason on its screen.
func startable(cfg DaemonConfig, env []string) bool {
	if runtime.GOOS != "linux" {
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
	if isELF(head) {
		return true
	}
	interp, ok := interpreter(head)
	return ok && isExec(interp) && isELF(readHead(interp))
}

// readHead reads the start of an executable, as much as the kernel looks
// at to choose how to run it.
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

func isELF(head []byte) bool { return bytes.HasPrefix(head, []byte("\x7fELF")) }

// interpreter is the absolute path a "#!" line names.
func interpreter(head []byte) (string, bool) {
	line, ok := bytes.CutPrefix(head, []byte("#!"))
	if !ok {
		return "", false
	}
	end := bytes.IndexByte(line, '\n')
	if end < 0 {
		return "", false // longer than the kernel reads
	}
	f := bytes.Fields(line[:end])
	if len(f) == 0 || f[0][0] != '/' {
		return "", false
	}
	return string(f[0]), true
}
