package term

import (
	"runtime"
	"testing"
	"time"
)

// FuzzWrite feeds arbitrary bytes, with occasional resizes, and checks
// that the emulator neither panics nor hangs and that the cursor stays on
// the screen. The seed corpus runs as part of go test.
func FuzzWrite(f *testing.F) {
	seeds := []string{
		"",
		"hello\r\nworld",
		"\x1b[99999999L\x1b[99999999M\x1b[99999999@\x1b[99999999P\x1b[99999999X",
		"\x1b[99999999;99999999H\x1b[99999999A\x1b[99999999B\x1b[99999999C\x1b[99999999D",
		"\x1b[99999999S\x1b[99999999T\x1b[99999999b\x1b[99999999I\x1b[99999999Z",
		"\x1b[999999999999999999999999999999m\x1b[38;5;99999999m\x1b[38;2;999;999;999m",
		"\x1b[38:2:::::::::::m\x1b[4:::m\x1b[58:5m\x1b[38;2m\x1b[48;5m",
		"\x1b[;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;H",
		"\x1b[5;3r\x1b[0;0r\x1b[99;1r\x1b[?6h\x1b[99;99H\x1bM\x1bD\x1bE",
		"\x1b[?1049h\x1b[?1049h\x1b[?47l\x1b[?1047h\x1b[?1049l\x1b[?1049l",
		"中文😀e\u0301\u0301\u0301\u0301\x1b[1;2H\u0301x\x1b[4h中中中中中\x1b[1;1H\x1b[2P",
		"\x1b(0lqqqk\x0e\x1b)0xxx\x0f\x1b#8\x1bc",
		"\x1b]0;title\x07\x1b]2;\x1b\\\x1b]99;e=1:d=0;!!!\x1b\\\x1b]4;999;?\x07\x1b]4;1\x07",
		"\x1bP$qm\x1b\\\x1bP+q544e\x1b\\\x1b_Gf=100;AAAA\x1b\\\x1b^x\x1b\\\x1bXy\x1b\\",
		"\x1b[>99999999u\x1b[<99999999u\x1b[=99999999;99999999u\x1b[?u",
		"\x1b[?25l\x1b[?25h\x1b[6 q\x1b[99 q\x1b[!p\x1b[?2026h",
		"\xe4\xb8\x1b[31m\xad\xff\xfe\xc0\x80\xed\xa0\x80\x9b31m\x9d0;x\x9c",
		"\x1b[\r\n\t\b2J\x1b\x1b\x1b[\x18\x1b]\x1a",
		"\x1b[3g\t\t\t\x1bH\x1b[0g\x1b[Z\x1b[99Z",
		"\x1b[?7l" + "abcdefghijklmnopqrstuvwxyz中文" + "\x1b[?7h",
	}
	for i, s := range seeds {
		f.Add([]byte(s), uint8(i%5), uint8(i%7))
	}
	f.Fuzz(func(t *testing.T, data []byte, r, c uint8) {
		rows, cols := int(r%40)+1, int(c%90)+1
		s := New(rows, cols, Options{Scrollback: 50, Reply: func([]byte) {}, OnEvent: func(Event) {}})
		deadline := time.Now().Add(2 * time.Second)
		// Feed in a few chunks, resizing between them, to exercise
		// sequences split across writes.
		for i, chunk := range split(data, 3) {
			s.Write(chunk)
			check(t, s)
			if i == 1 {
				s.Resize(int(c%7)+1, int(r%13)+1)
				check(t, s)
			}
		}
		_ = s.PlainText(true)
		_ = s.ANSI(true)
		_ = s.LastLines(5)
		b := redrawInto(s)
		check(t, b)
		if time.Now().After(deadline) {
			t.Fatalf("input of %d bytes took too long", len(data))
		}
	})
}

func split(b []byte, n int) [][]byte {
	var out [][]byte
	size := len(b)/n + 1
	for len(b) > 0 {
		k := min(size, len(b))
		out = append(out, b[:k])
		b = b[k:]
	}
	return out
}

