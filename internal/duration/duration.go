// Package duration reads the durations every pty command, environment
// variable and tag takes, in one grammar: a number of seconds ("90",
// "0.5") or a number and one unit, ms, s, m, h or d ("500ms", "30s",
// "15m", "2h", "7d"). Compound forms ("1h30m") are refused rather than
// half understood, as the original pty refuses them.
package duration

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"time"
)

// Max is the longest duration Parse accepts: far past any timeout or
// retention anyone means, and well inside what a time.Duration holds.
const Max = 100 * 365 * 24 * time.Hour

// Forms is how help texts and messages describe the grammar.
const Forms = "seconds (90, 0.5) or a number and one unit: 500ms, 30s, 15m, 2h, 7d"

var units = map[string]time.Duration{
	"":   time.Second,
	"ms": time.Millisecond,
	"s":  time.Second,
	"m":  time.Minute,
	"h":  time.Hour,
	"d":  24 * time.Hour,
}

// Parse reads s. Its errors say what is wrong without naming s or where it
// came from, for the caller to put in front ("--timeout "x" is not
// valid: ...").
func Parse(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "-") {
		return 0, errors.New("a duration is not negative: write " + Forms)
	}
	num := t[:len(t)-len(strings.TrimLeft(t, "0123456789."))]
	unit, ok := units[strings.ToLower(strings.TrimSpace(t[len(num):]))]
	if num == "" || strings.Count(num, ".") > 1 || num == "." || !ok {
		return 0, errors.New("write " + Forms)
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsInf(f, 0) || f*float64(unit) > float64(Max) {
		return 0, errors.New("it is more than 100 years: write " + Forms)
	}
	return time.Duration(math.Round(f * float64(unit))), nil
}

// Format writes d in a form Parse reads back, in the largest unit that
// holds it exactly (7d, 12h, 30m, 45s, 250ms).
func Format(d time.Duration) string {
	switch {
	case d == 0:
		return "0s"
	case d%(24*time.Hour) == 0:
		return strconv.FormatInt(int64(d/(24*time.Hour)), 10) + "d"
	case d%time.Hour == 0:
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	case d%time.Minute == 0:
		return strconv.FormatInt(int64(d/time.Minute), 10) + "m"
	case d%time.Second == 0:
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	}
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', -1, 64) + "ms"
}
