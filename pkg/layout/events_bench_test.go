package layout

import (
	"strings"
	"testing"
)

// BenchmarkAppendEventNearRetention measures one locked append to a log
// that holds between 500 and 1000 lines, where every append also counts
// lines to decide on retention (the steady state of a busy session).
func BenchmarkAppendEventNearRetention(b *testing.B) {
	root := b.TempDir()
	pad := strings.Repeat("x", 60)
	for i := 0; i < 600; i++ {
		if err := appendEventsTo(root, "s", NewEvent("s", "user.fill", "pad", pad)); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := appendEventsTo(root, "s", NewEvent("s", "user.n", "i", i, "pad", pad)); err != nil {
			b.Fatal(err)
		}
	}
}
