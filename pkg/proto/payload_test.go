package proto

import (
	"bytes"
	"encoding/hex"
	"testing"
)

// Each payload, encoded with ours and framed, is the bytes
// docs/protocol.md's table gives (big-endian sizes, int32 exit codes, one
// flags byte), and decodes back to what was encoded.
func TestPayloadsOnTheWire(t *testing.T) {
	frame := func(typ Type, p []byte) string { return hex.EncodeToString(AppendFrame(nil, typ, p)) }
	for _, c := range []struct {
		name, got, want string
	}{
		{"ATTACH 24x80", frame(Attach, Size(24, 80)), "01" + "00000004" + "0018" + "0050"},
		{"RESIZE 1000x65535", frame(Resize, Size(1000, 1<<20)), "03" + "00000004" + "03e8" + "ffff"},
		{"GEOMETRY 50x132", frame(Geometry, Size(50, 132)), "0a" + "00000004" + "0032" + "0084"},
		{"EXIT 3", frame(Exit, ExitCode(3)), "04" + "00000004" + "00000003"},
		{"EXIT -1", frame(Exit, ExitCode(-1)), "04" + "00000004" + "ffffffff"},
		{"EXIT 129", frame(Exit, ExitCode(129)), "04" + "00000004" + "00000081"},
		{"PEEK plain+full", frame(Peek, PeekRequest(PeekPlain|PeekFull)), "06" + "00000001" + "03"},
		{"PEEK redraw", frame(Peek, PeekRequest(PeekRedraw)), "06" + "00000001" + "04"},
		{"PEEK follow", frame(Peek, PeekRequest(PeekFollow)), "06" + "00000001" + "08"},
		{"HISTORY 10000", frame(History, HistoryLines(10000)), "24" + "00000004" + "00002710"},
		{"HISTORY -5", frame(History, HistoryLines(-5)), "24" + "00000004" + "00000000"},
		{"ATTACH_TTY_KEY ctrl+a", frame(AttachTTYKey, AttachKey(24, 80, "ctrl+a")), "23" + "0000000a" + "0018" + "0050" + hex.EncodeToString([]byte("ctrl+a"))},
		{"STATUS request", frame(Status, nil), "07" + "00000000"},
		{"SWITCH_READY", frame(SwitchReady, nil), "28" + "00000000"},
		{"SWITCH to ab", frame(Switch, []byte("ab")), "29" + "00000002" + "6162"},
		{"SWITCH reply", frame(Switch, []byte{SwitchOK}), "29" + "00000001" + "01"},
		{"SWITCH_TO ab", frame(SwitchTo, []byte("ab")), "2a" + "00000002" + "6162"},
		{"SCREEN header of 70000 bytes", hex.EncodeToString(AppendHeader(nil, Screen, 70000)), "05" + "00011170"},
	} {
		if c.got != c.want {
			t.Errorf("%s: %s, want %s", c.name, c.got, c.want)
		}
	}

	if typ, n := ParseHeader([]byte{0xff, 0xff, 0xff, 0xff, 0xff}); typ != 255 || n != 1<<32-1 {
		t.Errorf("header: type %d, %d bytes", typ, n)
	}
	if r, c, ok := ParseSize(Size(24, 80)); !ok || r != 24 || c != 80 {
		t.Errorf("size: %d %d %v", r, c, ok)
	}
	for _, p := range [][]byte{nil, {0, 24, 0}, {0, 0, 0, 80}, {0, 24, 0, 0}} {
		if _, _, ok := ParseSize(p); ok {
			t.Errorf("size %x: ok", p)
		}
	}
	for _, code := range []int{0, 3, 129, -1, -2147483648, 2147483647} {
		if got := ParseExitCode(ExitCode(code)); got != code {
			t.Errorf("exit %d: read back %d", code, got)
		}
	}
	if got := ParseExitCode([]byte{0, 0, 3}); got != -1 {
		t.Errorf("a short EXIT reads %d, want -1", got)
	}
	for _, f := range []byte{0, PeekPlain, PeekFull | PeekFollow, PeekRedraw} {
		if got := ParsePeek(PeekRequest(f)); got != f {
			t.Errorf("peek %d: read back %d", f, got)
		}
	}
	if got := ParsePeek(nil); got != 0 {
		t.Errorf("an empty PEEK reads flags %d, want 0", got)
	}
	if n, ok := ParseHistory(HistoryLines(123456)); !ok || n != 123456 {
		t.Errorf("history: %d %v", n, ok)
	}
	if _, ok := ParseHistory([]byte{1, 2, 3}); ok {
		t.Error("a short HISTORY reads as ok")
	}
	if r, c, k, ok := ParseAttachKey(AttachKey(30, 100, "none")); !ok || r != 30 || c != 100 || k != "none" {
		t.Errorf("attach key: %d %d %q %v", r, c, k, ok)
	}
	if _, _, _, ok := ParseAttachKey([]byte{0, 24, 0}); ok {
		t.Error("a short ATTACH_TTY_KEY reads as ok")
	}
}

// FuzzPayloads feeds arbitrary bytes to every payload decoder: none may
// panic, and what one decodes encodes to a payload that decodes to the
// same again.
//
//	go test -run='^$' -fuzz=FuzzPayloads -fuzztime=20s ./pkg/proto/
func FuzzPayloads(f *testing.F) {
	f.Add([]byte{0, 24, 0, 80})
	f.Add([]byte{0, 24, 0, 80, 'c', 't', 'r', 'l', '+', 'a'})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{3})
	f.Add([]byte(`{"name":"x","process":{"alive":false,"exitCode":3,"pid":null},"uptimeSeconds":null}`))
	f.Fuzz(func(t *testing.T, p []byte) {
		if r, c, ok := ParseSize(p); ok {
			if r2, c2, ok2 := ParseSize(Size(r, c)); !ok2 || r2 != r || c2 != c {
				t.Errorf("size %x: %dx%d, then %dx%d %v", p, r, c, r2, c2, ok2)
			}
		}
		code := ParseExitCode(p)
		if got := ParseExitCode(ExitCode(code)); got != code {
			t.Errorf("exit %x: %d, then %d", p, code, got)
		}
		flags := ParsePeek(p)
		if got := ParsePeek(PeekRequest(flags)); got != flags {
			t.Errorf("peek %x: %d, then %d", p, flags, got)
		}
		if n, ok := ParseHistory(p); ok {
			if got, _ := ParseHistory(HistoryLines(n)); got != n {
				t.Errorf("history %x: %d, then %d", p, n, got)
			}
		}
		if r, c, k, ok := ParseAttachKey(p); ok {
			if !bytes.Equal(AttachKey(r, c, k), p) {
				t.Errorf("attach key %x: re-encoded as %x", p, AttachKey(r, c, k))
			}
		}
		if len(p) >= HeaderLen {
			if typ, n := ParseHeader(p); !bytes.Equal(AppendHeader(nil, typ, int(n)), p[:HeaderLen]) {
				t.Errorf("header %x: type %d, %d bytes, re-encoded as %x", p[:HeaderLen], typ, n, AppendHeader(nil, typ, int(n)))
			}
		}
		checkStatusRoundTrip(t, p)
	})
}
