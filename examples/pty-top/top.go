package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ptyorg/pty/pkg/layout"
)

const usage = `pty top [--once] [--json] [--interval D] [--root DIR] [REF...]

A live table of sessions: status, CPU and memory of each session's daemon
together with everything its command started, refreshed every interval
until Ctrl+C. With REFs (ids or display names), only those sessions.

  CPU%   CPU time used during the last interval, as a percentage of one
         core (a busy two-threaded program shows up to 200)
  MEM    proportional set size (Pss, /proc/PID/smaps_rollup): each process's
         private memory plus its share of pages it shares with others, so
         the column adds up to what the sessions cost together
  PROCS  the daemon and its descendants

STATUS is running, exiting (the command ended; its daemon stays a moment
to serve the final screen), exited, vanished (the daemon died without
recording an exit) or damaged (the record cannot be read).

CPU and memory are read from /proc, so they are Linux only; elsewhere the
columns say n/a. A session that has stopped shows its status alone.

--once prints one table and exits; CPU% needs two samples, so it waits
one interval first. --json prints each refresh as one line holding a JSON
array of {id, name, status, pid, cpu, pss, procs, command, exitCode?,
damaged?}: cpu is a percentage, pss is bytes, both null where they cannot
be read.

Examples:
  pty top
  pty top --once web worker
  pty top --once --json | jq '.[] | select(.pss > 100e6) | .name'`

// Options are top's flags and arguments.
type Options struct {
	Refs     []string      // sessions to show; all when empty
	Once     bool          // one table, then exit
	JSON     bool          // JSON lines instead of a table
	Interval time.Duration // between refreshes, and the span CPU% is measured over
	Root     string        // --root; "" means the environment's (layout.ResolveRoot)
}

// errHelp is Parse's answer to --help, which it has already printed.
var errHelp = errors.New("help requested")

// Parse fills Options from the command line (without the program name).
// Help goes to out.
func Parse(args []string, out io.Writer) (Options, error) {
	var o Options
	fs := flag.NewFlagSet("pty top", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.BoolVar(&o.Once, "once", false, "print one table and exit")
	fs.BoolVar(&o.JSON, "json", false, "print JSON for scripts, one array per line")
	fs.DurationVar(&o.Interval, "interval", time.Second, "time `D` between refreshes (like 500ms, 2s)")
	fs.StringVar(&o.Root, "root", "", "use `DIR` as the session registry (default: $PTY_ROOT, else ~/.local/state/pty)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(out, "Usage: "+usage+"\n\nFlags:")
			fs.SetOutput(out)
			fs.PrintDefaults()
			return o, errHelp
		}
		return o, fmt.Errorf("%v (see 'pty top --help')", err)
	}
	if o.Interval < 10*time.Millisecond || o.Interval > time.Hour {
		return o, fmt.Errorf("--interval %v is out of range: give a duration from 10ms to 1h, like 2s", o.Interval)
	}
	o.Refs = fs.Args()
	return o, nil
}

// IO is what Run works against: main passes the process's streams, tests
// their own.
type IO struct {
	Out, Err io.Writer
	Registry *layout.Registry
	Done     <-chan struct{} // closed to end the live view (Ctrl+C); nil: never
	Terminal bool            // Out is a terminal: the live view redraws in place
	Width    func() int      // Out's width in columns, 0 when unknown; may be nil
}

// Row is one session in the table and in --json.
type Row struct {
	ID       string        `json:"id"`
	Name     string        `json:"name"`
	Status   layout.Status `json:"status"`
	Pid      int           `json:"pid,omitempty"` // the daemon's, while it runs
	CPU      *float64      `json:"cpu"`           // percent of one core over the last interval
	Pss      *int64        `json:"pss"`           // bytes
	Procs    int           `json:"procs,omitempty"`
	Command  string        `json:"command"`
	ExitCode *int          `json:"exitCode,omitempty"`
	Damaged  string        `json:"damaged,omitempty"`
}

