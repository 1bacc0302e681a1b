package reconcile_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/proc"
	"github.com/ptyorg/pty/internal/registry"
	"github.com/ptyorg/pty/internal/relaunchtest"
	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/procs"
	"github.com/ptyorg/pty/pkg/reconcile"
)

func TestSweepKeepAndKeepMaxAge(t *testing.T) {
	t.Parallel()
	root := testutil.Root(t)
	start(t, root, keepEnv, "--id", "done", "--", "true")
	start(t, root, keepEnv, "--id", "kept", "--tag", "keep=true", "--", "true")
	start(t, root, keepEnv, "--id", "oldkept", "--tag", "keep=true", "--", "true")
	start(t, root, keepEnv, "--id", "failed", "--tag", "strategy.cleanup-on-clean-exit=true", "--", "sh", "-c", "exit 3")
	start(t, root, keepEnv, "--id", "live", "--", "sleep", "300")
	start(t, root, keepEnv, "--id", "gone", "--", "sleep", "300")
	for _, id := range []string{"done", "kept", "oldkept", "failed"} {
		waitStatus(t, root, id, layout.Exited)
	}
	vanish(t, root, "gone")
	// A field from a newer writer must not make gc think the record
	// changed under it.
	update(t, root, "done", func(m *layout.Metadata) {
		m.Extra = map[string]json.RawMessage{"fromNewerPty": json.RawMessage(`{"x":1}`)}
	})
	update(t, root, "oldkept", func(m *layout.Metadata) {
		m.ExitedAt = layout.FormatTime(time.Now().Add(-8 * 24 * time.Hour))
	})

	out := gcPass(t, root)
	mustHave(t, out,
		"Removed: done",
		"Removed: gone",
		"Removed (keep expired after 7d): oldkept",
		"Kept (keep tag): kept — remove the keep tag to reap it; removed after 7d",
		"Kept (exit code 3, cleanup-on-clean-exit): failed — kept for inspection; removed after 7d",
		"Cleaned up: 3 sessions removed.",
	)
	for _, id := range []string{"done", "gone", "oldkept"} {
		if _, ok := load(t, root, id); ok {
			t.Errorf("%s still exists", id)
		}
	}
	for _, id := range []string{"kept", "failed", "live"} {
		if _, ok := load(t, root, id); !ok {
			t.Errorf("%s was removed", id)
		}
	}
	if s, _ := load(t, root, "live"); s.Status != layout.Running {
		t.Errorf("live is %s", s.Status)
	}

	// A shorter --keep-max-age reaps what is kept; running sessions never.
	out = gcPass(t, root, "--keep-max-age", "0")
	mustHave(t, out, "Removed (keep expired after 0s): kept", "Removed (keep expired after 0s): failed")
	if s, ok := load(t, root, "live"); !ok || s.Status != layout.Running {
		t.Errorf("live: %v %s", ok, s.Status)
	}
	if out := gcPass(t, root); !hasLine(out, "Nothing to clean up.") || len(out) != 1 {
		t.Errorf("second pass: %q", out)
	}
}

func TestCleanupOnCleanExitPermanent(t *testing.T) {
	t.Parallel()
	root := testutil.Root(t)
	// Exit 1 with cleanup-on-clean-exit: a crash, so it comes back.
	start(t, root, nil, "--id", "crash", "--permanent", "--cleanup-on-clean-exit", "--", "sh", "-c", "exit 1")
	// Exit 0: the daemon keeps it (permanent, no cleanup tag yet); the tag
	// added afterwards is what gc must honour by removing, not respawning.
	start(t, root, nil, "--id", "clean", "--permanent", "--", "true")
	waitStatus(t, root, "crash", layout.Exited)
	waitStatus(t, root, "clean", layout.Exited)
	setTags(t, root, "clean", map[string]string{"strategy.cleanup-on-clean-exit": "true"})
	update(t, root, "crash", func(m *layout.Metadata) {
		m.Extra = map[string]json.RawMessage{"fromNewerPty": json.RawMessage(`"kept"`)}
	})

	out := gcPass(t, root)
	mustHave(t, out, "Respawned: crash", "Removed (clean exit): clean")
	if _, ok := load(t, root, "clean"); ok {
		t.Error("clean was not removed")
	}
	s, ok := load(t, root, "crash")
	if !ok {
		t.Fatal("crash is gone")
	}
	if string(s.Meta.Extra["fromNewerPty"]) != `"kept"` {
		t.Errorf("respawn lost an unknown field: %v", s.Meta.Extra)
	}
	if n := len(events(t, root, "crash", layout.EventSessionRespawn)); n != 1 {
		t.Errorf("%d session_respawn events", n)
	}
	for _, k := range []string{layout.TagLastRespawnAt, layout.TagConsecutiveFails, layout.TagCommandHash} {
		if _, ok := s.Meta.Tags[k]; !ok {
			t.Errorf("respawned session lacks tag %s: %v", k, s.Meta.Tags)
		}
	}
	if s.Meta.Tags[layout.TagCommandHash] != reconcile.CommandHash(s.Meta.Command, s.Meta.Args) {
		t.Errorf("command hash %s", s.Meta.Tags[layout.TagCommandHash])
	}
}

