package layout_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/ptyorg/pty/pkg/eventlog"
	"github.com/ptyorg/pty/pkg/layout"
)

// exampleRegistry makes a registry in a temporary directory holding what
// pty leaves behind for two stopped sessions: "web" (id w1), whose command
// exited 0 and left a little event log, and "db" (id d1), whose daemon
// died without recording an exit. Only pty run creates sessions; the files
// are written by hand here, in the format docs/disk-layout.md documents,
// so that the examples' output does not depend on processes.
func exampleRegistry() (reg *layout.Registry, cleanup func()) {
	dir, err := os.MkdirTemp("", "ptyex") // mode 0700, as a root must be
	if err != nil {
		log.Fatal(err)
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			log.Fatal(err)
		}
	}
	write("w1.json", `{
  "command": "/usr/bin/npm", "args": ["run", "dev"], "displayCommand": "npm run dev",
  "cwd": "/src/web", "createdAt": "2026-01-02T03:04:05.000Z",
  "exitCode": 0, "exitedAt": "2026-01-02T04:00:00.000Z",
  "displayName": "web", "tags": {"team": "front"}
}`)
	write("w1.events.jsonl", `{"session":"w1","type":"session_start","ts":"2026-01-02T03:04:05.000Z"}
{"session":"w1","type":"session_exit","ts":"2026-01-02T04:00:00.000Z","exitCode":0}
`)
	write("d1.json", `{
  "command": "/usr/bin/postgres", "args": [], "displayCommand": "postgres",
  "cwd": "/srv/db", "createdAt": "2026-01-02T03:04:05.000Z", "displayName": "db"
}`)
	reg, err = layout.Open(dir)
	if err != nil {
		log.Fatal(err)
	}
	return reg, func() { os.RemoveAll(dir) }
}

// A plugin finds the registry as pty's own commands do: PTY_ROOT, then
// the deprecated PTY_SESSION_DIR, then $XDG_STATE_HOME/pty, then
// ~/.local/state/pty. In a real plugin getenv is os.Getenv, or simply
// call layout.OpenDefault.
func ExampleResolveRoot() {
	env := map[string]string{"XDG_STATE_HOME": "/home/ann/.state"}
	r, err := layout.ResolveRoot(func(k string) string { return env[k] })
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(r.Dir, "from", r.Source)

	env["PTY_ROOT"] = "/tmp/pty-test"
	r, _ = layout.ResolveRoot(func(k string) string { return env[k] })
	fmt.Println(r.Dir, "from", r.Source)
	// Output:
	// /home/ann/.state/pty from XDG_STATE_HOME
	// /tmp/pty-test from PTY_ROOT
}

// List reads every session once, each with the one status every pty
// command derives for it.
func ExampleRegistry_List() {
	reg, cleanup := exampleRegistry()
	defer cleanup()

	sessions, err := reg.List()
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range sessions {
		fmt.Printf("%s %-4s %-8s %s\n", s.ID, s.Name(), s.Status, s.Meta.DisplayCommand)
	}
	// Output:
	// d1 db   vanished postgres
	// w1 web  exited   npm run dev
}

// Load reads one session by its exact id; a session that is not there is
// ErrNotFound.
func ExampleRegistry_Load() {
	reg, cleanup := exampleRegistry()
	defer cleanup()

	s, err := reg.Load("w1")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(s.Name(), s.Status, "exit", *s.Meta.ExitCode, "at", s.Meta.ExitedAt)
	fmt.Println("running:", s.Status == layout.Running, "ended:", s.Status.Ended())

	_, err = reg.Load("nope")
	fmt.Println(errors.Is(err, layout.ErrNotFound))
	// Output:
	// web exited exit 0 at 2026-01-02T04:00:00.000Z
	// running: false ended: true
	// true
}

// Resolve finds the session a user means, as every pty command resolves
// its REF argument: an exact id, an exact display name, then a unique
// prefix of an id or of a display name. Its error is the message pty's
// commands print.
func ExampleRegistry_Resolve() {
	reg, cleanup := exampleRegistry()
	defer cleanup()

	for _, ref := range []string{"web", "d1", "w", "mail"} {
		s, err := reg.Resolve(ref)
		if errors.Is(err, layout.ErrNotFound) {
			fmt.Println(err)
			continue
		}
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(ref, "is", s.ID)
	}
	// Output:
	// web is w1
	// d1 is d1
	// w is w1
	// Session "mail" not found.
}

