package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeModule writes a module of two small commands into a fresh directory
// (cmd/a embeds msg.txt and prints it) and gives the test a private
// build cache, so the tests build seconds' worth, not every pty command.
func fakeModule(t *testing.T) string {
	t.Helper()
	t.Setenv("TMPDIR", t.TempDir())
	mod := t.TempDir()
	files := map[string]string{
		"go.mod":            "module example.com/m\n\ngo 1.22\n",
		"cmd/a/main.go":     "package main\n\nimport _ \"embed\"\n\n//go:embed msg.txt\nvar msg string\n\nfunc main() { print(msg) }\n",
		"cmd/a/msg.txt":     "one",
		"cmd/a/a_test.go":   "package main\n",
		"cmd/b/main.go":     "package main\n\nfunc main() {}\n",
		"cmd/b/testdata/x":  "x",
		"README.md":         "readme",
		"internal/l/l.go":   "package l\n",
		"internal/l/doc.md": "doc",
	}
	for name, body := range files {
		writeFile(t, filepath.Join(mod, name), body)
	}
	return mod
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustBinDir(t *testing.T, mod string) string {
	t.Helper()
	dir, err := cachedBinDir(mod)
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func runA(t *testing.T, dir string) string {
	t.Helper()
	out, err := exec.Command(filepath.Join(dir, "a")).CombinedOutput()
	if err != nil {
		t.Fatalf("a: %v\n%s", err, out)
	}
	return string(out)
}

// TestBinCacheKeyFollowsWhatGoesIntoBinaries edits each kind of file: the
// key must change for code, embedded files and go.mod, and stay for tests,
// testdata and files no package embeds.
func TestBinCacheKeyFollowsWhatGoesIntoBinaries(t *testing.T) {
	mod := fakeModule(t)
	key := func() string {
		k, err := sourceKey(mod)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	for _, c := range []struct {
		file    string
		changes bool
	}{
		{"cmd/a/main.go", true},
		{"cmd/a/msg.txt", true},
		{"internal/l/l.go", true},
		{"go.mod", true},
		{"internal/l/new.go", true},
		{"cmd/a/a_test.go", false},
		{"cmd/b/testdata/x", false},
		{"README.md", false},
		{"internal/l/doc.md", false},
	} {
		before := key()
		path := filepath.Join(mod, c.file)
		old, _ := os.ReadFile(path)
		writeFile(t, path, string(old)+"\n// edited\n")
		if got := key() != before; got != c.changes {
			t.Errorf("editing %s changes the key: %v, want %v", c.file, got, c.changes)
		}
	}
	before := key()
	t.Setenv("GOFLAGS", "-ldflags=-s")
	if key() == before {
		t.Error("GOFLAGS does not change the key")
	}
}

// TestBinCacheBuildsOncePerSource: a second lookup of the same source
// finds the first one's build, an edit gets a build of its own that runs
// the edited code, and undoing the edit finds the first build again.
func TestBinCacheBuildsOncePerSource(t *testing.T) {
	mod := fakeModule(t)
	first := mustBinDir(t, mod)
	fi, err := os.Stat(filepath.Join(first, "a"))
	if err != nil {
		t.Fatal(err)
	}
	if got := runA(t, first); got != "one" {
		t.Fatalf("a printed %q, want one", got)
	}
	if _, err := os.Stat(filepath.Join(first, "b")); err != nil {
		t.Fatal(err)
	}
	again := mustBinDir(t, mod)
	if again != first {
		t.Fatalf("same source built in %s, then in %s", first, again)
	}
	if fi2, err := os.Stat(filepath.Join(again, "a")); err != nil || !os.SameFile(fi, fi2) {
		t.Fatalf("the build of an unchanged source was made again (%v)", err)
	}
	writeFile(t, filepath.Join(mod, "cmd/a/msg.txt"), "two")
	edited := mustBinDir(t, mod)
	if edited == first {
		t.Fatal("an edited embedded file reused the old build")
	}
	if got := runA(t, edited); got != "two" {
		t.Fatalf("after the edit a printed %q, want two", got)
	}
	writeFile(t, filepath.Join(mod, "cmd/a/msg.txt"), "one")
	if back := mustBinDir(t, mod); back != first {
		t.Fatalf("the undone edit built again in %s instead of reusing %s", back, first)
	}
}

// TestBinCacheConcurrentProcessesShareOneBuild starts several processes
// at once that all need the same build: they must all get it, made once.
func TestBinCacheConcurrentProcessesShareOneBuild(t *testing.T) {
	if mod := os.Getenv("TESTUTIL_BINCACHE_CHILD"); mod != "" {
		dir, err := cachedBinDir(mod)
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(filepath.Join(dir, "a"))
		if err != nil {
			t.Fatal(err)
		}
		os.Stdout.WriteString("dir=" + dir + " ino=" + fmtIno(fi) + "\n")
		return
	}
	mod := fakeModule(t)
	var cmds []*exec.Cmd
	var outs []*strings.Builder
	for i := 0; i < 4; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestBinCacheConcurrentProcessesShareOneBuild$", "-test.count=1")
		cmd.Env = append(os.Environ(), "TESTUTIL_BINCACHE_CHILD="+mod)
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, &out)
	}
	var seen []string
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("process %d: %v\n%s", i, err, outs[i])
		}
		for _, line := range strings.Split(outs[i].String(), "\n") {
			if strings.HasPrefix(line, "dir=") {
				seen = append(seen, line)
			}
		}
	}
	if len(seen) != len(cmds) {
		t.Fatalf("got %d answers from %d processes: %q", len(seen), len(cmds), seen)
	}
	for _, s := range seen[1:] {
		if s != seen[0] {
			t.Fatalf("processes got different builds: %q", seen)
		}
	}
}

