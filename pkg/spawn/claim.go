package spawn

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/ptyorg/pty/pkg/launchconfig"
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ptyorg/pty/internal/fsx"
	"github.com/ptyorg/pty/internal/jsonlite"
	"github.com/ptyorg/pty/internal/registry"
	"github.com/ptyorg/pty/pkg/layout"
)

// claim does, under both session locks, the check-and-create that makes
// two concurrent starts of one id end with exactly one session: the
// existence checks, the bind of the socket ln (which the daemon d, started
// beforehand, inherited unbound), the wait for d to run, its pid file, the
// record and a fresh event log with session_start. On success the session
// is published and the listening socket is the daemon's: connections made
// from now on wait in its backlog until the daemon accepts them. On error
// nothing is left on disk and the daemon, if the claim took it, is killed
// before it did anything (it waits for its config, written only after
// claim); one it did not take is the caller's to kill (cancel).
//
// It runs in the launcher rather than in the daemon so that the daemon's
// own start-up (a runtime to initialise) is not on the caller's path.
//
// The launch claim (layout.SuffixLaunch) is written first and removed by
// the daemon once it has its config: should the launcher be killed before
// it hands the config over, the daemon, left with nothing to run, removes
// the session again, and if the daemon is gone too, the claim tells the
// next start of the id (checkClaim) and gc that the session never ran.
func claim(cfg *launchconfig.Config, ln *os.File, d *daemonStart) (pid int, err error) {
	deadline := time.Now().Add(ReadyTimeout)
	for {
		pid, err = claimOnce(cfg, ln, d)
		if !errors.Is(err, errClaimPending) {
			return pid, err
		}
		// Another launcher's daemon is deciding: it takes the session
		// if its config came, and removes it if its launcher died first.
		if !waitClaimResolved(cfg.Root, cfg.ID, deadline) {
			return 0, RunningError(cfg.ID)
		}
	}
}

// errClaimPending: the id has a launch claim whose daemon is alive.
var errClaimPending = errors.New("session is being started")

