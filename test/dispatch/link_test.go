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
