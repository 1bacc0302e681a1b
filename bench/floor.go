package main

// The floor: what any Go command costs on this machine before it does
// anything. pty's commands are two Go starts (the dispatcher, which execs
// pty-<sub>), so each latency row is shown beside an empty Go program that
// execs itself once, timed in the same loop, taking turns with pty and the
// others; and each idle daemon beside a Go program that only waits for a
// signal, as many of them as there are daemons.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// floorProgram exec's itself once when given an argument (the
// dispatcher's step), and does nothing else.
const floorProgram = `package main

import (
	"os"
	"syscall"
)

func main() {
	if len(os.Args) > 1 {
		syscall.Exec(os.Args[0], os.Args[:1], nil)
	}
}
`

// idleProgram waits for a signal, as an idle daemon does, with the
// runtime's signal handling set up.
const idleProgram = `package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
	<-c
}
`

// buildGo builds a one-file Go program the way install.sh builds ours
// (static, -trimpath, stripped) and returns its path.
func (e *env) buildGo(name, src string) string {
	dir := filepath.Join(e.work, name)
	check(os.MkdirAll(dir, 0o700))
	check(os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module "+name+"\n\ngo 1.26\n"), 0o600))
	check(os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o600))
	bin := filepath.Join(e.work, name+".bin")
	build := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOWORK=off", "GOFLAGS=-mod=mod")
	build.Stderr = os.Stderr
	check(build.Run())
	rewrite(bin)
	return bin
}

// rewriteAll rewrites every program in dir as install.sh installs it.
func rewriteAll(dir string) {
	ents, err := os.ReadDir(dir)
	check(err)
	for _, ent := range ents {
		rewrite(filepath.Join(dir, ent.Name()))
	}
}

// rewrite replaces a freshly linked program with a copy written with
// write(2), as install.sh installs it: the linker's output, written through
// a memory mapping, sits in the page cache in small pieces that make every
// start slower until the cache drops them.
func rewrite(path string) {
	b, err := os.ReadFile(path)
	check(err)
	tmp := path + ".new"
	check(os.WriteFile(tmp, b, 0o755))
	check(os.Rename(tmp, path))
}

// floorOnce times the floor: two Go starts (with exec) or one.
func (e *env) floorOnce(twice bool) time.Duration {
	if twice {
		return timeCmd(exec.Command(e.floor, "again"))
	}
	return timeCmd(exec.Command(e.floor))
}

// reportFloor prints a row with the floor beside pty: res holds "pty",
// "tmux", "dtach" (either may be missing) and "floor".
func reportFloor(label string, res map[string]time.Duration) {
	fmt.Printf("  %-36s pty %9s   floor %9s   tmux %9s   dtach %9s   pty/tmux %.2f   floor/tmux %.2f   pty-floor %s\n", label,
		round(res["pty"]), round(res["floor"]), round(res["tmux"]), round(res["dtach"]),
		ratio(float64(res["pty"]), float64(res["tmux"])), ratio(float64(res["floor"]), float64(res["tmux"])),
		(res["pty"] - res["floor"]).Round(10*time.Microsecond))
}

// medians is the median of each tool's samples.
func medians(samples map[string][]time.Duration) map[string]time.Duration {
	res := map[string]time.Duration{}
	for tool, ds := range samples {
		res[tool] = medianOf(ds)
	}
	return res
}
