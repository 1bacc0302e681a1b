// Package daemon is the per-session process: it owns the pseudo-terminal,
// runs the child in it, keeps an emulated screen, serves clients on the
// session socket (docs/protocol.md) and records the session's life in the
// registry.
//
// Concurrency: one mutex (Daemon.mu) guards the screen, the client set and
// every client's output queue. The pty read loop takes it once per chunk to
// feed the emulator and append the chunk to each queue; nothing under it
// ever blocks on I/O, so a slow client, a child that does not read its
// input, or a slow disk never stalls the output path. Daemon's comment
// has the lock order and what each lock guards.
//
// The files, by concern: daemon.go the process's life (start, serve,
// end); child.go the pty and the child; screen.go and baseline.go the
// emulated screen and what clients are sent of it; clients.go, tty.go,
// budget.go and framereader.go the connections and what they may hold;
// record.go the session's record and events; status.go STATUS.
//
// Size: every session has a daemon of its own, so what this package links
// is paid once per session. Nothing it calls may reach fmt, the
// reflection-based parts of encoding/json (Marshal, Unmarshal, Encoder,
// Decoder), reflect.Value, crypto/ or os/exec: errors are errs.Wrap or
// errors.New with strconv, JSON goes through internal/jsonlite.
// TestDaemonLinksNoHeavyPackages (test/daemon) reads the built binary's
// symbols and fails naming what was linked; docs/contributing.md, "The
// session daemon's size rule", says why and how to find the call.
package daemon

import (
	"errors"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ptyorg/pty/internal/errlog"
	"github.com/ptyorg/pty/internal/errs"
	"github.com/ptyorg/pty/internal/registry"
	"github.com/ptyorg/pty/pkg/launchconfig"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/procs"
	"github.com/ptyorg/pty/pkg/proto"
	"github.com/ptyorg/pty/pkg/term"
)

// Tunables. MaxQueue bounds a client's unsent output: past it the queue is
// dropped and the client is re-synchronised with a fresh baseline.
const (
	MaxQueue         = 4 << 20
	readBuf          = 16 << 10              // a pty read rarely returns more than 4 KiB
	floodWindow      = 50 * time.Millisecond // see floodingLocked
	floodThreshold   = 256 << 10
	floodKeep        = 64 << 10
	floodRedraw      = 33 * time.Millisecond
	catchUpMax       = time.Second // see redrawStaleLocked
	exitLinger       = 500 * time.Millisecond
	exitGrace        = 500 * time.Millisecond // see finish
	exitRecordWait   = 10 * time.Minute       // see recordExit
	exitRetryMin     = 100 * time.Millisecond
	exitRetryMax     = 5 * time.Second
	firstFrameWait   = 250 * time.Millisecond
	hupGrace         = 1 * time.Second // see stopTree
	killGrace        = 1500 * time.Millisecond
	shutdownBackstop = 5 * time.Second
	lastLinesMax     = 200
	outputPersist    = 5 * time.Second
	quietAfter       = 250 * time.Millisecond // silence that ends a burst of output
	trimAfter        = 256 << 10              // output bytes that make a trim worth it
	bellInterval     = time.Second
)

// Client roles (docs/protocol.md).
const (
	roleCommand = iota
	roleWritable
	roleReadonly
)