func TestFastFailFlapping(t *testing.T) {
	t.Parallel()
	root := testutil.Root(t)
	start(t, root, nil, "--id", "flap", "--permanent", "--", "sh", "-c", "exit 1")
	// A per-session limit beats the flag.
	start(t, root, nil, "--id", "flap1", "--permanent", "--tag", "strategy.fast-fail-limit=1", "--", "sh", "-c", "exit 2")
	flags := []string{"--fast-fail-window", "600", "--fast-fail-limit", "2"}

	waitStatus(t, root, "flap", layout.Exited)
	waitStatus(t, root, "flap1", layout.Exited)
	// First exit was not after a gc respawn: slow, counter 0.
	mustHave(t, gcPass(t, root, flags...), "Respawned: flap", "Respawned: flap1")
	waitStatus(t, root, "flap", layout.Exited)
	waitStatus(t, root, "flap1", layout.Exited)
	mustHave(t, gcPass(t, root, flags...), "Respawned: flap", "Flapping: flap1 (1 fast-fails in 600s, limit 1)")
	waitStatus(t, root, "flap", layout.Exited)
	mustHave(t, gcPass(t, root, flags...), "Flapping: flap (2 fast-fails in 600s, limit 2)")

	s, _ := load(t, root, "flap")
	if s.Meta.Tags[layout.TagStatus] != "flapping" || s.Meta.Tags[layout.TagConsecutiveFails] != "2" {
		t.Errorf("tags after flagging: %v", s.Meta.Tags)
	}
	fl := events(t, root, "flap", layout.EventSessionFlapping)
	if len(fl) != 1 || fmt.Sprint(fl[0].Fields["counter"], fl[0].Fields["limit"], fl[0].Fields["window"]) != "2 2 600" {
		t.Errorf("session_flapping events: %+v", fl)
	}
	// Later passes skip it and change nothing.
	before := snapshotRoot(t, root)
	mustHave(t, gcPass(t, root, flags...),
		"Skipped (flapping): flap — remove the strategy.status tag (pty tag flap --rm strategy.status) to retry",
		"Nothing to clean up.")
	if d := diffSnapshots(before, snapshotRoot(t, root)); len(d) > 0 {
		t.Errorf("a pass over flapping sessions changed the root: %v", d)
	}
	// Removing the tag brings it back.
	update(t, root, "flap", func(m *layout.Metadata) { delete(m.Tags, layout.TagStatus) })
	mustHave(t, gcPass(t, root, flags...), "Respawned: flap")
	// So does changing the command: a new hash resets the count.
	update(t, root, "flap1", func(m *layout.Metadata) { m.Args = []string{"-c", "exit 4"} })
	mustHave(t, gcPass(t, root, flags...), "Respawned: flap1")
	s, _ = load(t, root, "flap1")
	if s.Meta.Tags[layout.TagStatus] != "" || s.Meta.Tags[layout.TagConsecutiveFails] != "0" {
		t.Errorf("flap1 tags after a command change: %v", s.Meta.Tags)
	}
}

func TestOrphans(t *testing.T) {
	t.Parallel()
	root := testutil.Root(t)
	start(t, root, nil, "--id", "p", "--", "sleep", "300")
	start(t, root, nil, "--id", "c", "--tag", "parent=p", "--", "sleep", "300")
	start(t, root, nil, "--id", "gc1", "--tag", "parent=c", "--permanent", "--", "sleep", "300")
	start(t, root, nil, "--id", "m", "--tag", "parent=nosuch", "--", "sleep", "300")
	// A cycle of live sessions is left alone.
	start(t, root, nil, "--id", "x", "--tag", "parent=y", "--", "sleep", "300")
	start(t, root, nil, "--id", "y", "--tag", "parent=x", "--", "sleep", "300")
	start(t, root, nil, "--id", "keepme", "--tag", "parent=x", "--", "sleep", "300")
	vanish(t, root, "p")

	pids := map[string]int{}
	for _, id := range []string{"c", "gc1", "m"} {
		pids[id] = layout.At(root).Pid(id)
	}
	out := gcPass(t, root)
	// The chain p <- c <- gc1 goes in one pass; the permanent grandchild is
	// reaped, not respawned; p itself is swept as vanished.
	mustHave(t, out,
		"Reaped orphan: c (parent p is dead)",
		"Reaped orphan: gc1 (parent c is dead)",
		"Reaped orphan: m (parent nosuch is missing)",
		"Removed: p",
	)
	for id, pid := range pids {
		if _, ok := load(t, root, id); ok {
			t.Errorf("orphan %s still exists", id)
		}
		if proc.Alive(pid) {
			t.Errorf("orphan %s's daemon %d still runs", id, pid)
		}
	}
	for _, id := range []string{"x", "y", "keepme"} {
		if s, ok := load(t, root, id); !ok || s.Status != layout.Running {
			t.Errorf("%s: %v %s", id, ok, s.Status)
		}
	}
}

