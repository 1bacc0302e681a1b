package daemon

import (
	"errors"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/term"
)

// onEventLocked turns emulator events into event-log entries.
func (d *Daemon) onEventLocked(e term.Event) {
	d.noteActivityLocked(e.Type)
	var ev layout.Event
	switch e.Type {
	case layout.EventBell:
		now := time.Now()
		if now.Sub(d.lastBell) < bellInterval {
			return // a bell storm is one event, not thousands of lines
		}
		d.lastBell = now
		ev = layout.NewEvent(d.id, e.Type)
	case layout.EventTitleChange:
		if e.Value == d.title {
			return
		}
		d.title = e.Value
		ev = layout.NewEvent(d.id, e.Type, "value", e.Value)
	case layout.EventNotification:
		ev = layout.NewEvent(d.id, e.Type, "source", e.Source)
		if e.Title != "" {
			ev.Fields["title"] = e.Title
		}
		if e.Body != "" {
			ev.Fields["body"] = e.Body
		}
	case layout.EventFocusRequest:
		ev = layout.NewEvent(d.id, e.Type)
	case layout.EventCursorVisible:
		ev = layout.NewEvent(d.id, e.Type, "value", e.Value == "true")
	default:
		return
	}
	select {
	case d.events <- ev:
		d.wakeRecorder()
	default: // the disk is behind; dropping an event beats stalling output
	}
}

// wakeRecorder starts recordLoop unless it runs or the session is
// ending; whoever queued work for it (events, kick, attached, act.kick)
// calls it after the send. recordLoop exits once it has nothing to do:
// an idle session keeps no goroutine for its record.
func (d *Daemon) wakeRecorder() {
	d.recMu.Lock()
	if !d.recRunning && !d.recStopped {
		d.recRunning = true
		d.bgDone.Add(1)
		go d.recordLoop()
	}
	d.recMu.Unlock()
}

// recordIdle reports whether recordLoop may exit: nothing is queued for
// it and it watches no output (armed: its timer runs). Checked under
// recMu, so a send that came before a wakeRecorder that found the loop
// still running is seen here.
func (d *Daemon) recordIdle(armed bool) bool {
	d.recMu.Lock()
	defer d.recMu.Unlock()
	if armed || len(d.events) > 0 || len(d.kick) > 0 || len(d.attached) > 0 || len(d.act.kick) > 0 {
		return false
	}
	d.recRunning = false
	return true
}

// stopRecorder stops recordLoop for good, waits for it, then appends the
// events still queued.
func (d *Daemon) stopRecorder() {
	d.recMu.Lock()
	d.recStopped = true
	d.recMu.Unlock()
	close(d.stop)
	d.bgDone.Wait()
	for {
		select {
		case ev := <-d.events:
			if d.writable() {
				d.recordErr("append events", layout.At(d.root).AppendEvents(d.id, ev))
			}
		default:
			return
		}
	}
}

// noteOutput records n bytes of output from the child. The first output
// after a quiet spell wakes recordLoop; the rest cost two atomic operations,
// so the read loop stays cheap and an idle daemon is never woken by timers.
func (d *Daemon) noteOutput(n int) {
	d.lastOutput.Store(time.Now().UnixMilli())
	d.outBytes.Add(int64(n))
	if !d.watching.Load() && d.watching.CompareAndSwap(false, true) {
		select {
		case d.kick <- struct{}{}:
		default:
		}
		d.wakeRecorder()
	}
}

