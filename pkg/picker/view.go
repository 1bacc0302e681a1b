package picker

import (
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/listing"
)

var (
	styleTitle    = lipgloss.NewStyle().Bold(true)
	styleDim      = lipgloss.NewStyle().Faint(true)
	styleRunning  = lipgloss.NewStyle().Foreground(lipgloss.Color("2"))
	styleVanished = lipgloss.NewStyle().Foreground(lipgloss.Color("3"))
	styleTags     = lipgloss.NewStyle().Foreground(lipgloss.Color("6"))
	styleFlapping = lipgloss.NewStyle().Foreground(lipgloss.Color("1"))
	styleSelected = lipgloss.NewStyle().Reverse(true)
	styleCursor   = lipgloss.NewStyle().Reverse(true)
	styleError    = lipgloss.NewStyle().Foreground(lipgloss.Color("1"))
	styleNew      = lipgloss.NewStyle().Foreground(lipgloss.Color("4"))
)

// Status marks, as in the list: running, exited, vanished.
const (
	markRunning  = "●"
	markExited   = "○"
	markVanished = "✕"
)

// markSelected leads the selected row, in the two cells every row starts
// with.
const markSelected = "▸ "

// View draws the picker.
func (m *Model) View() string {
	if m.quitting {
		return ""
	}
	switch m.mode {
	case modeRestart:
		return m.restartView()
	case modeNewDir, modeNewCmd:
		return m.newView()
	}
	var b strings.Builder
	title := "pty"
	if len(m.o.FilterTags) > 0 {
		title += "  " + styleTags.Render(strings.Join(layout.SortedTags(m.o.FilterTags), " "))
	}
	n, total := 0, len(m.sessions)
	for _, it := range m.items {
		if it.sess != nil || it.remote != nil {
			n++
		}
	}
	for _, st := range m.hosts {
		total += len(st.rows)
	}
	count := fmt.Sprintf("%d of %d sessions", n, total)
	if !m.loaded {
		count = "loading..."
	}
	b.WriteString(m.line(styleTitle.Render(title) + "  " + styleDim.Render(count)))
	b.WriteString(m.line("> " + m.filter.render(styleCursor.Render)))
	b.WriteString("\n")

	rows := m.rows()
	h := m.listHeight()
	end := min(len(rows), m.top+h)
	for i := m.top; i < end; i++ {
		r := rows[i]
		if i == m.sel {
			// A mark as well as reverse video: some terminals and
			// screen readers do not show reverse video.
			r = markSelected + strings.TrimPrefix(r, "  ")
			r = styleSelected.Render(ansi.Strip(padRight(r, m.width)))
		}
		b.WriteString(m.line(r))
	}
	for i := end - m.top; i < h; i++ {
		b.WriteString("\n")
	}
	b.WriteString(m.line(m.footer()))
	return strings.TrimSuffix(b.String(), "\n")
}

func (m *Model) footer() string {
	switch {
	case m.loadErr != nil:
		return styleError.Render(m.loadErr.Error())
	case m.message != "" && m.isErr:
		return styleError.Render(m.message)
	case m.message != "":
		return m.message
	}
	return styleDim.Render("enter attach · ↑/↓ select · type to filter · esc quit · " + m.detachHint())
}

// line truncates s to the terminal width and ends it.
func (m *Model) line(s string) string {
	return ansi.Truncate(s, m.width, "…") + "\n"
}

func padRight(s string, w int) string {
	if n := ansi.StringWidth(s); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}

// rows renders every item, columns aligned across rows.
func (m *Model) rows() []string {
	type cols struct {
		mark, id, name, cwd, cmd, when, marker, tags string
		markStyle                                    lipgloss.Style
	}
	now := m.now()
	var cs []cols
	var w [6]int
	for _, it := range m.items {
		if it.sess == nil {
			continue
		}
		s := it.sess
		// Every field is shown through listing.Printable: a record
		// written by another tool may hold escapes or bidi controls.
		c := cols{id: s.ID, cwd: listing.Printable(listing.TildePath(s.Meta.Cwd, m.o.Home)), cmd: listing.Printable(listing.Command(s.Meta))}
		if s.Meta.DisplayName != nil && *s.Meta.DisplayName != s.ID {
			c.name = listing.Printable(*s.Meta.DisplayName)
		}
		age := "?"
		if d, ok := listing.Age(*s, now); ok {
			age = listing.FormatAge(d)
		}
		switch s.Shown() {
		case layout.Running:
			c.mark, c.markStyle, c.when = markRunning, styleRunning, "up "+age
		case layout.Exited:
			c.mark, c.markStyle, c.when = markExited, styleDim, listing.Ending(s.Meta)+", "+age+" ago"
		default:
			c.mark, c.markStyle, c.when = markVanished, styleVanished, "vanished, "+age+" ago"
		}
		switch {
		case s.Meta.Tags[layout.TagStatus] == layout.StatusFlapping:
			c.marker = styleFlapping.Render("[flapping]")
		case layout.Permanent(s.Meta.Tags):
			c.marker = styleTags.Render("[permanent]")
		}
		c.marker = withActivity(c.marker, s.Meta)
		c.tags = listing.Printable(tagText(s.Meta.Tags))
		for i, v := range []string{c.id, c.name, c.cwd, c.cmd, c.when} {
			w[i] = max(w[i], ansi.StringWidth(v))
		}
		cs = append(cs, c)
	}
	// Long commands and paths must not push the rest off screen.
	w[2], w[3] = min(w[2], 40), min(w[3], 40)
	markerW := 0
	for _, c := range cs {
		if c.marker != "" {
			markerW = max(markerW, 2+ansi.StringWidth(c.marker))
		}
	}
	fitColumns(&w, m.width, markerW)
	out := make([]string, 0, len(m.items))
	ci := 0
	for _, it := range m.items {
		switch {
		case it.head:
			out = append(out, m.headRow(it.host))
			continue
		case it.remote != nil:
			out = append(out, remoteRow(it.remote, now))
			continue
		case it.sess == nil:
			out = append(out, "  "+styleNew.Render("+ Create new session..."))
			continue
		}
		c := cs[ci]
		ci++
		var b strings.Builder
		b.WriteString("  " + c.markStyle.Render(c.mark) + " ")
		b.WriteString(styleTitle.Render(fit(c.id, w[0])) + "  ")
		b.WriteString(fit(c.name, w[1]) + "  ")
		b.WriteString(styleDim.Render(fit(c.cwd, w[2])) + "  ")
		b.WriteString(fit(c.cmd, w[3]) + "  ")
		b.WriteString(fit(c.when, w[4]))
		if c.marker != "" {
			b.WriteString("  " + c.marker)
		}
		if c.tags != "" {
			b.WriteString("  " + styleTags.Render(c.tags))
		}
		out = append(out, strings.TrimRight(b.String(), " "))
	}
	return out
}

