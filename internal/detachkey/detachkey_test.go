package detachkey

import (
	"strings"
	"sync"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	for spec, want := range map[string]struct {
		b    byte
		name string
	}{
		"ctrl+a": {0x01, "Ctrl+A"}, "C-a": {0x01, "Ctrl+A"}, "CTRL-Z": {0x1a, "Ctrl+Z"},
		`ctrl+\`: {0x1c, `Ctrl+\`}, "ctrl+]": {0x1d, "Ctrl+]"}, "ctrl_^": {0x1e, "Ctrl+^"},
		"ctrl+_": {0x1f, "Ctrl+_"}, "ctrl+@": {0x00, "Ctrl+@"},
	} {
		k, err := Parse(spec)
		if err != nil || k.Byte() != want.b || k.String() != want.name {
			t.Errorf("Parse(%q) = %v (byte %#x), %v; want %s (%#x)", spec, k, k.Byte(), err, want.name, want.b)
		}
		if again, err := Parse(k.Spec()); err != nil || again != k {
			t.Errorf("Parse(%q.Spec() = %q) = %v, %v", spec, k.Spec(), again, err)
		}
	}
	if k, err := Parse("None"); err != nil || !k.IsNone() || k.Spec() != "none" {
		t.Errorf("Parse(none) = %v, %v", k, err)
	}
	if !Default.IsDefault() || !(Key{}).IsDefault() || Default.Byte() != 0x1c {
		t.Error("the zero Key and Default must be Ctrl+\\")
	}
	for _, spec := range []string{"", "a", "ctrl+[", "ctrl+?", "alt+a", "ctrl+shift+a", "ctrl+1", "f1", "ctrl+return", "ctrl+ab", "shift+a"} {
		if k, err := Parse(spec); err == nil {
			t.Errorf("Parse(%q) = %v, want an error", spec, k)
		} else if !strings.Contains(err.Error(), "ctrl+a") || strings.Contains(err.Error(), "\n") {
			t.Errorf("Parse(%q) error %q should name the accepted forms on one line", spec, err)
		}
	}
}

// recorder collects what a Filter sends and when it detaches.
type recorder struct {
	mu       sync.Mutex
	sent     string
	detached chan struct{}
}

func newFilter(key Key, readOnly bool) (*Filter, *recorder) {
	r := &recorder{detached: make(chan struct{}, 4)}
	return &Filter{Key: key, ReadOnly: readOnly,
		Send: func(b []byte) error {
			r.mu.Lock()
			r.sent += string(b)
			r.mu.Unlock()
			return nil
		},
		Detach: func() { r.detached <- struct{}{} }}, r
}

func (r *recorder) text() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sent
}

func TestFilterChosenKey(t *testing.T) {
	k, _ := Parse("ctrl+a")
	f, r := newFilter(k, false)
	// Ctrl+\ is an ordinary key now; a doubled Ctrl+A goes through once,
	// in place, in the form it was typed.
	f.Feed([]byte("x\x1c\x01\x01y"))
	f.Feed([]byte("\x1b[97;5u"))
	f.Feed([]byte("\x1b[97;5uz"))
	if got, want := r.text(), "x\x1c\x01y\x1b[97;5uz"; got != want {
		t.Errorf("sent %q, want %q", got, want)
	}
	select {
	case <-r.detached:
		t.Fatal("a double press detached")
	case <-time.After(2 * Window):
	}
	// A single press detaches once the window has passed.
	f.Feed([]byte("w\x01"))
	select {
	case <-r.detached:
	case <-time.After(10 * time.Second):
		t.Fatal("a single Ctrl+A did not detach")
	}
	if got := r.text(); !strings.HasSuffix(got, "w") {
		t.Errorf("the key typed before the detach key was not sent: %q", got)
	}
}

func TestFilterKittyFormOfOtherKeys(t *testing.T) {
	k, _ := Parse("ctrl+]")
	f, r := newFilter(k, true)
	f.Feed([]byte("\x1b[92;5u")) // Ctrl+\ in kitty form: not the key
	f.Feed([]byte("\x1b[93;5u"))
	select {
	case <-r.detached:
	case <-time.After(10 * time.Second):
		t.Fatal("Ctrl+] in kitty form did not detach a read-only follower")
	}
}

func TestFilterNone(t *testing.T) {
	f, r := newFilter(None, false)
	f.Feed([]byte("a\x1c\x1b[92;5ub"))
	if got := r.text(); got != "a\x1c\x1b[92;5ub" {
		t.Errorf("with no detach key sent %q", got)
	}
	select {
	case <-r.detached:
		t.Fatal("detached with no detach key")
	case <-time.After(2 * Window):
	}
	// A read-only follower stops at Ctrl+C instead.
	f, r = newFilter(None, true)
	f.Feed([]byte("a"))
	f.Feed([]byte(""))
	select {
	case <-r.detached:
	case <-time.After(10 * time.Second):
		t.Fatal("Ctrl+C did not stop a read-only follower with no detach key")
	}
	if got := r.text(); got != "" {
		t.Errorf("a read-only follower sent %q", got)
	}
}

// A ctrl key that a terminal sends for a typing key would detach at
// every Enter, Tab or Backspace: it is refused, saying which key it is.
func TestParseRefusesTypingKeys(t *testing.T) {
	for spec, what := range map[string]string{
		"ctrl+m": "Enter", "C-i": "Tab", "ctrl+h": "Backspace", "ctrl+j": "newline", "ctrl+[": "Escape",
	} {
		_, err := Parse(spec)
		if err == nil || !strings.Contains(err.Error(), what) || !strings.Contains(err.Error(), "ctrl+a") {
			t.Errorf("Parse(%q) error %v; want one naming %s and the accepted forms", spec, err, what)
		}
	}
}

// Another key within the window detaches at once, as a tmux prefix
// followed by a command key would, and neither it nor anything typed
// after reaches the session; the key's own kitty release is not another
// key.
func TestFilterOtherKeyAfterPress(t *testing.T) {
	k, _ := Parse("ctrl+a")
	f, r := newFilter(k, false)
	f.Feed([]byte("x\x01"))
	f.Feed([]byte("\x1b[97;5:3u"))
	f.Feed([]byte("zq"))
	select {
	case <-r.detached:
	default: // Feed detaches before it returns, not at the timer
		t.Fatal("a key after the detach key did not detach at once")
	}
	f.Feed([]byte("more"))
	if got := r.text(); got != "x" {
		t.Errorf("sent %q, want only %q", got, "x")
	}
	select {
	case <-r.detached:
		t.Fatal("detached twice")
	case <-time.After(2 * Window):
	}
	// In one read, as a paste or a fast typist delivers it.
	f, r = newFilter(k, false)
	f.Feed([]byte("a\x01b"))
	select {
	case <-r.detached:
	default:
		t.Fatal("Ctrl+A b in one read did not detach at once")
	}
	if got := r.text(); got != "a" {
		t.Errorf("sent %q, want %q", got, "a")
	}
}