// waitClaimResolved waits, without the session's locks (the daemon takes
// them to remove a session it cannot run), until the launch claim is gone
// or its daemon is, and reports whether that happened before deadline.
func waitClaimResolved(root, id string, deadline time.Time) bool {
	for {
		if alive, _ := layout.At(root).DaemonAlive(id, ""); !alive {
			return true
		}
		if _, ok := registry.ReadLaunchClaim(root, id); !ok {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func claimOnce(cfg *launchconfig.Config, ln *os.File, d *daemonStart) (pid int, err error) {
	root, id := cfg.Root, cfg.ID
	p := layout.At(root).Paths(id)
	err = layout.At(root).Locked(id, 5*time.Second, func() error {
		if err := checkClaim(cfg, d); err != nil {
			return err
		}
		// Nobody alive owns the id and we hold its locks: a socket or pid
		// file still here is debris from a crash.
		removeFile(p.Sock())
		removeFile(p.Pid())
		if err := registry.WriteLaunchClaim(root, id, cfg.Generation); err != nil {
			return fmt.Errorf("start session %s: %w", id, err)
		}
		ino, err := listenUnix(ln, p.Sock())
		if err != nil {
			os.Remove(p.Launch())
			if errors.Is(err, syscall.EADDRINUSE) {
				return RunningError(id)
			}
			return fmt.Errorf("listen on %s: %w", p.Sock(), err)
		}
		cfg.SockIno = ino
		pid, err = d.take()
		if err != nil {
			os.Remove(p.Sock())
			os.Remove(p.Launch())
			return err
		}
		undo := func() {
			syscall.Kill(pid, syscall.SIGKILL)
			for _, f := range p.All() {
				os.Remove(f)
			}
		}
		// No fsync here: after a crash the pid file names nobody, and the
		// daemon syncs the record once it runs (a permanent session's must
		// survive a power loss for gc to bring it back).
		if err := fsx.WriteFileAtomicNoSync(p.Pid(), []byte(strconv.Itoa(pid)+"\n"), 0o600); err != nil {
			undo()
			return err
		}
		cfg.CreatedAt = layout.Now()
		if err := layout.WriteMetadataNoSync(root, id, InitialMetadata(*cfg, pid)); err != nil {
			undo()
			return err
		}
		// A new record starts a new event log, and a new error log.
		removeFile(p.Events())
		removeFile(p.DaemonLog())
		removeFile(p.DaemonLogOld())
		ev := layout.NewEvent(id, layout.EventSessionStart)
		if len(cfg.Tags) > 0 {
			ev.Fields = map[string]any{"tags": cfg.Tags}
		}
		if err := layout.AppendEventsLocked(root, id, ev); err != nil {
			undo()
			return err
		}
		return nil
	})
	return pid, err
}

// removeFile removes a file that is usually not there with one unlink
// rather than os.Remove's two system calls.
func removeFile(path string) {
	if err := syscall.Unlink(path); err != nil && err != syscall.ENOENT {
		os.Remove(path)
	}
}

// checkClaim says, under the session's locks, whether cfg may take its id,
// and removes the dead record it replaces. d is this start's own daemon,
// already running with the id's arguments.
func checkClaim(cfg *launchconfig.Config, d *daemonStart) error {
	root, id := cfg.Root, cfg.ID
	replaced := fmt.Errorf("session %s: %w", id, ErrReplaced)
	// The daemon first, then the claim: a daemon found dead with its
	// claim still there died before it took the session, so it never
	// started the command (it removes the claim before it does).
	alive, apid := layout.At(root).DaemonAlive(id, "")
	if alive && apid != 0 {
		// A stale pid file whose pid the kernel gave to our own daemon
		// names a daemon of the id that is not the id's.
		if own, err := d.wait(); err == nil && own == apid {
			alive = false
		}
	}
	m, err := layout.At(root).Metadata(id)
	if gen, ok := registry.ReadLaunchClaim(root, id); ok {
		switch {
		case err == nil && m.Generation != gen:
			// Not the record's: debris of an earlier start.
			os.Remove(layout.At(root).Paths(id).Launch())
		case alive:
			return errClaimPending
		case cfg.ReplaceGen != "" && (err != nil || m.Generation != cfg.ReplaceGen):
			return replaced
		default:
			// A start that never finished: take it over.
			if err := layout.At(root).Remove(id); err != nil {
				return fmt.Errorf("session %s: remove a start that never finished: %w", id, err)
			}
			return nil
		}
	}
	switch {
	case err == nil:
		if alive {
			return RunningError(id)
		}
		if !cfg.Replace {
			return InUseError(id)
		}
		if g := cfg.ReplaceGen; g != "" && m.Generation != g {
			return replaced
		}
		if err := layout.At(root).Remove(id); err != nil {
			return fmt.Errorf("replace %s: %w", id, err)
		}
	case errors.Is(err, layout.ErrNotFound):
		if alive {
			return RunningError(id)
		}
		if cfg.ReplaceGen != "" {
			return replaced // removed meanwhile
		}
	default:
		if cfg.ReplaceGen != "" {
			return replaced
		}
		if !cfg.Replace {
			return InUseError(id)
		}
		layout.At(root).Remove(id)
	}
	return nil
}

// newListener is the session's socket, not yet bound: the daemon inherits
// it at its start, and claim binds it once the id is ours. The descriptor
// is close-on-exec here; the daemon gets its own copy.
func newListener() (*os.File, error) {
	fd, err := fsx.UnixSocket()
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	return os.NewFile(uintptr(fd), "listener"), nil
}

// listenUnix binds ln at path, mode 0600 from the start, makes it listen
// and returns the inode of its file (the daemon removes the socket file
// only while it is still this one). The daemon's copy of the descriptor is
// the same socket, so it serves what ln listens on.
func listenUnix(ln *os.File, path string) (uint64, error) {
	rc, err := ln.SyscallConn()
	if err != nil {
		return 0, err
	}
	var ino uint64
	cerr := rc.Control(func(sfd uintptr) {
		fd := int(sfd)
		// The umask is the process's: a daemon forked meanwhile (this
		// start's, on its own goroutine) would keep 077 for its session.
		syscall.ForkLock.RLock()
		old := unix.Umask(0o077)
		err = syscall.Bind(fd, &syscall.SockaddrUnix{Name: path})
		unix.Umask(old)
		syscall.ForkLock.RUnlock()
		if err != nil {
			return
		}
		os.Chmod(path, 0o600)
		// The kernel caps the backlog at net.core.somaxconn, which is what
		// package net asks for. Clients that connect before the daemon
		// accepts wait here.
		if err = syscall.Listen(fd, 1<<16-1); err != nil {
			os.Remove(path)
			err = os.NewSyscallError("listen", err)
			return
		}
		var st unix.Stat_t
		if err = unix.Stat(path, &st); err != nil {
			os.Remove(path)
			return
		}
		ino = uint64(st.Ino)
	})
	if cerr != nil {
		return 0, cerr
	}
	return ino, err
}

// InitialMetadata is the record of a session that starts now: its launch
// settings, with what the caller carried over from a previous record
// (state, fields of newer writers), naming daemon pid.
func InitialMetadata(c launchconfig.Config, pid int) *layout.Metadata {
	m := &layout.Metadata{}
	for k, v := range c.Extra {
		switch k {
		case "state":
			var err error
			if m.State, err = jsonlite.NewDecoder(v).RawObject(nil); err != nil {
				m.State = nil // as json.Unmarshal left it
			}
		default:
			if m.Extra == nil {
				m.Extra = map[string]json.RawMessage{}
			}
			m.Extra[k] = v
		}
	}
	// Stale fields of a carried-over record must not shadow ours.
	for _, k := range layout.MetadataFields() {
		delete(m.Extra, k)
	}
	m.Command = c.Command
	m.Args = c.Args
	if m.Args == nil {
		m.Args = []string{}
	}
	m.DisplayCommand = c.DisplayCommand
	m.Cwd = c.Cwd
	m.CreatedAt = c.CreatedAt
	m.Tags = c.Tags
	m.DisplayName = c.DisplayName
	m.Rows, m.Cols = c.Rows, c.Cols
	m.Scrollback = c.Scrollback
	m.Ephemeral = c.Ephemeral
	m.IsolateEnv = c.IsolateEnv
	m.ExtraEnv = c.ExtraEnv
	m.UnsetEnv = c.UnsetEnv
	m.Env = c.ExactEnv
	m.Generation = c.Generation
	m.DaemonPid = pid
	return m
}
