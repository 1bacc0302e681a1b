package listing

import (
	"strings"

	"github.com/ptyorg/pty/pkg/layout"
)

// ActivityText is a session's activity markers as listings show them,
// "[bell] [notified]", or "" when it has none.
func ActivityText(m *layout.Metadata) string {
	marks := m.ActivityMarkers()
	if len(marks) == 0 {
		return ""
	}
	return "[" + strings.Join(marks, "] [") + "]"
}
