package keys

import (
	"strings"
	"testing"
)

// Cases is the table the end-to-end send test also types into a real
// session, so the bytes asserted here are the bytes a program receives.
var Cases = []struct{ Spec, Want string }{
	{"return", "\r"},
	{"enter", "\r"},
	{"ENTER", "\r"},
	{"tab", "\t"},
	{"esc", "\x1b"},
	{"escape", "\x1b"},
	{"backspace", "\x7f"},
	{"space", " "},
	{"delete", "\x1b[3~"},
	{"insert", "\x1b[2~"},
	{"up", "\x1b[A"},
	{"down", "\x1b[B"},
	{"right", "\x1b[C"},
	{"left", "\x1b[D"},
	{"home", "\x1b[H"},
	{"end", "\x1b[F"},
	{"pageup", "\x1b[5~"},
	{"pagedown", "\x1b[6~"},
	{"f1", "\x1bOP"},
	{"f4", "\x1bOS"},
	{"f5", "\x1b[15~"},
	{"f12", "\x1b[24~"},
	{"a", "a"},
	{"Z", "z"},
	{"7", "7"},
	{"/", "/"},
	{"ctrl+c", "\x03"},
	{"Ctrl-C", "\x03"},
	{"ctrl_a", "\x01"},
	{"C-x", "\x18"},
	{"c-z", "\x1a"},
	{"control+d", "\x04"},
	{"alt+x", "\x1bx"},
	{"meta-b", "\x1bb"},
	{"shift+a", "A"},
	{"alt+shift+a", "\x1bA"},
	{"ctrl+alt+a", "\x1b\x01"},
	{"ctrl+shift+a", "\x1b[97;6u"},
	{"ctrl+\\", "\x1c"},
	{"ctrl+[", "\x1b"},
	{"ctrl+space", "\x00"},
	{"ctrl+1", "\x1b[49;5u"},
	{"shift+1", "\x1b[49;2u"},
	{"ctrl+up", "\x1b[1;5A"},
	{"shift+up", "\x1b[1;2A"},
	{"alt+left", "\x1b[1;3D"},
	{"ctrl+shift+right", "\x1b[1;6C"},
	{"ctrl+alt+shift+up", "\x1b[1;8A"},
	{"shift+home", "\x1b[1;2H"},
	{"ctrl+end", "\x1b[1;5F"},
	{"ctrl+delete", "\x1b[3;5~"},
	{"shift+pageup", "\x1b[5;2~"},
	{"shift+f1", "\x1b[1;2P"},
	{"ctrl+f5", "\x1b[15;5~"},
	{"alt+f12", "\x1b[24;3~"},
	{"shift+return", "\x1b[13;2u"},
	{"ctrl+return", "\x1b[13;5u"},
	{"alt+return", "\x1b\r"},
	{"shift+tab", "\x1b[Z"},
	{"ctrl+tab", "\x1b[9;5u"},
	{"alt+backspace", "\x1b\x7f"},
	{"ctrl+backspace", "\x1b[127;5u"},
	{"shift+space", "\x1b[32;2u"},
	{"ctrl+-", "\x1b[45;5u"},
	{"-", "-"},
	{"+", "+"},
	{"shift++", "\x1b[43;2u"},
	{"s-up", "\x1b[1;2A"},
	{"page_up", "\x1b[5~"},
	{"ctrl_page_down", "\x1b[6;5~"},
}

