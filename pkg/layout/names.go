package layout

// setDisplayName sets (name != nil) or clears (name == nil) a session's
// display name in one locked change and appends one display_name_change
// event {previous, value}, each a string or null. Nothing is written and no
// event appended when the name would not change. The name is validated
// before any lock is taken.
func setDisplayName(root, id string, name *string) (changed bool, m *Metadata, err error) {
	if err := ValidateID(id); err != nil {
		return false, nil, err
	}
	if name != nil {
		if err := ValidateDisplayName(*name); err != nil {
			return false, nil, err
		}
		n := *name
		name = &n // the caller's variable must not alias our metadata
	}
	return change(root, id, func(m *Metadata) ([]Event, error) {
		if sameName(m.DisplayName, name) {
			return nil, ErrNoChange
		}
		prev := m.DisplayName
		m.DisplayName = name
		return []Event{NewEvent(id, EventDisplayNameChange, "previous", prev, "value", name)}, nil
	})
}

func sameName(a, b *string) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}
