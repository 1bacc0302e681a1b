package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ptyorg/pty/internal/duration"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/cmd/list"
	"github.com/ptyorg/pty/pkg/listing"
	rt "github.com/ptyorg/pty/pkg/remote"
)

// HostWait bounds each host of the fleet list: the hosts are asked at
// once, and one that has not answered by then is shown with its error.
const HostWait = rt.ConnectTimeout + 5*time.Second

// hostRows is one host of the fleet list, in the original's JSON shape.
type hostRows struct {
	Label    string   `json:"label"`
	Sessions []rt.Row `json:"sessions"`
	Error    *string  `json:"error"`
}

// fleet is "pty list --remote": this host's list, then every host of
// remotes.toml, asked in parallel. It is also "pty list --remote HOST
// --json", whose JSON is the original's for one peer: this host's list
// and HOST's sessions in the same {"local", "remote"} shape, HOST's as it
// sent them (the original filters and sorts only this host's); whole
// says which.
func fleet(ctx context.Context, cfg rt.Config, names []string, whole bool, args []string, io cli.IO) error {
	var lo list.Options
	c := list.Command(&lo)
	lo.Args = c.Parse(args)
	if lo.Summary {
		return errors.New("--summary counts one host's sessions: drop --remote, or pass --remote HOST")
	}
	var tags [][2]string
	for _, kv := range lo.FilterTags {
		k, v, err := cli.ParseKV("--filter-tag", kv)
		if err != nil {
			return err
		}
		tags = append(tags, [2]string{k, v})
	}
	hosts := make([]hostRows, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hosts[i] = askHost(ctx, cfg, name, whole, io)
		}()
	}
	var local bytes.Buffer
	lio := io
	if lo.JSON {
		lio.Out = &local
	}
	lerr := list.Run(lo, lio)
	wg.Wait()
	if lerr != nil {
		return lerr
	}
	// list.Run has refused bounds that do not parse.
	older, _ := duration.Parse(lo.OlderThan)
	newer, _ := duration.Parse(lo.NewerThan)
	now := time.Now()
	for i := range hosts {
		if whole {
			hosts[i].Sessions = keep(hosts[i].Sessions, lo.Status, tags, older, newer, now)
		}
	}
	if lo.JSON {
		b, err := json.Marshal(struct {
			Local  json.RawMessage `json:"local"`
			Remote []hostRows      `json:"remote"`
		}{json.RawMessage(bytes.TrimSpace(local.Bytes())), hosts})
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(io.Out, "%s\n", b)
		return err
	}
	if len(cfg.Names) == 0 {
		fmt.Fprintf(io.Err, "pty: no hosts in %s to list: add a table per host, like [web] with ssh = \"me@web.example.com\"\n", cfg.Path)
	}
	var b strings.Builder
	for _, h := range hosts {
		b.WriteString("\n")
		label := listing.Printable(h.Label)
		if h.Error != nil {
			fmt.Fprintf(&b, "%s (error: %s)\n", label, listing.Printable(*h.Error))
			continue
		}
		fmt.Fprintf(&b, "%s (%d %s):\n", label, len(h.Sessions), plural(len(h.Sessions)))
		for _, s := range h.Sessions {
			icon := "○"
			if s.Status == "running" {
				icon = "●"
			}
			name := listing.Printable(s.Name)
			if s.DisplayName != "" {
				name = listing.Printable(s.DisplayName) + " (" + name + ")"
			}
			line := "  " + icon + " " + name
			if s.Status != "running" {
				line += " [" + listing.Printable(s.Status) + "]"
			}
			if w := s.When(now); w != "" {
				line += " — " + listing.Printable(w)
			}
			if s.Cwd != "" {
				line += " — " + listing.Printable(s.Cwd)
			}
			if s.Command != "" {
				line += " — " + listing.Printable(s.Command)
			}
			if a := s.ActivityText(); a != "" {
				line += "  " + a
			}
			b.WriteString(line + "\n")
		}
	}
	_, err := fmt.Fprint(io.Out, b.String())
	return err
}

func plural(n int) string {
	if n == 1 {
		return "session"
	}
	return "sessions"
}

// oneHostJSON says whether list's arguments ask for the original's JSON
// of one peer: --json, and not --summary (which counts the host's own).
func oneHostJSON(args []string) bool {
	var lo list.Options
	c := list.Command(&lo)
	if _, err := c.ParseArgs(args); err != nil {
		return false // the host's list says what is wrong
	}
	return lo.JSON && !lo.Summary
}

// askHost lists one host within HostWait, sorted as the list sorts when
// sorted is set; its failure is its error.
func askHost(ctx context.Context, cfg rt.Config, name string, sorted bool, io cli.IO) hostRows {
	h := hostRows{Label: name, Sessions: []rt.Row{}}
	fail := func(err error) hostRows {
		msg := err.Error()
		h.Error = &msg
		return h
	}
	t, err := rt.Resolve(name, cfg)
	if err != nil {
		return fail(err)
	}
	ctx, cancel := context.WithTimeout(ctx, HostWait)
	defer cancel()
	rows, err := t.List(ctx, io.Getenv)
	if err != nil {
		if ctx.Err() != nil {
			return fail(fmt.Errorf("%s did not answer within %v", name, HostWait))
		}
		return fail(err)
	}
	if sorted {
		sort.SliceStable(rows, func(i, j int) bool { return sortKey(rows[i]) < sortKey(rows[j]) })
	}
	h.Sessions = rows
	return h
}

func sortKey(r rt.Row) string {
	if r.DisplayName != "" {
		return r.DisplayName
	}
	return r.Name
}

// keep applies list's --status, --filter-tag, --older-than and
// --newer-than to a host's rows. A row without times (the original's
// host sends none) cannot be said to be older or newer, and a bound
// leaves it out, as pty list leaves out a session whose record has no
// time.
func keep(rows []rt.Row, status string, tags [][2]string, older, newer time.Duration, now time.Time) []rt.Row {
	out := rows[:0:0]
	for _, r := range rows {
		if status != "" && r.Status != status {
			continue
		}
		ok := true
		for _, kv := range tags {
			if v, has := r.Tags[kv[0]]; !has || v != kv[1] {
				ok = false
			}
		}
		if older > 0 || newer > 0 {
			t := r.Changed()
			age := now.Sub(t)
			if t.IsZero() || older > 0 && age < older || newer > 0 && age > newer {
				ok = false
			}
		}
		if ok {
			out = append(out, r)
		}
	}
	return out
}
