// Package daemon is the per-session process: it owns the pseudo-terminal,
// runs the child in it, keeps an emulated screen, serves clients on the
// session socket (docs/protocol.md) and records the session's life in the
// registry.
//
// Concurrency: one mutex (Daemon.mu) guards the screen, the client set and
// every client's output queue. The pty read loop takes it once per chunk to
// feed the emulator and append the chunk to each queue; nothing under it
// ever blocks on I/O, so a slow client, a child that does not read its
// input, or a slow disk never stalls the output path.
//
// Size: every session has a daemon of its own, so what this package links
// is paid once per session. Nothing it calls may reach fmt, the
// reflection-based parts of encoding/json (Marshal, Unmarshal, Encoder,
// Decoder), reflect.Value, crypto/ or os/exec: errors are errs.Wrap or
// errors.New with strconv, JSON goes through internal/jsonlite.
// TestDaemonLinksNoHeavyPackages (cmd/pty-daemon) reads the built binary's
// symbols and fails naming what was linked; docs/contributing.md, "The
// session daemon's size rule", says why and how to find the call.
package daemon

import (
	"errors"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ptyorg/pty/internal/errs"
	"github.com/ptyorg/pty/internal/rawio"
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
	floodWindow      = 50 * time.Millisecond // see flooding
	floodThreshold   = 256 << 10
	floodKeep        = 64 << 10
	floodRedraw      = 33 * time.Millisecond
	catchUpMax       = time.Second // see redrawStale
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
type Daemon struct {
	cfg     launchconfig.Config
	root    string
	id      string
	gen     string
	created string
	started time.Time
	reapEnv string

	ln      *net.UnixListener
	sockIno uint64
	ptmx    *os.File
	child   *os.Process

	mu       sync.Mutex
	screen   *term.Screen
	clients  map[*client]struct{}
	held     int // bytes held for clients: see recount
	shedding bool
	// Memory freed since it was last handed back to the system, and when
	// that was: see release.
	freed     int
	releasing bool
	released  time.Time
	lingering atomic.Int32 // refused connections being let go of
	// backstop ends the daemon if its shutdown stalls (see Serve);
	// recordExit pushes it back while it waits for room to write the
	// exit. Set before the shutdown starts, nil for a failed start.
	backstop  *time.Timer
	rows      int
	cols      int
	writers   int
	manyProcs bool // see fitProcs
	// gate admits one rendering of a large baseline at a time (see
	// buildLocked); taken without d.mu held, or with a non-blocking send.
	gate chan struct{}
	// screenGen counts the screen's changes (output, resizes): a
	// rendered large baseline (shared) serves every connection that asks
	// for the same before the next one.
	screenGen uint64
	shared    *sharedBaseline
	exited    bool
	exitCode  int
	title     string
	lastBell  time.Time
	// The output of the current flood window (see flooding).
	floodStart time.Time
	floodBytes int
	flood      bool

	inputMu    sync.Mutex
	replies    chan []byte
	events     chan layout.Event
	attached   chan struct{}
	lastOutput atomic.Int64
	readBuf    []byte
	// Output since the last trim, and whether metaLoop is already
	// watching for the end of the output: see noteOutput.
	outBytes  atomic.Int64
	watching  atomic.Bool
	kick      chan struct{}
	childExit chan unix.WaitStatus
	childGone atomic.Bool
	sigchld   chan os.Signal
	pumpDone  chan struct{}
	sigs      chan os.Signal
	stop      chan struct{}
	bgDone    sync.WaitGroup
	// acceptDone is closed when acceptLoop returns; closing stops it
	// at its next timeout (see stopAccepting).
	acceptDone chan struct{}
	closing    atomic.Bool
}

type client struct {
	conn     *net.UnixConn
	raw      syscall.RawConn
	role     int
	rows     int
	cols     int
	flags    byte
	live     bool // receives DATA
	pending  []byte
	spare    []byte
	overflow bool
	busy     bool // the writer holds a batch
	closed   bool
	// held is what counts against the daemon's budget: the capacity of
	// the buffers above and of the batch the writer holds (inflight,
	// inflightLen bytes of it unsent).
	held, inflight, inflightLen int
	drained                     chan struct{} // the writer finished a write
	// stale: output went by without reaching the client (a flood); a
	// redraw is due, and scheduled while redrawing.
	stale     bool
	redrawing bool
	// mark is the number (term.Screen.HistorySeq) of the newest
	// scrollback line the client's terminal has: a redraw writes the
	// lines after it first. pendStart is what it was when the queue was
	// last empty, which an overflow falls back to. drawn: the terminal
	// shows the session, so a redraw draws over it in place. missed:
	// output was dropped since the last redraw; owedSince: when the
	// terminal began to lack scrollback lines.
	mark, pendStart int64
	drawn, missed   bool
	owing           bool
	owedSince       time.Time
	wake            chan struct{}
	// A client that handed us its terminal (tty.go): the output goes to
	// tty, the socket carries ctl, frames queued behind that output.
	tty    *os.File
	ttyRaw syscall.RawConn
	keys   *os.File
	ctl    []byte

	// history is how many lines of scrollback (-1: all) the next
	// baseline writes first: the first after ATTACH or ATTACH_TTY, never
	// a resync or a flood's redraw. histWant is what HISTORY asked for.
	history, histWant int
	// due: a baseline with a long scrollback is to be rendered by the
	// writer (baseline.go); build is the one it renders, buildHeld the
	// memory that takes, and peekFlags what the PEEK that asked for it
	// asked (a repeat of it is answered by it).
	due       bool
	build     *build
	buildHeld int
	peekFlags byte
	// A large baseline's payload and what follows it, handed by
	// queueBuilt to the writer, which takes them at once with pending.
	big, after []byte
	// When the connection was accepted, and whether it has sent a frame:
	// an ended session waits a little for a new client's request.
	since time.Time
	spoke bool
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
	// Catch a stop from the very start: one that lands before the child
	// runs is handled by Serve like any other, instead of killing us with
	// the session published and nothing recorded.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
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
	var ln *net.UnixListener
	if err == nil {
		ln, err = inheritListener(5, layout.PathsFor(cfg.Root, cfg.ID).Sock())
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
	// Durable now that the caller is not waiting: a permanent session's
	// record must survive a power loss for gc to bring it back.
	go layout.SyncFile(layout.PathsFor(d.root, d.id).Meta())
	return d.Serve()
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
		p := layout.PathsFor(root, id)
		if m, err := layout.At(root).Metadata(id); err == nil && m.Generation == gen {
			os.Remove(p.Meta())
			os.Remove(p.Events())
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
func inheritListener(fd int, path string) (*net.UnixListener, error) {
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
// on ln; sigs receives the stops that Serve handles. On error the daemon
// still holds the session: the caller either unclaims it (the launcher
// waits to report the error) or ends it with the error (startFailed).
func Start(cfg launchconfig.Config, ln *net.UnixListener, sigs chan os.Signal) (*Daemon, error) {
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
		reapEnv:   os.Getenv("PTY_REAP_ON_EXIT"),
		ln:        ln,
		sockIno:   cfg.SockIno,
		sigs:      sigs,
		clients:   map[*client]struct{}{},
		rows:      cfg.Rows,
		cols:      cfg.Cols,
		replies:   make(chan []byte, 64),
		events:    make(chan layout.Event, 256),
		attached:  make(chan struct{}, 1),
		kick:      make(chan struct{}, 1),
		childExit: make(chan unix.WaitStatus, 1),
		pumpDone:  make(chan struct{}),
		gate:      make(chan struct{}, 1),
		stop:      make(chan struct{}),

		acceptDone: make(chan struct{}),
	}
	// Before the child exists, so its exit cannot slip by unnoticed.
	d.sigchld = make(chan os.Signal, 1)
	signal.Notify(d.sigchld, syscall.SIGCHLD)
	becomeSubreaper()
	lines := cfg.ScrollbackLines()
	if lines == 0 {
		lines = -1 // none, to the emulator
	}
	d.screen = term.New(d.rows, d.cols, term.Options{
		Scrollback: lines,
		Reply:      d.onReply,
		OnEvent:    d.onEvent,
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
	d.screen.Write([]byte("pty: " + err.Error() + "\r\n"))
	close(d.pumpDone)
	go d.acceptLoop()
	code := 126
	if errors.Is(err, os.ErrNotExist) {
		code = 127
	}
	d.finish(code, 0, false, nil)
	return 0
}

// unclaim undoes claim after the child failed to start.
func (d *Daemon) unclaim() {
	d.ln.Close()
	layout.At(d.root).Locked(d.id, 5*time.Second, func() error {
		d.removeOwned()
		p := layout.PathsFor(d.root, d.id)
		if m, err := layout.At(d.root).Metadata(d.id); err == nil && m.Generation == d.gen {
			os.Remove(p.Meta())
			os.Remove(p.Events())
		}
		return nil
	})
}

func (d *Daemon) startChild() error {
	master, tty, err := openPTY(d.rows, d.cols)
	if err != nil {
		return err
	}
	defer tty.Close()
	// os.StartProcess rather than os/exec, whose Cmd machinery (pipes,
	// contexts, path lookup) this needs none of and would keep resident.
	child, err := os.StartProcess(d.cfg.Command, append([]string{d.cfg.Command}, d.cfg.Args...), &os.ProcAttr{
		Dir:   d.cfg.Cwd,
		Env:   launchconfig.ChildEnv(launchconfig.CallerEnv(os.Environ()), d.cfg.IsolateEnv, d.cfg.UnsetEnv, d.cfg.ExtraEnv, d.root, d.id, d.gen),
		Files: []*os.File{tty, tty, tty},
		// Its own session with the pty as controlling terminal: job
		// control works and a hangup reaches it, not us.
		Sys: &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0},
	})
	if err != nil {
		master.Close()
		return err
	}
	d.ptmx = master
	d.child = child
	return nil
}

// Serve runs the session until it ends and returns the exit status of the
// daemon process.
func (d *Daemon) Serve() int {
	sigs := d.sigs
	go d.reap()
	go d.pump()
	go d.acceptLoop()
	go d.replyLoop()
	d.bgDone.Add(2)
	go d.eventLoop()
	go d.metaLoop()

	var ws unix.WaitStatus
	killed := false
	for {
		select {
		case ws = <-d.childExit:
		case s := <-sigs:
			if s == syscall.SIGHUP {
				continue
			}
			killed = true
		}
		break
	}
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

func exitCodeOf(ws unix.WaitStatus) (code, sig int) {
	if ws.Signaled() {
		return 128 + int(ws.Signal()), int(ws.Signal())
	}
	return ws.ExitStatus(), 0
}

// reap collects every child: the session's process, and, as a subreaper,
// whatever orphans its tree leaves, so no zombie accumulates. It waits for
// SIGCHLD rather than in a blocking wait4, which would pin an OS thread
// (and its stacks) for the whole life of the session. SIGCHLDs coalesce,
// so each one drains every zombie there is.
func (d *Daemon) reap() {
	pid := d.child.Pid
	for {
		for {
			var ws unix.WaitStatus
			wpid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if err != nil {
				if errors.Is(err, unix.ECHILD) && d.childGone.Load() {
					signal.Stop(d.sigchld)
					return // the tree is empty and the session over
				}
				break
			}
			if wpid <= 0 {
				break
			}
			if wpid == pid && (ws.Exited() || ws.Signaled()) {
				d.childGone.Store(true)
				d.childExit <- ws
			}
		}
		select {
		case <-d.sigchld:
		case <-d.stop:
			signal.Stop(d.sigchld)
			return
		}
	}
}

// pump is the hot path: pty → emulator → every live client's queue, in
// one goroutine that emulates each chunk before it reads the next. A
// child that outruns the emulator waits in its write, as it would on a
// real terminal.
//
// One goroutine rather than a reader handing bursts to an emulating one:
// the emulator is fast enough that the hand-offs (wake-ups, thread
// switches, a futex per batch) cost more than the overlap would gain.
func (d *Daemon) pump() {
	defer close(d.pumpDone)
	// On the heap: as a local the buffer would live on the goroutine's
	// stack, which then doubles to hold it.
	d.readBuf = make([]byte, readBuf)
	buf := d.readBuf
	rc, err := d.ptmx.SyscallConn()
	if err != nil {
		return // only for a closed file: the session is over
	}
	rc.Read(func(fd uintptr) bool {
		for {
			n, err := rawio.Read(int(fd), buf)
			if n > 0 {
				d.emulate(buf[:n])
				// After the output is on its way: noting it may wake
				// metaLoop, a thread wake-up that an echo should not
				// wait for.
				d.noteOutput(n)
				continue
			}
			switch err {
			case unix.EINTR:
				continue
			case unix.EAGAIN:
				return false // wait for the poller
			}
			return true // EOF, or EIO once the child's side is closed
		}
	})
}

// emulate feeds one chunk of output to the screen and to every live
// client, under d.mu so that no attach falls between the two. During a
// flood (see flooding) clients get the screen redrawn every floodRedraw
// instead of the bytes.
func (d *Daemon) emulate(b []byte) {
	d.mu.Lock()
	before := d.screen.HistorySeq()
	d.screen.Write(b)
	d.screenGen++
	d.shared = nil
	flood := d.flooding(len(b))
	// A second processor from a quarter of the flood threshold on, so
	// that telling a flood does not wait on one processor's pace.
	if d.writers > 0 && (flood || d.floodBytes >= floodKeep) {
		d.fitProcs(true)
	}
	for c := range d.clients {
		if !c.live {
			continue
		}
		if flood || c.stale {
			d.markStale(c)
			continue
		}
		if len(c.pending) == 0 {
			c.pendStart = before
		}
		d.enqueue(c, proto.Data, b)
		if !c.overflow {
			// The terminal scrolls with the bytes as the session did.
			c.mark = d.screen.HistorySeq()
		}
	}
	d.mu.Unlock()
}

// flooding adds n bytes of output to the current floodWindow and reports
// whether the output is a flood: more than floodThreshold in a window, far
// more than anyone reads, until a window with less than floodKeep. Then, as tmux does, clients are sent the screen
// as it is a few dozen times a second rather than every byte: a terminal
// need not render 32 MiB of cat, and the session drains at the speed of
// the emulator instead of at the speed of the slowest terminal. (What
// scrolled by is in the session's scrollback: pty peek --full.) Called
// under d.mu.
func (d *Daemon) flooding(n int) bool {
	now := time.Now()
	if el := now.Sub(d.floodStart); el > floodWindow {
		// A flood goes on while every window has at least floodKeep:
		// otherwise the first floodThreshold bytes of each window would
		// still be forwarded.
		if el > 2*floodWindow || d.floodBytes < floodKeep {
			d.flood = false
		}
		d.floodStart, d.floodBytes = now, 0
	}
	d.floodBytes += n
	if d.floodBytes > floodThreshold {
		d.flood = true
	}
	return d.flood
}

// markStale notes that c missed output and schedules its redraw. Called
// under d.mu.
func (d *Daemon) markStale(c *client) {
	c.stale, c.missed = true, true
	if !c.owing {
		c.owing, c.owedSince = true, time.Now()
	}
	d.scheduleRedraw(c)
}

// scheduleRedraw redraws c floodRedraw from now, unless that is already
// due. Called under d.mu.
func (d *Daemon) scheduleRedraw(c *client) {
	if c.redrawing {
		return
	}
	c.redrawing = true
	time.AfterFunc(floodRedraw, func() {
		d.mu.Lock()
		c.redrawing = false
		d.redrawStale(c)
		d.mu.Unlock()
	})
}

// redrawStale sends a stale client a fresh baseline, from which the live
// stream resumes. Called under d.mu.
//
// The baseline first writes the scrollback lines the client's terminal
// lacks, so that its scrollback holds every line the session kept, once
// and in order. While the output goes on, those wait: a redraw of the
// screen alone keeps the client stale, and the lines go with the first
// redraw after a tick without output (or after catchUpMax, for output
// that never stops). Written every tick, the scrollback would take the
// lines that scrolled by in each tick, most of which the session then
// drops: marker after marker, and many times the bytes. Until the lines
// are written no output is forwarded either, since the terminal would
// scroll its screen, lines newer than those, into its scrollback.
//
// A terminal that has not taken the previous redraw yet gets no other:
// the redraws go at its pace, and the daemon holds one at most.
func (d *Daemon) redrawStale(c *client) {
	if !c.stale || c.closed || !c.live {
		return
	}
	if c.build != nil {
		// Its baseline is being rendered; the output it misses is
		// redrawn after it.
		d.markStale(c)
		return
	}
	if c.busy || len(c.pending) > 0 {
		d.scheduleRedraw(c)
		return
	}
	catchUp := !c.missed || time.Since(c.owedSince) >= catchUpMax
	c.missed = false
	if !catchUp {
		d.queue(c, proto.Screen, d.redrawFor(c, false))
		d.flush(c)
		d.scheduleRedraw(c)
		return
	}
	c.stale, c.owing = false, false
	if !c.drawn && d.bigBaseline(c) {
		// A first baseline with a long scrollback; later ones are
		// redraws with the lines since (redrawFor).
		d.deferBaseline(c) // behind what is queued
		return
	}
	d.baseline(c)
	d.flush(c)
}

// onReply sends the emulator's answer to a terminal query to the child,
// but only when no real terminal is attached to answer it itself. Called
// under d.mu from the pump; it must not block.
func (d *Daemon) onReply(b []byte) {
	if d.writers > 0 {
		return
	}
	select {
	case d.replies <- append([]byte(nil), b...):
	default:
	}
}

func (d *Daemon) replyLoop() {
	for {
		select {
		case b := <-d.replies:
			d.writeInput(b)
		case <-d.stop:
			return
		}
	}
}

func (d *Daemon) writeInput(b []byte) error {
	d.inputMu.Lock()
	defer d.inputMu.Unlock()
	rc, err := d.ptmx.SyscallConn()
	if err != nil {
		return err
	}
	var werr error
	err = rc.Write(func(fd uintptr) bool {
		for len(b) > 0 {
			n, err := rawio.Write(int(fd), b)
			switch err {
			case nil:
				b = b[n:]
			case unix.EINTR:
			case unix.EAGAIN:
				return false // the child is not reading: wait for room
			default:
				werr = err
				return true
			}
		}
		return true
	})
	if err != nil {
		return err
	}
	return werr
}

// onEvent turns emulator events into event-log entries. Called under d.mu.
func (d *Daemon) onEvent(e term.Event) {
	var ev layout.Event
	switch e.Type {
	case layout.EventBell:
		now := time.Now()
		if now.Sub(d.lastBell) < bellInterval {
			return // a bell storm is one event, not thousands of lines
		}
		d.lastBell = now
		ev = layout.NewEvent(d.id, e.Type)
	case layout.EventTitleChange:
		if e.Value == d.title {
			return
		}
		d.title = e.Value
		ev = layout.NewEvent(d.id, e.Type, "value", e.Value)
	case layout.EventNotification:
		ev = layout.NewEvent(d.id, e.Type, "source", e.Source)
		if e.Title != "" {
			ev.Fields["title"] = e.Title
		}
		if e.Body != "" {
			ev.Fields["body"] = e.Body
		}
	case layout.EventFocusRequest:
		ev = layout.NewEvent(d.id, e.Type)
	case layout.EventCursorVisible:
		ev = layout.NewEvent(d.id, e.Type, "value", e.Value == "true")
	default:
		return
	}
	select {
	case d.events <- ev:
	default: // the disk is behind; dropping an event beats stalling output
	}
}

func (d *Daemon) eventLoop() {
	defer d.bgDone.Done()
	for {
		select {
		case ev := <-d.events:
			batch := []layout.Event{ev}
			for len(batch) < 64 {
				select {
				case e := <-d.events:
					batch = append(batch, e)
					continue
				default:
				}
				break
			}
			layout.At(d.root).AppendEvents(d.id, batch...)
		case <-d.stop:
			for {
				select {
				case ev := <-d.events:
					layout.At(d.root).AppendEvents(d.id, ev)
				default:
					return
				}
			}
		}
	}
}

// noteOutput records n bytes of output from the child. The first output
// after a quiet spell wakes metaLoop; the rest cost two atomic operations,
// so the read loop stays cheap and an idle daemon is never woken by timers.
func (d *Daemon) noteOutput(n int) {
	d.lastOutput.Store(time.Now().UnixMilli())
	d.outBytes.Add(int64(n))
	if !d.watching.Load() && d.watching.CompareAndSwap(false, true) {
		select {
		case d.kick <- struct{}{}:
		default:
		}
	}
}

// metaLoop persists lastAttachAt and lastOutputAt off the I/O path, and
// hands memory back to the system once a burst of output is over. It runs
// a timer only while output is flowing or not yet persisted.
func (d *Daemon) metaLoop() {
	defer d.bgDone.Done()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var saved, savedAt int64 // lastOutput persisted, and when (ms)
	for {
		select {
		case <-d.kick:
			timer.Reset(quietAfter)
		case <-timer.C:
			now := time.Now().UnixMilli()
			lo := d.lastOutput.Load()
			if lo > saved && now-savedAt >= outputPersist.Milliseconds() {
				saved, savedAt = lo, now
				d.update(func(m *layout.Metadata) bool {
					m.LastOutputAt = layout.FormatTime(time.UnixMilli(lo))
					return true
				})
			}
			if quiet := time.Duration(now-lo) * time.Millisecond; quiet < quietAfter {
				timer.Reset(quietAfter - quiet)
				continue
			}
			// The burst is over. Its garbage (copies of the output on
			// the way to the emulator, grown buffers) would otherwise
			// stay resident until the next GC, which an idle session
			// may never run; a trickle of output is not worth a GC.
			// Back to one processor first, so that what the others'
			// caches held is free by then.
			d.mu.Lock()
			d.fitProcs(false)
			d.mu.Unlock()
			if d.outBytes.Load() >= trimAfter {
				d.outBytes.Store(0)
				d.trimClients()
				debug.FreeOSMemory()
			}
			if lo > saved {
				timer.Reset(time.Duration(savedAt+outputPersist.Milliseconds()-now) * time.Millisecond)
				continue
			}
			// Stop watching, then look once more: output that came in
			// meanwhile found watching still set and did not kick.
			d.watching.Store(false)
			if d.lastOutput.Load() != lo && d.watching.CompareAndSwap(false, true) {
				timer.Reset(quietAfter)
			}
		case <-d.attached:
			d.update(func(m *layout.Metadata) bool { m.LastAttachAt = layout.Now(); return true })
		case <-d.stop:
			timer.Stop()
			return
		}
	}
}

// trimClients drops the output buffers that idle clients kept from the
// burst (up to 256 KiB each), so an attached but quiet session costs
// little; the next output allocates afresh.
func (d *Daemon) trimClients() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for c := range d.clients {
		if !c.busy && len(c.pending) == 0 && len(c.ctl) == 0 {
			c.pending, c.spare, c.ctl = nil, nil, nil
			d.recount(c)
		}
	}
}

// update changes our metadata unless the record now belongs to another
// generation (replaced while we ran).
func (d *Daemon) update(fn func(m *layout.Metadata) bool, evs ...layout.Event) error {
	_, err := layout.At(d.root).Update(d.id, func(m *layout.Metadata) ([]layout.Event, error) {
		if m.Generation != d.gen || !fn(m) {
			return nil, layout.ErrNoChange
		}
		return evs, nil
	})
	return err
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
			// will follow the baseline it asks for (sync), not precede it.
			continue
		}
		d.redrawStale(c) // the final screen before the EXIT
		d.enqueue(c, proto.Exit, proto.ExitCode(code))
	}
	d.mu.Unlock()
	graceEnd := time.Now().Add(exitGrace)
	if killed {
		// Stopped on purpose (pty kill), as the original does at once:
		// whoever is connected has EXIT, and kill waits for us.
		graceEnd = time.Now()
	}
	close(d.stop)
	d.bgDone.Wait()

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
	d.ln.Close()
	d.mu.Lock()
	for c := range d.clients {
		c.closed = true
		c.conn.Close()
	}
	d.mu.Unlock()
	d.ptmx.Close()

	layout.At(d.root).Locked(d.id, 5*time.Second, func() error {
		d.removeOwned()
		m, err := layout.At(d.root).Metadata(d.id)
		if err != nil || m.Generation != d.gen {
			return nil // replaced: the record is someone else's now
		}
		if ShouldReap(m.Tags, m.Ephemeral, killed, d.reapEnv, code) {
			p := layout.PathsFor(d.root, d.id)
			os.Remove(p.Meta())
			os.Remove(p.Events())
		}
		return nil
	})
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

// recordExit runs write, the exit's write into the record, until it
// succeeds or exitRecordWait has passed, waiting longer after each
// failure (up to exitRetryMax). A full disk or a lock held by a stuck
// writer must not lose the exit: while it lasts the daemon stays, its
// socket answering every client with the final screen and EXIT (and
// STATUS with the exit code), the only place the exit is known. A record
// that is gone or damaged will not take it however long we wait: it gets
// three tries.
func (d *Daemon) recordExit(write func() error) {
	deadline := time.Now().Add(exitRecordWait)
	wait := exitRetryMin
	for try := 1; ; try++ {
		err := write()
		if err == nil {
			return
		}
		if (errors.Is(err, layout.ErrNotFound) || errors.Is(err, layout.ErrDamaged)) && try >= 3 {
			return // no record to write it into, after a few tries in case it is being replaced
		}
		if !time.Now().Add(wait).Before(deadline) {
			os.Stderr.WriteString("pty-daemon " + d.id + ": the exit could not be recorded within " + exitRecordWait.String() + ", giving up: " + err.Error() + "\n")
			return
		}
		if d.backstop != nil {
			d.backstop.Reset(wait + shutdownBackstop)
		}
		time.Sleep(wait)
		wait = min(2*wait, exitRetryMax)
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
	if d.ln.SetDeadline(time.Now()) == nil { // wakes acceptLoop, which drains
		<-d.acceptDone
	}
}

// removeSock removes the socket if it is still our inode.
func (d *Daemon) removeSock() {
	p := layout.PathsFor(d.root, d.id)
	var st unix.Stat_t
	if unix.Lstat(p.Sock(), &st) == nil && uint64(st.Ino) == d.sockIno {
		os.Remove(p.Sock())
	}
}

// removeOwned removes the socket if it is still our inode and the pid file
// if it still names us: a replacement daemon's files are not ours.
func (d *Daemon) removeOwned() {
	d.removeSock()
	p := layout.PathsFor(d.root, d.id)
	if layout.At(d.root).Pid(d.id) == os.Getpid() {
		os.Remove(p.Pid())
	}
}

func trimLines(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) > lastLinesMax {
		lines = lines[len(lines)-lastLinesMax:]
	}
	return lines
}

// falsy are the values that turn a boolean tag or variable off.
func falsy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "false", "0", "no", "off":
		return true
	}
	return false
}

// ShouldReap is the reap policy applied when a session ends, with tags as
// re-read from disk. killed is an external stop (pty kill): the record is
// kept then, so the session can be inspected and restarted, unless it is
// ephemeral. A failure (code not 0: an exit status, or 128+N for a
// signal) that nothing above decides for is kept too, so whoever started
// it can see why it died; only an explicit PTY_REAP_ON_EXIT or keep=false
// asks for it to go.
func ShouldReap(tags map[string]string, ephemeral, killed bool, reapEnv string, code int) bool {
	keep, keepSet := tags["keep"]
	if keepSet && !falsy(keep) {
		return false
	}
	if ephemeral {
		return true
	}
	if killed {
		return false
	}
	if tags["strategy.cleanup-on-clean-exit"] == "true" {
		return code == 0
	}
	if tags["strategy"] == "permanent" {
		return false
	}
	if falsy(reapEnv) {
		return false
	}
	if reapEnv != "" || keepSet {
		return true
	}
	return code == 0
}

// stopTree stops the child's whole process tree as closing a terminal
// does, then harder: a hangup (see hangUp), and once hupGrace has passed,
// TERM to whatever is left, killGrace, then KILL. It returns the pids that
// outlived it all. The hangup comes first because it is what programs
// written for terminals expect and handle: an interactive shell ignores
// TERM but saves its history on SIGHUP.
func (d *Daemon) stopTree() []int {
	d.hangUp()
	if waitTreeGone(hupGrace) {
		return nil
	}
	if signalTree(syscall.SIGTERM, killGrace) {
		return nil
	}
	if signalTree(syscall.SIGKILL, 500*time.Millisecond) {
		return nil
	}
	return procs.Pids(procs.Survivors(sessionTree()))
}

// hangUp signals the session as the kernel does when a terminal's master
// side closes: SIGHUP, then SIGCONT (so a stopped process handles it), to
// the session leader, our child, and to the terminal's foreground process
// group. Each process is taken from a snapshot of the tree and re-verified
// by pkg/procs before it is signalled.
func (d *Daemon) hangUp() {
	fg := 0
	if rc, err := d.ptmx.SyscallConn(); err == nil {
		rc.Control(func(fd uintptr) {
			if g, err := unix.IoctlGetInt(int(fd), unix.TIOCGPGRP); err == nil {
				fg = g
			}
		})
	}
	var leader, group []procs.Proc
	for _, p := range sessionTree() {
		if p.Pid == d.child.Pid {
			leader = append(leader, p)
		}
		if fg > 1 && p.Pgid == fg {
			group = append(group, p)
		}
	}
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGCONT} {
		for _, p := range leader {
			procs.SignalIf(p.Pid, sig, func() bool { return procs.Still(p) })
		}
		procs.Signal(group, sig)
	}
}

// waitTreeGone waits until no process of the session is left, or max.
func waitTreeGone(max time.Duration) bool {
	deadline := time.Now().Add(max)
	for len(procs.Survivors(sessionTree())) > 0 {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// sessionTree is every process below the daemon: as a subreaper it keeps
// even double-forked and setsid'd ones of the session below it. A session
// started from inside this one has its daemon reparented here too; that
// daemon and its tree are a session of their own, not ours to stop.
func sessionTree() []procs.Proc {
	tree, err := procs.Tree(os.Getpid())
	if err != nil || len(tree) == 0 {
		return nil
	}
	return procs.Prune(tree[1:], func(p procs.Proc) bool {
		args, err := procs.Cmdline(p.Pid)
		return err == nil && len(args) > 0 && filepath.Base(args[0]) == layout.DaemonName
	})
}

// signalTree sends sig to each process of the session (and its process
// group, never our own) once, including those started meanwhile, until
// none is left or max has passed; it reports whether none is left. pkg/procs
// re-checks each pid's start time while it is pinned, so a pid the
// session freed (we reap it) and the kernel reused is never hit.
func signalTree(sig syscall.Signal, max time.Duration) bool {
	deadline := time.Now().Add(max)
	sent := map[procs.Proc]bool{}
	for {
		live := procs.Survivors(sessionTree())
		if len(live) == 0 {
			return true
		}
		var fresh []procs.Proc
		for _, p := range live {
			if !sent[p] {
				sent[p] = true
				fresh = append(fresh, p)
			}
		}
		procs.Signal(fresh, sig)
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}
