package picker

import (
	"context"
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/listing"
)

// RemoteRefresh is how long after a host's answer it is asked again: a
// host costs a round trip over its shared connection, not a file read.
const RemoteRefresh = 5 * time.Second

// DefaultHostWait bounds one ask of a host when Host.Wait is zero.
const DefaultHostWait = 15 * time.Second

// Host is another machine whose sessions the picker lists in a group of
// their own (a host of remotes.toml, reached over ssh).
type Host struct {
	Label string
	// List asks the host for its sessions; ctx ends after Wait.
	List func(ctx context.Context) ([]RemoteSession, error)
	// Attach returns the command that attaches this terminal to the
	// host's session ref (pty --remote HOST attach REF).
	Attach func(ref string) *exec.Cmd
	Wait   time.Duration
}

// RemoteSession is one row of a host's list, as its remote-serve sends it.
type RemoteSession struct {
	Name, Status, Command, Cwd, DisplayName string
	Tags                                    map[string]string
	// Changed is when the session started, or ended, by this machine's
	// clock; zero when the host did not say (the original's does not).
	Changed  time.Time
	Ending   string   // how an exited session ended: "exit 3"
	Activity []string // its activity markers: "bell", "notified"
}

// hostState is what the picker knows of one host: nothing yet (asked),
// its sessions, or why it could not be listed.
type hostState struct {
	rows     []RemoteSession
	err      error
	answered bool
}

type (
	hostMsg struct {
		i    int
		rows []RemoteSession
		err  error
	}
	hostTickMsg struct{ i int }
)

// askHost lists host i off the UI goroutine, within its Wait. Each host
// is asked on its own, so a slow one delays neither the local list nor
// the other hosts.
func (m *Model) askHost(i int) tea.Cmd {
	h := m.o.Hosts[i]
	return func() tea.Msg {
		wait := h.Wait
		if wait <= 0 {
			wait = DefaultHostWait
		}
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		rows, err := h.List(ctx)
		if err != nil && ctx.Err() != nil {
			err = fmt.Errorf("%s did not answer within %v", h.Label, wait)
		}
		sort.SliceStable(rows, func(a, b int) bool { return remoteName(rows[a]) < remoteName(rows[b]) })
		return hostMsg{i: i, rows: rows, err: err}
	}
}

// askHosts asks every host at once.
func (m *Model) askHosts() []tea.Cmd {
	cmds := make([]tea.Cmd, len(m.o.Hosts))
	for i := range m.o.Hosts {
		cmds[i] = m.askHost(i)
	}
	return cmds
}

// hostAnswered keeps a host's answer and asks it again after
// RemoteRefresh.
func (m *Model) hostAnswered(msg hostMsg) tea.Cmd {
	st := &m.hosts[msg.i]
	st.answered, st.err = true, msg.err
	if msg.err == nil {
		st.rows = msg.rows
	} else {
		st.rows = nil
	}
	m.rebuild()
	i := msg.i
	return tea.Tick(RemoteRefresh, func(time.Time) tea.Msg { return hostTickMsg{i: i} })
}

func remoteName(r RemoteSession) string {
	if r.DisplayName != "" {
		return r.DisplayName
	}
	return r.Name
}

// remoteKey is a remote row's key in the selection.
func remoteKey(host, name string) string { return "\x00r\x00" + host + "\x00" + name }

// headKey is a host's group heading, which is never selected.
func headKey(host string) string { return "\x00h\x00" + host }

// remoteItems are the rows of every host the filter q lets through, each
// host's under its heading, best match first within a host.
func (m *Model) remoteItems(q string) []item {
	var out []item
	for i, h := range m.o.Hosts {
		out = append(out, item{key: headKey(h.Label), host: i, head: true})
		var group []item
		st := &m.hosts[i]
		for j := range st.rows {
			r := &st.rows[j]
			f := Fields{Names: []string{r.Name}, Command: r.Command, Dir: r.Cwd, Tags: []string{h.Label}}
			if r.DisplayName != "" {
				f.Names = append(f.Names, r.DisplayName)
			}
			for k, v := range r.Tags {
				f.Tags = append(f.Tags, k+"="+v)
			}
			score, ok := Match(q, f)
			if !ok {
				continue
			}
			group = append(group, item{remote: r, host: i, key: remoteKey(h.Label, r.Name), score: score})
		}
		if strings.TrimSpace(q) != "" {
			sort.SliceStable(group, func(a, b int) bool { return group[a].score > group[b].score })
		}
		out = append(out, group...)
	}
	return out
}

// headRow is a host's heading: its name and what is known of it.
func (m *Model) headRow(i int) string {
	h, st := m.o.Hosts[i], m.hosts[i]
	label := styleTitle.Render(listing.Printable(h.Label))
	switch {
	case !st.answered:
		return label + " " + styleDim.Render("(asking...)")
	case st.err != nil:
		return label + " " + styleError.Render("(error: "+listing.Printable(oneLine(st.err.Error()))+")")
	}
	n := len(st.rows)
	word := "sessions"
	if n == 1 {
		word = "session"
	}
	return label + " " + styleDim.Render(fmt.Sprintf("(%d %s)", n, word))
}

// remoteRow is one session of a host, its age measured from now.
func remoteRow(r *RemoteSession, now time.Time) string {
	mark, st := markExited, styleDim
	switch r.Status {
	case "running":
		mark, st = markRunning, styleRunning
	case "vanished":
		mark, st = markVanished, styleVanished
	}
	var b strings.Builder
	b.WriteString("  " + st.Render(mark) + " " + styleTitle.Render(listing.Printable(r.Name)))
	if r.DisplayName != "" && r.DisplayName != r.Name {
		b.WriteString("  " + listing.Printable(r.DisplayName))
	}
	if r.Cwd != "" {
		b.WriteString("  " + styleDim.Render(listing.Printable(r.Cwd)))
	}
	if r.Command != "" {
		b.WriteString("  " + listing.Printable(r.Command))
	}
	switch age := listing.FormatAge(now.Sub(r.Changed)); {
	case r.Changed.IsZero():
		if r.Status != "running" {
			b.WriteString("  " + listing.Printable(r.Status))
		}
	case r.Status == "running":
		b.WriteString("  up " + age)
	case r.Status == "exited":
		b.WriteString("  " + listing.Printable(r.Ending) + ", " + age + " ago")
	default:
		b.WriteString("  " + listing.Printable(r.Status) + ", " + age + " ago")
	}
	if a := listing.ActivityText(&layout.Metadata{Activity: r.Activity}); a != "" {
		b.WriteString("  " + styleActivity.Render(a))
	}
	if t := tagText(r.Tags); t != "" {
		b.WriteString("  " + styleTags.Render(listing.Printable(t)))
	}
	return b.String()
}

func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// attachRemote hands the terminal to the host's attach of the session.
func (m *Model) attachRemote(it item) tea.Cmd {
	h := m.o.Hosts[it.host]
	return m.run(h.Label+":"+it.remote.Name, h.Attach(it.remote.Name))
}
