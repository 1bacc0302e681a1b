package send

import (
	"time"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/lifecycle"
)

// sendRouted is Run's end for a session on another host: the same items
// over a route, confirmed the same way.
func sendRouted(o Options, io cli.IO, ref, from string, items []lifecycle.Item, delay time.Duration) error {
	if from != "" {
		r, closeFrom, err := openFrom(from, io)
		if err != nil {
			return err
		}
		defer closeFrom()
		items = []lifecycle.Item{{From: r}}
	}
	c, done, err := o.Route(ref, nil)
	if err != nil {
		return err
	}
	defer done()
	return lifecycle.SendOn(c, ref, items, delay, o.Paste)
}