func TestParse(t *testing.T) {
	for _, c := range Cases {
		got, err := Parse(c.Spec)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.Spec, err)
			continue
		}
		if string(got) != c.Want {
			t.Errorf("Parse(%q) = %q, want %q", c.Spec, got, c.Want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, spec := range []string{"", "returnn", "ctrl+", "hyper+a", "ctrl+ctrl+a", "f13", "é", "ab"} {
		if b, err := Parse(spec); err == nil {
			t.Errorf("Parse(%q) = %q, want an error", spec, b)
		} else if strings.Contains(err.Error(), "\n") {
			t.Errorf("Parse(%q) error spans lines: %q", spec, err)
		}
	}
}

func TestItem(t *testing.T) {
	if b, _ := Item("hello"); string(b) != "hello" {
		t.Errorf("text item = %q", b)
	}
	if b, _ := Item("key:return"); string(b) != "\r" {
		t.Errorf("key item = %q", b)
	}
	if _, err := Item("key:nope"); err == nil || !strings.Contains(err.Error(), `"key:nope"`) {
		t.Errorf("bad key item error = %v", err)
	}
}

// ModeCases are keys whose bytes depend on the program's modes, with
// what xterm sends in the normal modes and with application cursor and
// keypad modes on; the end-to-end send test types them into a real
// program in both modes.
var ModeCases = []struct{ Spec, Normal, App string }{
	{"up", "\x1b[A", "\x1bOA"},
	{"down", "\x1b[B", "\x1bOB"},
	{"right", "\x1b[C", "\x1bOC"},
	{"left", "\x1b[D", "\x1bOD"},
	{"home", "\x1b[H", "\x1bOH"},
	{"end", "\x1b[F", "\x1bOF"},
	// Modifiers keep the CSI form in either mode.
	{"ctrl+up", "\x1b[1;5A", "\x1b[1;5A"},
	{"shift+left", "\x1b[1;2D", "\x1b[1;2D"},
	{"ctrl+home", "\x1b[1;5H", "\x1b[1;5H"},
	{"kp0", "0", "\x1bOp"},
	{"kp5", "5", "\x1bOu"},
	{"KP9", "9", "\x1bOy"},
	{"kp_enter", "\r", "\x1bOM"},
	{"kpplus", "+", "\x1bOk"},
	{"kp-", "-", "\x1bOm"},
	{"kp_multiply", "*", "\x1bOj"},
	{"kpdivide", "/", "\x1bOo"},
	{"kp.", ".", "\x1bOn"},
	{"kpcomma", ",", "\x1bOl"},
	{"kpequal", "=", "\x1bOX"},
	{"alt+kp5", "\x1b5", "\x1b\x1bOu"},
}

func TestParseForModes(t *testing.T) {
	for _, c := range ModeCases {
		for _, m := range []struct {
			modes Modes
			want  string
		}{{Modes{}, c.Normal}, {Modes{AppCursor: true, AppKeypad: true}, c.App}} {
			got, err := ParseFor(c.Spec, m.modes)
			if err != nil || string(got) != m.want {
				t.Errorf("ParseFor(%q, %+v) = %q, %v; want %q", c.Spec, m.modes, got, err, m.want)
			}
		}
		plain, _ := Parse(c.Spec)
		if string(plain) != c.Normal {
			t.Errorf("Parse(%q) = %q, want the normal mode's %q", c.Spec, plain, c.Normal)
		}
	}
	// Each mode on its own changes only its keys.
	if b, _ := ParseFor("down", Modes{AppKeypad: true}); string(b) != "\x1b[B" {
		t.Errorf("down with only the keypad in application mode = %q", b)
	}
	if b, _ := ParseFor("kp5", Modes{AppCursor: true}); string(b) != "5" {
		t.Errorf("kp5 with only the cursor keys in application mode = %q", b)
	}
}

func TestDependsOnModes(t *testing.T) {
	for spec, want := range map[string]bool{
		"down": true, "Home": true, "kp5": true, "ctrl+kp5": true,
		"ctrl+down": false, "pageup": false, "f1": false, "a": false, "return": false, "nope": false,
	} {
		if got := DependsOnModes(spec); got != want {
			t.Errorf("DependsOnModes(%q) = %v, want %v", spec, got, want)
		}
	}
	if !ItemDependsOnModes("key:up") || ItemDependsOnModes("up") {
		t.Error("ItemDependsOnModes: only key: items are keys")
	}
}
