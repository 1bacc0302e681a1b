// Package spawn starts a session: it validates the launch settings, starts
// a detached pty-daemon for them and returns once the session is usable.
// run, attach's restart, restart, gc's respawn and pty.toml `up` all come
// through here, so a session is created one way only.
package spawn

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ptyorg/pty/internal/registry"
	"github.com/ptyorg/pty/pkg/launchconfig"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/leftovers"
	"github.com/ptyorg/pty/pkg/proto"
)

// Options are the launch settings of a session.
type Options struct {
	ID             string // "" = random
	Command        string // as typed; resolved via PATH, or relative to Cwd when it has a '/'
	Args           []string
	DisplayCommand string // "" = argv as typed, joined
	Cwd            string // "" = current directory
	Rows, Cols     int    // 0 = 24x80
	// Scrollback is how many lines of scrollback the session keeps, 0 to
	// launchconfig.MaxScrollback. nil means $PTY_SCROLLBACK of Env for a
	// new session, else the default; a replacement (Replace) keeps nil
	// as the default, since it starts what a record says.
	Scrollback *int
	Tags       map[string]string
	// DisplayName nil derives a name from cwd and command; a pointer to ""
	// means no display name.
	DisplayName *string
	ExtraEnv    map[string]string
	UnsetEnv    []string
	IsolateEnv  bool
	Ephemeral   bool
	// ExactEnv is a record's exact environment ("env", the original's
	// API): the child gets it instead of Env, with the session's own
	// variables. A replacement of such a record keeps it.
	ExactEnv map[string]string
	// Extra are metadata fields carried over from a previous record (state,
	// fields of newer writers).
	Extra map[string]json.RawMessage
	// Replace removes a dead record with the same id (under the session's
	// locks, atomically with the creation) instead of refusing the id.
	Replace bool
	// ReplaceGeneration, with Replace, narrows it to the record of exactly
	// this generation: if the record was replaced or removed since the
	// caller looked, Start fails with ErrReplaced instead of replacing
	// someone else's session. gc uses it to close the window between its
	// check and the daemon's claim.
	ReplaceGeneration string
	// Env is the base environment of the child before the env policy; nil
	// means this process's environment.
	Env []string
}

// Errors a caller may want to tell apart (run -a attaches on ErrRunning).
var (
	ErrRunning = errors.New("session is already running")
	ErrInUse   = errors.New("session id is already in use")
	// ErrReplaced: the record named by ReplaceGeneration is gone.
	ErrReplaced = errors.New("session was replaced or removed meanwhile")
	// ErrNoCommand: Options.Command is empty.
	ErrNoCommand = errors.New("no command given: write it after --, as in: pty run -- bash")
)

// RunningError is returned for an id whose daemon is alive.
func RunningError(id string) error {
	return &msgErr{fmt.Sprintf("Session %q is already running. Use \"pty attach %s\" to connect.", id, id), ErrRunning}
}

// InUseError is returned for an id with a dead record.
func InUseError(id string) error {
	return &msgErr{fmt.Sprintf("Session id %q is already in use.", id), ErrInUse}
}

type msgErr struct {
	msg string
	is  error
}

func (e *msgErr) Error() string { return e.msg }
func (e *msgErr) Unwrap() error { return e.is }

// Sentence: each message begins with the session it is about, so commands
// print it without "pty: " (cli.Message).
func (e *msgErr) Sentence() bool { return true }

// ReadyTimeout bounds how long Start waits for the daemon.
const ReadyTimeout = 10 * time.Second

