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
	if early := ahead(items, delay, o.Paste); early != nil {
		// Sent with the route's request: the host's ack and the data
		// do not wait on each other.
		c, done, err := o.Route(ref, early)
		if err != nil {
			return err
		}
		defer done()
		c.Raw().SetDeadline(time.Now().Add(SendTimeout))
		return confirm(c, ref, nil)
	}
	c, done, err := o.Route(ref, nil)
	if err != nil {
		return err
	}
	defer done()
	return SendOn(c, ref, items, delay, o.Paste)
}