// Run shows the sessions o asks for until io.Done is closed, or once.
func Run(o Options, io IO) error {
	if o.Interval <= 0 {
		o.Interval = time.Second
	}
	// References are resolved once, as every pty command resolves them,
	// so a name that matches nothing (or several sessions) is an error
	// now rather than an empty table; afterwards the view follows the
	// ids, and a session removed meanwhile drops out of it.
	var ids []string
	for _, ref := range o.Refs {
		s, err := io.Registry.Resolve(ref)
		if err != nil {
			return err
		}
		if !slices.Contains(ids, s.ID) {
			ids = append(ids, s.ID)
		}
	}
	prev := sample{}
	if io.Terminal && !o.Once && !o.JSON {
		// The alternate screen, as top and less use: the user's
		// scrollback is left as it was when the view ends.
		fmt.Fprint(io.Out, "\x1b[?1049h\x1b[?25l")
		defer fmt.Fprint(io.Out, "\x1b[?25h\x1b[?1049l")
	}
	tick := time.NewTicker(o.Interval)
	defer tick.Stop()
	for first := true; ; first = false {
		rows, cur, err := collect(io.Registry, ids, prev)
		if err != nil {
			return err
		}
		prev = cur
		// CPU% is a difference of two samples, so --once shows the
		// second, and the live view starts with CPU% blank.
		if !(o.Once && first) {
			if err := show(o, io, rows); err != nil {
				return err
			}
			if o.Once {
				return nil
			}
		}
		select {
		case <-io.Done:
			return nil
		case <-tick.C:
		}
	}
}

// collect reads the sessions (all, or ids) and measures the running ones
// against the previous sample.
func collect(reg *layout.Registry, ids []string, prev sample) ([]Row, sample, error) {
	var ss []layout.Session
	if ids == nil {
		all, err := reg.List()
		if err != nil {
			return nil, prev, err
		}
		ss = all
	} else {
		for _, id := range ids {
			s, err := reg.Load(id)
			if errors.Is(err, layout.ErrNotFound) {
				continue // removed since we resolved it
			}
			if err != nil {
				return nil, prev, err
			}
			ss = append(ss, s)
		}
	}
	procs, procErr := readProcs()
	cur := sample{at: time.Now(), cpu: map[procKey]uint64{}}
	rows := make([]Row, 0, len(ss))
	for _, s := range ss {
		r := Row{ID: s.ID, Name: s.Name(), Status: s.Status, Command: command(s.Meta), ExitCode: s.Meta.ExitCode, Damaged: s.Damaged}
		// An exiting session's daemon (lingering in its grace period
		// to serve the final screen) and a damaged record's still cost
		// memory: any live daemon is measured.
		if s.Live && daemonLive(reg, s) {
			r.Pid = s.Pid
			if procErr == nil {
				measure(&r, s, procs, prev, cur)
			}
		}
		rows = append(rows, r)
	}
	sortRows(rows)
	return rows, cur, nil
}

// daemonLive reports whether s.Pid is s's daemon. The pid in <id>.pid
// outlives a daemon that crashed and may since belong to another program:
// the layout package verifies, from the process's own arguments, that it
// is this session's daemon. Without the check top would show a stranger's
// memory under the session's name.
func daemonLive(reg *layout.Registry, s layout.Session) bool {
	return s.Pid > 0 && reg.VerifyDaemon(s.Pid, s.ID, s.Meta.Generation)
}

// measure fills r's CPU, memory and process count from the daemon's tree.
func measure(r *Row, s layout.Session, procs map[int]proc, prev, cur sample) {
	tree := descendants(procs, s.Pid)
	var pss int64
	var ticks uint64
	pssOK := false
	for _, p := range tree {
		k := procKey{p.pid, p.start}
		cur.cpu[k] = p.cpu
		// A process seen last time counts what it used since; one that
		// started since counts everything it used.
		if was, ok := prev.cpu[k]; ok && was <= p.cpu {
			ticks += p.cpu - was
		} else if !prev.at.IsZero() && p.startedAfter(prev.at) {
			ticks += p.cpu
		}
		if b, err := readPss(p.pid); err == nil {
			pss += b
			pssOK = true
		}
	}
	r.Procs = len(tree)
	if pssOK {
		r.Pss = &pss
	}
	if !prev.at.IsZero() {
		if secs := cur.at.Sub(prev.at).Seconds(); secs > 0 {
			pct := float64(ticks) / clockTicks / secs * 100
			r.CPU = &pct
		}
	}
}

// sample is the CPU time of every measured process at one moment.
type sample struct {
	at  time.Time
	cpu map[procKey]uint64 // utime+stime in clock ticks
}

// procKey names one process incarnation: a pid and its start time, so a
// reused pid is a different process.
type procKey struct {
	pid   int
	start uint64
}

