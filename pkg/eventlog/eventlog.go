// Package eventlog reads and follows sessions' event logs
// (<id>.events.jsonl) the way `tail -f` would, but driven by filesystem
// notifications instead of polling, and without losing or repeating a line
// when retention rewrites a log (which replaces the file: its inode changes).
package eventlog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/fsnotify/fsnotify"
	"github.com/ptyorg/pty/internal/fsx"
	"github.com/ptyorg/pty/pkg/layout"
)

// Line is one complete line of a session's event log.
type Line struct {
	ID    string       // the session, from the log's file name
	Raw   []byte       // the line as written, without its newline
	Event layout.Event // parsed; Event.Type is "" when the line is not an event
}

// Valid reports whether the line parsed as an event.
func (l Line) Valid() bool { return l.Event.Type != "" }

// Session is the event's session field, or the log's id when it has none.
func (l Line) Session() string {
	if l.Event.Session != "" {
		return l.Event.Session
	}
	return l.ID
}

func parseLine(id string, raw []byte) Line {
	l := Line{ID: id, Raw: append([]byte(nil), raw...)}
	if err := l.Event.UnmarshalJSON(raw); err != nil {
		l.Event = layout.Event{}
	}
	return l
}

func readLog(root, id string) ([]Line, error) {
	b, err := fsx.ReadFileNoFollow(layout.At(root).Paths(id).Events())
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("read events of %s: %w", id, err)
	}
	// A last line without its newline is still being written.
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	} else {
		b = nil
	}
	var out []Line
	for _, raw := range bytes.Split(b, []byte{'\n'}) {
		if l := parseLine(id, raw); l.Valid() {
			out = append(out, l)
		}
	}
	return out, nil
}

// Recent returns the last n events of session id, oldest first. Lines that
// are not events (cut by a crash) are skipped.
func Recent(root, id string, n int) ([]Line, error) {
	lines, err := readLog(root, id)
	if err != nil {
		return nil, err
	}
	return lastN(lines, n), nil
}

// RecentAll returns the last n events across every session under root,
// ordered by timestamp (each log's own order is kept for equal stamps).
func RecentAll(root string, n int) ([]Line, error) {
	ids, err := layout.At(root).LogIDs()
	if err != nil {
		return nil, err
	}
	var all []Line
	for _, id := range ids {
		lines, err := readLog(root, id)
		if err != nil {
			return nil, err
		}
		all = append(all, lastN(lines, n)...)
	}
	sort.SliceStable(all, func(i, j int) bool {
		return layout.ParseTime(all[i].Event.TS).Before(layout.ParseTime(all[j].Event.TS))
	})
	return lastN(all, n), nil
}

func lastN(lines []Line, n int) []Line {
	if n >= 0 && len(lines) > n {
		return lines[len(lines)-n:]
	}
	return lines
}

// ErrStop, returned by a Follow callback, ends Follow without error.
var ErrStop = errors.New("stop following")

// errWatcherClosed: the file watcher a follow reads closed its channels.
var errWatcherClosed = errors.New("follow events: the watcher closed")

// Follower follows event logs under Root.
type Follower struct {
	Root string
	// IDs are the sessions to follow. Empty means every session under
	// Root, including sessions whose log appears after Follow starts.
	IDs []string
	// Ready, if set, is called once the watch is in place: every line
	// appended after it returns is delivered.
	Ready func()
	// Ended, if set with IDs, is asked once the watch is in place and
	// again whenever a followed session's record changes or goes; when it
	// reports true, Follow delivers what the followed logs still hold and
	// returns nil. atStart tells the first call from the others.
	Ended func(atStart bool) bool
}

// logState is one followed log: the open file (which keeps the old inode
// readable after a rewrite replaces the name) and how far it was delivered.
type logState struct {
	f   *os.File
	fi  os.FileInfo
	off int64  // where the first undelivered line starts
	end []byte // the last delivered line with its newline, to spot in-place rewrites
}

type follower struct {
	root string
	want map[string]bool // nil: all
	logs map[string]*logState
	fn   func(Line) error
}

