// Package stats is "pty stats": what sessions' daemons report about
// themselves: terminal size, clients, and the resource use of the child
// and daemon. cmd/pty-stats only parses the command line and calls Run.
package stats

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/ptyorg/pty/internal/errlog"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/listing"
	"github.com/ptyorg/pty/pkg/proto"
)

// Options are stats' flags and argument.
type Options struct {
	Args []string // REF: one session; all running ones without it
	JSON bool
	All  bool // the default without REF
}

// Command declares stats' flags, filling o.
func Command(o *Options) *cli.Command {
	c := cli.NewCommand("stats", "pty stats [--json] [REF]")
	c.Long = `For each running session (or just REF): the effective terminal size, cursor,
scrollback use, attached and read-only clients with each writable client's
size, the child's pid, CPU and memory, the daemon's pid and memory, and
uptime. Each daemon gets 2 s to answer. A stopped session shows its exit.
A session whose daemon recorded failures (an event or a metadata update it
could not write) says how many, and where they are: <id>.daemon.log in the
root (docs/disk-layout.md).

--json prints the daemon's STATUS object (an array without REF) with the
session's id beside its name (the display name, which several sessions may
share), and clients.total without the connection stats itself asks on; a
stopped session is {id, name, status, exitCode, exitedAt, tags?}. Both have
errorLog: {count, path}, what the daemon's error log holds.`
	c.Flags.BoolVar(&o.JSON, "json", false, "print JSON for scripts")
	c.Flags.BoolVar(&o.All, "all", false, "all running sessions (the default without REF)")
	return c
}

// Parse fills o from the command line (without the program name).
func Parse(c *cli.Command, o *Options, args []string) {
	o.Args = c.Parse(args)
}

// Run prints the stats o asks for. A daemon that does not answer is
// reported on io.Err and makes the exit status 1.
func Run(o Options, io cli.IO) error {
	if len(o.Args) > 1 {
		return fmt.Errorf("Unexpected argument: %s (stats takes at most one session)", o.Args[1])
	}
	ref := ""
	if len(o.Args) == 1 {
		ref = o.Args[0]
	}
	w := io.Out
	root := io.Root
	var ss []layout.Session
	if ref != "" {
		s, err := layout.At(root).Resolve(ref)
		if err != nil {
			return err
		}
		ss = []layout.Session{s}
	} else {
		all, err := layout.At(root).List()
		if err != nil {
			return err
		}
		for _, s := range all {
			if s.Shown() == layout.Running {
				ss = append(ss, s)
			}
		}
		listing.Sort(ss)
	}

	var out []any
	failed := false
	for i, s := range ss {
		el := errorsOf(root, s.ID)
		if s.Shown() != layout.Running {
			if err := s.DamagedErr(); err != nil && ref != "" {
				return err
			}
			d := dead(s)
			d.ErrorLog = el
			if o.JSON {
				out = append(out, d)
			} else {
				printDead(w, io.Now(), s, d)
				printErrors(w, el)
			}
			continue
		}
		raw, err := client.Status(root, s.ID, client.StatusTimeout)
		var st proto.StatusReply
		if err == nil {
			if st, err = proto.ParseStatus(raw); err != nil {
				err = fmt.Errorf("session %s: STATUS reply is not valid JSON: %w", s.ID, err)
			}
		}
		if err != nil {
			failed = true
			fmt.Fprintf(io.Err, "pty: %v\n", err)
			if o.JSON {
				out = append(out, map[string]any{"id": s.ID, "name": s.ID, "status": s.Shown(), "error": err.Error(), "errorLog": el})
			}
			continue
		}
		if o.JSON {
			out = append(out, withErrorLog(forScripts(raw, &st, s.ID), el))
		} else {
			if i > 0 {
				fmt.Fprintln(w)
			}
			printStatus(w, s, &st)
			printErrors(w, el)
		}
	}
	if o.JSON {
		var v any = out
		if ref != "" && len(out) == 1 {
			v = out[0]
		} else if out == nil {
			v = []any{}
		}
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(w, string(b))
	} else if len(ss) == 0 {
		fmt.Fprintln(w, "No running sessions.")
	}
	if failed {
		return cli.ExitCode(1)
	}
	return nil
}

type deadInfo struct {
	ID       string            `json:"id"`
	Name     string            `json:"name"`
	Status   layout.Status     `json:"status"`
	ExitCode *int              `json:"exitCode"`
	ExitedAt *string           `json:"exitedAt"`
	Tags     map[string]string `json:"tags,omitempty"`
	ErrorLog errorLog          `json:"errorLog"`
}

// errorLog is what a session's daemon recorded in its error log
// (internal/errlog): how many failures, and the log's file. Error is why
// the log could not be read.
type errorLog struct {
	Count int    `json:"count"`
	Path  string `json:"path"`
	Error string `json:"error,omitempty"`
}

