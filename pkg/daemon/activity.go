package daemon

import (
	"slices"

	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/proto"
)

// Activity markers (docs/disk-layout.md, "activity"): a bell or a desktop
// notification while nobody watches the session is kept in its record, so
// that every listing shows the session wants attention, until someone
// attaches or follows it. The record is written when a marker appears,
// never per bell: a program that rings a million bells costs one write.

// The markers as bits, in layout.ActivityMarkers' order.
const (
	actBell uint8 = 1 << iota
	actNotified
)

// activity is the daemon's side of the markers. marks is guarded by
// Daemon.mu; kick (capacity 1) wakes recordLoop to write them.
type activity struct {
	marks uint8 // what the record is to hold
	kick  chan struct{}
}

func newActivity() activity { return activity{kick: make(chan struct{}, 1)} }

// noteActivityLocked marks an emulator event nobody was there to see.
// It runs for every bell the program rings, so it does nothing once the
// marker is set.
func (d *Daemon) noteActivityLocked(e string) {
	var bit uint8
	switch e {
	case layout.EventBell:
		bit = actBell
	case layout.EventNotification:
		bit = actNotified
	default:
		return
	}
	if d.act.marks&bit != 0 || d.watchedLocked() {
		return
	}
	d.act.marks |= bit
	select {
	case d.act.kick <- struct{}{}:
	default:
	}
	d.wakeRecorder()
}

// watchedLocked reports whether someone watches the session: a client
// attached (writable), or a follower (a PEEK with the follow bit: pty
// attach -R, pty peek -f, a pty web session page). A one-shot peek is a
// look, often a script's, not someone watching.
func (d *Daemon) watchedLocked() bool {
	if d.writers > 0 {
		return true
	}
	for c := range d.clients {
		if watching(c) {
			return true
		}
	}
	return false
}

func watching(c *client) bool {
	return !c.closed && (c.role == roleWritable || c.role == roleReadonly && c.flags&proto.PeekFollow != 0)
}

// seenLocked is called when a client begins watching (see watchedLocked):
// what the session did is seen now, and recordLoop records the attach
// (lastAttachAt) and the cleared markers in one write.
func (d *Daemon) seenLocked() {
	d.act.marks = 0
	select {
	case d.attached <- struct{}{}:
	default:
	}
	d.wakeRecorder()
}

// activityMarks returns the markers the record is to hold, as it holds
// them.
func (d *Daemon) activityMarks() []string {
	d.mu.Lock()
	marks := d.act.marks
	d.mu.Unlock()
	var out []string
	if marks&actBell != 0 {
		out = append(out, layout.ActivityBell)
	}
	if marks&actNotified != 0 {
		out = append(out, layout.ActivityNotified)
	}
	return out
}

// setActivity puts marks into m; false when m holds them already.
func setActivity(m *layout.Metadata, marks []string) bool {
	if slices.Equal(m.Activity, marks) {
		return false
	}
	m.Activity = marks
	return true
}

// writeActivity brings the record's markers up to date (recordLoop's).
func (d *Daemon) writeActivity() {
	marks := d.activityMarks()
	err := d.update(func(m *layout.Metadata) bool { return setActivity(m, marks) })
	d.recordErr("update activity", err)
}