func TestAbandoned(t *testing.T) {
	t.Parallel()
	root := testutil.Root(t)
	dir := t.TempDir()
	gone, stay := filepath.Join(dir, "gone"), filepath.Join(dir, "stay")
	os.Mkdir(gone, 0o755)
	os.Mkdir(stay, 0o755)
	start(t, root, nil, "--id", "a", "--permanent", "--cwd", gone, "--", "sleep", "300")
	start(t, root, nil, "--id", "optout", "--permanent", "--tag", "strategy.abandon-if-cwd-gone=false", "--cwd", gone, "--", "sleep", "300")
	start(t, root, nil, "--id", "idle", "--permanent", "--tag", "strategy.idle-days=2", "--cwd", stay, "--", "sleep", "300")
	start(t, root, nil, "--id", "fresh", "--permanent", "--tag", "strategy.idle-days=2", "--cwd", stay, "--", "sleep", "300")
	for _, id := range []string{"a", "optout", "idle", "fresh"} {
		waitStatus(t, root, id, layout.Running)
	}
	update(t, root, "idle", func(m *layout.Metadata) {
		m.LastAttachAt = layout.FormatTime(time.Now().Add(-3*24*time.Hour - time.Hour))
	})
	update(t, root, "fresh", func(m *layout.Metadata) { m.LastAttachAt = layout.Now() })
	apid, ipid := layout.At(root).Pid("a"), layout.At(root).Pid("idle")
	if err := os.RemoveAll(gone); err != nil {
		t.Fatal(err)
	}

	out := gcPass(t, root)
	mustHave(t, out,
		"Abandoned: a (cwd gone: "+gone+")",
		"Abandoned: idle (no attach for 3 days, limit 2)",
		"Cleaned up: 2 abandoned.",
	)
	for id, pid := range map[string]int{"a": apid, "idle": ipid} {
		if _, ok := load(t, root, id); ok {
			t.Errorf("%s still exists", id)
		}
		if proc.Alive(pid) {
			t.Errorf("%s's daemon still runs", id)
		}
	}
	for _, id := range []string{"optout", "fresh"} {
		if s, ok := load(t, root, id); !ok || s.Status != layout.Running {
			t.Errorf("%s: %v %s", id, ok, s.Status)
		}
	}
	// --idle-days applies to sessions without their own tag.
	start(t, root, nil, "--id", "flagidle", "--permanent", "--cwd", stay, "--", "sleep", "300")
	waitStatus(t, root, "flagidle", layout.Running)
	update(t, root, "flagidle", func(m *layout.Metadata) { m.LastAttachAt = layout.FormatTime(time.Now().Add(-50 * time.Hour)) })
	if out := gcPass(t, root, "--idle-days", "3"); hasLine(out, "Abandoned: flagidle (no attach for 2 days, limit 3)") {
		t.Errorf("abandoned too early: %q", out)
	}
	mustHave(t, gcPass(t, root, "--idle-days", "2"), "Abandoned: flagidle (no attach for 2 days, limit 2)")
}

func TestLayoutTagPrune(t *testing.T) {
	t.Parallel()
	root := testutil.Root(t)
	start(t, root, nil, "--id", "s", "--", "sleep", "300")
	waitStatus(t, root, "s", layout.Running)
	dead := ":l" + strconv.Itoa(deadPid(t)) + "-abc1"
	live := ":l" + strconv.Itoa(os.Getpid()) + "-def2"
	setTags(t, root, "s", map[string]string{dead: "1", live: "1", "other": "x"})
	mustHave(t, gcPass(t, root), "Pruned layout tag "+dead+": s", "Cleaned up: 1 layout tag pruned.")
	s, _ := load(t, root, "s")
	if _, ok := s.Meta.Tags[dead]; ok {
		t.Error("dead layout tag kept")
	}
	if s.Meta.Tags[live] != "1" || s.Meta.Tags["other"] != "x" {
		t.Errorf("tags: %v", s.Meta.Tags)
	}
	if ev := events(t, root, "s", layout.EventTagsChange); len(ev) == 0 {
		t.Error("no tags_change event")
	}
}