// Daemon is one running session.
//
// Locking. mu is the lock of the daemon's state: the fields after it and
// every client's (see client). A method named ...Locked is called with mu
// held and returns with it held (buildLocked and awaitRepliesLocked let
// go of it while they wait). Under mu nothing waits: no I/O that can
// block, no blocking channel operation, no file lock (see the package
// comment). The other fields are set before Serve starts a goroutine and
// constant after, atomic, channels, or owned by one goroutine, as noted.
//
// Lock order: whoever holds both took them in this order, and waits for
// the first only without the second (buildLocked tries gate without
// waiting while it holds mu, and lets go of mu to wait):
//
//	gate  one large baseline rendering at a time (buildLocked)
//	mu    the screen and the clients
//
// The other locks are never held with mu. inputMu serialises writes to
// the pty (input comes from the socket and the keyboard with mu
// released). The registry's file locks (layout.UpdatePlain,
// layout.Locked) are taken by recordLoop, watchLoop and the shutdown; a
// session's two in layout's order (events, then metadata). The error
// log's lock (errlog.Log) and recMu are leaves: they take nothing.
type Daemon struct {
	// The session, from its launch config.
	cfg     launchconfig.Config
	root    string
	id      string
	gen     string
	created string
	started time.Time
	reapEnv string

	// The pty and the child (child.go). ptmx and childPid are set by
	// startChild.
	ptmx      *os.File
	childPid  int
	inputMu   sync.Mutex // serialises writes to ptmx: see writeInput
	readBuf   []byte     // pump's
	childExit chan unix.WaitStatus
	childGone atomic.Bool
	sigchld   chan os.Signal
	pumpDone  chan struct{} // closed when pump returns

	// The connections (clients.go). ln and sockIno are the listening
	// socket and its file's inode: atomic, because republishing
	// (republish.go) binds a new one while acceptLoop serves.
	ln        atomic.Pointer[listener]
	sockIno   atomic.Uint64
	lingering atomic.Int32 // refused connections being let go of
	// acceptDone is closed when acceptLoop returns; closing stops it
	// at its next timeout (see stopAccepting).
	acceptDone chan struct{}
	closing    atomic.Bool
	// gate admits one rendering of a large baseline at a time (see
	// buildLocked); taken without d.mu held, or with a non-blocking send.
	gate chan struct{}

	// The record and the events (record.go), written off the output path
	// by recordLoop, which runs while it has work (see wakeRecorder):
	// recMu guards whether it runs, and whether it may start again.
	recMu      sync.Mutex
	recRunning bool
	recStopped bool
	events     chan layout.Event
	attached   chan struct{}
	lastOutput atomic.Int64
	// Output since the last trim, and whether recordLoop is already
	// watching for the end of the output: see noteOutput.
	outBytes atomic.Int64
	watching atomic.Bool
	kick     chan struct{}
	// log takes what failed to be written there (see recordErr).
	log *errlog.Log

	// Publishing the session's files again when they go (republish.go).
	repub republisher
	// syncRecord: watchLoop makes the record durable as it starts.
	syncRecord bool

	// The session's end (Serve, finish). sigs receives the stops Serve
	// handles; stop is closed to end the background loops (reap,
	// recordLoop); bgDone counts the recordLoop finish waits for.
	sigs   chan os.Signal
	stop   chan struct{}
	bgDone sync.WaitGroup
	// backstop ends the daemon if its shutdown stalls (see Serve);
	// recordExit pushes it back while it waits for room to write the
	// exit. Set before the shutdown starts, nil for a failed start; used
	// by Serve's goroutine only.
	backstop *time.Timer

	mu sync.Mutex

	// The screen (screen.go, baseline.go), guarded by mu.
	screen *term.Screen
	rows   int
	cols   int
	// screenGen counts the screen's changes (output, resizes): a
	// rendered large baseline (shared) serves every connection that asks
	// for the same before the next one.
	screenGen uint64
	shared    *sharedBaseline
	// The emulator's answers for the child, and whether sendReplies
	// runs to write them (onReplyLocked).
	replies  [][]byte
	replying bool
	exited   bool
	exitCode int
	title    string    // the last title recorded (onEventLocked)
	lastBell time.Time // the last bell recorded
	act      activity  // the activity markers (activity.go)
	// The output of the current flood window (see floodingLocked).
	floodStart time.Time
	floodBytes int
	flood      bool

	// The clients and their budget (clients.go, budget.go), guarded by mu.
	clients   map[*client]struct{}
	writers   int  // clients with the writable role
	manyProcs bool // see fitProcsLocked
	held      int  // bytes held for clients: see recountLocked
	shedding  bool
	// requests counts the writable requests (ATTACH, ATTACH_TTY, RESIZE)
	// so far: a client's seq is the number of its last.
	requests int64
	// Memory freed since it was last handed back to the system, and when
	// that was: see releaseLocked.
	freed     int
	releasing bool
	released  time.Time

	// typedSeq counts terminal clients' keystrokes and attaches, guarded
	// by mu: the client a switch request concerns (switch.go).
	typedSeq uint64
}

