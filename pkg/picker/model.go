package picker

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ptyorg/pty/internal/detachkey"
	"github.com/ptyorg/pty/pkg/commands"
	"github.com/ptyorg/pty/pkg/launchconfig"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/lifecycle"
	"github.com/ptyorg/pty/pkg/listing"
	"github.com/ptyorg/pty/pkg/spawn"
)

// RefreshInterval is how often the list is re-read.
const RefreshInterval = time.Second

// Options configure a picker.
type Options struct {
	Root         string
	FilterTags   map[string]string // scope the list; new sessions get these tags
	PreselectNew bool              // start with "+ Create new session..." selected
	Cwd          string            // default directory of a new session
	Shell        string            // default command of a new session
	Home         string            // for showing paths with ~
	// Attach returns the command that attaches to a session; the picker
	// runs it with the terminal handed over. nil means `pty-attach
	// --root Root ID` (with --detach-key DetachKey).
	Attach func(id string) *exec.Cmd
	// DetachKey is the key that detaches from a session back to the
	// picker (the zero Key is Ctrl+\).
	DetachKey detachkey.Key
	// Env is the environment of sessions the picker starts (nil: this
	// process's).
	Env []string
	// Hosts are other machines whose sessions are listed too, each in a
	// group of its own under this host's (remote.go).
	Hosts []Host
	// QuitAfterAttach ends the picker once an attach succeeds: inside a
	// session, the attach moved the pty client showing it to the chosen
	// session (pty switch), and the picker's work is done.
	QuitAfterAttach bool
}

type mode int

const (
	modeList mode = iota
	modeRestart
	modeNewDir
	modeNewCmd
	modeBusy
)

// newKey identifies the "+ Create new session..." row in the selection.
const newKey = "\x00new"

type item struct {
	sess   *layout.Session // nil for the create row and a host's rows
	remote *RemoteSession  // a host's session
	host   int             // the host of remote or head, in Options.Hosts
	head   bool            // a host's heading, never selected
	key    string
	score  int
}

// Model is the picker's state. The zero value is not usable; call New.
type Model struct {
	o Options

	sessions []layout.Session // scoped by FilterTags, in display order
	loaded   bool
	loadErr  error
	hosts    []hostState // of Options.Hosts, by index

	filter editor
	items  []item // what the filter lets through, plus the create row
	sel    int
	selKey string
	top    int // first visible row, for scrolling

	mode    mode
	target  *layout.Session // the session a restart prompt is about
	dir     editor
	cmd     editor
	message string // one line under the list: what just happened
	isErr   bool

	width, height int
	now           func() time.Time
	quitting      bool
}

// Messages the model sends itself.
type (
	sessionsMsg struct {
		list []layout.Session
		err  error
	}
	tickMsg     struct{}
	attachedMsg struct {
		id     string
		err    error
		stderr string
	}
	startedMsg struct {
		id  string
		err error
	}
)

// New makes a picker model.
func New(o Options) *Model {
	if o.Shell == "" {
		o.Shell = "/bin/sh"
	}
	m := &Model{o: o, width: 80, height: 24, now: time.Now, hosts: make([]hostState, len(o.Hosts))}
	if o.PreselectNew {
		m.selKey = newKey
	}
	m.rebuild()
	return m
}

// Init loads the sessions and starts the refresh timer.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(append([]tea.Cmd{m.load(), tick()}, m.askHosts()...)...)
}

func tick() tea.Cmd {
	return tea.Tick(RefreshInterval, func(time.Time) tea.Msg { return tickMsg{} })
}

// load reads the registry off the UI goroutine.
func (m *Model) load() tea.Cmd {
	root, tags := m.o.Root, m.o.FilterTags
	return func() tea.Msg {
		all, err := layout.At(root).List()
		if err != nil {
			return sessionsMsg{err: err}
		}
		return sessionsMsg{list: Scope(all, tags)}
	}
}

// Scope keeps the sessions that carry every tag in tags and orders them
// as the picker shows them: running first, then exited, then vanished,
// each by display name.
func Scope(all []layout.Session, tags map[string]string) []layout.Session {
	var out []layout.Session
	for _, s := range all {
		ok := true
		for k, v := range tags {
			if s.Meta.Tags[k] != v {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, s)
		}
	}
	listing.Sort(out)
	rank := map[layout.Status]int{layout.Running: 0, layout.Exited: 1, layout.Vanished: 2}
	sort.SliceStable(out, func(i, j int) bool { return rank[out[i].Shown()] < rank[out[j].Shown()] })
	return out
}

