package layout

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// entries is one directory read of the root: which session files exist.
// Deriving status from it spares a failed open or lstat per file that is
// not there, which is most of them for stopped sessions.
type entries map[string]bool

func readEntries(root string) (entries, []string, error) {
	d, err := os.Open(root)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil, nil
		}
		return nil, nil, fmt.Errorf("read pty root %s: %w", root, err)
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, nil, fmt.Errorf("read pty root %s: %w", root, err)
	}
	ents := make(entries, len(names))
	var ids []string
	for _, n := range names {
		ents[n] = true
		if id := SessionIDFromMetaName(n); id != "" {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ents, ids, nil
}

// daemonAliveIn is DaemonAlive that trusts the directory read for files
// that do not exist: no pid file and no socket means no daemon, with no
// system call at all.
func daemonAliveIn(root, id, gen string, ents entries) (bool, int) {
	if !ents[id+SuffixPid] && !ents[id+SuffixSock] {
		return false, 0
	}
	if !ents[id+SuffixPid] {
		return DaemonAliveGen(root, id, gen) // socket only: the original pty's probe
	}
	b, err := readFileNoFollow(PathsFor(root, id).Pid())
	if err != nil {
		return DaemonAliveGen(root, id, gen) // removed since the directory read
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return DaemonAliveGen(root, id, gen)
	}
	return DaemonPidAlive(pid, root, id, gen), pid
}

// ListFast is List from a single read of the root directory, for callers
// that read the whole registry (list, stats, the picker): same sessions,
// same statuses, fewer system calls. A live session costs two reads: its
// record, and the /proc entry of the daemon the record names. Records are
// read by a few goroutines at once, since the time goes into system calls
// that can overlap.
func ListFast(root string) ([]Session, error) {
	ents, ids, err := readEntries(root)
	if err != nil {
		return nil, err
	}
	out := make([]Session, len(ids))
	ok := make([]bool, len(ids))
	workers := min(1+len(ids)/listBatch, listWorkers)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(listBatch)) - listBatch
				if i >= len(ids) {
					return
				}
				for j := i; j < min(i+listBatch, len(ids)); j++ {
					out[j], ok[j] = listOne(root, ids[j], ents)
				}
			}
		}()
	}
	wg.Wait()
	n := 0
	for i := range out {
		if ok[i] {
			out[n] = out[i]
			n++
		}
	}
	return out[:n], nil
}

// listBatch is how many records a ListFast goroutine takes at a time, and
// listWorkers how many goroutines read at most: enough to overlap system
// calls on a few cores, few enough that a small registry is read by one.
const (
	listBatch   = 16
	listWorkers = 4
)

// listOne reads one session for ListFast; ok is false when its record was
// removed since the directory read.
func listOne(root, id string, ents entries) (Session, bool) {
	m, err := readMetadataFast(root, id)
	var de *DamagedError
	if errors.As(err, &de) {
		// No generation to hold the daemon to: any daemon of this id
		// and root is the session's.
		alive, pid := daemonAliveIn(root, id, "", ents)
		return damagedSession(root, id, de.Reason, alive, pid), true
	}
	if err != nil {
		return Session{}, false
	}
	// The record names its daemon: when that pid proves to be the daemon
	// of this record (its arguments carry the id, the generation and the
	// root), the pid file has nothing to add. Anything else, and exited
	// records (which show the pid file's pid while it lasts), take the
	// pid file's word as before.
	if !m.Exited() && m.DaemonPid > 0 && m.Generation != "" && ents[id+SuffixPid] &&
		IdentifyDaemon(m.DaemonPid, root, id, m.Generation) == IsDaemon {
		return Session{ID: id, Meta: m, Pid: m.DaemonPid, Status: Running}, true
	}
	alive, pid := daemonAliveIn(root, id, m.Generation, ents)
	s := Session{ID: id, Meta: m, Pid: pid}
	switch {
	case m.Exited():
		s.Status = Exited
	case alive:
		s.Status = Running
	default:
		s.Status, s.Pid = Vanished, 0
	}
	return s, true
}

// readMetadataFast is ReadMetadata with the file read by bare system
// calls: os.ReadFile's stat, non-blocking setup and second read cost as
// much as the open on a slow-syscall machine.
func readMetadataFast(root, id string) (*Metadata, error) {
	b, err := readRecord(PathsFor(root, id).Meta())
	if err != nil {
		return nil, readMetaErr(id, err)
	}
	if err := checkRecordShape(id, b); err != nil {
		return nil, err
	}
	var m Metadata
	if err := m.decodeJSON(b); err != nil {
		return nil, &DamagedError{ID: id, Reason: damagedNotJSON, Err: err}
	}
	return &m, nil
}

func readFileRaw(path string) ([]byte, error) { return readFileFlags(path, 0) }

func readFileFlags(path string, flags int) ([]byte, error) {
	return readFileMax(path, flags, -1)
}

// readProcFile reads a /proc file whose contents the kernel hands over in
// one read when the buffer holds them (cmdline, stat): a read that does
// not fill the buffer is the whole file, which spares the read that would
// only confirm the end.
func readProcFile(path string) ([]byte, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	buf := make([]byte, 4096)
	n := 0
	for {
		m, err := syscall.Read(fd, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		n += m
		if m == 0 || n < len(buf) {
			return buf[:n], nil
		}
		buf = append(buf, make([]byte, len(buf))...)
	}
}

// errTooLarge is returned by readFileMax for a file over its bound.
var errTooLarge = errors.New("file too large")

// readFileMax reads at most max bytes (no bound when max < 0) and fails
// with errTooLarge past them, without reading more.
func readFileMax(path string, flags int, max int) ([]byte, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|flags, 0)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	buf := make([]byte, 0, 4096)
	for {
		if max >= 0 && len(buf) > max {
			return nil, errTooLarge
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}