// Prepare validates o and resolves it into a daemon config without touching
// the disk, so bad input leaves nothing behind.
func Prepare(root string, o Options) (launchconfig.Config, error) {
	var c launchconfig.Config
	c.Root = root
	c.ID = o.ID
	if c.ID == "" {
		c.ID = registry.RandomID()
	}
	if err := layout.ValidateIDInRoot(root, c.ID); err != nil {
		return c, err
	}
	if o.Command == "" {
		return c, ErrNoCommand
	}
	if err := checkNUL(o); err != nil {
		return c, err
	}
	cwd := o.Cwd
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return c, fmt.Errorf("current directory: %w (pass --cwd)", err)
		}
		cwd = wd
	}
	abs, err := filepath.Abs(cwd)
	if err != nil {
		return c, fmt.Errorf("working directory %s: %w", cwd, err)
	}
	if err := launchconfig.CheckCwd(abs); err != nil {
		return c, err
	}
	c.Cwd = abs
	for k := range o.ExtraEnv {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return c, fmt.Errorf("environment variable name %q is invalid: use --env KEY=VALUE with a KEY that has no '='", k)
		}
	}
	for k, v := range o.ExactEnv {
		if k == "" || strings.ContainsAny(k, "=\x00") || strings.IndexByte(v, 0) >= 0 {
			return c, fmt.Errorf("the record's environment has an invalid entry %q: variable names have no '=' and no value has a NUL byte", k)
		}
	}
	for _, k := range o.UnsetEnv {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return c, fmt.Errorf("--unset-env %q is invalid: give a variable name, without '='", k)
		}
	}
	for k := range o.Tags {
		if k == "" {
			return c, errors.New("tag with an empty key: write tags as KEY=VALUE")
		}
	}
	if !o.Replace {
		// A replacement (restart, respawn, run -a) keeps the tags it
		// had, whoever wrote them; a new session's are checked like
		// any tag change.
		if err := layout.ValidateTags(c.ID, o.Tags); err != nil {
			return c, err
		}
	}
	path := o.ExtraEnv["PATH"]
	if o.ExactEnv != nil {
		path = o.ExactEnv["PATH"]
	} else if path == "" {
		path = envLookup(o.Env, "PATH")
	}
	cmd, err := ResolveCommand(o.Command, c.Cwd, path)
	if err != nil {
		return c, err
	}
	c.Command = cmd
	c.Args = append([]string{}, o.Args...)
	c.DisplayCommand = o.DisplayCommand
	if c.DisplayCommand == "" {
		c.DisplayCommand = strings.Join(append([]string{o.Command}, o.Args...), " ")
	}
	c.Rows, c.Cols = o.Rows, o.Cols
	if c.Rows <= 0 {
		c.Rows = 24
	}
	if c.Cols <= 0 {
		c.Cols = 80
	}
	// Larger sizes come from a big terminal or an old record (restart,
	// respawn): the session gets the largest size it may have rather than
	// failing. pty run rejects an explicit --rows/--cols out of range.
	c.Rows, c.Cols = proto.ClampSize(c.Rows, c.Cols)
	if c.Scrollback, err = scrollback(o); err != nil {
		return c, err
	}
	if len(o.Tags) > 0 {
		c.Tags = map[string]string{}
		for k, v := range o.Tags {
			c.Tags[k] = v
		}
	}
	switch {
	case o.DisplayName == nil:
		if n := DefaultDisplayName(c.Cwd, o.Command, o.Args); n != "" {
			c.DisplayName = &n
		}
	case *o.DisplayName != "":
		if err := layout.ValidateDisplayName(*o.DisplayName); err != nil {
			return c, err
		}
		n := *o.DisplayName
		c.DisplayName = &n
	}
	c.ExtraEnv = o.ExtraEnv
	c.UnsetEnv = o.UnsetEnv
	c.ExactEnv = o.ExactEnv
	c.IsolateEnv = o.IsolateEnv
	c.Ephemeral = o.Ephemeral
	c.Extra = o.Extra
	c.Replace = o.Replace
	c.ReplaceGen = o.ReplaceGeneration
	return c, nil
}

// checkNUL refuses a NUL byte anywhere the kernel takes a C string: the
// command, its arguments, the working directory and every environment
// entry. No shell can type one, but pty.toml strings, a record written by
// another tool and Options from Go can hold one, and the daemon's exec
// would fail with it after the launcher had reported the session started.
func checkNUL(o Options) error {
	const fix = ": remove it (no program can receive one)"
	if strings.IndexByte(o.Command, 0) >= 0 {
		return fmt.Errorf("the command %q contains a NUL byte%s", o.Command, fix)
	}
	for i, a := range o.Args {
		if strings.IndexByte(a, 0) >= 0 {
			return fmt.Errorf("argument %d (%q) contains a NUL byte%s", i+1, a, fix)
		}
	}
	if strings.IndexByte(o.Cwd, 0) >= 0 {
		return fmt.Errorf("the working directory %q contains a NUL byte%s", o.Cwd, fix)
	}
	for k, v := range o.ExtraEnv {
		if strings.IndexByte(v, 0) >= 0 {
			return fmt.Errorf("the value of environment variable %s contains a NUL byte%s", k, fix)
		}
	}
	for _, kv := range o.Env {
		if strings.IndexByte(kv, 0) >= 0 {
			k, _, _ := strings.Cut(kv, "=")
			return fmt.Errorf("environment entry %q contains a NUL byte%s", k, fix)
		}
	}
	return nil
}

