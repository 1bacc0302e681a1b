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
// existence checks, the socket bind, the daemon's start (startDaemon, given
// the listening socket to inherit), its pid file, the record and a fresh
// event log with session_start. On success the session is published and
// the listening socket is the daemon's: connections made from now on wait
// in its backlog until the daemon accepts them. On error nothing is left
// on disk and the daemon, if it was started, is killed before it did
// anything (it waits for its config, written only after claim).
//
// It runs in the launcher rather than in the daemon so that the daemon's
// own start-up (a runtime to initialise) is not on the caller's path.
//
// The launch claim (layout.SuffixLaunch) is written first and removed by
// the daemon once it has its config: should the launcher be killed before
// it hands the config over, the daemon, left with nothing to run, removes
// the session again, and if the daemon is gone too, the claim tells the
// next start of the id (checkClaim) and gc that the session never ran.
func claim(cfg *launchconfig.Config, startDaemon func(ln *os.File) (int, error)) (pid int, err error) {
	deadline := time.Now().Add(ReadyTimeout)
	for {
		pid, err = claimOnce(cfg, startDaemon)
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

func claimOnce(cfg *launchconfig.Config, startDaemon func(ln *os.File) (int, error)) (pid int, err error) {
	root, id := cfg.Root, cfg.ID
	p := layout.At(root).Paths(id)
	err = layout.At(root).Locked(id, 5*time.Second, func() error {
		if err := checkClaim(cfg); err != nil {
			return err
		}
		// Nobody alive owns the id and we hold its locks: a socket or pid
		// file still here is debris from a crash.
		os.Remove(p.Sock())
		os.Remove(p.Pid())
		if err := registry.WriteLaunchClaim(root, id, cfg.Generation); err != nil {
			return fmt.Errorf("start session %s: %w", id, err)
		}
		ln, ino, err := listenUnix(p.Sock())
		if err != nil {
			os.Remove(p.Launch())
			if errors.Is(err, syscall.EADDRINUSE) {
				return RunningError(id)
			}
			return fmt.Errorf("listen on %s: %w", p.Sock(), err)
		}
		cfg.SockIno = ino
		pid, err = startDaemon(ln)
		ln.Close() // the daemon's copy is the one that serves
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
		os.Remove(p.Events())
		os.Remove(p.DaemonLog())
		os.Remove(p.DaemonLogOld())
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

// checkClaim says, under the session's locks, whether cfg may take its id,
// and removes the dead record it replaces.
func checkClaim(cfg *launchconfig.Config) error {
	root, id := cfg.Root, cfg.ID
	replaced := fmt.Errorf("session %s: %w", id, ErrReplaced)
	// The daemon first, then the claim: a daemon found dead with its
	// claim still there died before it took the session, so it never
	// started the command (it removes the claim before it does).
	alive, _ := layout.At(root).DaemonAlive(id, "")
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

// listenUnix binds a listening unix socket at path, mode 0600 from the
// start, and returns it with the inode of its file (the daemon removes the
// socket file only while it is still this one). The descriptor is
// close-on-exec here; the daemon inherits its own copy.
func listenUnix(path string) (*os.File, uint64, error) {
	fd, err := fsx.UnixSocket()
	if err != nil {
		return nil, 0, os.NewSyscallError("socket", err)
	}
	old := unix.Umask(0o077)
	err = syscall.Bind(fd, &syscall.SockaddrUnix{Name: path})
	unix.Umask(old)
	if err != nil {
		syscall.Close(fd)
		return nil, 0, err
	}
	os.Chmod(path, 0o600)
	// The kernel caps the backlog at net.core.somaxconn, which is what
	// package net asks for. Clients that connect before the daemon
	// accepts wait here.
	if err := syscall.Listen(fd, 1<<16-1); err != nil {
		syscall.Close(fd)
		os.Remove(path)
		return nil, 0, os.NewSyscallError("listen", err)
	}
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		syscall.Close(fd)
		os.Remove(path)
		return nil, 0, err
	}
	return os.NewFile(uintptr(fd), path), uint64(st.Ino), nil
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
