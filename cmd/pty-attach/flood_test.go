package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
)

// pad widens the flood's lines.
var pad = strings.Repeat("=", 100)

var markerRE = regexp.MustCompile(`^\[pty: ([0-9,]+) lines? not kept; the session keeps 10,000\]$`)

// checkFlood checks the terminal's scrollback after a flood of the
// numbers 1..n: the numbers are there in order, each once, and every gap
// is one marker line that counts the numbers missing from it; the last
// run of numbers, which the session kept, reaches n and holds at least
// the session's 10,000 lines of scrollback.
func checkFlood(t *testing.T, lines []string, n int) {
	t.Helper()
	prev, markers, run, pendingGap := 0, 0, 0, int64(-1)
	for i, l := range lines {
		if m := markerRE.FindStringSubmatch(l); m != nil {
			if pendingGap >= 0 {
				t.Fatalf("line %d: two markers in a row: %q", i, l)
			}
			pendingGap, _ = strconv.ParseInt(strings.ReplaceAll(m[1], ",", ""), 10, 64)
			markers++
			continue
		}
		v, err := strconv.Atoi(strings.TrimSuffix(l, " "+pad))
		if err != nil || v < 1 || v > n {
			continue
		}
		want := int64(0)
		if pendingGap >= 0 {
			want = pendingGap
		}
		if got := int64(v - prev - 1); got != want {
			t.Fatalf("line %d: %d follows %d: %d numbers missing, the marker said %d\n%s", i, v, prev, got, want,
				summary(lines))
		}
		if pendingGap >= 0 {
			run = 0
		}
		pendingGap, prev = -1, v
		run++
	}
	if prev != n {
		t.Fatalf("the last number in the scrollback is %d, not %d\n%s", prev, n, summary(lines))
	}
	if markers == 0 || run < 10000 {
		t.Fatalf("%d markers, %d numbers after the last: want a marker and the session's 10,000 lines", markers, run)
	}
}

// A flood in an attached session (redrawn, not forwarded) leaves every
// line the session kept in the terminal's scrollback, once and in order,
// in colour, and a marker for those it did not keep.
func TestAttachFloodKeepsScrollback(t *testing.T) {
	for _, tc := range []struct{ name, cmd string }{
		// Lines a hundred columns wide, so that the output is a flood
		// however slowly the machine emulates it.
		{"plain", "seq 1 100000 | sed 's/$/ " + pad + "/'"},
		{"colour", `awk 'BEGIN{for(i=1;i<=100000;i++)printf "\033[3%dm%d\033[0m ` + pad + `\n",i%7+1,i}'`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := testutil.Root(t)
			testutil.MustRun(t, root, "run", "-d", "--id", "f", "--rows", "40", "--cols", "120", "--",
				"env", "PS1=$ ", "sh")
			u := testutil.StartUserTmux(t, root, 40, 120, nil, "attach", "f")
			u.WaitText("$")
			u.Keys(tc.cmd+"; echo DO''NE", "Enter")
			testutil.WaitFor(t, 60*time.Second, "the end of the flood", func() bool {
				for _, l := range u.All() {
					if l == "DONE" {
						return true
					}
				}
				return false
			})
			// The catch-up comes a redraw after the prompt's.
			var all []string
			testutil.WaitForState(t, 20*time.Second, "the whole scrollback", func() (bool, string) {
				all = u.All()
				for i, l := range all {
					// Followed by the end of what the terminal took.
					if markerRE.MatchString(l) && strings.Join(all[len(all)-3:], "\n") == "100000 "+pad+"\nDONE\n$" && i < len(all)-3 {
						return true, ""
					}
				}
				return false, summary(all)
			})
			checkFlood(t, all, 100000)
			if tc.name == "colour" {
				ansi := u.Run("capture-pane", "-p", "-e", "-S", "-", "-t", "u")
				for _, v := range []int{95000, 99999} {
					want := fmt.Sprintf("\x1b[3%dm%d\x1b[39m %s\n", v%7+1, v, pad)
					if !strings.Contains(ansi, want) {
						t.Fatalf("the scrollback lost its colours: no %q", want)
					}
				}
			}
		})
	}
}

func summary(lines []string) string {
	var b strings.Builder
	prev := -2
	for i, l := range lines {
		v, err := strconv.Atoi(strings.TrimSuffix(l, " "+pad))
		if err == nil && v == prev+1 {
			prev = v
			continue
		}
		if err == nil {
			prev = v
		}
		b.WriteString(strconv.Itoa(i) + ": " + l + "\n")
	}
	return b.String()
}