// scrollback checks o.Scrollback, or takes it from $PTY_SCROLLBACK for a
// new session. A replacement's comes from a record, which someone may
// have edited: it is brought within range rather than refused, as its
// size is.
func scrollback(o Options) (*int, error) {
	const limit = launchconfig.MaxScrollback
	n := o.Scrollback
	if n == nil && !o.Replace {
		v := envLookup(o.Env, launchconfig.ScrollbackEnv)
		if v == "" {
			return nil, nil
		}
		i, err := strconv.Atoi(v)
		if err != nil || i < 0 || i > limit {
			return nil, fmt.Errorf("%s=%s is not a scrollback length: give a number of lines from 0 to %d, or unset it for the default of %d", launchconfig.ScrollbackEnv, v, limit, launchconfig.DefaultScrollback)
		}
		n = &i
	}
	if n == nil {
		return nil, nil
	}
	v := *n
	if (v < 0 || v > limit) && !o.Replace {
		return nil, fmt.Errorf("scrollback %d is out of range: give a number of lines from 0 to %d", v, limit)
	}
	v = min(max(v, 0), limit)
	return &v, nil
}

func envLookup(env []string, k string) string {
	if env == nil {
		return os.Getenv(k)
	}
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], k+"="); ok {
			return v
		}
	}
	return ""
}

// ResolveCommand finds the executable the way a shell would: a name with a
// '/' is a path (relative to cwd), anything else is searched on path.
func ResolveCommand(name, cwd, path string) (string, error) {
	if strings.Contains(name, "/") {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		if isExec(p) {
			return filepath.Clean(p), nil
		}
		if fi, err := os.Stat(p); err == nil {
			if fi.IsDir() {
				return "", fmt.Errorf("Command is a directory: %s", name)
			}
			return "", fmt.Errorf("Command is not executable: %s (make it so with chmod +x, or run it through its interpreter)", name)
		}
		return "", fmt.Errorf("Command not found: %s", name)
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		if isExec(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("Command not found: %s", name)
}

func isExec(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && unix.Access(p, unix.X_OK) == nil
}

// sanitizeName replaces each run of characters outside [A-Za-z0-9._-]
// with one '-'. (No regexp: this package is linked into every daemon,
// whose memory we keep small.)
func sanitizeName(s string) string {
	var b strings.Builder
	dash := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' {
			b.WriteByte(c)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	return b.String()
}

// DefaultDisplayName is <basename(cwd)>-<basename(cmd)>[-<first non-flag
// arg under 30 chars, extension stripped>], reduced to [A-Za-z0-9._-].
func DefaultDisplayName(cwd, command string, args []string) string {
	parts := []string{filepath.Base(cwd), filepath.Base(command)}
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			continue
		}
		if len(a) < 30 {
			b := filepath.Base(a)
			if ext := filepath.Ext(b); ext != "" && ext != b {
				b = strings.TrimSuffix(b, ext)
			}
			parts = append(parts, b)
		}
		break
	}
	var out []string
	for _, p := range parts {
		p = strings.Trim(sanitizeName(p), "-")
		if p != "" && p != "." && p != ".." {
			out = append(out, p)
		}
	}
	n := strings.Join(out, "-")
	if len(n) > layout.MaxDisplayName {
		n = n[:layout.MaxDisplayName]
	}
	if layout.ValidateDisplayName(n) != nil {
		return ""
	}
	return n
}

