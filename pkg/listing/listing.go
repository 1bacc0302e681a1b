// Package listing filters, sorts and formats the session registry for
// `pty list`: the human sections, the --json array scripts depend on (the
// original pty's shape), and the --summary counts. It only reads what
// layout.Registry.List returned; nothing here touches the disk.
package listing

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ptyorg/pty/internal/jsonlite"
	"github.com/ptyorg/pty/pkg/layout"
)

// Filter selects sessions; the zero value selects all. Every set field must
// match.
type Filter struct {
	Tags      [][2]string   // key=value pairs, all required
	Status    layout.Status // "" = any
	OlderThan time.Duration // 0 = no bound
	NewerThan time.Duration // 0 = no bound
}

// ParseStatus checks a --status value.
func ParseStatus(s string) (layout.Status, error) {
	switch st := layout.Status(strings.ToLower(s)); st {
	case layout.Running, layout.Exited, layout.Vanished:
		return st, nil
	}
	return "", fmt.Errorf("status %q is not one of running, exited, vanished", s)
}

// Ending says how an ended session's command ended, as a person reads it:
// "killed (SIGHUP)" when a signal ended it, else "exit N" ("exit ?" when
// no exit is recorded). exitCode stays 128+N for a signal in the record,
// for the original pty's readers; the signal field tells the two apart.
func Ending(m *layout.Metadata) string {
	if m.Signal != nil && *m.Signal > 0 {
		return "killed (" + SignalName(*m.Signal) + ")"
	}
	if m.ExitCode == nil {
		return "exit ?"
	}
	return "exit " + strconv.Itoa(*m.ExitCode)
}

// SignalName names signal n of this system ("SIGHUP"), or "signal N" for
// a number it has no name for.
func SignalName(n int) string {
	if name := unix.SignalName(syscall.Signal(n)); name != "" {
		return name
	}
	return "signal " + strconv.Itoa(n)
}

// Age is how long ago a session last changed state: since it exited when
// an exit was recorded, else since it was created. ok is false when the
// timestamp is missing or unreadable.
func Age(s layout.Session, now time.Time) (time.Duration, bool) {
	ts := s.Meta.ExitedAt
	if ts == "" {
		ts = s.Meta.CreatedAt
	}
	t := layout.ParseTime(ts)
	if t.IsZero() {
		return 0, false
	}
	return now.Sub(t), true
}

// Match reports whether a session passes the filter.
func (f Filter) Match(s layout.Session, now time.Time) bool {
	if f.Status != "" && s.Shown() != f.Status {
		return false
	}
	for _, kv := range f.Tags {
		if v, ok := s.Meta.Tags[kv[0]]; !ok || v != kv[1] {
			return false
		}
	}
	if f.OlderThan > 0 || f.NewerThan > 0 {
		age, ok := Age(s, now)
		if !ok {
			return false // no age: cannot be said to be older or newer
		}
		if f.OlderThan > 0 && age < f.OlderThan {
			return false
		}
		if f.NewerThan > 0 && age > f.NewerThan {
			return false
		}
	}
	return true
}

// Select filters and sorts sessions by display name (or id), then id.
func Select(all []layout.Session, f Filter, now time.Time) []layout.Session {
	out := make([]layout.Session, 0, len(all))
	for _, s := range all {
		if f.Match(s, now) {
			out = append(out, s)
		}
	}
	Sort(out)
	return out
}

