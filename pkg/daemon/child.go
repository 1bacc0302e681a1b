package daemon

import (
	"errors"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ptyorg/pty/internal/rawio"
	"github.com/ptyorg/pty/pkg/launchconfig"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/procs"
)

func (d *Daemon) startChild() error {
	master, tty, err := openPTY(d.rows, d.cols)
	if err != nil {
		return err
	}
	defer tty.Close()
	// syscall.ForkExec rather than os/exec, whose Cmd machinery (pipes,
	// contexts, path lookup) this needs none of and would keep resident,
	// and rather than os.StartProcess, whose first use in a process tests
	// the kernel's pidfd support (pidfd_open, waitid, a throwaway vfork
	// child) for a handle this has no use for: the child is reaped by pid
	// (reapZombies).
	fd := int(tty.Fd())
	pid, err := syscall.ForkExec(d.cfg.Command, append([]string{d.cfg.Command}, d.cfg.Args...), &syscall.ProcAttr{
		Dir:   d.cfg.Cwd,
		Env:   launchconfig.ChildEnv(d.cfg.BaseEnv(launchconfig.CallerEnv(os.Environ())), d.cfg.IsolateEnv, d.cfg.UnsetEnv, d.cfg.ExtraEnv, d.root, d.id, d.gen),
		Files: []uintptr{uintptr(fd), uintptr(fd), uintptr(fd)},
		// Its own session with the pty as controlling terminal: job
		// control works and a hangup reaches it, not us.
		Sys: &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0},
	})
	if err != nil {
		master.Close()
		return &os.PathError{Op: "fork/exec", Path: d.cfg.Command, Err: err}
	}
	d.ptmx = master
	d.childPid = pid
	return nil
}

func exitCodeOf(ws unix.WaitStatus) (code, sig int) {
	if ws.Signaled() {
		return 128 + int(ws.Signal()), int(ws.Signal())
	}
	return ws.ExitStatus(), 0
}

// reapZombies collects every child that has ended: the session's
// process, and, as a subreaper, whatever orphans its tree leaves, so no
// zombie accumulates. SIGCHLDs coalesce, so each one drains every zombie
// there is. It never waits (WNOHANG): a blocking wait4 would pin an OS
// thread (and its stacks) for the whole life of the session. ended
// reports the session's process's end, with its status ws; none that no
// child is left at all.
func (d *Daemon) reapZombies() (ws unix.WaitStatus, ended, none bool) {
	pid := d.childPid
	for {
		var st unix.WaitStatus
		wpid, err := unix.Wait4(-1, &st, unix.WNOHANG, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return ws, ended, errors.Is(err, unix.ECHILD)
		}
		if wpid <= 0 {
			return ws, ended, false
		}
		if wpid == pid && (st.Exited() || st.Signaled()) {
			d.childGone.Store(true)
			ws, ended = st, true
		}
	}
}

