package daemon

import (
	"testing"

	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/proto"
)

// BenchmarkBellHook is what each BEL the program writes costs the daemon
// beyond the emulator, by who watches: nobody (the marker is set by the
// first bell), followers only (each bell looks for one), or an attached
// client. Run with
//
//	go test -run '^$' -bench BellHook ./pkg/daemon/
func BenchmarkBellHook(b *testing.B) {
	for _, bc := range []struct {
		name              string
		writers, watchers int
		peeks             int
	}{
		{"nobody", 0, 0, 0},
		{"nobody-8-peeks", 0, 0, 8},
		{"follower-behind-8-peeks", 0, 1, 8},
		{"attached", 1, 0, 0},
	} {
		b.Run(bc.name, func(b *testing.B) {
			d := &Daemon{clients: map[*client]struct{}{}, act: newActivity(), attached: make(chan struct{}, 1)}
			for range bc.peeks {
				d.clients[&client{role: roleReadonly}] = struct{}{}
			}
			for range bc.watchers {
				d.clients[&client{role: roleReadonly, flags: proto.PeekFollow}] = struct{}{}
			}
			for range bc.writers {
				d.clients[&client{role: roleWritable}] = struct{}{}
				d.writers++
			}
			for b.Loop() {
				d.noteActivityLocked(layout.EventBell)
			}
			if want := bc.writers+bc.watchers == 0; (d.act.marks&actBell != 0) != want {
				b.Fatalf("marks %b with %d watching", d.act.marks, bc.writers+bc.watchers)
			}
		})
	}
}
