package daemon

import (
	"runtime/debug"
	"time"
)

// recountLocked brings c's share of the memory budget up to date after its
// buffers changed, and sheds load once the daemon holds more than
// MaxHeld.
func (d *Daemon) recountLocked(c *client) {
	if c.closed {
		return
	}
	n := cap(c.pending) + cap(c.spare) + cap(c.ctl) + c.inflight + c.buildHeld
	d.held += n - c.held
	c.held = n
	if d.held > MaxHeld {
		d.shedLocked()
	}
}

// shedLocked brings the output the daemon holds for its clients back under
// the budget, worst holder first: a live client whose queue is most of
// what it holds loses the queue and gets a fresh baseline when it next
// can take one (as one over MaxQueue does); any other, whose memory is in
// a write the peer does not take (or in replies it does not read), is
// disconnected.
func (d *Daemon) shedLocked() {
	if d.shedding {
		return // dropping a writer renegotiates, which queues
	}
	d.shedding = true
	defer func() { d.shedding = false }()
	freed := 0
	for d.held > MaxHeld*3/4 {
		var worst *client
		for o := range d.clients {
			if !o.closed && (worst == nil || o.held > worst.held) {
				worst = o
			}
		}
		if worst == nil || worst.held == 0 {
			break
		}
		before := d.held
		queued := cap(worst.pending) + cap(worst.spare)
		if len(worst.pending) == 0 && queued > 0 {
			// Only buffers kept for the next burst.
			worst.pending, worst.spare = nil, nil
			d.recountLocked(worst)
		} else if worst.live && queued >= worst.held/2 {
			worst.pending, worst.spare = nil, nil
			worst.overflow = true
			d.recountLocked(worst)
			d.wakeWriterLocked(worst)
		} else {
			d.dropLocked(worst)
		}
		freed += before - d.held
	}
	d.freed += freed
	if d.freed >= releaseAfter {
		d.releaseLocked()
	}
}

// releaseLocked hands memory freed by shedding or by clients leaving (d.freed
// bytes of it so far) back to the system soon, at most once a second: the
// runtime would keep it for a while otherwise, and a daemon lives long.
func (d *Daemon) releaseLocked() {
	if d.releasing {
		return
	}
	d.releasing = true
	wait := time.Until(d.released.Add(time.Second))
	time.AfterFunc(max(wait, 100*time.Millisecond), func() {
		d.mu.Lock()
		d.releasing, d.freed, d.released = false, 0, time.Now()
		d.mu.Unlock()
		debug.FreeOSMemory()
	})
}