// reap goes on collecting children through the session's end, after
// Serve's loop, which reaps while the session runs, has let go of
// SIGCHLD; it hands the session's process's status to childExit.
func (d *Daemon) reap() {
	for {
		ws, ended, none := d.reapZombies()
		if ended {
			d.childExit <- ws
		}
		if none && d.childGone.Load() {
			signal.Stop(d.sigchld)
			return // the tree is empty and the session over
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
				// recordLoop, a thread wake-up that an echo should not
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

// maxPendingReplies bounds the emulator's answers waiting for a child that
// does not read them; more are dropped.
const maxPendingReplies = 64

// onReplyLocked sends the emulator's answer to a terminal query to the child,
// but only when no real terminal is attached to answer it itself. The
// emulator calls it from the pump; it must not block, so the answers go
// to a goroutine that writes them (sendReplies), started for them: an
// idle session keeps none.
func (d *Daemon) onReplyLocked(b []byte) {
	if d.writers > 0 || len(d.replies) >= maxPendingReplies {
		return
	}
	d.replies = append(d.replies, append([]byte(nil), b...))
	if !d.replying {
		d.replying = true
		go d.sendReplies()
	}
}

// sendReplies writes the answers onReplyLocked queued, until none is left
// or the session has ended.
func (d *Daemon) sendReplies() {
	for {
		d.mu.Lock()
		if len(d.replies) == 0 || d.exited {
			d.replies, d.replying = nil, false
			d.mu.Unlock()
			return
		}
		b := d.replies[0]
		d.replies = d.replies[1:]
		d.mu.Unlock()
		d.writeInput(b)
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

// stopTree stops the child's whole process tree as closing a terminal
// does, then harder: a hangup (see hangUp), and once hupGrace has passed,
// a hangup for the shells the first did not reach (see hangUpShells) and
// TERM to whatever is left, killGrace, then KILL. It returns the pids that
// outlived it all. The hangup comes first because it is what programs
// written for terminals expect and handle: an interactive shell ignores
// TERM but saves its history on SIGHUP.
func (d *Daemon) stopTree() []int {
	hung := d.hangUp()
	if waitTreeGone(hupGrace) {
		return nil
	}
	hangUpShells(hung)
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
// the session leader, our child, once: a second SIGHUP while bash saved
// its history on the first killed it. The terminal's foreground process
// group gets its SIGHUP from the leader: a shell passes it on to its jobs,
// and the kernel sends it to the foreground group when the leader exits.
// Only a leader that ignores SIGHUP (a shell whose trap for it is empty,
// nohup) passes nothing on, and then the group gets it from us. Sending
// it always would hang a shell's foreground job up twice, and a program
// that saves its work on the first (vim preserving its buffers, say)
// gives up on the second. Each process is taken from a snapshot of the
// tree and re-verified by pkg/procs before it is signalled.
//
// It returns the processes hung up: the leader, and the foreground group
// whoever hangs it up.
func (d *Daemon) hangUp() []procs.Proc {
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
		if p.Pid == d.childPid {
			leader = append(leader, p)
		}
		if fg > 1 && p.Pgid == fg {
			group = append(group, p)
		}
	}
	passesOn := len(leader) > 0
	for _, p := range leader {
		// Where the mask cannot be read (no /proc), the group is
		// signalled too, as a leader that ignores SIGHUP needs.
		ignored, ok := procs.Ignores(p, syscall.SIGHUP)
		passesOn = ok && !ignored
	}
	// Hung up either way: by us, or by the leader or the kernel.
	hung := slices.Concat(leader, group)
	if passesOn {
		group = nil
	}
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGCONT} {
		sent := procs.Signal(group, sig)
		for _, p := range leader {
			if !slices.Contains(sent, p.Pgid) {
				procs.SignalIf(p.Pid, sig, func() bool { return procs.Still(p) })
			}
		}
	}
	return hung
}

// hangUpShells hangs up, in place of the SIGTERM they ignore, the
// processes left that ignore SIGTERM but not SIGHUP (interactive shells)
// and that hangUp did not reach, directly or through the leader: neither
// the leader nor in the foreground group. pty up runs its command through
// sh -c, and a shell started so that was running a job when the session
// was hung up got nothing, as the kernel hangs up only the leader and the
// foreground group. Under a closing terminal it would read EOF from the
// terminal once its job ended, and exit saving its history; this terminal
// stays open, and SIGKILL would lose the history. hupGrace has passed, so
// its job has had its own hangup and the time to act on it. One that was
// hung up is left alone: a second SIGHUP while it saves kills it.
func hangUpShells(hung []procs.Proc) {
	for _, p := range procs.Survivors(sessionTree()) {
		if slices.ContainsFunc(hung, func(h procs.Proc) bool { return h.Pid == p.Pid && h.Start == p.Start }) {
			continue
		}
		termIgnored, ok1 := procs.Ignores(p, syscall.SIGTERM)
		hupIgnored, ok2 := procs.Ignores(p, syscall.SIGHUP)
		if ok1 && ok2 && termIgnored && !hupIgnored {
			for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGCONT} {
				procs.SignalIf(p.Pid, sig, func() bool { return procs.Still(p) })
			}
		}
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
	// By pid and start time, not the whole snapshot: a process whose
	// parent died (on this very signal) is reparented to us, and one may
	// move to a group of its own; either is still a process signalled,
	// and a second SIGTERM would cut short the draining a first began.
	type incarnation struct {
		pid   int
		start string
	}
	sent, groups := map[incarnation]bool{}, []int(nil)
	for {
		live := procs.Survivors(sessionTree())
		if len(live) == 0 {
			return true
		}
		var fresh []procs.Proc
		for _, p := range live {
			if k := (incarnation{p.Pid, p.Start}); !sent[k] {
				sent[k] = true
				fresh = append(fresh, p)
			}
		}
		groups = append(groups, procs.Signal(fresh, sig, groups...)...)
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}