func TestDebris(t *testing.T) {
	t.Parallel()
	root := testutil.Root(t)
	dp := strconv.Itoa(deadPid(t))
	live := testutil.FakeDaemon(t, root, "livepid", "0123")
	reusedTmpPid := strconv.Itoa(livePid(t))
	files := map[string]string{
		// A pid file naming a live process that is not a daemon (its pid
		// reused after a reboot) is debris like a dead one.
		"reused.pid": strconv.Itoa(livePid(t)),
		// So is a temporary file whose writer's pid now belongs to a
		// process that started after the file was written.
		"r.json.tmp." + reusedTmpPid + ".fedcba": "partial",
		"ghost.sock":                             "",
		"ghost.pid":                              dp,
		"ghost.events.jsonl":                     "{}\n",
		"ghost.lock":                             dp,
		"broken.json":                            "{not json",
		"x.json.tmp." + dp + ".abcdef":           "partial",
		"fresh.pid":                              dp, // too young to be debris
		"y.json.tmp." + dp + ".0123ab":           "young",
		"mine.json.tmp.1.ffffff":                 "owner alive (pid 1)",
		"gc.log":                                 "not a session file",
		"livepid.pid":                            strconv.Itoa(live),
		"livepid.events.jsonl":                   "",
		"theme":                                  "x",
		"other.gc-claim":                         dp,
		"ghost2.events.jsonl":                    "",
		"ok-session-is-not-debris.json~":         "",
	}
	for n, c := range files {
		if err := os.WriteFile(filepath.Join(root, n), []byte(c), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for n := range files {
		if n != "fresh.pid" && !strings.HasPrefix(n, "y.json") {
			backdate(t, root, n)
		}
	}
	// The young ones are dated ahead, so that they stay inside the grace
	// period however long a loaded machine takes to get to the pass (this
	// test once took 38 s under a full parallel run).
	ahead := time.Now().Add(10 * time.Minute)
	for _, n := range []string{"fresh.pid", "y.json.tmp." + dp + ".0123ab"} {
		if err := os.Chtimes(filepath.Join(root, n), ahead, ahead); err != nil {
			t.Fatal(err)
		}
	}
	// pid 1 must have started before its file was written, or the file is
	// a reused pid's debris: on a machine booted less than ten minutes
	// ago (CI's), backdate dates it before the boot.
	mine := ownedSince(t, 1)
	if err := os.Chtimes(filepath.Join(root, "mine.json.tmp.1.ffffff"), mine, mine); err != nil {
		t.Fatal(err)
	}
	out := gcPass(t, root)
	wantGone := []string{"reused.pid", "r.json.tmp." + reusedTmpPid + ".fedcba", "ghost.sock", "ghost.pid", "ghost.events.jsonl", "ghost.lock", "broken.json", "x.json.tmp." + dp + ".abcdef", "other.gc-claim", "ghost2.events.jsonl"}
	for _, n := range wantGone {
		mustHave(t, out, "Removed debris: "+n)
		if _, err := os.Stat(filepath.Join(root, n)); !os.IsNotExist(err) {
			t.Errorf("%s not removed", n)
		}
	}
	for n := range files {
		if indexOf(wantGone, n) >= 0 {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, n)); err != nil {
			t.Errorf("%s was removed: %v", n, err)
		}
	}
	mustHave(t, out, fmt.Sprintf("Cleaned up: %d debris files.", len(wantGone)))
}

// A dry run prints what a real pass does, and changes nothing at all.
// ownedSince is a time past the debris grace period at which pid, a live
// process, had already started: a temporary file dated then is its own.
func ownedSince(t *testing.T, pid int) time.Time {
	t.Helper()
	p, ok := procs.Lookup(pid)
	if !ok {
		t.Fatalf("pid %d is not running", pid)
	}
	start, ok := procs.StartTime(p)
	if !ok {
		t.Fatalf("no start time for pid %d", pid)
	}
	at := time.Now().Add(-10 * time.Minute)
	if owned := start.Add(2*proc.StartSlack + time.Second); owned.After(at) {
		at = owned
	}
	if cutoff := time.Now().Add(-reconcile.DefaultDebrisGrace - 5*time.Second); at.After(cutoff) {
		t.Fatalf("pid %d started %v ago, within the debris grace period: no file of its can be old enough", pid, time.Since(start).Round(time.Second))
	}
	return at
}

func TestDryRunChangesNothing(t *testing.T) {
	t.Parallel()
	root := testutil.Root(t)
	start(t, root, keepEnv, "--id", "done", "--", "true")
	start(t, root, nil, "--id", "perm", "--permanent", "--", "sleep", "300")
	start(t, root, nil, "--id", "orph", "--tag", "parent=nosuch", "--", "sleep", "300")
	start(t, root, nil, "--id", "flap", "--permanent", "--tag", "strategy.fast-fail-limit=1", "--", "sh", "-c", "exit 1")
	start(t, root, nil, "--id", "lay", "--", "sleep", "300")
	waitStatus(t, root, "done", layout.Exited)
	waitStatus(t, root, "flap", layout.Exited)
	vanish(t, root, "perm")
	setTags(t, root, "flap", map[string]string{
		layout.TagLastRespawnAt: layout.FormatTime(time.Now().Add(-time.Second)),
	})
	update(t, root, "flap", func(m *layout.Metadata) { m.ExitedAt = layout.Now() })
	lt := ":l" + strconv.Itoa(deadPid(t)) + "-zz"
	setTags(t, root, "lay", map[string]string{lt: ""})
	os.WriteFile(filepath.Join(root, "ghost.pid"), []byte(strconv.Itoa(deadPid(t))), 0o600)
	backdate(t, root, "ghost.pid")

	before := snapshotRoot(t, root)
	dry := gcPass(t, root, "-n")
	dryJSON := gcJSON(t, root, "--dry-run")
	if d := diffSnapshots(before, snapshotRoot(t, root)); len(d) > 0 {
		t.Fatalf("dry run changed the root: %v", d)
	}
	mustHave(t, dry,
		"Would remove debris: ghost.pid",
		"Would reap orphan: orph (parent nosuch is missing)",
		"Would respawn: perm",
		"Would flag as flapping: flap (1 fast-fails in 60s, limit 1)",
		"Would remove: done",
		"Would prune layout tag "+lt+": lay",
		"Would clean up: 1 session removed, 1 respawned, 1 orphan reaped, 1 flagged flapping, 1 debris file, 1 layout tag pruned. (Dry run — no changes made.)",
	)
	if !dryJSON.DryRun || len(dryJSON.Actions) != 6 {
		t.Errorf("dry --json: %+v", dryJSON)
	}
	// The real pass does exactly what the dry run announced.
	real := gcJSON(t, root)
	if len(real.Actions) != len(dryJSON.Actions) {
		t.Fatalf("dry run announced %d actions, the pass did %d: %+v", len(dryJSON.Actions), len(real.Actions), real.Actions)
	}
	for i := range real.Actions {
		a, b := dryJSON.Actions[i], real.Actions[i]
		if a.Kind != b.Kind || a.ID != b.ID || a.File != b.File || a.Tag != b.Tag {
			t.Errorf("action %d: dry %+v, real %+v", i, a, b)
		}
	}
}

// Six passes at once over the same root leave exactly one new daemon per
// respawned session.
func TestConcurrentPassesRespawnOnce(t *testing.T) {
	t.Parallel()
	root := testutil.Root(t)
	ids := []string{"c-" + registry.RandomID(), "c-" + registry.RandomID(), "c-" + registry.RandomID()}
	for _, id := range ids {
		start(t, root, nil, "--id", id, "--permanent", "--", "sleep", "300")
	}
	for _, id := range ids {
		vanish(t, root, id)
	}
	var wg sync.WaitGroup
	outs := make([]testutil.Result, 6)
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i] = testutil.Run(t, root, "gc")
		}()
	}
	wg.Wait()
	respawned := map[string]int{}
	for _, r := range outs {
		if r.Code != 0 {
			t.Errorf("gc exit %d: %s", r.Code, r.Stderr)
		}
		for _, l := range strings.Split(r.Stdout, "\n") {
			if id, ok := strings.CutPrefix(l, "Respawned: "); ok {
				respawned[id]++
			}
		}
	}
	for _, id := range ids {
		if respawned[id] != 1 {
			t.Errorf("%s respawned %d times; outputs: %+v", id, respawned[id], outs)
		}
		s := waitStatus(t, root, id, layout.Running)
		if n := countDaemons(id); n != 1 {
			t.Errorf("%s has %d live daemons", id, n)
		}
		if n := len(events(t, root, id, layout.EventSessionRespawn)); n != 1 {
			t.Errorf("%s: %d session_respawn events", id, n)
		}
		_ = s
	}
}

