package daemon

import (
	"bytes"
	"io"
	"math/rand"
	"testing"
	"testing/iotest"

	"github.com/ptyorg/pty/pkg/proto"
)

// Frames of every size around the reader's buffer, split into reads of
// every length, come out whole and in order.
func TestFrameReaderSplits(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var stream []byte
	var want []proto.Frame
	for _, n := range []int{0, 1, 5, 58, 59, 60, 63, 64, 65, 200, 5000, 3} {
		p := make([]byte, n)
		rng.Read(p)
		want = append(want, proto.Frame{Type: proto.Type(n % 8), Payload: p})
		stream = proto.AppendFrame(stream, want[len(want)-1].Type, p)
	}
	readers := map[string]io.Reader{
		"whole":   bytes.NewReader(stream),
		"onebyte": iotest.OneByteReader(bytes.NewReader(stream)),
		"half":    iotest.HalfReader(bytes.NewReader(stream)),
		"dataerr": iotest.DataErrReader(bytes.NewReader(stream)),
	}
	for name, r := range readers {
		fr := frameReader{r: r}
		for i, w := range want {
			f, err := fr.next()
			if err != nil {
				t.Fatalf("%s: frame %d: %v", name, i, err)
			}
			if f.Type != w.Type || !bytes.Equal(f.Payload, w.Payload) {
				t.Fatalf("%s: frame %d: got type %d len %d, want type %d len %d", name, i, f.Type, len(f.Payload), w.Type, len(w.Payload))
			}
		}
		if _, err := fr.next(); err != io.EOF {
			t.Errorf("%s: after the last frame: %v, want EOF", name, err)
		}
	}
	// The first frame is empty (5 bytes); the second has one byte of
	// payload, cut off here.
	fr := frameReader{r: bytes.NewReader(stream[:10])}
	if _, err := fr.next(); err != nil {
		t.Fatal(err)
	}
	if _, err := fr.next(); err != io.ErrUnexpectedEOF {
		t.Errorf("cut frame: %v, want ErrUnexpectedEOF", err)
	}
	fr = frameReader{r: bytes.NewReader(stream[:3])}
	if _, err := fr.next(); err != io.ErrUnexpectedEOF {
		t.Errorf("cut header: %v, want ErrUnexpectedEOF", err)
	}
}
