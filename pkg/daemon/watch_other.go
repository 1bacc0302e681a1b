//go:build !linux

package daemon

import "time"

// fileWatch looks every pollEvery where there is no inotify: kqueue
// needs an open descriptor per file, which a socket's path cannot give.
type fileWatch struct {
	t *time.Ticker
	C <-chan time.Time
}

func newFileWatch() *fileWatch {
	t := time.NewTicker(pollEvery)
	return &fileWatch{t: t, C: t.C}
}

func (w *fileWatch) arm(root string, files ...string) {}

func (w *fileWatch) close() { w.t.Stop() }