// fitColumns narrows the columns so that a row's status and marker fit in
// width cells: they are what the picker is for, so they never go. The
// command gives way first (down to a few cells), then the directory, then
// the display name, then the rest of the command. Tags come last on the
// row and are what the window cuts.
func fitColumns(w *[6]int, width, markerW int) {
	// "  ● " + id + 2 + name + 2 + cwd + 2 + cmd + 2 + when + marker
	need := 4 + w[0] + 2 + w[1] + 2 + w[2] + 2 + w[3] + 2 + w[4] + markerW
	over := need - width
	shrink := func(i, floor int) {
		if over <= 0 || w[i] <= floor {
			return
		}
		cut := min(over, w[i]-floor)
		w[i] -= cut
		over -= cut
	}
	shrink(3, 12)
	shrink(2, 0)
	shrink(1, 0)
	shrink(3, 1)
}

// fit pads or truncates s to exactly w cells.
func fit(s string, w int) string {
	if ansi.StringWidth(s) > w {
		return ansi.Truncate(s, w, "…")
	}
	return padRight(s, w)
}

// tagText shows the tags people set; pty's own (ptyfile*, strategy*, :*)
// are summed up by the [permanent] marker or hidden, as in `pty list`.
func tagText(tags map[string]string) string {
	keys := make([]string, 0, len(tags))
	for k := range tags {
		if !layout.ReservedTag(k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = "#" + k + "=" + tags[k]
	}
	return strings.Join(parts, " ")
}

func (m *Model) restartView() string {
	s := m.target
	var b strings.Builder
	what := "exited"
	if s.Shown() == layout.Vanished {
		what = "vanished (no exit was recorded: killed or crashed)"
	} else if s.Meta.Signal != nil && *s.Meta.Signal > 0 {
		what = "was killed by " + listing.SignalName(*s.Meta.Signal)
	} else if s.Meta.ExitCode != nil {
		what = fmt.Sprintf("exited with code %d", *s.Meta.ExitCode)
	}
	b.WriteString(m.line(styleTitle.Render(listing.Printable(s.Name())) + " " + what + "."))
	b.WriteString(m.line(styleDim.Render("Command was: ") + listing.Printable(listing.Command(s.Meta))))
	b.WriteString(m.line(styleDim.Render("In: ") + listing.Printable(listing.TildePath(s.Meta.Cwd, m.o.Home))))
	b.WriteString("\n")
	lines := s.Meta.LastLines
	if room := max(0, m.height-7); len(lines) > room {
		lines = lines[len(lines)-room:]
	}
	for _, l := range lines {
		b.WriteString(m.line(styleDim.Render("│ ") + l))
	}
	if len(lines) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("Restart? [Y/n] ")
	return b.String()
}

func (m *Model) newView() string {
	var b strings.Builder
	b.WriteString(m.line(styleTitle.Render("Create new session")))
	if len(m.o.FilterTags) > 0 {
		b.WriteString(m.line(styleDim.Render("tags: ") + styleTags.Render(strings.Join(layout.SortedTags(m.o.FilterTags), " "))))
	}
	b.WriteString("\n")
	field := func(label string, ed *editor, active bool) string {
		if active {
			return label + ed.render(styleCursor.Render)
		}
		return styleDim.Render(label + ed.String())
	}
	b.WriteString(m.line(field("Directory: ", &m.dir, m.mode == modeNewDir)))
	if m.mode == modeNewCmd {
		b.WriteString(m.line(field("Command:   ", &m.cmd, true)))
	}
	b.WriteString("\n")
	if m.message != "" {
		st := lipgloss.NewStyle()
		if m.isErr {
			st = styleError
		}
		b.WriteString(m.line(st.Render(m.message)))
	} else {
		b.WriteString(m.line(styleDim.Render("enter next · tab switch field · esc back")))
	}
	return b.String()
}

// detachHint says how to come back from a session to the picker.
func (m *Model) detachHint() string {
	if m.o.DetachKey.IsNone() {
		return "no detach key: leave a session by ending it"
	}
	return m.o.DetachKey.String() + " in a session returns here"
}