// countDaemons counts live pty-daemon processes serving id ("pty-daemon
// <id> <generation> <root>").
func countDaemons(id string) int {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	n := 0
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		argv := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		if len(argv) >= 2 && filepath.Base(argv[0]) == "pty-daemon" && argv[1] == id {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			if proc.Alive(pid) {
				n++
			}
		}
	}
	return n
}

// gc racing `pty run -a --id X` over a dead X never removes the new X.
func TestGCRacingRunNeverRemovesNewSession(t *testing.T) {
	t.Parallel()
	root := testutil.Root(t)
	for i := range 6 {
		id := fmt.Sprintf("race%d", i)
		start(t, root, keepEnv, "--id", id, "--", "true")
		waitStatus(t, root, id, layout.Exited)
		var wg sync.WaitGroup
		var gcOut, runOut testutil.Result
		wg.Add(2)
		go func() { defer wg.Done(); gcOut = testutil.Run(t, root, "gc") }()
		go func() {
			defer wg.Done()
			cmd := testutil.Command(t, root, "", "run", "-a", "-d", "--id", id, "--", "sleep", "300")
			runOut = testutil.RunCmd(t, cmd)
		}()
		wg.Wait()
		if gcOut.Code != 0 {
			t.Fatalf("gc: %+v", gcOut)
		}
		if runOut.Code != 0 {
			t.Fatalf("run -a: %+v", runOut)
		}
		s, ok := load(t, root, id)
		if !ok || s.Status != layout.Running || !proc.Alive(layout.At(root).Pid(id)) {
			t.Fatalf("round %d: new session %s is %v/%s after racing gc; gc said %q", i, id, ok, s.Status, gcOut.Stdout)
		}
		if _, err := os.Stat(layout.At(root).Paths(id).Sock()); err != nil {
			t.Fatalf("round %d: new session's socket is gone: %v", i, err)
		}
	}
}

