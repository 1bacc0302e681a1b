package dispatch

import (
	"strings"
	"testing"

	"github.com/ptyorg/pty/internal/testutil"
)

// The dispatcher only forwards: it talks to no daemon, so it links
// neither the client nor the protocol. Answering a command itself would
// mean a second path to keep in step with the command's own.
func TestDispatcherLinksNoClient(t *testing.T) {
	for _, s := range testutil.Symbols(t, "pty") {
		for _, pkg := range []string{"github.com/ptyorg/pty/pkg/client.", "github.com/ptyorg/pty/pkg/proto."} {
			if strings.HasPrefix(s, pkg) {
				t.Fatalf("pty links %s (%s): the dispatcher must only forward", strings.TrimSuffix(pkg, "."), s)
			}
		}
	}
}

// Every pty command starts the dispatcher first, so what it links every
// command pays: fmt and reflection (which runtime/debug brings) cost each
// start their package set-up and page faults in a larger binary; the
// version is read with internal/buildstamp instead.
func TestDispatcherLinksNoFmt(t *testing.T) {
	for _, s := range testutil.Symbols(t, "pty") {
		for _, pkg := range []string{"fmt.", "runtime/debug.ReadBuildInfo", "reflect.Value."} {
			if strings.HasPrefix(s, pkg) {
				t.Fatalf("pty links %s (%s): every command would pay its start-up", strings.TrimSuffix(pkg, "."), s)
			}
		}
	}
}
