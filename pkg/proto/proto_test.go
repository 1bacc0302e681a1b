package proto

import (
	"bytes"
	"io"
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