func TestBadArgumentsExit1(t *testing.T) {
	t.Parallel()
	root := testutil.Root(t)
	for _, args := range [][]string{
		{"gc", "--fast-fail-limit", "0"},
		{"gc", "--fast-fail-window", "x"},
		{"gc", "--keep-max-age", "7w"},
		{"gc", "--idle-days", "-1"},
		{"gc", "extra"},
		{"gc", "install", "--interval", "0"},
		{"gc", "install", "--platform", "launchd"},
	} {
		r := testutil.Run(t, root, args...)
		if r.Code != 1 || r.Stdout != "" || strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 || !strings.HasPrefix(r.Stderr, "pty") {
			t.Errorf("%v: exit %d stdout %q stderr %q", args, r.Code, r.Stdout, r.Stderr)
		}
	}
	if ents, _ := os.ReadDir(root); len(ents) != 0 {
		t.Errorf("bad arguments left files: %v", ents)
	}
	// gc starts processes from what the root says: it refuses one that
	// others can write.
	os.Chmod(root, 0o777)
	defer os.Chmod(root, 0o700)
	if r := testutil.Run(t, root, "gc"); r.Code != 1 || !strings.Contains(r.Stderr, "chmod 700") {
		t.Errorf("gc on a world-writable root: %+v", r)
	}
}

func TestInstallPrintAndLog(t *testing.T) {
	t.Parallel()
	root := testutil.Root(t)
	r := testutil.MustRun(t, root, "gc", "install", "--print", "--interval", "2m", "--platform", "launchd")
	if !strings.Contains(r.Stdout, "<integer>120</integer>") || !strings.Contains(r.Stdout, "<string>"+root+"</string>") {
		t.Errorf("plist:\n%s", r.Stdout)
	}
	r = testutil.MustRun(t, root, "gc", "install", "--print")
	if !strings.Contains(r.Stdout, "OnUnitActiveSec=30s") {
		t.Errorf("systemd print:\n%s", r.Stdout)
	}
	r = testutil.MustRun(t, root, "gc", "--print-launchd-plist", "--interval", "90")
	if !strings.Contains(r.Stdout, "<integer>90</integer>") {
		t.Errorf("--print-launchd-plist:\n%s", r.Stdout)
	}
	// --interval says how often the timer runs: a pass given one is told
	// where it belongs rather than ignoring it, and gc --help lists it,
	// with --print-launchd-plist, only with the timer's commands.
	r = testutil.Run(t, root, "gc", "--interval", "5m")
	if r.Code != 1 || strings.Count(r.Stderr, "\n") != 1 || !strings.Contains(r.Stderr, "pty gc install --interval 5m") || r.Stdout != "" {
		t.Errorf("gc --interval 5m: %+v, want one line pointing to pty gc install, exit 1", r)
	}
	help := testutil.MustRun(t, root, "gc", "--help").Stdout
	_, flags, _ := strings.Cut(help, "\nFlags:\n")
	if strings.Contains(flags, "--interval") || strings.Contains(flags, "--print-launchd-plist") ||
		!strings.Contains(help, "pty gc --print-launchd-plist [--interval 30s]") {
		t.Errorf("gc --help lists the timer's flags as a pass's:\n%s", help)
	}
	if _, flags, _ := strings.Cut(testutil.MustRun(t, root, "gc", "install", "--help").Stdout, "\nFlags:\n"); !strings.Contains(flags, "--interval") {
		t.Errorf("gc install --help has no --interval:\n%s", flags)
	}
	// A timer pass never creates a missing root.
	missing := filepath.Join(root, "not-mounted-yet")
	cmd := testutil.Command(t, missing, "gc", "--log", filepath.Join(missing, "gc.log"))
	if r := testutil.RunCmd(t, cmd); r.Code != 0 || !strings.Contains(r.Stderr, "nothing to do") {
		t.Errorf("gc --log on a missing root: %+v", r)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("gc created the missing root: %v", err)
	}
	// --log appends timestamped lines and rotates past 1 MiB.
	log := filepath.Join(root, "gc.log")
	os.WriteFile(log, make([]byte, 1<<20+1), 0o600)
	testutil.MustRun(t, root, "gc", "--log", log)
	b, _ := os.ReadFile(log)
	if !strings.HasSuffix(string(b), " Nothing to clean up.\n") || len(b) > 100 {
		t.Errorf("log after rotation: %q", b)
	}
	if fi, err := os.Stat(log + ".1"); err != nil || fi.Size() != 1<<20+1 {
		t.Errorf("rotated log: %v", err)
	}
}

