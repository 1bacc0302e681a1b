package duration

import (
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	good := map[string]time.Duration{
		"5": 5 * time.Second, "5s": 5 * time.Second, "0.5": 500 * time.Millisecond, "300ms": 300 * time.Millisecond,
		"15m": 15 * time.Minute, "2h": 2 * time.Hour, "7d": 7 * 24 * time.Hour, " 3 H ": 3 * time.Hour, "0": 0, "0s": 0,
		"1.5h": 90 * time.Minute, "36500d": Max,
	}
	for in, want := range good {
		if got, err := Parse(in); err != nil || got != want {
			t.Errorf("Parse(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "s", ".", "1.2.3", "1h30m", "-5s", "2w", "NaN", "Inf", "1e3", "36501d", "99999999999999999999999", "5 s s"} {
		if d, err := Parse(in); err == nil {
			t.Errorf("Parse(%q) = %v, want an error", in, d)
		}
	}
}

func TestFormatRoundTrips(t *testing.T) {
	for _, d := range []time.Duration{0, 250 * time.Millisecond, 45 * time.Second, 30 * time.Minute, 12 * time.Hour, 7 * 24 * time.Hour, 1500 * time.Millisecond} {
		s := Format(d)
		if back, err := Parse(s); err != nil || back != d {
			t.Errorf("Format(%v) = %q, which parses as %v, %v", d, s, back, err)
		}
	}
}
