package testutil

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ptyorg/pty/internal/daemonbuild"
)

// The commands are built once per source for all test processes: a
// "go test ./..." run starts dozens of test processes that use them, and
// building every command (about 100 MB) is a large part of what each of
// them would cost alone. The build lives in a directory shared by every
// test process of the user, named by a hash of everything that goes into the binaries
// (sourceKey), so the processes of one run and later runs share it while
// the source stays the same, and an edit made while tests run gives the
// test processes started after it a build of their own.
//
// The cache directory holds:
//
//	lock       flock'ed while a process builds or reaps builds
//	<key>/     a finished build; every process using it holds a shared
//	           flock on the directory until it exits
//	tmp-*/     a build under way, renamed to <key> when finished, so a
//	           killed build never leaves a half directory under a key
const (
	binCacheDirPrefix = "pty-testbin-"
	// binCacheMaxAge is how long a build nobody uses is kept after its
	// last use, for a branch switched back to or an edit undone.
	binCacheMaxAge = 30 * time.Minute
	// buildErrorsFile, in a build directory, holds the errors of the
	// commands that did not build.
	buildErrorsFile = ".build-errors"
	// keyAttempts bounds the builds of a source that changes while it
	// is built.
	keyAttempts = 3
)

// cachedBinDir returns the directory of the commands built from the
// source in module root mod, building them if no test process has yet.
// The build is made without cgo, as install.sh makes it, and so never
// with the race detector whether or not the test binary has it: the key
// leaves -race out, and the race run and the plain run share one build
// (pkg/daemon's race test builds its own race-enabled daemon).
func cachedBinDir(mod string) (string, error) {
	base, err := binCacheBase()
	if err != nil {
		return "", err
	}
	key, err := sourceKey(mod)
	if err != nil {
		return "", err
	}
	// A finished build is used without the lock, which a build of
	// another source (another checkout's, say) may hold for minutes.
	if dir := filepath.Join(base, key); useBuild(dir) {
		return dir, nil
	}
	unlock, err := lockPath(filepath.Join(base, "lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	for attempt := 1; ; attempt++ {
		key, err := sourceKey(mod)
		if err != nil {
			return "", err
		}
		dir := filepath.Join(base, key)
		reapBinCacheLocked(base, key)
		if useBuild(dir) {
			return dir, nil
		}
		tmp, err := os.MkdirTemp(base, "tmp-")
		if err != nil {
			return "", err
		}
		if err := buildCommands(mod, tmp); err != nil {
			os.RemoveAll(tmp)
			return "", err
		}
		// The source may have changed while it was built (people and
		// programs edit while tests run): then the build is of no
		// known source and is made again.
		after, err := sourceKey(mod)
		if err != nil {
			os.RemoveAll(tmp)
			return "", err
		}
		if after != key {
			os.RemoveAll(tmp)
			if attempt == keyAttempts {
				return "", fmt.Errorf("the source in %s changed during each of %d builds of the commands; run the tests again once it stays the same", mod, keyAttempts)
			}
			continue
		}
		if err := os.Chmod(tmp, 0o755); err != nil {
			os.RemoveAll(tmp)
			return "", err
		}
		if err := os.Rename(tmp, dir); err != nil {
			os.RemoveAll(tmp)
			return "", err
		}
		if !useBuild(dir) {
			return "", fmt.Errorf("cannot use the build just made in %s", dir)
		}
		return dir, nil
	}
}

// binCacheBase returns the user's build cache directory, creating it. A
// directory of that name that another user could have filled is refused:
// the tests run what is in it.
func binCacheBase() (string, error) {
	uid := os.Getuid()
	base := filepath.Join(os.TempDir(), binCacheDirPrefix+strconv.Itoa(uid))
	if err := os.Mkdir(base, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", err
	}
	fi, err := os.Lstat(base)
	if err != nil {
		return "", err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || int(st.Uid) != uid || fi.Mode().Perm()&0o022 != 0 {
		return "", fmt.Errorf("%s is not a directory only this user (uid %d) can write; remove it so the tests can build the commands there", base, uid)
	}
	return base, nil
}

// lockPath takes an exclusive flock on path, waiting for it, and returns
// the function that releases it.
func lockPath(path string) (unlock func(), err error) {
	fd, err := syscall.Open(path, syscall.O_RDWR|syscall.O_CREAT|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	for {
		err = syscall.Flock(fd, syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		syscall.Close(fd)
		return nil, &os.PathError{Op: "flock", Path: path, Err: err}
	}
	return func() { syscall.Close(fd) }, nil
}

// useBuild reports whether build directory dir exists, and marks it used
// by this process until it exits: a shared flock on it that the process
// never releases (the descriptor is closed on exec, so daemons the tests
// start do not keep it), and a fresh modification time for the reaper's
// age. A directory the reaper removed between the open and the flock is
// no longer the one at dir, and is not used. It prints the errors of
// commands the build left out.
func useBuild(dir string) bool {
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	var held, now syscall.Stat_t
	if syscall.Flock(fd, syscall.LOCK_SH) != nil || syscall.Fstat(fd, &held) != nil ||
		syscall.Stat(dir, &now) != nil || held.Dev != now.Dev || held.Ino != now.Ino {
		syscall.Close(fd)
		return false
	}
	t := time.Now()
	os.Chtimes(dir, t, t)
	if msg, err := os.ReadFile(filepath.Join(dir, buildErrorsFile)); err == nil {
		os.Stderr.WriteString("testutil: some commands do not build, continuing without them:\n" + string(msg))
	}
	return true
}

// reapBinCacheLocked removes the builds under way that a killed process
// left (no build is under way while the lock is held) and the builds of
// other keys that no process uses and none has used for binCacheMaxAge.
func reapBinCacheLocked(base, keep string) {
	ents, _ := os.ReadDir(base)
	for _, e := range ents {
		name := e.Name()
		path := filepath.Join(base, name)
		switch {
		case !e.IsDir() || name == keep:
		case strings.HasPrefix(name, "tmp-"):
			os.RemoveAll(path)
		default:
			fi, err := e.Info()
			if err != nil || time.Since(fi.ModTime()) < binCacheMaxAge {
				continue
			}
			fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
			if err != nil {
				continue
			}
			if syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB) == nil {
				os.RemoveAll(path)
			}
			syscall.Close(fd)
		}
	}
}

// buildCommands builds every cmd/* of module mod into dir.
func buildCommands(mod, dir string) error {
	cmd := exec.Command("go", "build", "-o", dir+"/", "./cmd/...")
	cmd.Dir = mod
	cmd.Env = buildEnv()
	out, err := cmd.CombinedOutput()
	if err == nil {
		// The daemon as install/build.sh makes it.
		if out, err := daemonbuild.Rebuild(mod, dir, buildEnv()); err != nil {
			return errors.New("go build " + daemonbuild.Package + " (GOEXPERIMENT " + daemonbuild.Experiment + "): " + err.Error() + "\n" + string(out))
		}
		return nil
	}
	// In a tree where several people work at once, one command that does
	// not compile yet must not stop everyone else's tests: build the
	// commands one by one and keep those that build. A test needing a
	// missing one fails on its own.
	if !buildEach(mod, dir) {
		return errors.New("go build ./cmd/...: " + err.Error() + "\n" + string(out))
	}
	return os.WriteFile(filepath.Join(dir, buildErrorsFile), out, 0o644)
}

// buildEnv builds the commands as install/build.sh does: without cgo, so
// tests run the static binaries people install (no libc mapped into every
// daemon); the daemon also with daemonbuild's experiment.
func buildEnv() []string { return append(os.Environ(), "CGO_ENABLED=0") }

// buildEach builds every cmd/* separately into dir and reports whether
// any of them built.
func buildEach(mod, dir string) bool {
	ents, err := os.ReadDir(filepath.Join(mod, "cmd"))
	if err != nil {
		return false
	}
	any := false
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		cmd := exec.Command("go", "build", "-o", dir+"/", "./cmd/"+e.Name())
		cmd.Dir = mod
		cmd.Env = buildEnv()
		if "./cmd/"+e.Name() == daemonbuild.Package {
			if env := daemonbuild.Env(mod, cmd.Env); env != nil {
				cmd.Env = env
			}
		}
		if cmd.Run() == nil {
			any = true
		}
	}
	return any
}

// sourceKey hashes everything the commands' build depends on: the go
// command's configuration as buildEnv gives it (toolchain version, target,
// GOFLAGS, ...), and the module's files that can go into a binary: go.mod
// and go.sum, every .go file but tests, and every file below a directory
// whose package embeds files. Directories named testdata or starting with
// "." or "_" are left out, as the go command leaves them out.
//
// The files are read through the os package, so "go test" records them
// among the test's inputs and reruns, instead of reporting a cached
// result, a test of the commands once any of them changes.
func sourceKey(mod string) (string, error) {
	env := exec.Command("go", "env")
	env.Env = buildEnv()
	out, err := env.Output()
	if err != nil {
		return "", fmt.Errorf("go env: %v", err)
	}
	h := sha256.New()
	for _, line := range strings.Split(string(out), "\n") {
		// GOGCCFLAGS names a fresh temporary directory at each call.
		if !strings.HasPrefix(line, "GOGCCFLAGS=") {
			fmt.Fprintf(h, "env %s\n", line)
		}
	}
	var files, embedders []string
	goFiles := map[string][]byte{}
	err = filepath.WalkDir(mod, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path == mod {
				return nil
			}
			if name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
			return nil
		}
		if !d.Type().IsRegular() || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		files = append(files, path)
		if strings.HasSuffix(name, ".go") {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			goFiles[path] = b
			if bytes.Contains(b, []byte("//go:embed")) {
				embedders = append(embedders, filepath.Dir(path)+string(filepath.Separator))
			}
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("hashing the source: %v", err)
	}
	sort.Strings(files)
	for _, path := range files {
		rel, _ := filepath.Rel(mod, path)
		b, ok := goFiles[path]
		if !ok {
			if rel != "go.mod" && rel != "go.sum" && !under(path, embedders) {
				continue
			}
			if b, err = os.ReadFile(path); err != nil {
				return "", fmt.Errorf("hashing the source: %v", err)
			}
		}
		fmt.Fprintf(h, "file %s %d\n", rel, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)[:16]), nil
}

// under reports whether path lies below one of dirs (each ending in a
// separator).
func under(path string, dirs []string) bool {
	for _, d := range dirs {
		if strings.HasPrefix(path, d) {
			return true
		}
	}
	return false
}