// SetSessions replaces the list as a refresh does, keeping the selection
// and the filter.
func (m *Model) SetSessions(list []layout.Session) {
	if !m.loaded && !m.o.PreselectNew {
		// Before the first load only the create row existed; start on
		// the first session instead.
		m.sel, m.selKey = 0, ""
	}
	m.sessions = list
	m.loaded = true
	m.rebuild()
}

// fields are the texts the filter matches.
func (m *Model) fields(s layout.Session) Fields {
	f := Fields{Names: []string{s.ID}, Command: listing.Command(s.Meta), Dir: listing.TildePath(s.Meta.Cwd, m.o.Home)}
	if s.Meta.DisplayName != nil && *s.Meta.DisplayName != "" {
		f.Names = append(f.Names, *s.Meta.DisplayName)
	}
	f.Tags = layout.SortedTags(s.Meta.Tags)
	return f
}

// rebuild recomputes the visible rows from the sessions and the filter,
// keeping the selected row when it is still there.
func (m *Model) rebuild() {
	q := m.filter.String()
	m.items = m.items[:0]
	for i := range m.sessions {
		s := &m.sessions[i]
		score, ok := Match(q, m.fields(*s))
		if !ok {
			continue
		}
		m.items = append(m.items, item{sess: s, key: s.ID, score: score})
	}
	if strings.TrimSpace(q) != "" {
		sort.SliceStable(m.items, func(i, j int) bool { return m.items[i].score > m.items[j].score })
	}
	m.items = append(m.items, m.remoteItems(q)...)
	m.items = append(m.items, item{key: newKey})
	m.sel = m.indexOf(m.selKey, m.sel)
	m.sel = m.selectable(m.sel, 1)
	m.selKey = m.items[m.sel].key
	m.scroll()
}

// indexOf finds key among the rows; when it is gone, the row at the old
// position (clamped) takes its place, so the cursor does not jump to the top
// because the session under it ended.
func (m *Model) indexOf(key string, fallback int) int {
	for i, it := range m.items {
		if it.key == key {
			return i
		}
	}
	return max(0, min(fallback, len(m.items)-1))
}

func (m *Model) move(delta int) {
	dir := 1
	if delta < 0 {
		dir = -1
	}
	m.sel = m.selectable(max(0, min(len(m.items)-1, m.sel+delta)), dir)
	m.selKey = m.items[m.sel].key
	m.scroll()
}

// selectable is the row at i, or past the host headings from it in
// direction dir (then the other way): the last row, the create row, is
// never a heading.
func (m *Model) selectable(i, dir int) int {
	for j := i; j >= 0 && j < len(m.items); j += dir {
		if !m.items[j].head {
			return j
		}
	}
	for j := i; j >= 0 && j < len(m.items); j -= dir {
		if !m.items[j].head {
			return j
		}
	}
	return len(m.items) - 1
}

// listHeight is how many rows fit between the header and the footer.
func (m *Model) listHeight() int { return max(1, m.height-4) }

func (m *Model) scroll() {
	h := m.listHeight()
	if m.sel < m.top {
		m.top = m.sel
	}
	if m.sel >= m.top+h {
		m.top = m.sel - h + 1
	}
	m.top = max(0, min(m.top, len(m.items)-h))
	m.top = max(0, m.top)
}

// Filter returns the filter text; Selected the selected session's id ("" for
// the create row). Both are for tests and callers embedding the model.
func (m *Model) Filter() string { return m.filter.String() }

// Selected returns the id of the selected session, or "" on the create row.
func (m *Model) Selected() string {
	if m.selKey == newKey {
		return ""
	}
	return m.selKey
}

// Visible returns the ids of the listed sessions, in order; a host's
// as HOST:NAME.
func (m *Model) Visible() []string {
	var out []string
	for _, it := range m.items {
		switch {
		case it.sess != nil:
			out = append(out, it.sess.ID)
		case it.remote != nil:
			out = append(out, m.o.Hosts[it.host].Label+":"+it.remote.Name)
		}
	}
	return out
}