// Follow delivers, in order, every line appended to the followed logs after
// it starts, until ctx is done (it then returns nil) or fn returns an error
// (returned, except ErrStop). It reacts to filesystem notifications on the
// root directory; it never polls.
//
// When retention replaces a log (atomic rename of its newest lines), the old
// file is drained through its still-open descriptor, and reading resumes in
// the new file right after the part it copied from the old one, so no line
// is lost and none is delivered twice.
func (f Follower) Follow(ctx context.Context, fn func(Line) error) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("follow events: %w", err)
	}
	defer w.Close()
	// The watch goes in before the logs are opened, so a line written in
	// between is seen by one or the other.
	if err := w.Add(f.Root); err != nil {
		return fmt.Errorf("follow events in %s: %w", f.Root, err)
	}
	fo := &follower{root: f.Root, logs: map[string]*logState{}, fn: fn}
	defer fo.closeAll()
	ids := f.IDs
	if len(ids) > 0 {
		fo.want = map[string]bool{}
		for _, id := range ids {
			fo.want[id] = true
		}
	} else if ids, err = layout.At(f.Root).LogIDs(); err != nil {
		return err
	}
	for _, id := range ids {
		if err := fo.sync(id, true); err != nil {
			return stopped(err)
		}
	}
	if f.Ready != nil {
		f.Ready()
	}
	ended := func(atStart bool) bool { return f.Ended != nil && fo.want != nil && f.Ended(atStart) }
	if ended(true) {
		return stopped(fo.syncWanted())
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return errWatcherClosed
			}
			name := filepath.Base(ev.Name)
			if id := layout.IDFromName(name, layout.SuffixMeta); id != "" && fo.want[id] && ended(false) {
				return stopped(fo.syncWanted())
			}
			id := layout.IDFromName(name, layout.SuffixEvents)
			if id == "" || (fo.want != nil && !fo.want[id]) {
				continue
			}
			if err := fo.sync(id, false); err != nil {
				return stopped(err)
			}
		case err, ok := <-w.Errors:
			if !ok {
				return errWatcherClosed
			}
			if !errors.Is(err, fsnotify.ErrEventOverflow) {
				return fmt.Errorf("follow events: %w", err)
			}
			// The kernel dropped notifications: look at everything.
			if err := fo.rescan(); err != nil {
				return stopped(err)
			}
		}
	}
}

// syncWanted brings every followed log up to date.
func (fo *follower) syncWanted() error {
	for id := range fo.want {
		if err := fo.sync(id, false); err != nil {
			return err
		}
	}
	return nil
}

func stopped(err error) error {
	if errors.Is(err, ErrStop) {
		return nil
	}
	return err
}

func (fo *follower) rescan() error {
	ids, err := layout.At(fo.root).LogIDs()
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, id := range ids {
		seen[id] = true
		if fo.want == nil || fo.want[id] {
			if err := fo.sync(id, false); err != nil {
				return err
			}
		}
	}
	for id := range fo.logs {
		if !seen[id] {
			if err := fo.sync(id, false); err != nil {
				return err
			}
		}
	}
	return nil
}

func (fo *follower) closeAll() {
	for _, st := range fo.logs {
		st.f.Close()
	}
}

// sync brings one log up to date. atStart means the log existed when Follow
// began, so its existing lines are history, not news.
func (fo *follower) sync(id string, atStart bool) error {
	path := layout.At(fo.root).Paths(id).Events()
	st := fo.logs[id]
	fi, err := os.Stat(path)
	if err != nil {
		if st != nil {
			// Removed (pty rm): deliver what it still held; a log
			// created later under this id is a new session's.
			derr := fo.drain(id, st)
			st.f.Close()
			delete(fo.logs, id)
			return derr
		}
		return nil
	}
	if st == nil {
		nf, err := fsx.OpenNoFollow(path, os.O_RDONLY, 0)
		if err != nil {
			return nil // gone again; its next notification brings it back
		}
		nfi, err := nf.Stat()
		if err != nil {
			nf.Close()
			return nil
		}
		st = &logState{f: nf, fi: nfi}
		if atStart {
			st.off = completeLinesEnd(nf, nfi.Size())
			st.end = lineBefore(nf, st.off)
		}
		fo.logs[id] = st
		return fo.drain(id, st)
	}
	if os.SameFile(fi, st.fi) {
		return fo.drain(id, st)
	}
	// Replaced: finish the old file first, then continue in the new one
	// after what the two have in common.
	if err := fo.drain(id, st); err != nil {
		return err
	}
	nf, err := fsx.OpenNoFollow(path, os.O_RDONLY, 0)
	if err != nil {
		return nil
	}
	nfi, err := nf.Stat()
	if err != nil {
		nf.Close()
		return nil
	}
	old := make([]byte, st.off)
	n, _ := st.f.ReadAt(old, 0)
	neu := make([]byte, nfi.Size())
	m, _ := nf.ReadAt(neu, 0)
	st.f.Close()
	off := ResumeOffset(old[:n], neu[:m])
	st.f, st.fi, st.off, st.end = nf, nfi, int64(off), lineBefore(nf, int64(off))
	return fo.drain(id, st)
}