func check(t *testing.T, s *Screen) {
	t.Helper()
	rows, cols := s.Size()
	y, x, _ := s.Cursor()
	if y < 0 || y >= rows || x < 0 || x >= cols {
		t.Fatalf("cursor %d,%d outside %dx%d", y, x, rows, cols)
	}
	if s.top < 0 || s.bottom >= rows || s.top > s.bottom {
		t.Fatalf("margins %d-%d for %d rows", s.top, s.bottom, rows)
	}
	for _, g := range []*grid{&s.main, &s.alt} {
		for i := range g.lines {
			ln := &g.lines[i]
			if trimmedLen(ln.cells) > int(ln.used) {
				t.Fatalf("row %d has cells written past its extent %d: %v", i, ln.used, ln.cells)
			}
			if usedWidth(ln.cells) > int(ln.ink) {
				t.Fatalf("row %d has characters past its ink %d: %v", i, ln.ink, ln.cells)
			}
			if g == &s.main && !ln.mixed {
				got := s.encodeRow(ln)
				gotKey := histKey(&got) // before encodeLine reuses the scratch buffer
				want := s.encodeLine(ln.written(), ln.wrapped)
				if wantKey := histKey(&want); gotKey != wantKey {
					t.Fatalf("row %d: kept encoding %q, want %q", i, gotKey, wantKey)
				}
			}
		}
	}
	for i := 0; i < rows; i++ {
		ln := s.g.row(i)
		if len(ln.cells) != cols {
			t.Fatalf("row %d has %d cells, want %d", i, len(ln.cells), cols)
		}
		for j, cell := range ln.cells {
			if cell.Attr&AttrWide != 0 && (j+1 >= cols || ln.cells[j+1].Attr&AttrWideCont == 0) {
				t.Fatalf("row %d: wide cell at %d without continuation", i, j)
			}
			if cell.Attr&AttrWideCont != 0 && (j == 0 || ln.cells[j-1].Attr&AttrWide == 0) {
				t.Fatalf("row %d: orphan continuation at %d", i, j)
			}
		}
	}
}

// FuzzRepeatedWrite writes its input over and over (up to 10,000 times or
// 1 MiB), the shape of a program printing the same thing in a loop, and
// checks that the emulator's memory stays within what its screen and
// scrollback limits allow however long that goes on: a per-character or
// per-sequence structure that keeps growing (a cell's combining marks,
// once) shows up here where a short input cannot reveal it.
func FuzzRepeatedWrite(f *testing.F) {
	seeds := []string{
		"a\u0301",
		"\u0301",
		"é",
		"中\u200d",
		"x\x1b[9b\x1b[9b",
		"\x1b]2;title\x07\x1b[22t",
		"\x1b]99;d=0;chunk\x1b\\",
		"\x1b[2;30r\x1b[5H\x1b[99L\x1b[99M",
		"\x1b[38;2;1;2;3;58;5;9mx\x1b[m\r\n",
	}
	for i, s := range seeds {
		f.Add([]byte(s), uint8(20+i), uint8(60+i))
	}
	f.Fuzz(func(t *testing.T, data []byte, r, c uint8) {
		if len(data) == 0 {
			return
		}
		rows, cols := int(r%40)+1, int(c%90)+1
		const scrollback = 50
		s := New(rows, cols, Options{Scrollback: scrollback, Reply: func([]byte) {}, OnEvent: func(Event) {}})
		// What a screen may legitimately hold: the grids and the
		// scrollback at most 64 bytes a cell, plus the fixed-size
		// tables (clusters, underline colours, OSC, titles).
		bound := uint64(16<<20 + 64*(2*rows+scrollback)*cols)
		reps := max(min(10000, (1<<20)/len(data)), 1)
		deadline := time.Now().Add(10 * time.Second)
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		base := m.HeapAlloc
		for i := range reps {
			s.Write(data)
			if i%64 == 63 {
				// Garbage included, the heap stays within twice the
				// live data; stop before a runaway hurts the machine.
				runtime.ReadMemStats(&m)
				if m.HeapAlloc > base+3*bound {
					t.Fatalf("heap at %d bytes after %d writes of %d bytes", m.HeapAlloc-base, i+1, len(data))
				}
				if time.Now().After(deadline) {
					t.Fatalf("%d writes of %d bytes took over 10s", i+1, len(data))
				}
			}
		}
		check(t, s)
		runtime.GC()
		runtime.ReadMemStats(&m)
		if m.HeapAlloc > base+bound {
			t.Fatalf("heap grew by %d bytes after %d writes of %d bytes, want at most %d", m.HeapAlloc-base, reps, len(data), bound)
		}
		runtime.KeepAlive(s)
	})
}
