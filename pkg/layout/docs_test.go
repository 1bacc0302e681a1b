package layout

import (
	"os"
	"strings"
	"testing"
)

// TestDiskLayoutDocumented is the drift guard: docs/disk-layout.md is the
// contract third-party readers code against, so every metadata field, event
// type and file suffix this package defines must appear there (in
// backquotes).
func TestDiskLayoutDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/disk-layout.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	check := func(kind, name string) {
		if !strings.Contains(doc, "`"+name+"`") {
			t.Errorf("docs/disk-layout.md does not document %s `%s`", kind, name)
		}
	}
	for _, f := range MetadataFields() {
		check("metadata field", f)
	}
	for _, e := range EventTypes() {
		check("event type", e)
	}
	check("event family", "user.*")
	for _, s := range []string{SuffixMeta, SuffixEvents, SuffixSock, SuffixPid, SuffixLock, SuffixEventsLock, SuffixLaunch, SuffixDaemonLog, SuffixDaemonLogOld} {
		check("file", "<id>"+s)
	}
}
