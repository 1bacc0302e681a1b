package picker

import (
	"github.com/charmbracelet/lipgloss"

	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/listing"
)

// styleActivity is the activity markers' (yellow, as in pty list).
var styleActivity = lipgloss.NewStyle().Foreground(lipgloss.Color("3"))

// withActivity adds a session's activity markers ("[bell] [notified]")
// to its row's marker.
func withActivity(marker string, m *layout.Metadata) string {
	a := listing.ActivityText(m)
	switch {
	case a == "":
		return marker
	case marker == "":
		return styleActivity.Render(a)
	}
	return marker + " " + styleActivity.Render(a)
}