// Check reports why id cannot be created now: running, or a dead record
// that the caller did not ask to replace. nil means it is free (or
// replaceable).
func Check(root, id string, replace bool) error {
	if _, ok := registry.ReadLaunchClaim(root, id); ok {
		// Being started, or a start that never finished: only claim,
		// under the session's locks, can tell which and act on it.
		return nil
	}
	m, err := layout.At(root).Metadata(id)
	if err == nil {
		if alive, _ := layout.At(root).DaemonAlive(id, ""); layout.StatusOf(m, alive) == layout.Running {
			return RunningError(id)
		}
		if alive, _ := layout.At(root).DaemonAlive(id, ""); alive {
			// An exited session whose daemon still answers for its grace
			// period (docs/protocol.md, Session end): replacing it now
			// would race its cleanup, so wait for that to end (within
			// 5 s, whatever happens), then look again.
			if !waitGone(root, id, lingerWait) {
				return RunningError(id)
			}
			// Its last step, reaping the record or not, is under the
			// session's lock.
			layout.At(root).Locked(id, 5*time.Second, func() error { return nil })
			return Check(root, id, replace)
		}
		if !replace {
			return InUseError(id)
		}
		return nil
	}
	if !errors.Is(err, layout.ErrNotFound) {
		// A damaged record: its daemon may still be running.
		if alive, _ := layout.At(root).DaemonAlive(id, ""); alive {
			return RunningError(id)
		}
		if !replace {
			if errors.Is(err, layout.ErrDamaged) {
				return &msgErr{fmt.Sprintf("Session id %q is already in use by a damaged record: remove it with \"pty rm %s\".", id, id), ErrInUse}
			}
			return InUseError(id)
		}
		return nil
	}
	if alive, _ := layout.At(root).DaemonAlive(id, ""); alive {
		return RunningError(id)
	}
	return nil
}

// lingerWait is how long Check waits for an ended session's daemon.
const lingerWait = 6 * time.Second