// descendants returns pid and every process below it, pid first.
func descendants(procs map[int]proc, pid int) []proc {
	root, ok := procs[pid]
	if !ok {
		return nil
	}
	children := map[int][]int{}
	for _, p := range procs {
		children[p.ppid] = append(children[p.ppid], p.pid)
	}
	out := []proc{root}
	for i := 0; i < len(out); i++ {
		for _, c := range children[out[i].pid] {
			out = append(out, procs[c])
		}
	}
	return out
}

func command(m *layout.Metadata) string {
	if m.DisplayCommand != "" {
		return m.DisplayCommand
	}
	return strings.TrimSpace(m.Command + " " + strings.Join(m.Args, " "))
}

// sortRows puts running sessions first, then by name, as a top would.
func sortRows(rows []Row) {
	rank := map[layout.Status]int{layout.Running: 0, layout.Exiting: 1, layout.Exited: 2, layout.Vanished: 3, layout.Damaged: 4}
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if rank[a.Status] != rank[b.Status] {
			return rank[a.Status] < rank[b.Status]
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.ID < b.ID
	})
}

func show(o Options, io IO, rows []Row) error {
	if o.JSON {
		b, err := json.Marshal(rows)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(io.Out, string(b))
		return err
	}
	var sb strings.Builder
	live := io.Terminal && !o.Once
	if live {
		fmt.Fprintf(&sb, "pty top  %s  every %v  Ctrl+C quits\n\n", time.Now().Format("15:04:05"), o.Interval)
	}
	if len(rows) == 0 {
		sb.WriteString("No sessions.\n")
	} else {
		writeTable(&sb, rows)
	}
	text := sb.String()
	switch {
	case live:
		// Home and clear, then the frame cut to the terminal's width
		// so a narrow terminal does not wrap the table into a mess.
		if io.Width != nil {
			text = clip(text, io.Width())
		}
		text = "\x1b[H\x1b[2J" + text
	case !o.Once:
		text += "\n" // successive tables in a pipe or a log stay apart
	}
	_, err := io.Out.Write([]byte(text))
	return err
}

func writeTable(w io.Writer, rows []Row) {
	cells := [][]string{{"NAME", "ID", "STATUS", "PID", "CPU%", "MEM", "PROCS", "COMMAND"}}
	for _, r := range rows {
		pid, procs := "-", "-"
		if r.Pid > 0 {
			pid = fmt.Sprint(r.Pid)
		}
		if r.Procs > 0 {
			procs = fmt.Sprint(r.Procs)
		}
		cpu, mem := "-", "-"
		if r.Pid > 0 {
			cpu, mem = notAvailable, notAvailable
			if r.CPU != nil {
				cpu = fmt.Sprintf("%.1f", *r.CPU)
			}
			if r.Pss != nil {
				mem = bytesText(*r.Pss)
			}
		}
		status := string(r.Status)
		if r.Status.Ended() && r.ExitCode != nil {
			status += fmt.Sprintf(" (%d)", *r.ExitCode)
		}
		cmd := r.Command
		if r.Damaged != "" {
			cmd = "[damaged record: " + r.Damaged + "]"
		}
		cells = append(cells, []string{safe(r.Name), r.ID, status, pid, cpu, mem, procs, safe(cmd)})
	}
	widths := make([]int, len(cells[0]))
	for _, row := range cells {
		for i, c := range row {
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	for _, row := range cells {
		var line strings.Builder
		for i, c := range row {
			if i == len(row)-1 {
				line.WriteString(c)
				break
			}
			line.WriteString(c + strings.Repeat(" ", widths[i]-len([]rune(c))+2))
		}
		fmt.Fprintln(w, strings.TrimRight(line.String(), " "))
	}
}

// safe escapes what must not reach a terminal as it is: a record may have
// been written by any program, and a name holding an escape sequence or a
// bidi override would otherwise act on the terminal or pass for another.
func safe(s string) string {
	if !utf8.ValidString(s) || strings.IndexFunc(s, func(r rune) bool { return !unicode.IsGraphic(r) && r != ' ' }) >= 0 {
		q := strconv.QuoteToGraphic(s)
		return q[1 : len(q)-1]
	}
	return s
}

// bytesText prints a size in binary units, one decimal.
func bytesText(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n)/unit, 0
	for v >= unit && i < 3 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.1f %ciB", v, "KMGT"[i])
}

// clip cuts every line to width columns so a narrow terminal does not
// wrap the table into a mess.
func clip(text string, width int) string {
	if width <= 0 {
		return text
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if r := []rune(l); len(r) > width {
			lines[i] = string(r[:width])
		}
	}
	return strings.Join(lines, "\n")
}
