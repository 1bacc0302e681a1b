package send

import (
	"time"

	"github.com/ptyorg/pty/pkg/cli"
)

// sendRouted is Run's end for a session on another host: the same items
// over a route, confirmed the same way.
func sendRouted(o Options, io cli.IO, ref, from string, items []Item, delay time.Duration) error {
	if from != "" {
		r, closeFrom, err := openFrom(from, io)
		if err != nil {
			return err
		}
		defer closeFrom()
		items = []Item{{From: r}}
	}
	c, done, err := o.Route(ref, nil)
	if err != nil {
		return err
	}
	defer done()
	return SendOn(c, ref, items, delay, o.Paste)
}