// Sort orders sessions as every listing shows them: by display name ?? id,
// with the id breaking ties between equal display names.
func Sort(ss []layout.Session) {
	slices.SortStableFunc(ss, func(a, b layout.Session) int {
		if c := strings.Compare(a.Name(), b.Name()); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// Entry is one element of `pty list --json`, in the original pty's shape:
// exitCode and exitedAt are null when absent, tags and displayName are
// left out.
type Entry struct {
	Name        string            `json:"name"`
	Status      layout.Status     `json:"status"`
	Pid         *int              `json:"pid"`
	Command     string            `json:"command"`
	Cwd         string            `json:"cwd"`
	CreatedAt   string            `json:"createdAt"`
	ExitCode    *int              `json:"exitCode"`
	ExitedAt    *string           `json:"exitedAt"`
	Tags        map[string]string `json:"tags,omitempty"`
	DisplayName *string           `json:"displayName,omitempty"`
	// Activity is what the session did since someone last attached:
	// "bell", "notified" (layout.ActivityMarkers); ours only.
	Activity []string `json:"activity,omitempty"`
	// Damaged, only for a session whose record cannot be read, says why;
	// the other fields but name, status and pid are then empty.
	Damaged string `json:"damaged,omitempty"`
}

// NewEntry converts a session for JSON output.
func NewEntry(s layout.Session) Entry {
	e := Entry{
		Name:      s.ID,
		Status:    s.Shown(),
		Command:   Command(s.Meta),
		Cwd:       s.Meta.Cwd,
		CreatedAt: s.Meta.CreatedAt,
		ExitCode:  s.Meta.ExitCode,
		Tags:      s.Meta.Tags,
		Damaged:   s.Damaged,
		Activity:  s.Meta.ActivityMarkers(),
	}
	if s.Shown() == layout.Running && s.Pid > 0 {
		pid := s.Pid
		e.Pid = &pid
	}
	if s.Meta.ExitedAt != "" {
		at := s.Meta.ExitedAt
		e.ExitedAt = &at
	}
	if s.Meta.DisplayName != nil && *s.Meta.DisplayName != "" {
		e.DisplayName = s.Meta.DisplayName
	}
	if len(e.Tags) == 0 {
		e.Tags = nil
	}
	return e
}

// Command is the command line as the user typed it.
func Command(m *layout.Metadata) string {
	if m.DisplayCommand != "" {
		return m.DisplayCommand
	}
	return strings.TrimSpace(strings.Join(append([]string{m.Command}, m.Args...), " "))
}

// WriteJSON writes the --json array (an empty registry is []), byte for
// byte as json.MarshalIndent(entries, "", "  ") writes []Entry, then a
// newline. It is written by hand (internal/jsonlite) because pty-list
// prints it itself, and links no reflection-based JSON (test/list).
func WriteJSON(w io.Writer, ss []layout.Session) error {
	// Compact first, then indented as json.MarshalIndent does (Marshal,
	// then Indent).
	compact := []byte{'['}
	for i, s := range ss {
		if i > 0 {
			compact = append(compact, ',')
		}
		compact = NewEntry(s).appendJSON(compact)
	}
	compact = append(compact, ']')
	b, err := jsonlite.AppendIndent(make([]byte, 0, 2*len(compact)+1), compact, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// appendJSON appends e compact, as json.Marshal writes an Entry: fields
// in struct order, the omitempty ones only when set.
func (e Entry) appendJSON(b []byte) []byte {
	b = append(b, `{"name":`...)
	b = jsonlite.AppendString(b, e.Name)
	b = append(b, `,"status":`...)
	b = jsonlite.AppendString(b, string(e.Status))
	b = append(b, `,"pid":`...)
	b = appendIntPtr(b, e.Pid)
	b = append(b, `,"command":`...)
	b = jsonlite.AppendString(b, e.Command)
	b = append(b, `,"cwd":`...)
	b = jsonlite.AppendString(b, e.Cwd)
	b = append(b, `,"createdAt":`...)
	b = jsonlite.AppendString(b, e.CreatedAt)
	b = append(b, `,"exitCode":`...)
	b = appendIntPtr(b, e.ExitCode)
	b = append(b, `,"exitedAt":`...)
	if e.ExitedAt == nil {
		b = append(b, "null"...)
	} else {
		b = jsonlite.AppendString(b, *e.ExitedAt)
	}
	if len(e.Tags) > 0 {
		b = append(b, `,"tags":`...)
		b, _ = jsonlite.AppendObject(b, e.Tags, appendStringValue)
	}
	if e.DisplayName != nil {
		b = append(b, `,"displayName":`...)
		b = jsonlite.AppendString(b, *e.DisplayName)
	}
	if len(e.Activity) > 0 {
		b = append(b, `,"activity":`...)
		b, _ = jsonlite.AppendArray(b, e.Activity, appendStringValue)
	}
	if e.Damaged != "" {
		b = append(b, `,"damaged":`...)
		b = jsonlite.AppendString(b, e.Damaged)
	}
	return append(b, '}')
}

func appendIntPtr(b []byte, p *int) []byte {
	if p == nil {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, int64(*p), 10)
}

func appendStringValue(b []byte, s string) ([]byte, error) { return jsonlite.AppendString(b, s), nil }

func writeIndented(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// SummaryItem names the oldest or newest session.
type SummaryItem struct {
	Name        string        `json:"name"`
	Status      layout.Status `json:"status"`
	AgeSeconds  int64         `json:"ageSeconds"`
	DisplayName *string       `json:"displayName,omitempty"`
}

// Counts is sessions per status, in the order listings show them.
type Counts struct {
	Running  int `json:"running"`
	Exited   int `json:"exited"`
	Vanished int `json:"vanished"`
}

func (c *Counts) add(s layout.Status) {
	switch s {
	case layout.Running:
		c.Running++
	case layout.Exited:
		c.Exited++
	case layout.Vanished:
		c.Vanished++
	}
}

// Summary is the --summary result.
type Summary struct {
	Total    int          `json:"total"`
	ByStatus Counts       `json:"byStatus"`
	Oldest   *SummaryItem `json:"oldest"`
	Newest   *SummaryItem `json:"newest"`
}

// Summarize counts sessions by status and finds the oldest and newest by
// Age; sessions without a readable timestamp count but are never either.
func Summarize(ss []layout.Session, now time.Time) Summary {
	sum := Summary{Total: len(ss)}
	var oldAge, newAge time.Duration
	for _, s := range ss {
		sum.ByStatus.add(s.Shown())
		age, ok := Age(s, now)
		if !ok {
			continue
		}
		item := func() *SummaryItem {
			it := &SummaryItem{Name: s.ID, Status: s.Shown(), AgeSeconds: int64(max(age, 0) / time.Second)}
			if s.Meta.DisplayName != nil && *s.Meta.DisplayName != "" {
				it.DisplayName = s.Meta.DisplayName
			}
			return it
		}
		if sum.Oldest == nil || age > oldAge {
			sum.Oldest, oldAge = item(), age
		}
		if sum.Newest == nil || age < newAge {
			sum.Newest, newAge = item(), age
		}
	}
	return sum
}

// WriteSummaryJSON writes the --summary --json object.
func WriteSummaryJSON(w io.Writer, sum Summary) error { return writeIndented(w, sum) }

// WriteSummaryText writes the --summary text form.
func WriteSummaryText(w io.Writer, sum Summary, st Style) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s: %d running, %d exited, %s\n", sum.Total, plural(sum.Total, "session", "sessions"),
		sum.ByStatus.Running, sum.ByStatus.Exited,
		st.paint(yellow, fmt.Sprintf("%d vanished", sum.ByStatus.Vanished), sum.ByStatus.Vanished > 0))
	line := func(label string, it *SummaryItem) {
		if it == nil {
			return
		}
		name := it.Name
		if it.DisplayName != nil {
			name += " (" + *it.DisplayName + ")"
		}
		fmt.Fprintf(&b, "%s %s, %s, %s old\n", label, name, it.Status, FormatAge(time.Duration(it.AgeSeconds)*time.Second))
	}
	line("Oldest:", sum.Oldest)
	line("Newest:", sum.Newest)
	_, err := io.WriteString(w, b.String())
	return err
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