func errorsOf(root, id string) errorLog {
	n, path, err := errlog.Count(root, id)
	el := errorLog{Count: n, Path: path}
	if err != nil {
		el.Error = err.Error()
	}
	return el
}

// withErrorLog adds errorLog to a STATUS object as its last field.
// forScripts is a STATUS reply as --json prints it: with the session's
// id, and clients.total without this command's own connection, which our
// daemon counts among its command connections (the original's counts only
// attached and read-only clients, and is left as it is). A reply that is
// not the object it should be is printed as the daemon sent it.
func forScripts(raw []byte, st *proto.StatusReply, id string) json.RawMessage {
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil || top == nil {
		return raw
	}
	var clients map[string]json.RawMessage
	cl := st.Clients
	if json.Unmarshal(top["clients"], &clients) == nil && clients != nil && cl.Total > cl.Attached+cl.ReadOnly {
		clients["total"] = json.RawMessage(strconv.Itoa(cl.Total - 1))
		if b, err := json.Marshal(clients); err == nil {
			top["clients"] = b
		}
	}
	idb, err := json.Marshal(id)
	if err != nil {
		return raw
	}
	top["id"] = idb
	b, err := json.Marshal(top)
	if err != nil {
		return raw
	}
	return b
}

func withErrorLog(status json.RawMessage, el errorLog) json.RawMessage {
	b := bytes.TrimSpace(status)
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
		return status
	}
	field, err := json.Marshal(el)
	if err != nil {
		return status
	}
	out := append([]byte(nil), b[:len(b)-1]...)
	if len(bytes.TrimSpace(b[1:len(b)-1])) > 0 {
		out = append(out, ',')
	}
	out = append(out, `"errorLog":`...)
	out = append(out, field...)
	return append(out, '}')
}

func printErrors(w io.Writer, el errorLog) {
	switch {
	case el.Error != "":
		fmt.Fprintf(w, "  errors      the daemon's error log cannot be read: %s\n", el.Error)
	case el.Count == 1:
		fmt.Fprintf(w, "  errors      the daemon recorded 1 failure: see %s\n", el.Path)
	case el.Count > 1:
		fmt.Fprintf(w, "  errors      the daemon recorded %d failures: see %s\n", el.Count, el.Path)
	}
}

func dead(s layout.Session) deadInfo {
	d := deadInfo{ID: s.ID, Name: s.ID, Status: s.Shown(), ExitCode: s.Meta.ExitCode, Tags: s.Meta.Tags}
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

func printDead(w io.Writer, now time.Time, s layout.Session, d deadInfo) {
	switch {
	case d.ExitCode != nil && d.ExitedAt != nil:
		age := now.Sub(layout.ParseTime(*d.ExitedAt))
		fmt.Fprintf(w, "%s: exited with code %d, %s ago\n", title(s), *d.ExitCode, listing.FormatAge(age))
	case d.ExitCode != nil:
		fmt.Fprintf(w, "%s: exited with code %d\n", title(s), *d.ExitCode)
	default:
		fmt.Fprintf(w, "%s: %s (no exit record: killed or crashed)\n", title(s), d.Status)
	}
}

func printStatus(w io.Writer, s layout.Session, st *proto.StatusReply) {
	t := st.Terminal
	fmt.Fprintf(w, "%s\n", title(s))
	fmt.Fprintf(w, "  size        %dx%d (cols x rows), cursor at column %d, row %d\n", t.Cols, t.Rows, t.CursorX+1, t.CursorY+1)
	fmt.Fprintf(w, "  scrollback  %d of %d lines\n", t.ScrollbackUsed, t.ScrollbackCapacity)
	cl := st.Clients
	var sizes []string
	for _, c := range cl.Connections {
		if c.Role == proto.RoleWritable {
			sizes = append(sizes, fmt.Sprintf("%dx%d", c.Cols, c.Rows))
		}
	}
	line := fmt.Sprintf("%d attached, %d read-only", cl.Attached, cl.ReadOnly)
	if len(sizes) > 0 {
		line += "; writable clients ask for " + strings.Join(sizes, ", ")
	}
	fmt.Fprintf(w, "  clients     %s\n", line)
	p := st.Process
	switch {
	case p.Alive:
		fmt.Fprintf(w, "  process     pid %d%s\n", p.Pid, resources(p.Resources, true))
	case p.ExitCode != nil:
		fmt.Fprintf(w, "  process     exited with code %d\n", *p.ExitCode)
	default:
		fmt.Fprintf(w, "  process     not running\n")
	}
	fmt.Fprintf(w, "  daemon      pid %d%s\n", st.Daemon.Pid, resources(st.Daemon.Resources, false))
	fmt.Fprintf(w, "  uptime      %s\n", listing.FormatAge(time.Duration(st.Uptime*float64(time.Second))))
}

func resources(r *proto.Resources, cpu bool) string {
	if r == nil {
		return ""
	}
	s := ", " + memory(r.RssKb)
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
