package procs

import "testing"

// TestStatField: fields are counted after the command name, which may
// itself hold ") " and spaces, as proc(5) numbers them.
func TestStatField(t *testing.T) {
	stat := []byte("4242 (a) b (c) d) S 1 4242 4242 0 -1 4194560 100 0 0 0 7 3 0 0 20 0 1 0 12345 1000 200\n")
	for n, want := range map[int]string{3: "S", 4: "1", 5: "4242", 14: "7", 15: "3", 22: "12345", 24: "200"} {
		if got := string(StatField(stat, n)); got != want {
			t.Errorf("StatField(%d) = %q, want %q", n, got, want)
		}
	}
	if f := StatField(stat, 25); f != nil {
		t.Errorf("StatField past the last field = %q", f)
	}
	if f := StatField([]byte("4242 no parenthesis"), 3); f != nil {
		t.Errorf("StatField without a command name = %q", f)
	}
	if n := testing.AllocsPerRun(10, func() { StatField(stat, 22) }); n != 0 {
		t.Errorf("StatField allocates %v times", n)
	}
}