func waitGone(root, id string, max time.Duration) bool {
	deadline := time.Now().Add(max)
	for {
		if alive, _ := layout.At(root).DaemonAlive(id, ""); !alive {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Start creates the session and returns its id once its socket accepts
// connections, its metadata names the daemon and session_start is logged.
//
// A new session's daemon is started first of all, before the settings are
// checked: a new process's fork, exec and first scheduling are the longest
// step of a start, and so they run beside the checks instead of after
// them. Bad settings kill it again before it has its config, when it has
// touched nothing. A replacement checks first: the leftovers of the record
// it replaces are stopped before a daemon of the id runs.
func Start(ctx context.Context, root string, o Options) (string, error) {
	var l *launching
	if !o.Replace {
		if o.ID == "" {
			o.ID = registry.RandomID()
		}
		if layout.ValidateIDInRoot(root, o.ID) == nil {
			// A failure here (no pty-daemon) is said after the
			// settings' mistakes: start tries again after checking them.
			l, _ = prelaunch(root, o.ID, o.Env)
		}
	}
	id, err := start(ctx, root, o, l)
	if err != nil && l != nil {
		l.abort()
	}
	return id, err
}

func start(ctx context.Context, root string, o Options, l *launching) (string, error) {
	cfg, err := Prepare(root, o)
	if err != nil {
		return "", err
	}
	// The root first: a root that is a file or someone else's must be
	// reported as such, not as an id in use.
	if err := layout.EnsureRoot(root); err != nil {
		return "", err
	}
	if err := Check(root, cfg.ID, cfg.Replace); err != nil {
		return "", err
	}
	if cfg.Replace {
		if err := stopLeftovers(root, cfg.ID, cfg.ReplaceGen); err != nil {
			return "", err
		}
	}
	if l == nil {
		if l, err = prelaunch(root, cfg.ID, o.Env); err != nil {
			return "", err
		}
	}
	return cfg.ID, l.finish(ctx, cfg)
}

// stopLeftovers stops what the record about to be replaced left running,
// if its daemon crashed (vanished): run -a, attach's restart, restart, up
// and gc's respawn all come through here, and the old processes would run
// on beside the new session, untracked.
func stopLeftovers(root, id, gen string) error {
	m, err := layout.At(root).Metadata(id)
	if err != nil || m.Exited() || (gen != "" && m.Generation != gen) {
		return nil
	}
	if alive, _ := layout.At(root).DaemonAlive(id, m.Generation); alive {
		return nil
	}
	if d, ok := registry.DaemonOf(root, id, m.Generation); ok {
		// Its files were deleted under it: it is still the session.
		return fmt.Errorf("session %s is still running (daemon pid %d) but its files were deleted: it publishes them again within seconds, or run pty recover %s; not started again", id, d.Proc.Pid, id)
	}
	res, err := leftovers.Stop(root, id, m)
	if err != nil {
		return err
	}
	if len(res.Survivors) > 0 {
		return fmt.Errorf("session %s: processes its crashed daemon left (%v) survived TERM and KILL; not started again", id, res.Survivors)
	}
	return nil
}

// DaemonPath finds pty-daemon beside the running executable, then on PATH.
func DaemonPath() (string, error) {
	if exe, err := os.Executable(); err == nil {
		// Resolved by the kernel on Linux already (/proc/self/exe).
		if runtime.GOOS != "linux" {
			if r, err := filepath.EvalSymlinks(exe); err == nil {
				exe = r
			}
		}
		p := filepath.Join(filepath.Dir(exe), "pty-daemon")
		if isExec(p) {
			return p, nil
		}
	}
	p, err := exec.LookPath("pty-daemon")
	if err != nil {
		return "", errors.New("cannot find pty-daemon next to this program or on PATH: reinstall pty")
	}
	return filepath.Abs(p)
}

// Launch starts pty-daemon for an already prepared config and returns
// once the session is usable: listed (its record and pid file name the
// daemon), and its socket listening, so that peek, send and attach work at
// once (they wait in the socket's backlog until the daemon accepts). The
// launcher claims the session itself (see claim) while the daemon starts.
//
// The daemon is started first, before the claim: it waits for its config,
// sent only once the session is claimed, and until then does nothing but
// start its runtime. So the wait for a new process to be scheduled and to
// exec, the longest step of a start on a busy machine, runs beside the
// claim's locking and file creation instead of after it. A start that
// loses the claim kills its daemon, which never touched the root.
//
// When the command plainly can be started (startable), Launch does not
// wait for the daemon to start it: that would put the daemon's whole
// start-up on the caller's path. Otherwise it waits for the daemon's
// report, so that a command that cannot run fails here with the reason,
// and nothing is left behind.
func Launch(ctx context.Context, cfg launchconfig.Config, env []string) error {
	gen := cfg.Generation
	if gen == "" {
		gen = NewGeneration()
	}
	l, err := prelaunchGen(cfg.Root, cfg.ID, gen, env)
	if err != nil {
		return err
	}
	return l.finish(ctx, cfg)
}

// launching is a session's daemon started (prelaunch) before its launcher
// has claimed the session: it waits for its config, and until then has
// done nothing but start.
type launching struct {
	id, gen          string
	env              []string
	cfgR, cfgW       *os.File
	stR, stW, ln     *os.File
	d                *daemonStart
	claimed, aborted bool
}

// prelaunch starts pty-daemon for session id of root, with a new
// generation, and the pipes and socket it is handed.
func prelaunch(root, id string, env []string) (*launching, error) {
	return prelaunchGen(root, id, NewGeneration(), env)
}

func prelaunchGen(root, id, gen string, env []string) (*launching, error) {
	path, err := DaemonPath()
	if err != nil {
		return nil, err
	}
	if env == nil {
		env = os.Environ()
	}
	l := &launching{id: id, gen: gen, env: env}
	if l.cfgR, l.cfgW, err = os.Pipe(); err != nil {
		return nil, fmt.Errorf("start session %s: %w", id, err)
	}
	if l.stR, l.stW, err = os.Pipe(); err != nil {
		l.cfgR.Close()
		l.cfgW.Close()
		return nil, fmt.Errorf("start session %s: %w", id, err)
	}
	if l.ln, err = newListener(); err != nil {
		for _, f := range []*os.File{l.cfgR, l.cfgW, l.stR, l.stW} {
			f.Close()
		}
		return nil, fmt.Errorf("start session %s: %w", id, err)
	}
	l.d = startDaemon(path, id, registry.DaemonArgs(root, id, gen), launchconfig.DaemonEnv(env), l.cfgR, l.stW, l.ln)
	return l, nil
}

// abort kills a daemon that finish did not hand a session to (it has its
// config only from finish) and closes what it was to be handed.
func (l *launching) abort() {
	if l.aborted || l.claimed {
		return
	}
	l.aborted = true
	l.d.cancel()
	for _, f := range []*os.File{l.cfgR, l.cfgW, l.stR, l.stW, l.ln} {
		f.Close()
	}
}

// finish claims the session for the daemon l started and hands it cfg,
// whose ID is l's.
func (l *launching) finish(ctx context.Context, cfg launchconfig.Config) error {
	l.claimed = true
	cfg.Generation = l.gen
	env, cfgW, stR, ln, cfgR, stW, d := l.env, l.cfgW, l.stR, l.ln, l.cfgR, l.stW, l.d
	defer cfgW.Close()
	defer stR.Close()
	cfg.Waited = !startable(cfg, env)
	pid, err := claim(&cfg, ln, d)
	if err != nil {
		d.cancel()
	}
	// The daemon has its copies by now (claim and cancel wait for its
	// exec); its copy of the socket is the one that serves.
	ln.Close()
	cfgR.Close()
	stW.Close()
	if err != nil {
		return err
	}
	b, err := cfg.AppendJSON(nil)
	if err != nil {
		// A carried-over field that is not JSON. The daemon, given no
		// config, removes the session it was claimed for.
		cfgW.Close()
		return fmt.Errorf("start session %s: %w", cfg.ID, err)
	}
	if _, err := cfgW.Write(b); err != nil {
		// It died before reading its config.
		abandon(cfg, pid)
		return fmt.Errorf("session %s: the daemon exited before it was ready", cfg.ID)
	}
	cfgW.Close()
	if !cfg.Waited {
		return nil
	}

	type result struct {
		line string
		err  error
	}
	res := make(chan result, 1)
	go func() {
		line, err := bufio.NewReader(stR).ReadString('\n')
		res <- result{strings.TrimRight(line, "\n"), err}
	}()
	timer := time.NewTimer(ReadyTimeout)
	defer timer.Stop()
	select {
	case r := <-res:
		if r.line == "ok" {
			return nil
		}
		if msg, ok := strings.CutPrefix(r.line, "error "); ok {
			return errors.New(msg)
		}
		abandon(cfg, pid)
		return fmt.Errorf("session %s: the daemon exited before it was ready", cfg.ID)
	case <-ctx.Done():
		syscall.Kill(pid, syscall.SIGTERM)
		return fmt.Errorf("start session %s: %w", cfg.ID, ctx.Err())
	case <-timer.C:
		syscall.Kill(pid, syscall.SIGTERM)
		return fmt.Errorf("session %s: the daemon did not become ready within %v", cfg.ID, ReadyTimeout)
	}
}

// daemonStart is a pty-daemon being started (startDaemon) while its
// launcher claims the session.
type daemonStart struct {
	done chan struct{}
	gone chan struct{} // closed once it has ended and been reaped
	pid  int
	err  error
	used bool // the claim took it: the claim's own undo handles it from then on
}

// wait returns the daemon's pid once it runs pty-daemon.
func (d *daemonStart) wait() (int, error) {
	<-d.done
	return d.pid, d.err
}

// take is wait for the claim that publishes the daemon.
func (d *daemonStart) take() (int, error) {
	d.used = true
	return d.wait()
}

// cancel waits for the daemon's start and kills it if the claim did not
// take it (the claim's undo kills one it took). It waits for its config,
// so it has touched nothing.
//
// It returns once the daemon is reaped, so that a start that failed
// leaves no process of the id behind it for anyone to find (within a
// bound: a SIGKILL ends it at once, but not a process stopped in the
// kernel).
func (d *daemonStart) cancel() {
	pid, err := d.wait()
	if err != nil || d.used {
		return
	}
	syscall.Kill(pid, syscall.SIGKILL)
	select {
	case <-d.gone:
	case <-time.After(5 * time.Second):
	}
}

// startDaemon starts pty-daemon with its config pipe on fd 3, its status
// pipe on fd 4 and the session's socket (bound and listening by the time
// the config comes) on fd 5, on a goroutine of its own; the result says
// its pid once it runs pty-daemon. A bare fork and exec rather than
// os/exec: os.StartProcess first probes the kernel's pidfd support by
// starting a child of its own, which the caller would wait for.
func startDaemon(path, id string, argv, env []string, cfgR, stW, ln *os.File) *daemonStart {
	d := &daemonStart{done: make(chan struct{}), gone: make(chan struct{})}
	go func() {
		defer close(d.gone)
		d.pid, d.err = forkDaemon(path, id, argv, env, cfgR, stW, ln)
		close(d.done)
		if d.err != nil {
			return
		}
		// Reap it whenever it ends, so long-lived callers (gc, the picker)
		// collect no zombies; the session itself outlives a short-lived caller.
		var ws syscall.WaitStatus
		for {
			if _, err := syscall.Wait4(d.pid, &ws, 0, nil); err != syscall.EINTR {
				return
			}
		}
	}()
	// The daemon's fork goes first. A goroutine just started waits in
	// this processor's queue behind the caller, whose next steps (the
	// settings, the checks, the claim) make only short system calls,
	// none of which gives the processor up, and another processor seldom
	// takes a goroutine from there: the fork would wait until the claim
	// blocks on it, and the two would run one after the other. Yielding
	// puts the caller on the global queue, which an idle processor does
	// take, so that the daemon's fork and exec run beside the claim, as
	// Launch intends.
	runtime.Gosched()
	return d
}

func forkDaemon(path, id string, argv, env []string, cfgR, stW, ln *os.File) (int, error) {
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return 0, fmt.Errorf("start pty-daemon for %s: %w", id, err)
	}
	defer null.Close()
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{
		// Its identity, for whoever finds its pid in a pid file: a pid
		// is trusted only if these arguments match the record.
		Dir:   "/",
		Env:   env,
		Files: []uintptr{null.Fd(), null.Fd(), null.Fd(), cfgR.Fd(), stW.Fd(), ln.Fd()},
		// A session of its own: no controlling terminal, and the caller's
		// Ctrl+C or hangup never reaches it.
		Sys: &syscall.SysProcAttr{Setsid: true},
	})
	if err != nil {
		return 0, fmt.Errorf("start pty-daemon for %s: %w", id, &os.PathError{Op: "fork/exec", Path: path, Err: err})
	}
	return pid, nil
}

// abandon removes the session claimed for a daemon that died before it
// ran, unless someone else's session has the id by now.
func abandon(cfg launchconfig.Config, pid int) {
	layout.At(cfg.Root).Locked(cfg.ID, 5*time.Second, func() error {
		if layout.At(cfg.Root).VerifyDaemon(pid, cfg.ID, cfg.Generation) {
			return nil // alive after all: it serves the session
		}
		m, err := layout.At(cfg.Root).Metadata(cfg.ID)
		if err != nil || m.Generation != cfg.Generation {
			return nil
		}
		for _, f := range layout.At(cfg.Root).Paths(cfg.ID).All() {
			os.Remove(f)
		}
		return nil
	})
}

// NewGeneration mints a generation: 128 bits from the kernel, read
// directly rather than through crypto/rand, whose FIPS module (DRBG, AES,
// SHA-2/3) would be a megabyte of the daemon's resident binary (this
// package is linked into it). It only has to be unique, so should the read
// fail the runtime-seeded math/rand stands in.
func NewGeneration() string {
	var b [16]byte
	f, err := os.Open("/dev/urandom")
	if err == nil {
		_, err = io.ReadFull(f, b[:])
		f.Close()
	}
	if err != nil {
		for i := range b {
			b[i] = byte(mrand.Uint32())
		}
	}
	return hex.EncodeToString(b[:])
}

// OptionsFromMetadata rebuilds the launch settings stored in a record, for
// restart and respawn. The command is the stored absolute path.
func OptionsFromMetadata(id string, m *layout.Metadata) Options {
	o := Options{
		ID:             id,
		Command:        m.Command,
		Args:           append([]string{}, m.Args...),
		DisplayCommand: m.DisplayCommand,
		Cwd:            m.Cwd,
		Rows:           m.Rows,
		Cols:           m.Cols,
		IsolateEnv:     m.IsolateEnv,
		Ephemeral:      m.Ephemeral,
		UnsetEnv:       append([]string(nil), m.UnsetEnv...),
	}
	if m.Scrollback != nil {
		n := *m.Scrollback
		o.Scrollback = &n
	}
	if len(m.Tags) > 0 {
		o.Tags = map[string]string{}
		for k, v := range m.Tags {
			o.Tags[k] = v
		}
	}
	if len(m.ExtraEnv) > 0 {
		o.ExtraEnv = map[string]string{}
		for k, v := range m.ExtraEnv {
			o.ExtraEnv[k] = v
		}
	}
	if len(m.Env) > 0 {
		o.ExactEnv = map[string]string{}
		for k, v := range m.Env {
			o.ExactEnv[k] = v
		}
	}
	name := ""
	if m.DisplayName != nil {
		name = *m.DisplayName
	}
	o.DisplayName = &name
	if len(m.State) > 0 || len(m.Extra) > 0 {
		o.Extra = map[string]json.RawMessage{}
		for k, v := range m.Extra {
			o.Extra[k] = v
		}
		if len(m.State) > 0 {
			b, _ := json.Marshal(m.State)
			o.Extra["state"] = b
		}
	}
	return o
}
