package proto

import (
	"bytes"
	"io"
	"runtime/metrics"
	"testing"
	"testing/iotest"
)

// DATA payloads come out in pieces that add up to the payload; other
// frames come out whole, in order, whatever the reads' sizes.
func TestNextStreaming(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 20000) // bigger than the read buffer
	frames := []Frame{
		{Type: Geometry, Payload: Size(24, 80)},
		{Type: Screen, Payload: []byte("screen")},
		{Type: Data, Payload: []byte("x")},
		{Type: Data, Payload: big},
		{Type: Data, Payload: nil},
		{Type: Exit, Payload: ExitCode(3)},
	}
	var stream []byte
	for _, f := range frames {
		stream = AppendFrame(stream, f.Type, f.Payload)
	}
	for name, src := range map[string]io.Reader{
		"whole":   bytes.NewReader(stream),
		"onebyte": iotest.OneByteReader(bytes.NewReader(stream)),
		"half":    iotest.HalfReader(bytes.NewReader(stream)),
	} {
		r := NewReader(src)
		for i, want := range frames {
			var data []byte
			f, err := r.NextStreaming(func(b []byte) { data = append(data, b...) })
			if err != nil {
				t.Fatalf("%s: frame %d: %v", name, i, err)
			}
			got := f.Payload
			if f.Type == Data {
				got = data
			}
			if f.Type != want.Type || !bytes.Equal(got, want.Payload) {
				t.Fatalf("%s: frame %d: type %d, %d bytes; want type %d, %d bytes", name, i, f.Type, len(got), want.Type, len(want.Payload))
			}
		}
		if _, err := r.NextStreaming(func([]byte) {}); err != io.EOF {
			t.Errorf("%s: at the end: %v, want EOF", name, err)
		}
	}
	cut := NewReader(bytes.NewReader(stream[:len(stream)-len(big)/2-14]))
	for i := 0; ; i++ {
		if _, err := cut.NextStreaming(func([]byte) {}); err != nil {
			if err != io.ErrUnexpectedEOF || i != 3 {
				t.Errorf("cut inside the big frame: frame %d: %v", i, err)
			}
			break
		}
	}
}

// FuzzReader decodes arbitrary bytes with Next and with NextStreaming and
// checks that both see the same frames, never panic or spin, and that Next
// allocates in proportion to the bytes that came, not to the length a
// header claims. Allocation is counted for the whole process, the fuzzing
// engine included, so the decoding is done three times and the least
// count is the one checked.
//
//	go test -run='^$' -fuzz=FuzzReader -fuzztime=20s ./pkg/proto/
func FuzzReader(f *testing.F) {
	f.Add(AppendFrame(AppendFrame(nil, Geometry, Size(24, 80)), Screen, []byte("hi")))
	f.Add(AppendFrame(nil, Data, make([]byte, 70000)))
	f.Add([]byte{0, 1, 255, 255, 255, 1, 2, 3})
	f.Add([]byte{5, 2, 0, 0, 0})
	f.Fuzz(func(t *testing.T, in []byte) {
		least := ^uint64(0)
		for range 3 {
			least = min(least, decodeBoth(t, in))
		}
		if least > uint64(4*len(in))+4*growFrom {
			t.Fatalf("Next allocated %d bytes for %d bytes of input", least, len(in))
		}
	})
}

// decodeBoth decodes in with Next and with NextStreaming, checks they
// agree, and returns the bytes allocated by the most expensive Next.
func decodeBoth(t *testing.T, in []byte) (worst uint64) {
	a := NewReader(iotest.HalfReader(bytes.NewReader(in)))
	b := NewReader(bytes.NewReader(in))
	for i := 0; ; i++ {
		if i > len(in)/HeaderLen+1 {
			t.Fatalf("%d frames from %d bytes", i, len(in))
		}
		before := allocs()
		fa, ea := a.Next()
		worst = max(worst, allocs()-before)
		var data []byte
		fb, eb := b.NextStreaming(func(p []byte) { data = append(data, p...) })
		if (ea == nil) != (eb == nil) {
			t.Fatalf("frame %d: Next %v, NextStreaming %v", i, ea, eb)
		}
		if ea != nil {
			return worst
		}
		if fb.Type == Data {
			fb.Payload = data
		}
		if fa.Type != fb.Type || !bytes.Equal(fa.Payload, fb.Payload) {
			t.Fatalf("frame %d differs: %v %d bytes, %v %d bytes", i, fa.Type, len(fa.Payload), fb.Type, len(fb.Payload))
		}
	}
}

func allocs() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// A type without a name prints its number, as logs and errors show it.
func TestTypeString(t *testing.T) {
	for typ, want := range map[Type]string{Screen: "SCREEN", History: "HISTORY", 99: "TYPE(99)", 255: "TYPE(255)"} {
		if got := typ.String(); got != want {
			t.Errorf("Type(%d).String() = %q, want %q", uint8(typ), got, want)
		}
	}
}
