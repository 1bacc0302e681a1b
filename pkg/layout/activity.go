package layout

// Activity markers: what a session did that nobody saw, kept in its
// record's "activity" field (docs/disk-layout.md) until someone attaches
// or follows it. The session's daemon is their only writer.
const (
	// ActivityBell: the program rang the bell (BEL outside an escape
	// string, as the terminal emulator sees it).
	ActivityBell = "bell"
	// ActivityNotified: the program sent a desktop notification (OSC 9,
	// OSC 777;notify, OSC 99).
	ActivityNotified = "notified"
)

// activityOrder is the order markers are written and shown in.
var activityOrder = [...]string{ActivityBell, ActivityNotified}

// ActivityMarkers returns the markers m carries that this version knows,
// in a fixed order: what listings show. A record's other values (a newer
// writer's) are kept in it but not shown.
func (m *Metadata) ActivityMarkers() []string {
	var out []string
	for _, a := range activityOrder {
		for _, have := range m.Activity {
			if have == a {
				out = append(out, a)
				break
			}
		}
	}
	return out
}
