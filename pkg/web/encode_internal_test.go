package web

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ptyorg/pty/pkg/term"
)

func TestJSONStringIsInert(t *testing.T) {
	in := "a\"b\\c\x00\x1b[31m</script><img>&\u2028\xff\x7f日本"
	got := string(appendJSONString(nil, []byte(in)))
	for _, bad := range []string{"<", ">", "&", "\x1b", "\x00", "\u2028", "\x7f"} {
		if strings.Contains(got, bad) {
			t.Errorf("%q left %q unescaped", got, bad)
		}
	}
	var back string
	if err := json.Unmarshal([]byte(got), &back); err != nil {
		t.Fatalf("%s is not JSON: %v", got, err)
	}
	if want := strings.Replace(in, "\xff", "\ufffd", 1); back != want {
		t.Errorf("round trip %q, want %q", back, want)
	}
}

func rowOf(t *testing.T, out string, cols, cursorCol int) [][]any {
	t.Helper()
	scr := term.New(2, cols, term.Options{})
	scr.Write([]byte(out))
	var e rowEncoder
	var runs [][]any
	if err := json.Unmarshal(e.encodeScreenRow(scr, 0, cols, cursorCol), &runs); err != nil {
		t.Fatal(err)
	}
	return runs
}

func TestEncodeRuns(t *testing.T) {
	runs := rowOf(t, "\x1b[1;31mred\x1b[0m 日x\x1b[38;2;1;2;3;44mrgb\x1b[0m", 20, 12)
	want := [][]any{
		{"red", 1.0, -1.0, float64(term.AttrBold)},
		{" ", -1.0, -1.0, 0.0},
		{"日", -1.0, -1.0, float64(attrWide)},
		{"x", -1.0, -1.0, 0.0},
		{"rgb", float64(1<<24 | 0x010203), 4.0, 0.0},
		{"  ", -1.0, -1.0, 0.0},
		{" ", -1.0, -1.0, float64(attrCursor)},
	}
	if len(runs) != len(want) {
		t.Fatalf("runs %v, want %v", runs, want)
	}
	for i := range want {
		for j := range want[i] {
			if runs[i][j] != want[i][j] {
				t.Errorf("run %d: %v, want %v", i, runs[i], want[i])
				break
			}
		}
	}
	// Trailing default blanks are left out; a coloured blank is not.
	if runs := rowOf(t, "a\x1b[41m  \x1b[0m   ", 20, -1); len(runs) != 2 || runs[1][0] != "  " {
		t.Errorf("runs %v: want the red blanks kept, the rest dropped", runs)
	}
}

func TestKeyBytes(t *testing.T) {
	normal, app := term.Modes{}, term.Modes{AppCursor: true}
	cases := []struct {
		key  string
		mods int
		m    term.Modes
		want string
	}{
		{"Enter", 0, normal, "\r"},
		{"ArrowUp", 0, normal, "\x1b[A"},
		{"ArrowUp", 0, app, "\x1bOA"}, // application cursor keys, as less and vim ask
		{"Home", 0, app, "\x1bOH"},
		{"ArrowUp", modCtrl, app, "\x1b[1;5A"},
		{"c", modCtrl, normal, "\x03"},
		{"C", modCtrl | modShift, normal, "\x1b[99;6u"},
		{"b", modAlt, normal, "\x1bb"},
		{"é", 0, normal, "é"},
		{"?", modCtrl | modShift, normal, "\x7f"},
		{"Tab", modShift, normal, "\x1b[Z"},
		{" ", modCtrl, normal, "\x00"},
		{"F5", 0, normal, "\x1b[15~"},
		{"PageDown", 0, normal, "\x1b[6~"},
	}
	for _, c := range cases {
		got, ok := keyBytes(c.key, c.mods, c.m)
		if !ok || string(got) != c.want {
			t.Errorf("keyBytes(%q, %d, app=%v) = %q, %v; want %q", c.key, c.mods, c.m.AppCursor, got, ok, c.want)
		}
	}
	for _, k := range []string{"Shift", "Unidentified", "Dead", "Control", ""} {
		if b, ok := keyBytes(k, 0, normal); ok {
			t.Errorf("keyBytes(%q) = %q, want nothing", k, b)
		}
	}
	if b, ok := keyBytes("v", modMeta, normal); ok {
		t.Errorf("meta+v (the system's paste) typed %q", b)
	}
}

func TestPasteBytes(t *testing.T) {
	if got := string(pasteBytes("a\nb\r\nc", false)); got != "a\rb\rc" {
		t.Errorf("plain paste %q", got)
	}
	got := string(pasteBytes("x\x1b[201~rm -rf ~\x1b[20\x1b[201~1~\n", true))
	if want := "\x1b[200~xrm -rf ~\r\x1b[201~"; got != want {
		t.Errorf("bracketed paste %q, want %q: the text must not be able to close the bracket", got, want)
	}
}

func TestCheckListen(t *testing.T) {
	for addr, loop := range map[string]bool{"127.0.0.1:7681": true, "[::1]:80": true, "localhost:1": true, "0.0.0.0:7681": false, "10.1.2.3:0": false} {
		got, err := CheckListen(addr)
		if err != nil || got != loop {
			t.Errorf("CheckListen(%q) = %v, %v; want %v", addr, got, err, loop)
		}
	}
	for _, addr := range []string{"example.com:80", ":7681", "127.0.0.1", "127.0.0.1:99999", "1.2.3.4:x"} {
		if _, err := CheckListen(addr); err == nil {
			t.Errorf("CheckListen(%q) accepted", addr)
		}
	}
}
