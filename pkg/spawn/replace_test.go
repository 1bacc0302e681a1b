package spawn_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/spawn"
)

// ReplaceGeneration replaces only the record the caller saw: a record of
// another generation (replaced meanwhile) or none at all (removed
// meanwhile) is left alone and the start fails with ErrReplaced.
func TestReplaceGeneration(t *testing.T) {
	root := testutil.Root(t)
	t.Setenv("PATH", testutil.BinDir(t)+":"+os.Getenv("PATH"))
	t.Setenv("PTY_REAP_ON_EXIT", "false")
	ctx := context.Background()
	if _, err := spawn.Start(ctx, root, spawn.Options{ID: "x", Command: "sh", Args: []string{"-c", "exit 3"}}); err != nil {
		t.Fatal(err)
	}
	var old *layout.Metadata
	testutil.WaitFor(t, 10*time.Second, "x to exit and its daemon to end", func() bool {
		s, err := layout.At(root).Load("x")
		old = s.Meta
		alive, _ := layout.At(root).DaemonAlive("x", "")
		return err == nil && s.Status == layout.Exited && !alive
	})
	again := spawn.Options{ID: "x", Command: "sleep", Args: []string{"100"}, Replace: true}

	again.ReplaceGeneration = "0123456789abcdef0123456789abcdef"
	if _, err := spawn.Start(ctx, root, again); !errors.Is(err, spawn.ErrReplaced) {
		t.Fatalf("stale generation: got %v, want ErrReplaced", err)
	}
	if m, err := layout.At(root).Metadata("x"); err != nil || m.Generation != old.Generation {
		t.Fatalf("the record was touched: %v %v", m, err)
	}

	again.ReplaceGeneration = old.Generation
	if _, err := spawn.Start(ctx, root, again); err != nil {
		t.Fatalf("matching generation: %v", err)
	}
	s, err := layout.At(root).Load("x")
	if err != nil || s.Status != layout.Running || s.Meta.Generation == old.Generation {
		t.Fatalf("after replace: %+v %v", s, err)
	}

	testutil.MustRun(t, root, "kill", "x")
	testutil.MustRun(t, root, "rm", "x")
	if _, err := spawn.Start(ctx, root, again); !errors.Is(err, spawn.ErrReplaced) {
		t.Fatalf("removed meanwhile: got %v, want ErrReplaced", err)
	}
	if _, err := os.Stat(layout.At(root).Paths("x").Meta()); !os.IsNotExist(err) {
		t.Fatalf("a removed session was recreated")
	}
}