// recordLoop appends the events and persists lastAttachAt, lastOutputAt
// and the activity markers off the I/O path, and hands memory back to
// the system once a burst of output is over. It runs a timer only while
// output is flowing or not yet persisted, and runs at all only while it
// has one of these to do (see wakeRecorder).
func (d *Daemon) recordLoop() {
	defer d.bgDone.Done()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	armed := false           // the timer runs
	var saved, savedAt int64 // lastOutput persisted, and when (ms)
	for !d.recordIdle(armed) {
		select {
		case ev := <-d.events:
			batch := []layout.Event{ev}
			for len(batch) < 64 {
				select {
				case e := <-d.events:
					batch = append(batch, e)
					continue
				default:
				}
				break
			}
			if d.writable() { // not when the log is another generation's now, or its root gone
				d.recordErr("append events", layout.At(d.root).AppendEvents(d.id, batch...))
			}
		case <-d.kick:
			timer.Reset(quietAfter)
			armed = true
		case <-timer.C:
			armed = false
			now := time.Now().UnixMilli()
			lo := d.lastOutput.Load()
			if lo > saved && now-savedAt >= outputPersist.Milliseconds() {
				saved, savedAt = lo, now
				err := d.update(func(m *layout.Metadata) bool {
					m.LastOutputAt = layout.FormatTime(time.UnixMilli(lo))
					return true
				})
				d.recordErr("update lastOutputAt", err)
			}
			if quiet := time.Duration(now-lo) * time.Millisecond; quiet < quietAfter {
				timer.Reset(quietAfter - quiet)
				armed = true
				continue
			}
			// The burst is over. Its garbage (copies of the output on
			// the way to the emulator, grown buffers) would otherwise
			// stay resident until the next GC, which an idle session
			// may never run; a trickle of output is not worth a GC.
			// Back to one processor first, so that what the others'
			// caches held is free by then.
			d.mu.Lock()
			d.fitProcsLocked(false)
			d.mu.Unlock()
			if d.outBytes.Load() >= trimAfter {
				d.outBytes.Store(0)
				d.trimClients()
				debug.FreeOSMemory()
			}
			if lo > saved {
				timer.Reset(time.Duration(savedAt+outputPersist.Milliseconds()-now) * time.Millisecond)
				armed = true
				continue
			}
			// Stop watching, then look once more: output that came in
			// meanwhile found watching still set and did not kick.
			d.watching.Store(false)
			if d.lastOutput.Load() != lo && d.watching.CompareAndSwap(false, true) {
				timer.Reset(quietAfter)
				armed = true
			}
		case <-d.attached:
			marks := d.activityMarks()
			err := d.update(func(m *layout.Metadata) bool {
				m.LastAttachAt = layout.Now()
				setActivity(m, marks)
				return true
			})
			d.recordErr("update lastAttachAt", err)
		case <-d.act.kick:
			d.writeActivity()
		case <-d.stop:
			timer.Stop()
			return
		}
	}
}

// update changes our metadata unless the record now belongs to another
// generation (replaced while we ran).
func (d *Daemon) update(fn func(m *layout.Metadata) bool, evs ...layout.Event) error {
	switch {
	case d.repub.orphaned.Load():
		return nil // the record is another generation's
	case !d.rootOurs():
		// Worth retrying (the exit): pty recover may give the root back.
		return errRootGone
	case !d.writable():
		return layout.ErrNotFound // as the Update would say, without its locks' files
	}
	_, err := layout.At(d.root).Update(d.id, func(m *layout.Metadata) ([]layout.Event, error) {
		if m.Generation != d.gen || !fn(m) {
			return nil, layout.ErrNoChange
		}
		return evs, nil
	})
	return err
}

// errRootGone: the daemon's root was removed or replaced (rootOurs).
var errRootGone = errors.New("the root directory was removed or replaced: run pty recover")

