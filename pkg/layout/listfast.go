package layout

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
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
// same statuses, fewer system calls.
func ListFast(root string) ([]Session, error) {
	ents, ids, err := readEntries(root)
	if err != nil {
		return nil, err
	}
	out := make([]Session, 0, len(ids))
	for _, id := range ids {
		m, err := readMetadataFast(root, id)
		var de *DamagedError
		if errors.As(err, &de) {
			// No generation to hold the daemon to: any daemon of this id
			// and root is the session's.
			alive, pid := daemonAliveIn(root, id, "", ents)
			out = append(out, damagedSession(root, id, de.Reason, alive, pid))
			continue
		}
		if err != nil {
			continue // removed since the directory read
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
		out = append(out, s)
	}
	return out, nil
}

// readMetadataFast is ReadMetadata for bulk reads. Most records hold only
// known fields, so one strict decode usually does it; a record with
// unknown fields falls back to the full decode that keeps them in Extra.
// (Unlike ReadMetadata, a known field spelled in another letter case is
// not also kept in Extra: nothing writes such records.) The file is read
// with bare system calls: os.ReadFile's stat, non-blocking setup and
// second read cost as much as the open on a slow-syscall machine.
func readMetadataFast(root, id string) (*Metadata, error) {
	b, err := readRecord(PathsFor(root, id).Meta())
	if err != nil {
		return nil, readMetaErr(id, err)
	}
	if err := checkRecordShape(id, b); err != nil {
		return nil, err
	}
	var a metadataAlias
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if dec.Decode(&a) == nil && !dec.More() {
		m := Metadata(a)
		return &m, nil
	}
	var m Metadata
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, &DamagedError{ID: id, Reason: damagedNotJSON, Err: err}
	}
	return &m, nil
}

func readFileRaw(path string) ([]byte, error) { return readFileFlags(path, 0) }

func readFileFlags(path string, flags int) ([]byte, error) {
	return readFileMax(path, flags, -1)
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
