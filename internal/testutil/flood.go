package testutil

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/pkg/term"
)

// FloodPad widens the flood's lines: a hundred columns, so that the
// output is a flood however slowly the machine emulates it.
var FloodPad = strings.Repeat("=", 100)

// FloodPlain and FloodColour are shell commands that print the numbers
// 1..100000, each followed by FloodPad; FloodColour's numbers are in
// colour 31..37 by their remainder modulo 7.
var (
	FloodPlain  = "seq 1 100000 | sed 's/$/ " + FloodPad + "/'"
	FloodColour = `awk 'BEGIN{for(i=1;i<=100000;i++)printf "\033[3%dm%d\033[0m ` + FloodPad + `\n",i%7+1,i}'`
)

// WaitFloodScrollback waits until tm's scrollback has a marker line and
// ends with the last number, then end (lines joined by newlines), and
// returns it.
func WaitFloodScrollback(tm *Tmux, end string) []string {
	tm.t.Helper()
	var all []string
	want := strings.Split("100000 "+FloodPad+"\n"+end, "\n")
	WaitForState(tm.t, 20*time.Second, "the whole scrollback", func() (bool, string) {
		all = tm.All()
		if len(all) <= len(want) || strings.Join(all[len(all)-len(want):], "\n") != strings.Join(want, "\n") {
			return false, floodSummary(all)
		}
		for _, l := range all[:len(all)-len(want)] {
			if FloodMarker.MatchString(l) {
				return true, ""
			}
		}
		return false, floodSummary(all)
	})
	return all
}

// FloodMarker is the line that stands for lines not kept.
var FloodMarker = FloodMarkerKeeping(10000)

// FloodMarkerKeeping is FloodMarker for a session that keeps keep lines.
func FloodMarkerKeeping(keep int) *regexp.Regexp {
	return regexp.MustCompile(`^\[pty: ([0-9,]+) lines? not kept; the session keeps ` + term.Thousands(int64(keep)) + `\]$`)
}

// CheckFlood checks the terminal's scrollback after a flood of the
// numbers 1..n: the numbers are there in order, each once, and every gap
// is one marker line that counts the numbers missing from it; the last
// run of numbers, which the session kept, reaches n and holds at least
// the session's 10,000 lines of scrollback.
func CheckFlood(t *testing.T, lines []string, n int) {
	t.Helper()
	if p := FloodProblem(lines, n, 10000, false); p != "" {
		t.Fatal(p)
	}
}

// FloodProblem is what CheckFlood finds wrong ("" for nothing), for a
// session that keeps keep lines of scrollback: with keep >= n, every
// number must be there and no marker. With topDropped, the terminal may
// have dropped its own oldest lines (a scrollback shorter than the
// flood's): what the first number follows is not checked.
func FloodProblem(lines []string, n, keep int, topDropped bool) string {
	marker := FloodMarkerKeeping(keep)
	prev, markers, run, pendingGap := 0, 0, 0, int64(-1)
	for i, l := range lines {
		if m := marker.FindStringSubmatch(l); m != nil {
			if pendingGap >= 0 {
				return fmt.Sprintf("line %d: two markers in a row: %q", i, l)
			}
			pendingGap, _ = strconv.ParseInt(strings.ReplaceAll(m[1], ",", ""), 10, 64)
			markers++
			continue
		}
		v, err := strconv.Atoi(strings.TrimSuffix(l, " "+FloodPad))
		if err != nil || v < 1 || v > n {
			continue
		}
		want := int64(0)
		if pendingGap >= 0 {
			want = pendingGap
		}
		if got := int64(v - prev - 1); got != want && !(topDropped && prev == 0) {
			return fmt.Sprintf("line %d: %d follows %d: %d numbers missing, the marker said %d\n%s", i, v, prev, got, want,
				floodSummary(lines))
		}
		if pendingGap >= 0 {
			run = 0
		}
		pendingGap, prev = -1, v
		run++
	}
	if prev != n {
		return fmt.Sprintf("the last number in the scrollback is %d, not %d\n%s", prev, n, floodSummary(lines))
	}
	if keep >= n {
		if markers != 0 || run != n {
			return fmt.Sprintf("%d markers, %d numbers: want all %d and no marker\n%s", markers, run, n, floodSummary(lines))
		}
		return ""
	}
	if markers == 0 || run < keep {
		return fmt.Sprintf("%d markers, %d numbers after the last: want a marker and the session's %d lines", markers, run, keep)
	}
	return ""
}

// floodSummary shows where lines break the run of numbers.
func floodSummary(lines []string) string {
	var b strings.Builder
	prev := -2
	for i, l := range lines {
		v, err := strconv.Atoi(strings.TrimSuffix(l, " "+FloodPad))
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

// CounterProblem says what is wrong with lines, which should be a
// counter's n1 to nN once each and in order: the first line missing or
// repeated ("" for nothing).
func CounterProblem(lines []string, n int) string {
	want := 1
	for i, l := range lines {
		k, _ := strconv.Atoi(strings.TrimPrefix(l, "n"))
		switch {
		case k == want:
			want++
		case k < want:
			return fmt.Sprintf("line %d is %s again (after n%d)", i, l, want-1)
		default:
			return fmt.Sprintf("n%d to n%d are missing (line %d is %s)", want, k-1, i, l)
		}
	}
	if want != n+1 {
		return fmt.Sprintf("the lines end at n%d, not n%d", want-1, n)
	}
	return ""
}
