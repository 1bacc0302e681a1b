package web

import (
	"context"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/listing"
	"github.com/ptyorg/pty/pkg/proto"
)

// The list shows each running session's last lines, so a glance tells
// which build failed and which agent waits for an answer. They are
// peeked, not followed: one short read-only connection per session and
// interval, only while a list page is open, one session at a time.
const (
	// PreviewLines is how many lines of a session's screen the list
	// shows: its last ones that are not blank.
	PreviewLines = 3
	// PreviewWidth bounds a preview line, in characters.
	PreviewWidth = 120
	// PreviewInterval is how often the previews are taken.
	PreviewInterval = 2 * time.Second
	// MaxPreviews bounds the sessions previewed; the others show none.
	MaxPreviews = 32
	// previewTimeout bounds one peek; a session that does not answer
	// in time keeps its last preview.
	previewTimeout = time.Second
)

// previewLoop takes the previews every PreviewInterval while the list
// has viewers, and at once when the first comes.
func (r *registry) previewLoop(ctx context.Context) {
	tick := time.NewTicker(PreviewInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-r.kick:
		}
		r.mu.Lock()
		n := r.viewers
		r.mu.Unlock()
		if n == 0 {
			continue
		}
		if r.takePreviews(ctx) {
			r.refresh()
		}
	}
}

// takePreviews peeks the running sessions and reports whether a preview
// changed.
func (r *registry) takePreviews(ctx context.Context) bool {
	all, _ := layout.At(r.root).List()
	next := map[string][]string{}
	for _, s := range listing.Select(all, listing.Filter{}, time.Now()) {
		if ctx.Err() != nil {
			return false
		}
		if s.Shown() != layout.Running {
			continue
		}
		if len(next) == MaxPreviews {
			break
		}
		if lines, ok := peekLines(r.root, s.ID); ok {
			next[s.ID] = lines
		} else {
			r.mu.Lock()
			if old, ok := r.previews[s.ID]; ok {
				next[s.ID] = old
			}
			r.mu.Unlock()
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	changed := len(next) != len(r.previews)
	for id, l := range next {
		if !slices.Equal(r.previews[id], l) {
			changed = true
		}
	}
	r.previews = next
	return changed
}

// peekLines is the last PreviewLines lines of a session's screen that
// are not blank, each within PreviewWidth characters and escaped as
// `pty list` escapes text.
func peekLines(root, id string) ([]string, bool) {
	c, err := client.DialTimeout(root, id, previewTimeout)
	if err != nil {
		return nil, false
	}
	defer c.Close()
	c.Raw().SetDeadline(time.Now().Add(previewTimeout))
	snap, err := c.Peek(proto.PeekPlain)
	if err != nil {
		return nil, false
	}
	return lastLines(string(snap.Screen), PreviewLines, PreviewWidth), true
}

func lastLines(screen string, n, width int) []string {
	rows := strings.Split(screen, "\n")
	out := []string{}
	for i := len(rows) - 1; i >= 0 && len(out) < n; i-- {
		l := strings.TrimRight(rows[i], " \r")
		if l == "" {
			continue
		}
		if !utf8.ValidString(l) {
			l = strings.ToValidUTF8(l, "\uFFFD")
		}
		if utf8.RuneCountInString(l) > width {
			l = string([]rune(l)[:width-1]) + "…"
		}
		out = append(out, listing.Printable(l))
	}
	slices.Reverse(out)
	return out
}