// Main runs the daemon for pty-daemon: it reads the config from fd 3,
// takes the listening socket from fd 5, reports the command's start on fd
// 4 and returns the process exit status. args are its arguments after the
// program name: id, generation and root, which must be the config's (see
// registry.DaemonArgs: they are how a pid is told to be this session's
// daemon).
//
// The launcher has published the session before we run (spawn's claim):
// the record, the pid file and the socket are ours already, and clients
// may be waiting in the socket's backlog.
func Main(args []string) int {
	growStack()
	sigs := notifySignals()
	keepDescriptorsFromChild()
	cfgFile := os.NewFile(3, "config")
	status := os.NewFile(4, "status")
	if cfgFile == nil || status == nil {
		os.Stderr.WriteString("pty-daemon is started by pty run, not by hand\n")
		return 1
	}
	b, err := io.ReadAll(cfgFile)
	cfgFile.Close()
	var cfg launchconfig.Config
	if err == nil {
		cfg, err = launchconfig.Parse(b)
	}
	if err == nil && (len(args) != 3 || cfg.ID != args[0] || cfg.Generation != args[1] || cfg.Root != args[2]) {
		err = errors.New("config is for " + strconv.Quote(cfg.ID) + ", not the session its arguments name")
	}
	var ln *listener
	if err == nil {
		ln, err = inheritListener(5, layout.At(cfg.Root).Paths(cfg.ID).Sock())
	}
	if err != nil {
		status.WriteString("error pty-daemon: bad launch config: " + err.Error() + "\n")
		status.Close()
		unclaimUnrun(args)
		return 1
	}
	// The session is ours from here: a launcher killed now has handed
	// everything over. Before the child starts, so a claim found with its
	// daemon dead means the command never ran.
	registry.DropLaunchClaim(cfg.Root, cfg.ID, cfg.Generation)
	d, err := Start(cfg, ln, sigs)
	if err != nil && cfg.Waited {
		status.WriteString("error " + oneLine(err.Error()) + "\n")
		status.Close()
		return 1
	}
	// The launcher waits for this only when it asked to (cfg.Waited).
	status.WriteString("ok\n")
	status.Close()
	if err != nil {
		return d.startFailed(err)
	}
	d.syncRecord = true // see watchLoop
	return d.Serve()
}

// signals are the channels the daemon's signals arrive on, all asked for
// at once at the very start. A stop that lands before the child runs is
// handled by Serve like any other, instead of killing us with the session
// published and nothing recorded; a SIGUSR1 (republish) sent while the
// daemon starts is kept for the watch rather than ending the daemon.
// Asking later can cost memory for good: each first Notify of a signal is
// a round trip to the runtime's signal-mask thread, and one made while
// other goroutines block in system calls (the record's fsync) can make the
// runtime start a thread that then stays, idle, for the session's life.
type signals struct {
	stop, chld, usr1 chan os.Signal
}