// Tags are changed with SetTags or, when the change depends on what is
// there, SetTagsIf: the condition is asked of the tags under the session's
// lock, so two plugins claiming a session at once cannot both win. Every
// change is validated, written atomically and logged as a tags_change
// event in the same step.
func ExampleRegistry_SetTagsIf() {
	reg, cleanup := exampleRegistry()
	defer cleanup()

	unclaimed := func(tags map[string]string) bool { _, ok := tags["owner"]; return !ok }
	for _, me := range []string{"backup-bot", "deploy-bot"} {
		_, _, err := reg.SetTagsIf("w1", unclaimed, map[string]string{"owner": me}, nil)
		switch {
		case errors.Is(err, layout.ErrConditionFailed):
			fmt.Println(me+":", "already claimed")
		case err != nil:
			log.Fatal(err)
		default:
			fmt.Println(me+":", "claimed it")
		}
	}
	s, _ := reg.Load("w1")
	fmt.Println(s.Meta.Tags)

	// A tag that breaks the rules is refused and nothing is written.
	_, _, err := reg.SetTags("w1", map[string]string{"a=b": "c"}, nil)
	fmt.Println(err != nil)
	// Output:
	// backup-bot: claimed it
	// deploy-bot: already claimed
	// map[owner:backup-bot team:front]
	// true
}

// Events reads a session's event log, oldest first; each event's payload
// is in Fields, as encoding/json decodes it.
func ExampleRegistry_Events() {
	reg, cleanup := exampleRegistry()
	defer cleanup()

	evs, err := reg.Events("w1")
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range evs {
		if code, ok := e.Fields["exitCode"]; ok {
			fmt.Println(e.TS, e.Type, "exitCode", code)
		} else {
			fmt.Println(e.TS, e.Type)
		}
	}
	// Output:
	// 2026-01-02T03:04:05.000Z session_start
	// 2026-01-02T04:00:00.000Z session_exit exitCode 0
}

// A pid file outlives a daemon that crashed, and after a while its pid
// belongs to some other program. Before signalling a session's daemon (or
// reading its /proc entry), ask VerifyDaemon whether the pid is, provably,
// that session's daemon. Here the pid file names this very process, which
// is no pty daemon.
func ExampleRegistry_VerifyDaemon() {
	reg, cleanup := exampleRegistry()
	defer cleanup()
	os.WriteFile(reg.Paths("d1").Pid(), []byte(strconv.Itoa(os.Getpid())), 0o600)

	s, err := reg.Load("d1")
	if err != nil {
		log.Fatal(err)
	}
	pid := reg.Pid(s.ID)
	if !reg.VerifyDaemon(pid, s.ID, s.Meta.Generation) {
		fmt.Printf("%s: the pid in its pid file is not its daemon; not signalling it (status %s)\n", s.Name(), s.Status)
		return
	}
	syscall.Kill(pid, syscall.SIGTERM)
	// Output:
	// db: the pid in its pid file is not its daemon; not signalling it (status vanished)
}

// Following events is pkg/eventlog's part of the plugin API: it stays
// out of package layout, which every session daemon links, because it
// watches the root with inotify (fsnotify). A Follower delivers every
// line appended after it is ready, in order, without losing or repeating
// one when retention rewrites a log; it returns when ctx ends or fn
// returns an error (ErrStop: no error). Here the event is appended as
// soon as the watch is in place.
func Example_followEvents() {
	reg, cleanup := exampleRegistry()
	defer cleanup()

	text := "deployed"
	f := eventlog.Follower{
		Root: reg.Root(),
		IDs:  []string{"w1"},
		Ready: func() {
			if err := reg.EmitUser("w1", "user.note", nil, &text); err != nil {
				log.Fatal(err)
			}
		},
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := f.Follow(ctx, func(l eventlog.Line) error {
		fmt.Println(l.Session(), l.Event.Type, l.Event.Fields["text"])
		return eventlog.ErrStop
	})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// w1 user.note deployed
}