// Update handles a message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.scroll()
		return m, nil
	case sessionsMsg:
		if msg.err != nil {
			m.loadErr = msg.err
			return m, nil
		}
		m.loadErr = nil
		m.SetSessions(msg.list)
		return m, nil
	case tickMsg:
		return m, tea.Batch(m.load(), tick())
	case hostMsg:
		return m, m.hostAnswered(msg)
	case hostTickMsg:
		return m, m.askHost(msg.i)
	case attachedMsg:
		if m.o.QuitAfterAttach && msg.err == nil {
			m.quitting = true
			return m, tea.Quit
		}
		m.mode = modeList
		m.attachedMessage(msg)
		return m, m.load()
	case startedMsg:
		if msg.err != nil {
			m.mode = modeList
			m.setMessage(true, "%v", msg.err)
			return m, m.load()
		}
		m.selKey = msg.id
		return m, m.attach(msg.id)
	case tea.KeyMsg:
		return m.key(msg)
	}
	return m, nil
}

func (m *Model) setMessage(isErr bool, format string, args ...any) {
	m.message = fmt.Sprintf(format, args...)
	m.isErr = isErr
}

func (m *Model) attachedMessage(msg attachedMsg) {
	var ee *exec.ExitError
	switch {
	case msg.err == nil:
		m.setMessage(false, "Detached from %s.", msg.id)
	case errors.As(msg.err, &ee) && msg.stderr == "":
		// attach exits with the session's code when the session ends.
		m.setMessage(false, "%s exited with code %d.", msg.id, ee.ExitCode())
	case msg.stderr != "":
		m.setMessage(true, "%s", msg.stderr)
	default:
		m.setMessage(true, "attach %s: %v", msg.id, msg.err)
	}
}

func (m *Model) key(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	if msg.String() == "ctrl+c" {
		m.quitting = true
		return m, tea.Quit
	}
	switch m.mode {
	case modeRestart:
		return m.restartKey(msg)
	case modeNewDir, modeNewCmd:
		return m.newKey(msg)
	case modeBusy:
		return m, nil
	}
	m.message = ""
	switch msg.String() {
	case "esc":
		if m.filter.String() != "" {
			m.filter.Set("")
			m.resetSelection()
			return m, nil
		}
		m.quitting = true
		return m, tea.Quit
	case "q":
		if m.filter.String() == "" {
			m.quitting = true
			return m, tea.Quit
		}
	case "up", "ctrl+p", "shift+tab":
		m.move(-1)
		return m, nil
	case "down", "ctrl+n", "tab":
		m.move(1)
		return m, nil
	case "pgup":
		m.move(-m.listHeight())
		return m, nil
	case "pgdown":
		m.move(m.listHeight())
		return m, nil
	case "enter":
		return m.choose()
	}
	if _, edited := m.filter.Key(msg); edited {
		m.resetSelection()
	}
	return m, nil
}

// resetSelection puts the cursor on the best match: typing changes what
// matches, so the old selection means little, while moving the text
// cursor changes nothing and keeps it.
func (m *Model) resetSelection() {
	m.sel, m.top = 0, 0
	m.selKey = ""
	m.rebuild()
	m.selKey = m.items[m.sel].key
}

func (m *Model) choose() (tea.Model, tea.Cmd) {
	it := m.items[m.sel]
	switch {
	case it.head:
		return m, nil
	case it.remote != nil:
		// The host's attach says what to do with an ended session.
		return m, m.attachRemote(it)
	case it.sess == nil:
		m.mode = modeNewDir
		m.dir.Set(listing.TildePath(m.o.Cwd, m.o.Home))
		m.cmd.Set(m.o.Shell)
		return m, nil
	}
	// Re-read: the list may be up to a second old.
	s, err := layout.At(m.o.Root).Load(it.sess.ID)
	if err != nil {
		m.setMessage(true, "%v", err)
		return m, m.load()
	}
	if s.Shown() == layout.Running {
		return m, m.attach(s.ID)
	}
	m.mode = modeRestart
	m.target = &s
	return m, nil
}

func (m *Model) restartKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	switch msg.String() {
	case "y", "Y", "enter":
		s := *m.target
		m.mode = modeBusy
		m.setMessage(false, "Restarting %s...", listing.Printable(s.Name()))
		root, env := m.o.Root, m.o.Env
		return m, func() tea.Msg {
			_, err := lifecycle.Relaunch(context.Background(), root, s, lifecycle.RelaunchOptions{Stop: true, Env: env})
			return startedMsg{id: s.ID, err: err}
		}
	case "n", "N", "esc", "q":
		m.mode = modeList
		m.target = nil
	}
	return m, nil
}