func notifySignals() signals {
	s := signals{
		stop: make(chan os.Signal, 4),
		chld: make(chan os.Signal, 1),
		usr1: make(chan os.Signal, 1),
	}
	signal.Notify(s.stop, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	signal.Notify(s.chld, syscall.SIGCHLD)
	signal.Notify(s.usr1, syscall.SIGUSR1)
	return s
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }

// unclaimUnrun removes the session the launcher created for this daemon
// when no usable config came (the launcher was killed before it wrote it
// all): nothing will run in it, and left as it is, its id would read as in
// use. The arguments name the session; only what is still this start's
// is removed (the launch claim of this generation proves it: the next
// start of the id replaces the claim before it creates anything).
func unclaimUnrun(args []string) {
	// Not layout.ValidateID, whose messages would link fmt into every
	// daemon: an id that cannot name a file outside the root is enough
	// here, where only files the claim proves ours are removed.
	if len(args) != 3 || args[0] == "" || args[0] == "." || args[0] == ".." || strings.ContainsRune(args[0], '/') || !filepath.IsAbs(args[2]) {
		return
	}
	id, gen, root := args[0], args[1], args[2]
	layout.At(root).Locked(id, 5*time.Second, func() error {
		if g, ok := registry.ReadLaunchClaim(root, id); !ok || g != gen {
			return nil
		}
		p := layout.At(root).Paths(id)
		if m, err := layout.At(root).Metadata(id); err == nil && m.Generation == gen {
			removeRecord(p)
		}
		if layout.At(root).Pid(id) == os.Getpid() {
			os.Remove(p.Pid())
		}
		var ours, onDisk syscall.Stat_t
		if syscall.Fstat(5, &ours) == nil && syscall.Lstat(p.Sock(), &onDisk) == nil &&
			ours.Ino == onDisk.Ino && ours.Dev == onDisk.Dev {
			os.Remove(p.Sock())
		}
		os.Remove(p.Launch())
		return nil
	})
}

// keepDescriptorsFromChild marks every descriptor from 3 up close-on-exec:
// the launch pipes (3 and 4), the socket (5) and whatever the launcher's
// caller left open across exec are the daemon's, and the session's program
// gets its terminal on 0, 1 and 2 and nothing else, as tmux gives its
// panes.
func keepDescriptorsFromChild() {
	if cloexecFrom(3) == nil {
		return
	}
	for _, dir := range []string{"/proc/self/fd", "/dev/fd"} {
		names, err := readDirNames(dir)
		if err != nil {
			continue
		}
		for _, name := range names {
			if fd, err := strconv.Atoi(name); err == nil && fd >= 3 {
				syscall.CloseOnExec(fd)
			}
		}
		return
	}
}

func readDirNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

// inheritListener takes over the listening socket the launcher bound.
func inheritListener(fd int, path string) (*listener, error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFSOCK {
		return nil, errors.New("no listening socket on fd " + strconv.Itoa(fd))
	}
	syscall.CloseOnExec(fd)
	if err := syscall.SetNonblock(fd, true); err != nil {
		return nil, err
	}
	// Listening again makes the credentials a client reads with
	// SO_PEERCRED ours rather than the launcher's, which called listen
	// first: the socket names its daemon for a session without a pid file.
	if err := syscall.Listen(fd, 1<<16-1); err != nil {
		return nil, os.NewSyscallError("listen", err)
	}
	return fileListener(fd, path)
}

// Start starts the child of a session the launcher has claimed, serving
// on ln; sigs are the signals Serve handles (notifySignals). On error the daemon
// still holds the session: the caller either unclaims it (the launcher
// waits to report the error) or ends it with the error (startFailed).
func Start(cfg launchconfig.Config, ln *listener, sigs signals) (*Daemon, error) {
	// spawn validates the size; this holds for any launcher, so a config
	// cannot make the emulator allocate more than a session may hold.
	if cfg.Rows <= 0 {
		cfg.Rows = 24
	}
	if cfg.Cols <= 0 {
		cfg.Cols = 80
	}
	cfg.Rows, cfg.Cols = proto.ClampSize(cfg.Rows, cfg.Cols)
	d := &Daemon{
		cfg:       cfg,
		root:      cfg.Root,
		id:        cfg.ID,
		gen:       cfg.Generation,
		created:   cfg.CreatedAt,
		started:   time.Now(),
		log:       errlog.New(cfg.Root, cfg.ID),
		reapEnv:   os.Getenv("PTY_REAP_ON_EXIT"),
		sigs:      sigs.stop,
		sigchld:   sigs.chld,
		repub:     republisher{usr1: sigs.usr1},
		clients:   map[*client]struct{}{},
		rows:      cfg.Rows,
		cols:      cfg.Cols,
		events:    make(chan layout.Event, 256),
		attached:  make(chan struct{}, 1),
		act:       newActivity(),
		kick:      make(chan struct{}, 1),
		childExit: make(chan unix.WaitStatus, 1),
		pumpDone:  make(chan struct{}),
		gate:      make(chan struct{}, 1),
		stop:      make(chan struct{}),

		acceptDone: make(chan struct{}),
	}
	d.ln.Store(ln)
	d.sockIno.Store(cfg.SockIno)
	becomeSubreaper()
	lines := cfg.ScrollbackLines()
	if lines == 0 {
		lines = -1 // none, to the emulator
	}
	d.screen = term.New(d.rows, d.cols, term.Options{
		Scrollback: lines,
		Reply:      d.onReplyLocked,
		OnEvent:    d.onEventLocked,
	})
	err := launchconfig.CheckCwd(cfg.Cwd)
	if err == nil {
		err = d.startChild()
	}
	if err != nil {
		err = errs.Wrap("start "+cfg.Command, err)
		if cfg.Waited {
			d.unclaim()
		}
		return d, err
	}
	return d, nil
}

// startFailed ends a session whose command could not be started after the
// launcher had returned: the reason is on its screen, for whoever looks,
// and the session ends as a shell reports such a command, with exit status
// 127 when it is missing and 126 otherwise.
func (d *Daemon) startFailed(err error) int {
	d.mu.Lock()
	d.screen.Write([]byte("pty: " + err.Error() + "\r\n"))
	d.mu.Unlock()
	close(d.pumpDone)
	go d.acceptLoop()
	code := 126
	if errors.Is(err, os.ErrNotExist) {
		code = 127
	}
	d.finish(code, 0, false, nil)
	return 0
}

// Serve runs the session until it ends and returns the exit status of the
// daemon process.
func (d *Daemon) Serve() int {
	sigs := d.sigs
	// The output path first: the watch's start (the record's fsync) may
	// hold the one processor until the runtime hands it on.
	go d.pump()
	go d.acceptLoop()
	d.startWatching()

	// This goroutine reaps the children and takes the stops while the
	// session runs: an idle daemon's goroutines each keep a stack, so
	// what needs no goroutine of its own has none (see reapZombies).
	var ws unix.WaitStatus
	killed := false
wait:
	for {
		select {
		case <-d.sigchld:
			var ended bool
			if ws, ended, _ = d.reapZombies(); ended {
				break wait
			}
		case <-d.repub.usr1:
			d.repub.adopt.Store(true)
			d.repub.watch.wake()
		case s := <-sigs:
			if s == syscall.SIGHUP {
				continue
			}
			killed = true
			break wait
		}
	}
	go d.reap() // through the shutdown
	// Nothing is published again from here: the shutdown removes it.
	d.stopWatching()
	// Whatever goes wrong from here, the daemon is gone within the
	// backstop, with its child tree.
	backstop := time.AfterFunc(shutdownBackstop, func() {
		procs.Signal(sessionTree(), syscall.SIGKILL)
		d.removeOwned()
		os.Exit(0)
	})
	defer backstop.Stop()
	d.backstop = backstop
	var survivors []int
	if killed {
		survivors = d.stopTree()
		select {
		case ws = <-d.childExit:
		case <-time.After(time.Second):
			ws = unix.WaitStatus(uint32(syscall.SIGKILL))
		}
	}
	code, sig := exitCodeOf(ws)
	d.finish(code, sig, killed, survivors)
	return 0
}

// finish records the exit, tells clients, lingers so they receive EXIT,
// removes what we own and applies the reap policy.
func (d *Daemon) finish(code, sig int, killed bool, survivors []int) {
	select {
	case <-d.pumpDone:
	case <-time.After(300 * time.Millisecond): // a background job still holds the tty
	}
	d.mu.Lock()
	d.exited = true
	d.exitCode = code
	lines := trimLines(d.screen.LastLines(lastLinesMax))
	for c := range d.clients {
		if c.role == roleCommand && !c.spoke {
			// Its request (an ATTACH, say) is yet to be read: EXIT
			// will follow the baseline it asks for (syncLocked), not precede it.
			continue
		}
		d.redrawStaleLocked(c) // the final screen before the EXIT
		d.enqueueLocked(c, proto.Exit, proto.ExitCode(code))
	}
	d.mu.Unlock()
	graceEnd := time.Now().Add(exitGrace)
	if killed {
		// Stopped on purpose (pty kill), as the original does at once:
		// whoever is connected has EXIT, and kill waits for us.
		graceEnd = time.Now()
	}
	d.stopRecorder()

	evs := []layout.Event{layout.NewEvent(d.id, layout.EventSessionExit, "exitCode", code)}
	if sig != 0 {
		evs[0].Fields["signal"] = sig
	}
	if len(survivors) > 0 {
		evs = append(evs, layout.NewEvent(d.id, layout.EventDescendantsSurvived, "data", map[string]any{"pids": survivors}))
	}
	lo := d.lastOutput.Load()
	exitedAt := layout.Now()
	d.recordExit(func() error {
		return d.update(func(m *layout.Metadata) bool {
			m.ExitCode = &code
			m.Killed = killed
			m.Signal = nil
			if sig != 0 {
				m.Signal = &sig
			}
			m.ExitedAt = exitedAt
			m.LastLines = lines
			if lo > 0 {
				m.LastOutputAt = layout.FormatTime(time.UnixMilli(lo))
			}
			return true
		}, evs...)
	})

	// The grace period: whoever connects now still gets the final screen
	// and EXIT (the original serves for 500 ms too). Then the socket goes,
	// and the connections already made before it went are served. A stop
	// (pty kill) ends it at once and counts as one for the reap policy:
	// kill returns once we are gone, and the record stays with the exit.
	if d.waitGrace(graceEnd) {
		killed = true
	}
	d.waitFlushed(exitLinger)
	d.stopAccepting()
	d.waitFlushed(exitLinger)
	d.ln.Load().Close()
	d.mu.Lock()
	for c := range d.clients {
		c.closed = true
		c.conn.Close()
	}
	d.mu.Unlock()
	d.ptmx.Close()

	if !d.rootOurs() {
		return // removed or replaced: nothing of ours is in the root there now
	}
	err := layout.At(d.root).Locked(d.id, 5*time.Second, func() error {
		d.removeOwned()
		m, err := layout.At(d.root).Metadata(d.id)
		if err != nil || m.Generation != d.gen {
			return nil // replaced: the record is someone else's now
		}
		if ShouldReap(m.Tags, m.Ephemeral, killed, d.reapEnv, code) {
			removeRecord(layout.At(d.root).Paths(d.id))
		}
		return nil
	})
	d.recordErr("lock the record to end the session", err)
}

// waitGrace waits until end, or until a stop (SIGTERM, SIGINT) comes,
// and reports whether one came.
func (d *Daemon) waitGrace(end time.Time) bool {
	t := time.NewTimer(time.Until(end))
	defer t.Stop()
	for {
		select {
		case <-t.C:
			return false
		case s := <-d.sigs:
			if s != syscall.SIGHUP {
				return true
			}
		}
	}
}

// waitFlushed waits until every client's queue is written, or max.
func (d *Daemon) waitFlushed(max time.Duration) {
	deadline := time.Now().Add(max)
	for time.Now().Before(deadline) {
		d.mu.Lock()
		busy := false
		for c := range d.clients {
			if !c.closed && (len(c.pending) > 0 || len(c.ctl) > 0 || c.busy || c.due ||
				!c.spoke && time.Since(c.since) < firstFrameWait) {
				busy = true
			}
		}
		d.mu.Unlock()
		if !busy {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// stopAccepting removes the socket, so that no one else connects, then
// accepts the connections made before that (which closing the listener
// would reset) and stops acceptLoop.
func (d *Daemon) stopAccepting() {
	d.removeSock()
	d.closing.Store(true)
	if d.ln.Load().setDeadline(time.Now()) == nil { // wakes acceptLoop, which drains
		<-d.acceptDone
	}
}
