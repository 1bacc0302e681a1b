package run

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
)

// named lists the sessions of root whose display name is name.
func named(t *testing.T, root, name string) []string {
	t.Helper()
	list, err := layout.At(root).List()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range list {
		if s.Meta != nil && s.Meta.DisplayName != nil && *s.Meta.DisplayName == name {
			ids = append(ids, s.ID)
		}
	}
	return ids
}

// run -a --name is create-or-attach: started at the same moment, one
// creates the session and every other one finds it (-d reports it
// running; an attached one attaches to it), so each round ends with
// exactly one session of that name.
func TestRunAgainByNameConcurrent(t *testing.T) {
	root := testutil.Root(t)
	const rounds, n = 8, 5
	for round := 0; round < rounds; round++ {
		name := fmt.Sprintf("race%d", round)
		var wg sync.WaitGroup
		results := make([]testutil.Result, n)
		var attached *testutil.Terminal
		start := make(chan struct{})
		for i := 0; i < n; i++ {
			if i == n-1 {
				// One attached run -a among the detached ones.
				cmd := testutil.Command(t, root, "", "run", "-a", "--name", name, "--", "sleep", "60")
				attached = testutil.StartTerminal(t, cmd, 24, 80)
				continue
			}
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				<-start
				results[i] = testutil.Run(t, root, "run", "-d", "-P", "-a", "--name", name, "--", "sleep", "60")
			}(i)
		}
		close(start)
		wg.Wait()
		ids := map[string]bool{}
		for i, r := range results[:n-1] {
			if r.Code != 0 {
				t.Fatalf("round %d: run -a -d --name %s #%d: %+v", round, name, i, r)
			}
			ids[strings.TrimSpace(r.Stdout)] = true
		}
		if len(ids) != 1 {
			t.Errorf("round %d: the concurrent run -a -d --name %s printed %d ids %v, want one", round, name, len(ids), ids)
		}
		// Once the attached one has attached (lastAttachAt), it has made
		// or found its session.
		testutil.WaitFor(t, 20*time.Second, "the attached run -a to attach", func() bool {
			if strings.HasPrefix(attached.Output(), "pty:") {
				t.Fatalf("round %d: the attached run -a --name %s failed: %q", round, name, attached.Output())
			}
			list, _ := layout.At(root).List()
			for _, s := range list {
				if s.Meta != nil && s.Meta.DisplayName != nil && *s.Meta.DisplayName == name && s.Meta.LastAttachAt != "" {
					return true
				}
			}
			return false
		})
		if got := named(t, root, name); len(got) != 1 {
			t.Fatalf("round %d: %d sessions are named %s (%v), want exactly one", round, len(got), name, got)
		}
	}
}

// A restart of a session named N holds the name while the session's record
// is away (an ephemeral one's daemon removes it when it stops; the start
// replaces it), so a run -a --name N at the same moment finds the session
// rather than starting a second one.
func TestRestartAndRunAgainByNameConcurrent(t *testing.T) {
	root := testutil.Root(t)
	const rounds = 6
	for round := 0; round < rounds; round++ {
		name := fmt.Sprintf("restart%d", round)
		id := fmt.Sprintf("r%d", round)
		testutil.MustRun(t, root, "run", "-d", "-e", "--id", id, "--name", name, "--", "sleep", "60")
		// run -a again and again while the restart runs, so that one
		// of them looks while the record is away.
		done := make(chan testutil.Result)
		go func() { done <- testutil.Run(t, root, "restart", "-y", id) }()
		var restart, again testutil.Result
	loop:
		for {
			select {
			case restart = <-done:
				break loop
			default:
			}
			if again = testutil.Run(t, root, "run", "-d", "-P", "-a", "--name", name, "--", "sleep", "60"); again.Code != 0 {
				<-done
				break
			}
		}
		if again.Code != 0 {
			t.Fatalf("round %d: run -a -d --name %s: %+v", round, name, again)
		}
		if restart.Code != 0 && !strings.Contains(restart.Stderr, "replaced") {
			t.Fatalf("round %d: restart %s: %+v", round, id, restart)
		}
		if got := named(t, root, name); len(got) != 1 {
			t.Fatalf("round %d: %d sessions are named %s (%v), want exactly one (restart: %+v; run -a: %+v)", round, len(got), name, got, restart, again)
		}
	}
}
