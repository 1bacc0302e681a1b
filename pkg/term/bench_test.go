package term

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// colouredLog builds about size bytes of coloured log lines roughly 200
// columns wide.
func colouredLog(size int) []byte {
	var b bytes.Buffer
	levels := []string{"\x1b[32mINFO\x1b[0m", "\x1b[33mWARN\x1b[0m", "\x1b[1;31mERROR\x1b[0m", "\x1b[38;5;245mDEBUG\x1b[0m"}
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "%s 2026-11-29 12:00:%02d \x1b[36mworker-%d\x1b[0m some log message text number %d with a fairly long tail of words so the line is about two hundred columns wide, status=\x1b[1;31merr\x1b[0m path=/var/lib/app/data/%d\r\n",
			levels[i%len(levels)], i%60, i%16, i, i)
	}
	return b.Bytes()
}

// benchCatStream is the byte stream of `go run ./bench -only cat` as the
// daemon reads it: bench/main.go's writeColoured lines, with the pty's
// ONLCR turning each "\n" into "\r\n". Keep it in step with writeColoured,
// so that this benchmark predicts the bench.
func benchCatStream(size int) []byte {
	var b bytes.Buffer
	colours := []string{"31", "32", "33", "34", "1;35", "36", "38;5;208", "38;2;10;200;120"}
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "\x1b[%sm%6d\x1b[0m 2026-11-29T12:00:00Z \x1b[1mINFO\x1b[0m request handled path=/api/v1/items/%d status=200 bytes=%d elapsed=%dms\r\r\n",
			colours[i%len(colours)], i, i*7, i*13, i%97)
	}
	return b.Bytes()
}

func plainLog(size int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "2026-11-29 12:00:%02d worker-%d some log message text number %d with a fairly long tail of words so the line is about two hundred columns wide %s\r\n",
			i%60, i%16, i, strings.Repeat("x", 40))
	}
	return b.Bytes()
}

func benchWrite(b *testing.B, data []byte) {
	s := New(50, 200, Options{})
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	for range b.N {
		s.Write(data)
	}
	reportCPU(b, cpu, len(data))
}

// cpuTime is the process's user+system CPU time. On a loaded machine the
// wall-clock MB/s understates the emulator's speed; MB/cpu-s does not.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportCPU(b *testing.B, start time.Duration, size int) {
	if d := cpuTime() - start; d > 0 {
		b.ReportMetric(float64(size)*float64(b.N)/d.Seconds()/1e6, "MB/cpu-s")
	}
}

func BenchmarkColouredScroll(b *testing.B) { benchWrite(b, colouredLog(1<<20)) }

func BenchmarkPlainScroll(b *testing.B) { benchWrite(b, plainLog(1<<20)) }

// BenchmarkBenchCat is the bench's cat workload at the bench's 50x200
// size, fed in the daemon's read-sized pieces.
func BenchmarkBenchCat(b *testing.B) { benchChunked(b, benchCatStream(1<<20)) }

// BenchmarkChunkedColouredScroll feeds the same output in 4 KiB pieces, as
// it arrives from a pty.
func BenchmarkChunkedColouredScroll(b *testing.B) { benchChunked(b, colouredLog(1<<20)) }

func benchChunked(b *testing.B, data []byte) {
	s := New(50, 200, Options{})
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	for range b.N {
		for p := data; len(p) > 0; {
			n := min(len(p), 4096)
			s.Write(p[:n])
			p = p[n:]
		}
	}
	reportCPU(b, cpu, len(data))
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// scrollbackBytes measures the heap used by 10k lines of scrollback.
func scrollbackBytes(line func(i int) string) uint64 {
	s := New(24, 80, Options{Scrollback: 10000})
	s.Write([]byte("warm up\r\n"))
	before := heapInUse()
	for i := 0; i < 10000+24; i++ {
		s.Write([]byte(line(i)))
	}
	after := heapInUse()
	runtime.KeepAlive(s)
	return after - before
}

func plain80(i int) string {
	t := fmt.Sprintf("%06d the quick brown fox jumps over the lazy dog, lorem ipsum dolor sit amet ", i)
	return t[:79] + "\r\n"
}

func coloured80(i int) string {
	return fmt.Sprintf("\x1b[32m%06d\x1b[0m the quick brown fox \x1b[1;31mjumps\x1b[0m over the lazy dog, lorem ipsum dolor sit amet\r\n", i)
}

func TestScrollbackMemory(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("memory measurement")
	}
	plain := scrollbackBytes(plain80)
	col := scrollbackBytes(coloured80)
	t.Logf("scrollback: %d bytes per 10k plain 80-col lines, %d per 10k coloured lines", plain, col)
	// The bounds sit about 15% above the packed-chunk cost, below what a
	// string per line costs, so a change that loses the packing fails.
	if plain > 1128016 {
		t.Errorf("plain scrollback uses %d bytes per 10k lines, want <= 1,128,016", plain)
	}
	if col > 1608064 {
		t.Errorf("coloured scrollback uses %d bytes per 10k lines, want <= 1,608,064", col)
	}
}

func BenchmarkScrollbackMemory(b *testing.B) {
	var n uint64
	for range b.N {
		n = scrollbackBytes(plain80)
	}
	b.ReportMetric(float64(n), "bytes/10k-lines")
}

// BenchmarkUnicodeScroll is CJK and accented text, which takes the
// per-rune path.
func BenchmarkUnicodeScroll(b *testing.B) {
	var buf bytes.Buffer
	for i := 0; buf.Len() < 1<<20; i++ {
		fmt.Fprintf(&buf, "\x1b[33m%d\x1b[0m 日本語のテキストと中文字符 café naïve résumé — “quotes” ✓ %d\r\n", i, i)
	}
	benchWrite(b, buf.Bytes())
}

// BenchmarkFullScreenApp repaints a 200x50 screen with cursor addressing
// and colour changes, as editors and TUIs do.
func BenchmarkFullScreenApp(b *testing.B) {
	var buf bytes.Buffer
	for frame := 0; buf.Len() < 1<<20; frame++ {
		buf.WriteString("\x1b[?2026h\x1b[H")
		for y := 1; y <= 50; y++ {
			fmt.Fprintf(&buf, "\x1b[%d;1H\x1b[38;5;%dm%4d \x1b[0m", y, y*5%256, y+frame)
			fmt.Fprintf(&buf, "\x1b[48;2;30;30;%dmfunc example%d(x int) string { return fmt.Sprint(x) }\x1b[K\x1b[0m", y*3, y)
		}
		buf.WriteString("\x1b[50;1H\x1b[7m NORMAL \x1b[0m main.go\x1b[?2026l")
	}
	benchWrite(b, buf.Bytes())
}

// BenchmarkResizeReflow is one width change of a 50x200 session with a
// full scrollback of coloured 200-column log lines (10,000 lines), which
// are re-wrapped. Resizes are rare, but a window being dragged sends many.
func BenchmarkResizeReflow(b *testing.B) {
	s := New(50, 200, Options{})
	s.Write(colouredLog(3 << 20))
	if s.ScrollbackLen() < DefaultScrollback {
		b.Fatalf("scrollback %d lines", s.ScrollbackLen())
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		s.Resize(50, 150+i%2*50)
	}
}
