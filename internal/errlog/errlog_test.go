package errlog

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/pkg/layout"
)

func TestRecordRotatesAndCounts(t *testing.T) {
	root := t.TempDir()
	l := New(root, "s")
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	l.now = func() time.Time { return at }
	l.Record("nothing", nil)
	if n, path, err := Count(root, "s"); n != 0 || err != nil || path != filepath.Join(root, "s.daemon.log") {
		t.Fatalf("Count of no log = %d %q %v", n, path, err)
	}
	l.Record("append events", errors.New("disk\nfull"))
	b, _ := os.ReadFile(filepath.Join(root, "s.daemon.log"))
	if want := "2026-01-02T03:04:05.000Z append events: disk full\n"; string(b) != want {
		t.Fatalf("line = %q, want %q", b, want)
	}
	long := errors.New(strings.Repeat("é", MaxLine))
	for range 3 * MaxBytes / MaxLine {
		l.Record("append events", long)
	}
	p := layout.At(root).Paths("s")
	total := 0
	for _, f := range []string{p.DaemonLog(), p.DaemonLogOld()} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > MaxBytes {
			t.Errorf("%s: %d bytes, past %d", f, len(b), MaxBytes)
		}
		for _, line := range strings.SplitAfter(string(b), "\n") {
			if line == "" {
				continue
			}
			total++
			if len(line) > MaxLine || !strings.HasSuffix(line, "...\n") && !strings.HasSuffix(line, "full\n") {
				t.Fatalf("line of %d bytes: %q", len(line), line[max(0, len(line)-8):])
			}
		}
	}
	if n, _, err := Count(root, "s"); n != total || err != nil {
		t.Errorf("Count = %d, %v; the files hold %d lines", n, err, total)
	}
}

func TestRecordDoesNotFollowLinks(t *testing.T) {
	root := t.TempDir()
	target := filepath.Join(t.TempDir(), "target")
	os.WriteFile(target, nil, 0o600)
	if err := os.Symlink(target, filepath.Join(root, "s.daemon.log")); err != nil {
		t.Fatal(err)
	}
	New(root, "s").Record("append events", errors.New("x"))
	if b, _ := os.ReadFile(target); len(b) != 0 {
		t.Errorf("the record went through a link: %q", b)
	}
	if _, _, err := Count(root, "s"); !errors.Is(err, layout.ErrSymlink) {
		t.Errorf("Count through a link: %v, want ErrSymlink", err)
	}
}
