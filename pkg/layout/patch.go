package layout

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
)

// MetadataPatch is a merge into a session's display name and tags, the
// input of `pty metadata patch`.
type MetadataPatch struct {
	// SetDisplayName says the patch mentions displayName; DisplayName is
	// then the new name, or nil to clear it.
	SetDisplayName bool
	DisplayName    *string
	// Tags maps keys to new values, or to nil to remove the key.
	Tags map[string]*string
}

// ParseMetadataPatch reads {"displayName": string|null, "tags": {k:
// string|null}} strictly: any other field, a value of another type or
// trailing data is an error, so a typo cannot pass as an empty patch.
func ParseMetadataPatch(b []byte) (MetadataPatch, error) {
	var p MetadataPatch
	if len(bytes.TrimSpace(b)) == 0 {
		return p, errors.New(`metadata patch is empty: give a JSON object such as {"displayName":"web","tags":{"role":"web","old":null}}`)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	var raw map[string]json.RawMessage
	if err := dec.Decode(&raw); err != nil || raw == nil {
		return p, fmt.Errorf(`metadata patch is not a JSON object: give {"displayName": string|null, "tags": {key: string|null}}`)
	}
	if _, err := dec.Token(); err != io.EOF {
		return p, errors.New("metadata patch has data after its JSON object: give exactly one object")
	}
	for _, k := range sortedKeys(raw) {
		v := raw[k]
		switch k {
		case "displayName":
			p.SetDisplayName = true
			if err := json.Unmarshal(v, &p.DisplayName); err != nil {
				return p, errors.New("metadata patch: displayName must be a string, or null to clear it")
			}
			if p.DisplayName != nil {
				if err := ValidateDisplayName(*p.DisplayName); err != nil {
					return p, fmt.Errorf("metadata patch: %w", err)
				}
			}
		case "tags":
			if err := json.Unmarshal(v, &p.Tags); err != nil || (p.Tags == nil && string(bytes.TrimSpace(v)) != "null") {
				return p, errors.New("metadata patch: tags must be an object whose values are strings, or null to remove a key")
			}
		default:
			return p, fmt.Errorf("metadata patch: unknown field %q: only displayName and tags can be patched", k)
		}
	}
	return p, p.validateTags()
}

func (p MetadataPatch) validateTags() error {
	for _, k := range sortedKeys(p.Tags) {
		if err := ValidateTagKey(k); err != nil {
			return fmt.Errorf("metadata patch: %w", err)
		}
		if v := p.Tags[k]; v != nil {
			if err := ValidateTagValue(k, *v); err != nil {
				return fmt.Errorf("metadata patch: %w", err)
			}
		}
	}
	return nil
}

// Validate checks a patch built in Go the way ParseMetadataPatch checks one
// read from JSON.
func (p MetadataPatch) Validate() error {
	if p.SetDisplayName && p.DisplayName != nil {
		if err := ValidateDisplayName(*p.DisplayName); err != nil {
			return fmt.Errorf("metadata patch: %w", err)
		}
	}
	return p.validateTags()
}

// patchMetadata applies p to session id (an exact id, never a display name)
// in one locked change and appends one metadata_change event whose previous
// and value objects hold only what changed: displayName (string or null)
// and, under tags, each changed key (string, or null when absent). A patch
// that changes nothing writes nothing and appends nothing.
func patchMetadata(root, id string, p MetadataPatch) (changed bool, m *Metadata, err error) {
	if err := ValidateID(id); err != nil {
		return false, nil, err
	}
	if err := p.Validate(); err != nil {
		return false, nil, err
	}
	return change(root, id, func(m *Metadata) ([]Event, error) {
		prev, next := map[string]any{}, map[string]any{}
		if p.SetDisplayName && !sameName(m.DisplayName, p.DisplayName) {
			prev["displayName"], next["displayName"] = m.DisplayName, p.DisplayName
			if p.DisplayName != nil {
				n := *p.DisplayName
				m.DisplayName = &n
			} else {
				m.DisplayName = nil
			}
		}
		tags := maps.Clone(m.Tags)
		if tags == nil {
			tags = map[string]string{}
		}
		pt, nt := map[string]*string{}, map[string]*string{}
		for _, k := range sortedKeys(p.Tags) {
			old, had := tags[k]
			v := p.Tags[k]
			switch {
			case v == nil && had:
				delete(tags, k)
				pt[k], nt[k] = &old, nil
			case v != nil && (!had || old != *v):
				tags[k] = *v
				nv := *v
				if had {
					pt[k] = &old
				} else {
					pt[k] = nil
				}
				nt[k] = &nv
			}
		}
		if len(nt) > 0 {
			if err := checkTagTotals(id, tags); err != nil && growsTags(m.Tags, tags) {
				return nil, err
			}
			prev["tags"], next["tags"] = pt, nt
			if len(tags) == 0 {
				tags = nil
			}
			m.Tags = tags
		}
		if len(next) == 0 {
			return nil, ErrNoChange
		}
		return []Event{NewEvent(id, EventMetadataChange, "previous", prev, "value", next)}, nil
	})
}