// drain delivers the complete lines from st.off to the end of the open file.
func (fo *follower) drain(id string, st *logState) error {
	fi, err := st.f.Stat()
	if err != nil {
		return nil
	}
	size := fi.Size()
	if size < st.off || !bytes.Equal(lineBefore(st.f, st.off), st.end) {
		// Rewritten in place (truncated or cleared and refilled): all of
		// what is there now is new to us.
		st.off, st.end = 0, nil
	}
	if size == st.off {
		return nil
	}
	buf := make([]byte, size-st.off)
	n, err := st.f.ReadAt(buf, st.off)
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("read events of %s: %w", id, err)
	}
	buf = buf[:n]
	last := bytes.LastIndexByte(buf, '\n')
	if last < 0 {
		return nil // the writer is mid-line; its next notification finishes it
	}
	done := buf[:last+1]
	var start int
	for start < len(done) {
		i := bytes.IndexByte(done[start:], '\n')
		raw := done[start : start+i]
		lineEnd := start + i + 1
		st.off += int64(lineEnd - start)
		st.end = append(st.end[:0], done[start:lineEnd]...)
		start = lineEnd
		if len(raw) == 0 {
			continue
		}
		if err := fo.fn(parseLine(id, raw)); err != nil {
			return err
		}
	}
	return nil
}

// completeLinesEnd returns the offset just past the last newline before
// size, so following starts at a line boundary even when a writer is
// mid-line.
func completeLinesEnd(f *os.File, size int64) int64 {
	const chunk = 4096
	for end := size; end > 0; {
		start := max(end-chunk, 0)
		buf := make([]byte, end-start)
		n, _ := f.ReadAt(buf, start)
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return start + int64(i) + 1
		}
		end = start
	}
	return 0
}

// lineBefore returns the line (with its newline) that ends at off, or nil.
func lineBefore(f *os.File, off int64) []byte {
	if off <= 0 {
		return nil
	}
	const chunk = 4096
	var line []byte
	for end := off - 1; ; {
		start := max(end-chunk, 0)
		buf := make([]byte, end-start)
		n, _ := f.ReadAt(buf, start)
		buf = buf[:n]
		if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
			line = append(append([]byte(nil), buf[i+1:]...), line...)
			break
		}
		line = append(append([]byte(nil), buf...), line...)
		if start == 0 {
			break
		}
		end = start
	}
	tail := make([]byte, 1)
	if n, _ := f.ReadAt(tail, off-1); n != 1 || tail[0] != '\n' {
		return []byte{0} // off is not a line boundary: never matches a real line
	}
	return append(line, '\n')
}

// ResumeOffset says where to continue in a rewritten log neu, having
// delivered old (complete lines) from the log it replaced. Retention keeps
// the newest lines byte for byte, so neu starts with a suffix of old; the
// offset is the length of that suffix. A suffix of exactly
// layout.EventsKeepLines lines is what one retention pass leaves and wins;
// otherwise the longest suffix does. When neu shares nothing with old (a
// log cleared by a new daemon), everything in it is new and the offset is 0.
func ResumeOffset(old, neu []byte) int {
	nl := bytes.IndexByte(neu, '\n')
	if len(old) == 0 || nl < 0 {
		return 0
	}
	first := neu[:nl+1]
	best := -1
	for s := 0; s < len(old); {
		rest := old[s:]
		if bytes.HasPrefix(rest, first) && bytes.HasPrefix(neu, rest) {
			if bytes.Count(rest, []byte{'\n'}) == layout.EventsKeepLines {
				return len(rest)
			}
			if best < 0 {
				best = len(rest)
			}
		}
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			break
		}
		s += i + 1
	}
	return max(best, 0)
}
