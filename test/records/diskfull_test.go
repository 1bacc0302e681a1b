package records

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
)

// tinyRoot mounts a small tmpfs and returns a root inside it, or skips
// when mounting is not allowed here.
func tinyRoot(t *testing.T) (mnt, root string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a tmpfs")
	}
	mnt = testutil.Root(t)
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=512k,mode=0700", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() {
		testutil.KillDaemons(filepath.Join(mnt, "r"))
		exec.Command("umount", "-l", mnt).Run()
	})
	root = filepath.Join(mnt, "r")
	if err := os.Mkdir(root, 0o700); err != nil {
		t.Fatal(err)
	}
	return mnt, root
}

// fill writes into dir until the filesystem is full.
func fill(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			return
		}
	}
}

// On a full disk every failed write left an empty *.lock.tmp.* file
// behind, and an append cut short left half a line in the event log.
func TestFullDiskLeavesNoTemporaryFilesOrTornLines(t *testing.T) {
	mnt, root := tinyRoot(t)
	start(t, root, "s")
	p := layout.At(root).Paths("s")
	spare := filepath.Join(mnt, "spare")
	if err := os.WriteFile(spare, make([]byte, 5*4096), 0o600); err != nil {
		t.Fatal(err)
	}
	fill(t, filepath.Join(mnt, "filler"))
	meta, log := readFile(t, p.Meta()), readFile(t, p.Events())

	patch := testutil.Command(t, root, "metadata", "patch", "--id", "s")
	patch.Stdin = strings.NewReader(`{"tags":{"x":"1"}}`)
	results := map[string]testutil.Result{"metadata patch": testutil.RunCmd(t, patch)}
	for _, args := range [][]string{
		{"tag", "s", "x=1"}, {"state", "set", "s", "k", "1"}, {"rename", "s", "web"},
		{"emit", "s", "user.x", "--text", "hi"}, {"tag-multi", "s", "x=1"},
	} {
		results[strings.Join(args, " ")] = testutil.Run(t, root, args...)
	}
	for what, r := range results {
		oneLineError(t, what, r, "no space left on device")
		if tmp := tempFiles(t, root); len(tmp) > 0 {
			t.Fatalf("%s left temporary files: %v", what, tmp)
		}
	}
	if readFile(t, p.Meta()) != meta || readFile(t, p.Events()) != log {
		t.Fatal("a failed write changed the record or the log")
	}

	// Room for the lock, not for the event: the append is cut short.
	os.Remove(spare)
	r := testutil.Run(t, root, "emit", "s", "user.big", "--text", strings.Repeat("t", 60<<10))
	oneLineError(t, "emit on a nearly full disk", r, "no space left on device")
	if got := readFile(t, p.Events()); got != log {
		t.Fatalf("the log holds %d bytes after a failed append, had %d (ends %q)", len(got), len(log), got[max(0, len(got)-20):])
	}
	if tmp := tempFiles(t, root); len(tmp) > 0 {
		t.Fatalf("left temporary files: %v", tmp)
	}

	// Once there is room again, all is well.
	os.Remove(filepath.Join(mnt, "filler"))
	testutil.MustRun(t, root, "tag", "s", "x=1")
	testutil.MustRun(t, root, "emit", "s", "user.x")
	if b := []byte(readFile(t, p.Events())); !bytes.HasSuffix(b, []byte("\n")) || bytes.Count(b, []byte("\n")) != bytes.Count([]byte(log), []byte("\n"))+2 {
		t.Fatalf("log after recovery:\n%s", b)
	}
}

// A change whose event could not be appended (the disk filled between the
// record and the log) stayed made, without its event, and the command
// said it failed.
func TestChangeWhoseEventCannotBeLoggedIsUndone(t *testing.T) {
	mnt, root := tinyRoot(t)
	start(t, root, "s")
	p := layout.At(root).Paths("s")
	// Eight 4000-byte tags: the record holds each value once, a change of
	// all of them logs each twice, so the log needs twice the record's
	// room.
	tags := func(v string) []string {
		args := []string{"tag", "s"}
		for i := range 8 {
			args = append(args, fmt.Sprintf("k%d=%s", i, strings.Repeat(v, 4000)))
		}
		return args
	}
	testutil.MustRun(t, root, tags("a")...)
	spare := filepath.Join(mnt, "spare")
	if err := os.WriteFile(spare, make([]byte, 12*4096), 0o600); err != nil {
		t.Fatal(err)
	}
	fill(t, filepath.Join(mnt, "filler"))
	meta, log := readFile(t, p.Meta()), readFile(t, p.Events())
	os.Remove(spare)

	r := testutil.Run(t, root, tags("b")...)
	oneLineError(t, "tag on a nearly full disk", r, "no space left on device")
	if readFile(t, p.Meta()) != meta {
		t.Error("the record kept a change whose event was not logged")
	}
	if readFile(t, p.Events()) != log {
		t.Error("the log changed")
	}
	if tmp := tempFiles(t, root); len(tmp) > 0 {
		t.Errorf("left temporary files: %v", tmp)
	}
}
