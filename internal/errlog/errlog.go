// Package errlog is a session daemon's error log, <id>.daemon.log in the
// registry (docs/disk-layout.md). The daemon writes the session's record
// and events off its output path, where a failure has no caller to report
// to: an event that cannot be appended (a full disk, a damaged log), a
// metadata update or a lock that fails. Each such failure is a line here,
// so that it leaves a trace that pty stats reports.
//
// The log is bounded: a line is at most MaxLine bytes, and once the file
// would pass MaxBytes it becomes <id>.daemon.log.1 (replacing the one
// before) and a new file starts; the two hold at most 2*MaxBytes. It is
// linked by pty-daemon, so it uses neither fmt nor reflection.
package errlog

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/ptyorg/pty/internal/fsx"
	"github.com/ptyorg/pty/pkg/layout"
)

// Limits of the log.
const (
	MaxBytes = 64 << 10
	MaxLine  = 1 << 10
)

// Log appends to one session's error log. It is safe for concurrent use;
// its lock is a leaf (Record takes no other).
type Log struct {
	path, old string
	now       func() time.Time

	mu sync.Mutex // serialises a record's size check, rotation and write
}

// New returns the log of session id under root; nothing is touched on
// disk until a failure is recorded.
func New(root, id string) *Log {
	p := layout.At(root).Paths(id)
	return &Log{path: p.DaemonLog(), old: p.DaemonLogOld(), now: time.Now}
}

// Record appends a line saying that what failed with err: the time (RFC
// 3339, UTC), what, a colon and the error, on one line cut to MaxLine
// bytes. A nil err records nothing. A log that cannot be written (the
// disk that made the failure may be full) loses the line: there is
// nowhere else for it.
func (l *Log) Record(what string, err error) {
	if err == nil {
		return
	}
	line := line(l.now(), what, err)
	l.mu.Lock()
	defer l.mu.Unlock()
	f, err := fsx.OpenNoFollow(l.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	if fi, err := f.Stat(); err == nil && fi.Size()+int64(len(line)) > MaxBytes {
		f.Close()
		// The file just opened is no link (O_NOFOLLOW), and a rename
		// replaces whatever is at the old name, a link included,
		// without following it.
		if os.Rename(l.path, l.old) != nil {
			return
		}
		if f, err = fsx.OpenNoFollow(l.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600); err != nil {
			return
		}
	}
	f.Write(line)
	f.Close()
}

// line is a record's line, newline included.
func line(t time.Time, what string, err error) []byte {
	s := layout.FormatTime(t) + " " + what + ": " + err.Error()
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, s)
	if len(s) > MaxLine-1 {
		s = strings.ToValidUTF8(s[:MaxLine-1-len("...")], "") + "..."
	}
	return []byte(s + "\n")
}

// Count returns how many failures the log of session id under root
// holds (its file and the previous one) and the file's path. A missing
// log holds none.
func Count(root, id string) (n int, path string, err error) {
	p := layout.At(root).Paths(id)
	for _, f := range []string{p.DaemonLogOld(), p.DaemonLog()} {
		k, err := countLines(f)
		if err != nil {
			return 0, p.DaemonLog(), err
		}
		n += k
	}
	return n, p.DaemonLog(), nil
}

func countLines(path string) (int, error) {
	f, err := fsx.OpenNoFollow(path, os.O_RDONLY, 0)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	// The daemon keeps the file under MaxBytes; one written by anything
	// else is read only that far.
	b, err := io.ReadAll(io.LimitReader(f, 2*MaxBytes))
	if err != nil {
		return 0, err
	}
	return bytes.Count(b, []byte{'\n'}), nil
}
