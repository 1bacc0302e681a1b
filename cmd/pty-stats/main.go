// Command pty-stats shows what sessions' daemons report about themselves:
// terminal size, clients, and the resource use of the child and daemon.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/lifecycle"
	"github.com/ptyorg/pty/pkg/listing"
)

func main() {
	c := cli.NewCommand("stats", "pty stats [--json] [REF]")
	c.Long = `For each running session (or just REF): the effective terminal size, cursor,
scrollback use, attached and read-only clients with each writable client's
size, the child's pid, CPU and memory, the daemon's pid and memory, and
uptime. Each daemon gets 2 s to answer. A stopped session shows its exit.

--json prints the daemon's STATUS object (an array without REF); a stopped
session is {name, status, exitCode, exitedAt, tags?}.`
	asJSON := c.Flags.Bool("json", false, "print JSON for scripts")
	c.Flags.Bool("all", false, "all running sessions (the default without REF)")
	pos := c.Parse(os.Args[1:])
	if len(pos) > 1 {
		cli.Fatalf("Unexpected argument: %s (stats takes at most one session)", pos[1])
	}
	root := cli.Root()
	var ss []layout.Session
	if len(pos) == 1 {
		ss = []layout.Session{cli.Resolve(root, pos[0])}
	} else {
		all, err := layout.ListFast(root)
		cli.Check(err)
		for _, s := range all {
			if s.Status == layout.Running {
				ss = append(ss, s)
			}
		}
		listing.Sort(ss)
	}

	var out []any
	failed := false
	for i, s := range ss {
		if s.Status != layout.Running {
			d := dead(s)
			if *asJSON {
				out = append(out, d)
			} else {
				printDead(s, d)
			}
			continue
		}
		st, err := lifecycle.QueryStatus(root, s.ID, lifecycle.StatusTimeout)
		if err != nil {
			failed = true
			fmt.Fprintf(os.Stderr, "pty: %v\n", err)
			if *asJSON {
				out = append(out, map[string]any{"name": s.ID, "status": s.Status, "error": err.Error()})
			}
			continue
		}
		if *asJSON {
			out = append(out, st.Raw)
		} else {
			if i > 0 {
				fmt.Println()
			}
			printStatus(s, st)
		}
	}
	if *asJSON {
		var v any = out
		if len(pos) == 1 && len(out) == 1 {
			v = out[0]
		} else if out == nil {
			v = []any{}
		}
		b, err := json.MarshalIndent(v, "", "  ")
		cli.Check(err)
		fmt.Println(string(b))
	} else if len(ss) == 0 {
		fmt.Println("No running sessions.")
	}
	if failed {
		os.Exit(1)
	}
}

type deadInfo struct {
	Name     string            `json:"name"`
	Status   layout.Status     `json:"status"`
	ExitCode *int              `json:"exitCode"`
	ExitedAt *string           `json:"exitedAt"`
	Tags     map[string]string `json:"tags,omitempty"`
}

func dead(s layout.Session) deadInfo {
	d := deadInfo{Name: s.ID, Status: s.Status, ExitCode: s.Meta.ExitCode, Tags: s.Meta.Tags}
	if s.Meta.ExitedAt != "" {
		at := s.Meta.ExitedAt
		d.ExitedAt = &at
	}
	if len(d.Tags) == 0 {
		d.Tags = nil
	}
	return d
}

func title(s layout.Session) string {
	if n := s.Name(); n != s.ID {
		return fmt.Sprintf("%s (%s)", n, s.ID)
	}
	return s.ID
}

func printDead(s layout.Session, d deadInfo) {
	switch {
	case d.ExitCode != nil && d.ExitedAt != nil:
		age := time.Since(layout.ParseTime(*d.ExitedAt))
		fmt.Printf("%s: exited with code %d, %s ago\n", title(s), *d.ExitCode, listing.FormatAge(age))
	case d.ExitCode != nil:
		fmt.Printf("%s: exited with code %d\n", title(s), *d.ExitCode)
	default:
		fmt.Printf("%s: %s (no exit record: killed or crashed)\n", title(s), d.Status)
	}
}

func printStatus(s layout.Session, st *lifecycle.Status) {
	t := st.Terminal
	fmt.Printf("%s\n", title(s))
	fmt.Printf("  size        %dx%d (cols x rows), cursor at column %d, row %d\n", t.Cols, t.Rows, t.CursorX+1, t.CursorY+1)
	fmt.Printf("  scrollback  %d of %d lines\n", t.ScrollbackUsed, t.ScrollbackCapacity)
	cl := st.Clients
	var sizes []string
	for _, c := range cl.Connections {
		if c.Role == "writable" {
			sizes = append(sizes, fmt.Sprintf("%dx%d", c.Cols, c.Rows))
		}
	}
	line := fmt.Sprintf("%d attached, %d read-only", cl.Attached, cl.ReadOnly)
	if len(sizes) > 0 {
		line += "; writable clients ask for " + strings.Join(sizes, ", ")
	}
	fmt.Printf("  clients     %s\n", line)
	p := st.Process
	switch {
	case p.Alive:
		fmt.Printf("  process     pid %d%s\n", p.Pid, resources(p.Resources, true))
	case p.ExitCode != nil:
		fmt.Printf("  process     exited with code %d\n", *p.ExitCode)
	default:
		fmt.Printf("  process     not running\n")
	}
	fmt.Printf("  daemon      pid %d%s\n", st.Daemon.Pid, resources(st.Daemon.Resources, false))
	fmt.Printf("  uptime      %s\n", listing.FormatAge(time.Duration(st.UptimeSeconds*float64(time.Second))))
}

func resources(r *lifecycle.Resources, cpu bool) string {
	if r == nil {
		return ""
	}
	s := ", " + memory(r.RssKB)
	if cpu {
		s += fmt.Sprintf(", %.1f%% CPU", r.CPUPercent)
	}
	return s
}

func memory(kb int64) string {
	switch {
	case kb >= 1<<20:
		return fmt.Sprintf("%.1f GiB", float64(kb)/(1<<20))
	case kb >= 1<<10:
		return fmt.Sprintf("%.1f MiB", float64(kb)/(1<<10))
	default:
		return fmt.Sprintf("%d KiB", kb)
	}
}