func fmtIno(fi os.FileInfo) string {
	st, _ := fi.Sys().(*syscall.Stat_t)
	if st == nil {
		return "?"
	}
	return strconv.FormatUint(uint64(st.Ino), 10)
}

// TestBinCacheFailedBuildLeavesNothing: a module whose commands do not
// build gives an error naming the compiler's complaint, and neither a
// directory under its key nor a half-built one.
func TestBinCacheFailedBuildLeavesNothing(t *testing.T) {
	mod := fakeModule(t)
	writeFile(t, filepath.Join(mod, "cmd/a/main.go"), "package main\n\nfunc main() { undefined() }\n")
	writeFile(t, filepath.Join(mod, "cmd/b/main.go"), "package main\n\nfunc main() { undefined() }\n")
	_, err := cachedBinDir(mod)
	if err == nil || !strings.Contains(err.Error(), "undefined") {
		t.Fatalf("err = %v, want the compiler's complaint", err)
	}
	base, _ := binCacheBase()
	if names := DirNames(t, base); len(names) != 1 || names[0] != "lock" {
		t.Fatalf("the failed build left %q in %s", names, base)
	}
}

// TestBinCachePartialBuildKeepsWhatBuilds: one command that does not
// compile leaves the others usable, and the build says which failed.
func TestBinCachePartialBuildKeepsWhatBuilds(t *testing.T) {
	mod := fakeModule(t)
	writeFile(t, filepath.Join(mod, "cmd/b/main.go"), "package main\n\nfunc main() { undefined() }\n")
	dir := mustBinDir(t, mod)
	if got := runA(t, dir); got != "one" {
		t.Fatalf("a printed %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "b")); err == nil {
		t.Fatal("b, which does not compile, is in the build")
	}
	if msg, err := os.ReadFile(filepath.Join(dir, buildErrorsFile)); err != nil || !strings.Contains(string(msg), "undefined") {
		t.Fatalf("build errors: %q, %v", msg, err)
	}
}

// TestBinCacheReaping: a build left half-made by a killed process is
// removed, as is an old build nobody uses; an old build a process still
// uses, and a recent one, stay.
func TestBinCacheReaping(t *testing.T) {
	mod := fakeModule(t)
	base, err := binCacheBase()
	if err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-2 * binCacheMaxAge)
	mk := func(name string, mtime time.Time) string {
		p := filepath.Join(base, name)
		writeFile(t, filepath.Join(p, "pty"), "x")
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mk("tmp-123", time.Now())
	mk("oldunused", old)
	mk("recent", time.Now())
	inUse := mk("oldinuse", old)
	fd, err := syscall.Open(inUse, syscall.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if err := syscall.Flock(fd, syscall.LOCK_SH); err != nil {
		t.Fatal(err)
	}
	dir := mustBinDir(t, mod)
	got := DirNames(t, base)
	want := []string{filepath.Base(dir), "lock", "oldinuse", "recent"}
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Fatalf("after reaping %s holds %q, want %q", base, got, want)
	}
}

// TestBinCacheRefusesAnotherUsersDirectory: a cache directory others can
// write could hold anything; the tests must not run what is in it.
func TestBinCacheRefusesAnotherUsersDirectory(t *testing.T) {
	mod := fakeModule(t)
	base := filepath.Join(os.TempDir(), binCacheDirPrefix+strconv.Itoa(os.Getuid()))
	if err := os.Mkdir(base, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(base, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := cachedBinDir(mod); err == nil || !strings.Contains(err.Error(), "remove it") {
		t.Fatalf("err = %v, want a refusal saying to remove %s", err, base)
	}
}

// TestBinCacheSourceEditedDuringBuild: an edit made while the commands
// build (a go command that edits a file once its build is done stands in
// for a person saving one) must not leave that build under the key of
// the source before the edit, where a later run of that source would use
// binaries of the edited one.
func TestBinCacheSourceEditedDuringBuild(t *testing.T) {
	mod := fakeModule(t)
	realGo, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	mark := filepath.Join(bin, "edited")
	writeFile(t, filepath.Join(bin, "go"), `#!/bin/sh
if [ "$1" = build ] && [ ! -e `+mark+` ]; then
	`+realGo+` "$@"; rc=$?
	: > `+mark+`
	printf two > `+filepath.Join(mod, "cmd/a/msg.txt")+`
	exit $rc
fi
exec `+realGo+` "$@"
`)
	if err := os.Chmod(filepath.Join(bin, "go"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	dir := mustBinDir(t, mod)
	if _, err := os.Stat(mark); err != nil {
		t.Fatal("the build did not go through the editing go command")
	}
	if got := runA(t, dir); got != "two" {
		t.Errorf("a printed %q, want two: the build is of the source before the edit", got)
	}
	if key, err := sourceKey(mod); err != nil || filepath.Base(dir) != key {
		t.Errorf("build in %s, the edited source's key is %s (%v)", dir, key, err)
	}
	writeFile(t, filepath.Join(mod, "cmd/a/msg.txt"), "one")
	if got := runA(t, mustBinDir(t, mod)); got != "one" {
		t.Errorf("the source before the edit got a build printing %q", got)
	}
}

// TestBinCacheFinishedBuildNeedsNoLock: while another process holds the
// lock (building another checkout's source, for minutes), a finished
// build is still found at once.
func TestBinCacheFinishedBuildNeedsNoLock(t *testing.T) {
	mod := fakeModule(t)
	dir := mustBinDir(t, mod)
	unlock, err := lockPath(filepath.Join(filepath.Dir(dir), "lock"))
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	got := make(chan string, 1)
	go func() {
		d, err := cachedBinDir(mod)
		if err != nil {
			t.Error(err)
		}
		got <- d
	}()
	select {
	case d := <-got:
		if d != dir {
			t.Fatalf("found %s, want %s", d, dir)
		}
	case <-time.After(time.Minute):
		t.Fatal("finding a finished build waited for the lock another process holds")
	}
}
