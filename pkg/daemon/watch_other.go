//go:build !linux

package daemon

import "time"

// fileWatch looks every pollEvery where there is no inotify: kqueue
// needs an open descriptor per file, which a socket's path cannot give.
type fileWatch struct{ poll poller }

func newFileWatch() *fileWatch { return &fileWatch{poll: newPoller()} }

func (w *fileWatch) arm(root string, files ...string) {}

// next waits until it is time to look, timeout passes (0: no limit) or
// wake is called, and reports whether it is time to look.
func (w *fileWatch) next(timeout time.Duration) bool { return w.poll.next(timeout) }

// wake makes next return now, or the next call at once; any goroutine's.
func (w *fileWatch) wake() { w.poll.wake() }

func (w *fileWatch) close() { w.poll.stop() }