// A permanent session from a pty.toml is respawned from the file as it is
// now, and removed once the file no longer declares it.
func TestPtyfileRespawnRereadsFile(t *testing.T) {
	t.Parallel()
	root := testutil.Root(t)
	dir := t.TempDir()
	toml := filepath.Join(dir, "pty.toml")
	write := func(body string) {
		if err := os.WriteFile(toml, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`
[sessions.web]
id = "ptf-web"
command = "exit 1"
tags = { strategy = "permanent", role = "old" }

[sessions.api]
id = "ptf-api"
command = "exit 1"
tags = { strategy = "permanent" }
`)
	testutil.MustRun(t, root, "up", dir)
	waitStatus(t, root, "ptf-web", layout.Exited)
	waitStatus(t, root, "ptf-api", layout.Exited)
	write(`
[sessions.web]
id = "ptf-web"
command = "sleep 300"
env = { FROM_TOML = "yes" }
tags = { strategy = "permanent", role = "new" }
`)
	mustHave(t, gcPass(t, root),
		"Respawned: ptf-web",
		"Removed (no longer declared in its pty.toml): ptf-api")
	s := waitStatus(t, root, "ptf-web", layout.Running)
	if s.Meta.DisplayCommand != "sleep 300" || s.Meta.ExtraEnv["FROM_TOML"] != "yes" || s.Meta.Tags["role"] != "new" {
		t.Errorf("respawned from stale settings: cmd %q env %v tags %v", s.Meta.DisplayCommand, s.Meta.ExtraEnv, s.Meta.Tags)
	}
	if _, ok := load(t, root, "ptf-api"); ok {
		t.Error("ptf-api still exists")
	}
	// A file that cannot be read falls back to the stored settings.
	vanish(t, root, "ptf-web")
	write("this is not toml [")
	out := gcPass(t, root)
	if len(out) < 1 || !strings.HasPrefix(out[0], "Respawned: ptf-web (pty.toml unreadable, using stored settings: ") {
		t.Errorf("output: %q", out)
	}
	if s := waitStatus(t, root, "ptf-web", layout.Running); s.Meta.DisplayCommand != "sleep 300" {
		t.Errorf("fallback respawn ran %q", s.Meta.DisplayCommand)
	}
}

// The generation guard, made deterministic: while the pass acts on one
// session, another it has already looked at is edited (b) or replaced by a
// new running session (c). The pass must skip both.
func TestEditedOrReplacedMeanwhileIsSkipped(t *testing.T) {
	t.Parallel()
	root := testutil.Root(t)
	for _, id := range []string{"a", "b", "c"} {
		start(t, root, keepEnv, "--id", id, "--", "true")
	}
	for _, id := range []string{"a", "b", "c"} {
		waitStatus(t, root, id, layout.Exited)
	}
	o := reconcile.DefaultOptions(root)
	var acted []string
	o.Report = func(a reconcile.Action) {
		acted = append(acted, a.Message)
		if a.Message != "Removed: a" {
			return
		}
		setTags(t, root, "b", map[string]string{"note": "edited by a person"})
		r := testutil.RunCmd(t, testutil.Command(t, root, "", "run", "-a", "-d", "--id", "c", "--", "sleep", "300"))
		if r.Code != 0 {
			t.Errorf("run -a c: %+v", r)
		}
	}
	if _, err := reconcile.Run(t.Context(), o); err != nil {
		t.Fatal(err)
	}
	mustHave(t, acted, "Removed: a", "Skipped (changed meanwhile): b", "Skipped (changed meanwhile): c")
	if s, ok := load(t, root, "b"); !ok || s.Meta.Tags["note"] == "" {
		t.Error("the edited session was removed")
	}
	if s, ok := load(t, root, "c"); !ok || s.Status != layout.Running {
		t.Errorf("the replacement session: %v %s", ok, s.Status)
	}
	// The next pass sees the edit and acts on what is there now.
	mustHave(t, gcPass(t, root), "Removed: b")
}

// TestRespawnIsARelaunch: gc's respawn follows the rules every way of
// starting a session again shares (lifecycle.Relaunch): strategy kept, the
// agent's variables of gc's own environment scrubbed, a new generation;
// the bookkeeping is gc's own, written afresh.
func TestRespawnIsARelaunch(t *testing.T) {
	t.Parallel()
	root := testutil.Root(t)
	e := relaunchtest.Start(t, root, "perm", false)
	cmd := testutil.Command(t, root, "", "gc")
	cmd.Env = append(cmd.Env, relaunchtest.AgentEnv)
	r := testutil.RunCmd(t, cmd)
	if r.Code != 0 || !strings.Contains(r.Stdout, "Respawned: perm") {
		t.Fatalf("gc: %+v", r)
	}
	e.CheckRelaunched(t, root, true)
	s, _ := load(t, root, "perm")
	if s.Meta.Tags[layout.TagConsecutiveFails] != "0" || s.Meta.Tags[layout.TagCommandHash] != reconcile.CommandHash(s.Meta.Command, s.Meta.Args) {
		t.Errorf("gc bookkeeping after the respawn: %v", s.Meta.Tags)
	}
}

// TestFailedKeptForFailedTTL: a failed session (kept by its daemon by
// default) survives passes until --failed-ttl has passed since its exit;
// a session stopped by pty kill is no failure and goes at once, as does a
// clean exit kept by PTY_REAP_ON_EXIT=false.
func TestFailedKeptForFailedTTL(t *testing.T) {
	t.Parallel()
	root := testutil.Root(t)
	start(t, root, nil, "--id", "fail", "--", "sh", "-c", "echo boom; exit 2")
	start(t, root, keepEnv, "--id", "clean", "--", "true")
	start(t, root, nil, "--id", "stopped", "--", "sleep", "300")
	testutil.MustRun(t, root, "kill", "stopped")
	for _, id := range []string{"fail", "clean", "stopped"} {
		waitStatus(t, root, id, layout.Exited)
	}
	out := gcPass(t, root)
	mustHave(t, out,
		"Kept (exit code 2): fail — kept for inspection; removed after 1d",
		"Removed: clean",
		"Removed: stopped",
		"Cleaned up: 2 sessions removed.",
	)
	out = gcPass(t, root, "--failed-ttl", "1h")
	mustHave(t, out, "Kept (exit code 2): fail — kept for inspection; removed after 1h", "Nothing to clean up.")
	s, ok := load(t, root, "fail")
	if !ok {
		t.Fatal("fail was removed before its ttl")
	}
	exited := layout.ParseTime(s.Meta.ExitedAt)
	testutil.WaitFor(t, 10*time.Second, "fail's exit to be over 1s old", func() bool { return time.Since(exited) > 1500*time.Millisecond })
	out = gcPass(t, root, "--failed-ttl", "1s")
	mustHave(t, out, "Removed (failure kept 1s): fail", "Cleaned up: 1 session removed.")
	if _, ok := load(t, root, "fail"); ok {
		t.Error("fail still exists after its ttl")
	}
	if r := testutil.Run(t, root, "gc", "--failed-ttl", "soon"); r.Code != 1 || !strings.Contains(r.Stderr, "failed-ttl") {
		t.Errorf("bad --failed-ttl: %+v", r)
	}
}

// TestPermanentInGraceIsRespawned: a permanent session that has just
// exited, while its daemon still answers for its grace period (held there
// with SIGSTOP for as long as the test needs), is exited for gc as it is
// for list: gc respawns it, its Relaunch waiting for the old daemon.
func TestPermanentInGraceIsRespawned(t *testing.T) {
	t.Parallel()
	root := testutil.Root(t)
	start(t, root, nil, "--id", "grace", "--permanent", "--", "sh", "-c", "sleep 1; exit 3")
	before, _ := load(t, root, "grace")
	release := testutil.HoldGrace(t, root, "grace")
	if s, _ := load(t, root, "grace"); s.Status != layout.Exiting || s.Shown() != layout.Exited {
		t.Fatalf("held in its grace period, grace is %s (shown %s), want exiting (shown exited)", s.Status, s.Shown())
	}
	cmd := testutil.Command(t, root, "", "gc")
	done := make(chan testutil.Result, 1)
	go func() { done <- testutil.RunCmd(t, cmd) }()
	// gc holds its claim on the session while it respawns it, waiting
	// for the held daemon: that is the moment to let the daemon go.
	var r testutil.Result
	finished := false
	testutil.WaitFor(t, 20*time.Second, "gc to claim grace or finish", func() bool {
		select {
		case r = <-done:
			finished = true
			return true
		default:
		}
		_, err := os.Stat(filepath.Join(root, "grace.gc-claim"))
		return err == nil
	})
	release()
	if !finished {
		r = <-done
	}
	if r.Code != 0 || !strings.Contains(r.Stdout, "Respawned: grace\n") {
		t.Fatalf("gc during the grace period: %+v", r)
	}
	s := waitStatus(t, root, "grace", layout.Running)
	if s.Meta.Generation == before.Meta.Generation {
		t.Errorf("grace runs its old generation %s", s.Meta.Generation)
	}
}