func (m *Model) newKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	ed := &m.dir
	if m.mode == modeNewCmd {
		ed = &m.cmd
	}
	switch msg.String() {
	case "esc":
		m.mode = modeList
		m.message = ""
		return m, nil
	case "enter":
		if m.mode == modeNewDir {
			dir := m.expand(strings.TrimSpace(m.dir.String()))
			if err := launchconfig.CheckCwd(dir); err != nil {
				m.setMessage(true, "%v", err)
				return m, nil
			}
			m.message = ""
			m.mode = modeNewCmd
			return m, nil
		}
		return m.create()
	case "tab", "shift+tab":
		if m.mode == modeNewCmd {
			m.mode = modeNewDir
		} else {
			m.mode = modeNewCmd
		}
		return m, nil
	}
	ed.Key(msg)
	return m, nil
}

func (m *Model) expand(p string) string {
	if p == "" {
		return m.o.Cwd
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		p = filepath.Join(m.o.Home, p[1:])
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(m.o.Cwd, p)
	}
	return filepath.Clean(p)
}

// shellMeta are characters that mean the command line needs a shell.
const shellMeta = "|&;<>()$`\\\"'*?[]#~=%{}\n"

// NewSessionCommand splits what the user typed into a command and its
// arguments: run directly when it is plain words (so the display name is
// derived from the program, as with `pty run`), through /bin/sh -c when
// it uses shell syntax.
func NewSessionCommand(line, shell string) (string, []string) {
	line = strings.TrimSpace(line)
	if line == "" {
		return shell, nil
	}
	if strings.ContainsAny(line, shellMeta) {
		return "/bin/sh", []string{"-c", line}
	}
	f := strings.Fields(line)
	return f[0], f[1:]
}

func (m *Model) create() (tea.Model, tea.Cmd) {
	dir := m.expand(strings.TrimSpace(m.dir.String()))
	line := strings.TrimSpace(m.cmd.String())
	command, args := NewSessionCommand(line, m.o.Shell)
	o := spawn.Options{
		Command:        command,
		Args:           args,
		DisplayCommand: line,
		Cwd:            dir,
		Rows:           m.height,
		Cols:           m.width,
		Env:            m.o.Env,
	}
	if len(m.o.FilterTags) > 0 {
		o.Tags = map[string]string{}
		for k, v := range m.o.FilterTags {
			o.Tags[k] = v
		}
	}
	root := m.o.Root
	m.mode = modeBusy
	m.setMessage(false, "Starting %s...", line)
	return m, func() tea.Msg {
		id, err := spawn.Start(context.Background(), root, o)
		return startedMsg{id: id, err: err}
	}
}

// attach hands the terminal to `pty-attach ID` and comes back to the list
// when it ends (on detach, or when the session exits).
func (m *Model) attach(id string) tea.Cmd {
	var cmd *exec.Cmd
	if m.o.Attach != nil {
		cmd = m.o.Attach(id)
	} else {
		cmd = AttachCommand(m.o.Root, id, m.o.DetachKey)
	}
	return m.run(id, cmd)
}

// run hands the terminal to cmd, an attach to the session named id in
// the messages.
func (m *Model) run(id string, cmd *exec.Cmd) tea.Cmd {
	// Keep what attach says on stderr for the message line: the picker
	// redraws over the terminal as soon as attach returns.
	var errBuf bytes.Buffer
	if cmd.Stderr == nil {
		cmd.Stderr = &tailWriter{w: os.Stderr, buf: &errBuf}
	}
	m.mode = modeBusy
	return tea.ExecProcess(cmd, func(err error) tea.Msg {
		return attachedMsg{id: id, err: err, stderr: lastLine(errBuf.String())}
	})
}

// AttachCommand runs pty-attach from beside this executable, else from
// PATH, on the session id of the registry root, detaching with key. The
// root is passed on the command line: the picker's own may have come from
// its --root, which is not in its environment.
func AttachCommand(root, id string, key detachkey.Key) *exec.Cmd {
	path, err := commands.Find("attach")
	if err != nil {
		path = "pty-attach"
	}
	args := []string{"--root", root}
	if !key.IsDefault() {
		args = append(args, "--detach-key", key.Spec())
	}
	return exec.Command(path, append(args, id)...)
}

// tailWriter passes writes through and keeps a copy.
type tailWriter struct {
	w   *os.File
	buf *bytes.Buffer
}

func (t *tailWriter) Write(p []byte) (int, error) {
	if t.buf.Len() < 64<<10 {
		t.buf.Write(p)
	}
	return t.w.Write(p)
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimSpace(s)
}
