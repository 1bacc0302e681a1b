package listing

import (
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ptyorg/pty/pkg/layout"
)

// Style carries the choices the text form depends on, so output is a pure
// function of its inputs.
type Style struct {
	Color    bool      // ANSI colour: only for a terminal, never with NO_COLOR
	ShowTags bool      // --tags: include reserved tags
	Home     string    // $HOME, abbreviated to ~ in cwds
	Now      time.Time // ages are measured from here
}

const (
	reset  = "\x1b[0m"
	bold   = "\x1b[1m"
	dim    = "\x1b[2m"
	red    = "\x1b[31m"
	yellow = "\x1b[33m"
	cyan   = "\x1b[36m"
)

func (st Style) paint(code, s string, on bool) string {
	if !st.Color || !on || s == "" {
		return s
	}
	return code + s + reset
}

// FormatAge renders a duration as one compact unit: 45s, 12m, 5h, 3d.
func FormatAge(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Minute:
		return strconv.Itoa(int(d/time.Second)) + "s"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + "m"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d/time.Hour)) + "h"
	default:
		return strconv.Itoa(int(d/(24*time.Hour))) + "d"
	}
}

// TildePath abbreviates home to ~.
func TildePath(p, home string) string {
	if home == "" || home == "/" {
		return p
	}
	if p == home {
		return "~"
	}
	if rest, ok := strings.CutPrefix(p, strings.TrimSuffix(home, "/")+"/"); ok {
		return "~/" + rest
	}
	return p
}

// marker is [permanent], or [flapping] instead when gc gave up on it.
func marker(m *layout.Metadata) (string, string) {
	if m.Tags[layout.TagStatus] == layout.StatusFlapping {
		return "[flapping]", red
	}
	if layout.Permanent(m.Tags) {
		return "[permanent]", cyan
	}
	return "", ""
}