// recordExit runs write, the exit's write into the record, until it
// succeeds or exitRecordWait has passed, waiting longer after each
// failure (up to exitRetryMax). A full disk or a lock held by a stuck
// writer must not lose the exit: while it lasts the daemon stays, its
// socket answering every client with the final screen and EXIT (and
// STATUS with the exit code), the only place the exit is known. A record
// that is gone or damaged will not take it however long we wait: it gets
// three tries.
func (d *Daemon) recordExit(write func() error) {
	deadline := time.Now().Add(exitRecordWait)
	wait := exitRetryMin
	for try := 1; ; try++ {
		err := write()
		if err == nil {
			return
		}
		d.recordErr("record the exit", err)
		if (errors.Is(err, layout.ErrNotFound) || errors.Is(err, layout.ErrDamaged)) && try >= 3 {
			return // no record to write it into, after a few tries in case it is being replaced
		}
		if !time.Now().Add(wait).Before(deadline) {
			os.Stderr.WriteString("pty-daemon " + d.id + ": the exit could not be recorded within " + exitRecordWait.String() + ", giving up: " + err.Error() + "\n")
			d.recordErr("record the exit", errors.New("gave up after "+exitRecordWait.String()))
			return
		}
		if d.backstop != nil {
			d.backstop.Reset(wait + shutdownBackstop)
		}
		time.Sleep(wait)
		wait = min(2*wait, exitRetryMax)
	}
}

// unclaim undoes claim after the child failed to start.
func (d *Daemon) unclaim() {
	d.ln.Load().Close()
	err := layout.At(d.root).Locked(d.id, 5*time.Second, func() error {
		d.removeOwned()
		if m, err := layout.At(d.root).Metadata(d.id); err == nil && m.Generation == d.gen {
			removeRecord(layout.At(d.root).Paths(d.id))
		}
		return nil
	})
	d.recordErr("lock the record to remove the session", err)
}

// removeRecord removes a session's record: its metadata, its events and
// the daemon's error log about them.
func removeRecord(p layout.Paths) {
	os.Remove(p.Meta())
	os.Remove(p.Events())
	os.Remove(p.DaemonLog())
	os.Remove(p.DaemonLogOld())
}

// recordErr records in the session's error log that what failed with err
// (nothing for a nil err). A record that is gone takes no log: there is
// no session to report it for, and the log would be left behind.
func (d *Daemon) recordErr(what string, err error) {
	if err == nil || errors.Is(err, layout.ErrNotFound) || !d.writable() {
		return
	}
	d.log.Record(what, err)
}

// removeSock removes the socket if it is still our inode.
func (d *Daemon) removeSock() {
	p := layout.At(d.root).Paths(d.id)
	var st unix.Stat_t
	if unix.Lstat(p.Sock(), &st) == nil && uint64(st.Ino) == d.sockIno.Load() {
		os.Remove(p.Sock())
	}
}

// removeOwned removes the socket if it is still our inode and the pid file
// if it still names us: a replacement daemon's files are not ours.
func (d *Daemon) removeOwned() {
	d.removeSock()
	p := layout.At(d.root).Paths(d.id)
	if layout.At(d.root).Pid(d.id) == os.Getpid() {
		os.Remove(p.Pid())
	}
}

func trimLines(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) > lastLinesMax {
		lines = lines[len(lines)-lastLinesMax:]
	}
	return lines
}

// ShouldReap is the reap policy applied when a session ends, with tags as
// re-read from disk. killed is an external stop (pty kill): the record is
// kept then, so the session can be inspected and restarted, unless it is
// ephemeral. A failure (code not 0: an exit status, or 128+N for a
// signal) that nothing above decides for is kept too, so whoever started
// it can see why it died; only an explicit PTY_REAP_ON_EXIT or keep=false
// asks for it to go.
func ShouldReap(tags map[string]string, ephemeral, killed bool, reapEnv string, code int) bool {
	_, keepSet := tags[layout.TagKeep]
	if layout.Keep(tags) {
		return false
	}
	if ephemeral {
		return true
	}
	if killed {
		return false
	}
	if layout.Truthy(tags[layout.TagCleanupOnCleanExit]) {
		return code == 0
	}
	if layout.Permanent(tags) {
		return false
	}
	if layout.Falsy(reapEnv) {
		return false
	}
	if reapEnv != "" || keepSet {
		return true
	}
	return code == 0
}
