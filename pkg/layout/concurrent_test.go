package layout

import (
	"encoding/json"
	"fmt"
	"github.com/ptyorg/pty/internal/fsx"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestMain lets the test binary act as a separate writer process, so the
// concurrency tests exercise real inter-process locking and renames.
func TestMain(m *testing.M) {
	if root := os.Getenv("LAYOUT_TEST_WRITER_ROOT"); root != "" {
		n, _ := strconv.Atoi(os.Getenv("LAYOUT_TEST_WRITER_N"))
		key := os.Getenv("LAYOUT_TEST_WRITER_KEY")
		for i := 1; i <= n; i++ {
			_, err := updateRecord(root, "s", func(m *Metadata) ([]Event, error) {
				if m.Tags == nil {
					m.Tags = map[string]string{}
				}
				m.Tags[key] = strconv.Itoa(i)
				return []Event{NewEvent("s", EventTagsChange, "key", key)}, nil
			})
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestConcurrentWritersLoseNothing(t *testing.T) {
	root := t.TempDir()
	if err := writeRecord(root, "s", &Metadata{Command: "/bin/sh", CreatedAt: Now()}); err != nil {
		t.Fatal(err)
	}
	const writers, each = 20, 10
	stop := make(chan struct{})
	var reads, bad int
	var rwg sync.WaitGroup
	rwg.Add(1)
	go func() {
		defer rwg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			b, err := os.ReadFile(pathsFor(root, "s").Meta())
			var m Metadata
			if err != nil || json.Unmarshal(b, &m) != nil {
				bad++
			}
			reads++
		}
	}()
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "LAYOUT_TEST_WRITER_ROOT="+root,
				"LAYOUT_TEST_WRITER_N="+strconv.Itoa(each), fmt.Sprintf("LAYOUT_TEST_WRITER_KEY=w%d", w))
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("writer %d: %v: %s", w, err, out)
			}
		}(w)
	}
	wg.Wait()
	close(stop)
	rwg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if bad > 0 {
		t.Errorf("%d of %d reads saw a torn or missing file", bad, reads)
	}
	m, err := readMetadata(root, "s")
	if err != nil {
		t.Fatal(err)
	}
	for w := 0; w < writers; w++ {
		if v := m.Tags[fmt.Sprintf("w%d", w)]; v != strconv.Itoa(each) {
			t.Errorf("writer %d's last update lost: tag is %q", w, v)
		}
	}
	evs, _ := readEvents(root, "s")
	if len(evs) != writers*each {
		t.Errorf("%d events, want %d", len(evs), writers*each)
	}
	ents, _ := os.ReadDir(root)
	for _, e := range ents {
		if fsx.IsTemp(e.Name()) || strings.HasSuffix(e.Name(), ".lock") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

func TestEventRetention(t *testing.T) {
	root := t.TempDir()
	for i := 0; i < EventsMaxLines+10; i++ {
		if err := appendEventsTo(root, "s", NewEvent("s", "user.n", "i", i, "pad", strings.Repeat("x", 40))); err != nil {
			t.Fatal(err)
		}
	}
	evs, err := readEvents(root, "s")
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) > EventsMaxLines || len(evs) < EventsKeepLines {
		t.Fatalf("%d events after retention", len(evs))
	}
	last := evs[len(evs)-1].Fields["i"].(float64)
	if int(last) != EventsMaxLines+9 {
		t.Errorf("newest event lost: last i=%v", last)
	}
	if m, _ := filepath.Glob(filepath.Join(root, "*.tmp.*")); len(m) > 0 {
		t.Errorf("tmp files left: %v", m)
	}
}

func TestAtomicWriteLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	for i := 0; i < 50; i++ {
		if err := fsx.WriteFileAtomic(p, []byte(strconv.Itoa(i)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("entries: %v", ents)
	}
	// A write into a directory that does not exist fails cleanly.
	if err := fsx.WriteFileAtomic(filepath.Join(dir, "no", "f"), []byte("x"), 0o600); err == nil {
		t.Error("write into a missing directory succeeded")
	}
}