func tagText(m *layout.Metadata, all bool) string {
	keys := make([]string, 0, len(m.Tags))
	for k := range m.Tags {
		if all || !layout.ReservedTag(k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = "#" + k + "=" + m.Tags[k]
	}
	return strings.Join(parts, " ")
}

type row struct {
	cols   [5]string // id, name, when, cwd, command
	runes  [5]int    // the length of each column in runes
	tags   string
	mark   string
	markCo string
	act    string // ActivityText
}

// WriteText writes the human listing: a section per status, running first,
// vanished last and in yellow since those sessions died without a word.
// It builds the whole listing in one buffer sized up front and writes it
// once: pty list is a short-lived process, for which every fresh page of
// heap is a page fault.
func WriteText(w io.Writer, ss []layout.Session, st Style, emptyMsg string) error {
	if len(ss) == 0 {
		_, err := io.WriteString(w, emptyMsg+"\n")
		return err
	}
	sections := [...]struct {
		status layout.Status
		title  string
		color  string
	}{
		{layout.Running, "Running", ""},
		{layout.Exited, "Exited", ""},
		{layout.Vanished, "Vanished (no exit record — killed or crashed)", yellow},
	}
	// One width per column across sections so the whole listing lines up.
	rows := make([]row, len(ss))
	var width [5]int
	size := 0
	for i, s := range ss {
		rows[i] = makeRow(s, st)
		r := &rows[i]
		for j, c := range r.cols {
			r.runes[j] = utf8.RuneCountInString(c)
			width[j] = max(width[j], r.runes[j])
		}
		size += len(r.tags) + len(r.mark) + len(r.act)
	}
	// Room for every row at full width, its colours and separators;
	// non-ASCII text may overflow it, and the buffer then grows.
	perRow := 2 + 2*len(width) + 4 + 2*len(reset+bold)
	for _, n := range width {
		perRow += n
	}
	b := make([]byte, 0, size+len(ss)*perRow+len(sections)*64)
	for _, sec := range sections {
		n := 0
		for _, s := range ss {
			if s.Shown() == sec.status {
				n++
			}
		}
		if n == 0 {
			continue
		}
		if len(b) > 0 {
			b = append(b, '\n')
		}
		title := sec.title + " (" + strconv.Itoa(n) + "):"
		b = st.appendPaint(b, sec.color, st.paint(bold, title, sec.color == ""), sec.color != "")
		b = append(b, '\n')
		for i, s := range ss {
			if s.Shown() == sec.status {
				b = appendRow(b, &rows[i], width, st, sec.color)
			}
		}
	}
	_, err := w.Write(b)
	return err
}

func makeRow(s layout.Session, st Style) row {
	var r row
	r.cols[0] = s.ID
	if s.Meta.DisplayName != nil && *s.Meta.DisplayName != s.ID {
		r.cols[1] = *s.Meta.DisplayName
	}
	age, ok := Age(s, st.Now)
	ageText := "?"
	if ok {
		ageText = FormatAge(age)
	}
	switch s.Shown() {
	case layout.Running:
		r.cols[2] = "up " + ageText
	case layout.Exited:
		r.cols[2] = Ending(s.Meta) + ", " + ageText + " ago"
	default:
		r.cols[2] = "started " + ageText + " ago"
	}
	r.cols[3] = TildePath(s.Meta.Cwd, st.Home)
	r.cols[4] = Command(s.Meta)
	r.tags = Printable(tagText(s.Meta, st.ShowTags))
	for i := range r.cols {
		r.cols[i] = Printable(r.cols[i])
	}
	r.mark, r.markCo = marker(s.Meta)
	r.act = ActivityText(s.Meta)
	if s.Damaged != "" {
		// Nothing of the record is known but what the daemon says.
		r.cols[2] = map[layout.Status]string{layout.Running: "up ?"}[s.Shown()]
		r.mark, r.markCo = "[damaged record: "+s.Damaged+"]", red
	}
	return r
}

// spaces pads columns; wider padding is written in several pieces.
const spaces = "                                                                "

func appendRow(b []byte, r *row, width [5]int, st Style, lineColor string) []byte {
	start := len(b)
	b = append(b, "  "...)
	for i, c := range r.cols {
		switch {
		case lineColor != "":
			b = st.appendPaint(b, lineColor, c, true)
		case i == 0:
			b = st.appendPaint(b, bold, c, true)
		case i == 3:
			b = st.appendPaint(b, dim, c, true)
		default:
			b = append(b, c...)
		}
		if i < len(r.cols)-1 {
			for pad := width[i] - r.runes[i] + 2; pad > 0; {
				n := min(pad, len(spaces))
				b = append(b, spaces[:n]...)
				pad -= n
			}
		}
	}
	if r.tags != "" {
		b = append(b, "  "...)
		b = st.appendPaint(b, cyan, r.tags, true)
	}
	if r.mark != "" {
		b = append(b, "  "...)
		b = st.appendPaint(b, r.markCo, r.mark, true)
	}
	if r.act != "" {
		b = append(b, "  "...)
		b = st.appendPaint(b, yellow, r.act, true)
	}
	// Padding an empty last column would leave trailing spaces.
	for len(b) > start && b[len(b)-1] == ' ' {
		b = b[:len(b)-1]
	}
	return append(b, '\n')
}

// appendPaint is paint appending to b.
func (st Style) appendPaint(b []byte, code, s string, on bool) []byte {
	if !st.Color || !on || s == "" {
		return append(b, s...)
	}
	b = append(b, code...)
	b = append(b, s...)
	return append(b, reset...)
}

// Printable shows control characters (C0, DEL, C1, U+2028/9) and
// invisible formatting characters (layout.Invisible: bidi controls,
// zero-width characters, BOM) as Go escapes and invalid UTF-8 as \xNN.
// Records hold text that pty did not check (a command's arguments,
// another tool's tags and names), and printed raw an escape sequence in
// it would drive the reader's terminal, a bidi override would reverse
// what follows it.
func Printable(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || escaped(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError:
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				const hex = "0123456789abcdef"
				b.WriteString(`\x`)
				b.WriteByte(hex[s[i]>>4])
				b.WriteByte(hex[s[i]&15])
				continue
			}
			b.WriteRune(r)
		case escaped(r):
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func escaped(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || layout.Invisible(r)
}
