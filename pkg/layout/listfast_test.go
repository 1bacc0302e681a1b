package layout

import (
	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/procs"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// listFast must agree with List (Load per id) on every kind of entry.
func TestListFastAgreesWithList(t *testing.T) {
	root := t.TempDir()
	daemonPid := testutil.FakeDaemon(t, root, "running", "0123")
	dead := exec.Command("true")
	dead.Run()
	// A zombie (exited, not yet reaped) is not alive either.
	zombie := exec.Command("true")
	if err := zombie.Start(); err != nil {
		t.Fatal(err)
	}
	defer zombie.Wait()
	testutil.WaitFor(t, 10*time.Second, "the child to become a zombie", func() bool { p, ok := procs.Lookup(zombie.Process.Pid); return ok && p.Zombie })
	code := 0
	write := func(id string, exited bool, pid int, sock bool) {
		m := &Metadata{Command: "/bin/sh", CreatedAt: Now()}
		if exited {
			m.ExitCode, m.ExitedAt = &code, Now()
		}
		if err := writeRecord(root, id, m); err != nil {
			t.Fatal(err)
		}
		if pid > 0 {
			os.WriteFile(pathsFor(root, id).Pid(), []byte(strconv.Itoa(pid)), 0o600)
		}
		if sock {
			os.WriteFile(pathsFor(root, id).Sock(), nil, 0o600) // not a socket: never connects
		}
	}
	write("running", false, daemonPid, true)
	write("exited-gone", true, 0, false)
	write("exited-lingering", true, daemonPid, true)
	write("vanished-pid", false, dead.Process.Pid, false)
	write("vanished-sock", false, 0, true)
	write("vanished-bare", false, 0, false)
	write("vanished-zombie", false, zombie.Process.Pid, true)
	// Records that name their daemon (daemonPid), as ours do: the pid
	// counts only as this record's daemon, else the pid file decides.
	writeRec := func(id, gen string, recPid, filePid int) {
		m := &Metadata{Command: "/bin/sh", CreatedAt: Now(), Generation: gen, DaemonPid: recPid}
		if err := writeRecord(root, id, m); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(pathsFor(root, id).Pid(), []byte(strconv.Itoa(filePid)), 0o600)
	}
	own := testutil.FakeDaemon(t, root, "rec-own", "g1")
	writeRec("rec-own", "g1", own, own)
	// The record's pid was reused by another session's daemon; the pid
	// file names this one's.
	reused := testutil.FakeDaemon(t, root, "rec-reused", "g2")
	writeRec("rec-reused", "g2", daemonPid, reused)
	// A daemon of this id but another generation is not this record's.
	other := testutil.FakeDaemon(t, root, "rec-othergen", "g3")
	writeRec("rec-othergen", "g4", other, other)
	writeRec("rec-dead", "g5", dead.Process.Pid, dead.Process.Pid)
	// A known field in another letter case is read as json.Unmarshal
	// reads it, and also kept as written.
	os.WriteFile(pathsFor(root, "mixedcase").Meta(), []byte(`{"Command":"/bin/sh","createdAt":"2025-01-01T00:00:00.000Z","exitCode":0}`), 0o600)
	// A newer writer's field must survive the fast decode's fallback.
	os.WriteFile(pathsFor(root, "future").Meta(), []byte(`{"command":"/bin/sh","createdAt":"2025-01-01T00:00:00.000Z","exitCode":1,"exitedAt":"2025-01-01T00:00:01.000Z","fromTheFuture":{"a":1}}`), 0o600)
	os.WriteFile(pathsFor(root, "broken").Meta(), []byte("{"), 0o600)
	os.WriteFile(pathsFor(root, "x").Meta()+".tmp.1.ab", []byte("{}"), 0o600)

	fast := listFastAsList(t, root, 14)
	for _, s := range fast {
		want := map[string]Status{"rec-own": Running, "rec-reused": Running, "rec-othergen": Vanished, "rec-dead": Vanished}
		if w, ok := want[s.ID]; ok && s.Status != w {
			t.Errorf("%s: status %s, want %s", s.ID, s.Status, w)
		}
		if s.ID == "rec-reused" && s.Pid != reused {
			t.Errorf("rec-reused: pid %d, want the pid file's %d", s.Pid, reused)
		}
		if s.ID == "vanished-zombie" && s.Status != Vanished {
			t.Errorf("zombie daemon counted as %s", s.Status)
		}
		if s.ID == "future" && string(s.Meta.Extra["fromTheFuture"]) != `{"a":1}` {
			t.Errorf("unknown field lost: %+v", s.Meta.Extra)
		}
	}
	if none, err := listFast(root + "/missing"); err != nil || len(none) != 0 {
		t.Errorf("missing root: %v %v", none, err)
	}
}

// listFast reads every file of a listing into one buffer per goroutine and
// the root in one getdents pass: records larger than the buffer, records
// of every size in turn, and more entries than one directory read returns
// must all come out as List reads them.
func TestListFastManyRecordsOfEverySize(t *testing.T) {
	root := t.TempDir()
	const n = 300 // over 8 KiB of directory entries, and several batches
	for i := range n {
		id := "s" + strconv.Itoa(i)
		m := &Metadata{Command: "/bin/sh", CreatedAt: Now(), DisplayCommand: strings.Repeat("x", i*37%9000)}
		if i%2 == 0 {
			code := i % 5
			m.ExitCode, m.ExitedAt = &code, Now()
		}
		if err := WriteMetadataNoSync(root, id, m); err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			os.WriteFile(pathsFor(root, id).Sock(), nil, 0o600) // not a socket: never connects
		}
	}
	gen := "g-many"
	pid := testutil.FakeDaemon(t, root, "s1", gen)
	m, err := readMetadata(root, "s1")
	if err != nil {
		t.Fatal(err)
	}
	m.Generation, m.DaemonPid = gen, pid
	if err := WriteMetadataNoSync(root, "s1", m); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(pathsFor(root, "s1").Pid(), []byte(strconv.Itoa(pid)), 0o600)

	fast := listFastAsList(t, root, n)
	for _, s := range fast {
		i, _ := strconv.Atoi(s.ID[1:])
		if len(s.Meta.DisplayCommand) != i*37%9000 || strings.Trim(s.Meta.DisplayCommand, "x") != "" {
			t.Errorf("%s: displayCommand of %d bytes, want %d x's", s.ID, len(s.Meta.DisplayCommand), i*37%9000)
		}
		if want := map[bool]Status{true: Exited, false: Vanished}[i%2 == 0]; s.ID != "s1" && s.Status != want {
			t.Errorf("%s: %s, want %s", s.ID, s.Status, want)
		}
	}
	if fast[slices.IndexFunc(fast, func(s Session) bool { return s.ID == "s1" })].Status != Running {
		t.Errorf("s1 is not running")
	}
}

// listFastAsList lists root with listFast, failing unless it finds n
// sessions and agrees with List.
func listFastAsList(t *testing.T, root string, n int) []Session {
	t.Helper()
	slow, err := listSlow(root)
	if err != nil {
		t.Fatal(err)
	}
	fast, err := listFast(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(fast) != n || !reflect.DeepEqual(slow, fast) {
		t.Fatalf("listFast differs from List (%d sessions expected):\nList     %+v\nListFast %+v", n, slow, fast)
	}
	return fast
}

// listSlow reads every session one load at a time, the reference the one
// path (listFast) is compared with. A damaged record is listed with
// Damaged set; one removed while we read is skipped.
func listSlow(root string) ([]Session, error) {
	ids, err := idsWith(root, SuffixMeta)
	if err != nil {
		return nil, err
	}
	out := make([]Session, 0, len(ids))
	for _, id := range ids {
		s, err := load(root, id)
		if err != nil {
			continue
		}
		out = append(out, s)
	}
	return out, nil
}
