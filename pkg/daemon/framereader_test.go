package daemon

import (
	"bytes"
	"encoding/binary"
	"io"
	"math/rand"
	"runtime/metrics"
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
			if w.Type != proto.Data && len(w.Payload) > ctlKeep(w.Type) {
				w.Payload = w.Payload[:ctlKeep(w.Type)] // the rest of a request is skipped
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

// A DATA frame larger than wholeData reaches data in pieces of at most
// wholeData that add up to the payload, whatever the reads' sizes; the
// frames around it, and a request whose payload is skipped, are intact.
func TestFrameReaderStreamsLargeData(t *testing.T) {
	big := make([]byte, 3*wholeData+17)
	rand.New(rand.NewSource(2)).Read(big)
	var stream []byte
	stream = proto.AppendFrame(stream, proto.Resize, proto.Size(3, 4))
	stream = proto.AppendFrame(stream, proto.Data, big)
	stream = proto.AppendFrame(stream, 99, big)
	stream = proto.AppendFrame(stream, proto.Status, nil)
	for name, r := range map[string]io.Reader{
		"whole":   bytes.NewReader(stream),
		"onebyte": iotest.OneByteReader(bytes.NewReader(stream)),
		"half":    iotest.HalfReader(bytes.NewReader(stream)),
	} {
		var got []byte
		fr := frameReader{r: r, data: func(p []byte) error {
			if len(p) > wholeData {
				t.Fatalf("%s: a piece of %d bytes", name, len(p))
			}
			got = append(got, p...)
			return nil
		}}
		for i, want := range []proto.Type{proto.Resize, proto.Data, 99, proto.Status} {
			f, err := fr.next()
			if err != nil || f.Type != want {
				t.Fatalf("%s: frame %d: %v %v", name, i, f.Type, err)
			}
			if want == 99 && !bytes.Equal(f.Payload, big[:ctlMax]) {
				t.Fatalf("%s: the unknown frame's payload starts %q", name, f.Payload)
			}
		}
		if !bytes.Equal(got, big) {
			t.Errorf("%s: the large frame arrived as %d bytes, want %d", name, len(got), len(big))
		}
	}
}

// heapAllocs is the bytes allocated so far by the whole process.
func heapAllocs() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// FuzzFrameReader feeds the daemon's frame reader arbitrary bytes, in
// reads of sizes the input chooses, and checks that it neither panics nor
// spins, that every frame it returns is within the limits (a request's
// payload at most ctlMax, a whole DATA payload at most wholeData, pieces
// of larger ones at most wholeData), and that what it allocates per frame
// stays bounded whatever length a header claims. Allocation is counted
// for the whole process, the fuzzing engine included, so the input is
// decoded three times and the least count is the one checked.
//
//	go test -run='^$' -fuzz=FuzzFrameReader -fuzztime=20s ./pkg/daemon/
func FuzzFrameReader(f *testing.F) {
	f.Add(uint8(0), proto.AppendFrame(nil, proto.Data, []byte("hello")))
	f.Add(uint8(1), proto.AppendFrame(proto.AppendFrame(nil, proto.Attach, proto.Size(24, 80)), proto.Status, nil))
	f.Add(uint8(3), hdr(byte(proto.Data), proto.MaxPayload))
	f.Add(uint8(7), hdr(byte(proto.Data), proto.MaxPayload+1))
	f.Add(uint8(2), append(hdr(99, 1<<20), make([]byte, 300)...))
	f.Add(uint8(5), proto.AppendFrame(nil, proto.Data, make([]byte, wholeData+1)))
	f.Fuzz(func(t *testing.T, chunk uint8, in []byte) {
		least := ^uint64(0)
		for range 3 {
			least = min(least, readAll(t, chunk, in))
		}
		if least > 2*wholeData {
			t.Fatalf("one frame allocated %d bytes", least)
		}
	})
}

// readAll decodes in with the daemon's reader, reads sized by chunk,
// checks every frame, and returns the bytes allocated by the most
// expensive one.
func readAll(t *testing.T, chunk uint8, in []byte) (worst uint64) {
	var r io.Reader = bytes.NewReader(in)
	switch chunk % 4 {
	case 1:
		r = iotest.OneByteReader(r)
	case 2:
		r = iotest.HalfReader(r)
	case 3:
		r = iotest.DataErrReader(r)
	}
	bad := 0
	fr := frameReader{r: r, data: func(p []byte) error {
		if len(p) == 0 || len(p) > wholeData {
			bad++
		}
		return nil
	}}
	// Each frame takes at least a header's worth of input.
	for i := 0; ; i++ {
		if i > len(in)/proto.HeaderLen+1 {
			t.Fatalf("%d frames from %d bytes: the reader does not advance", i, len(in))
		}
		before := heapAllocs()
		f, err := fr.next()
		worst = max(worst, heapAllocs()-before)
		if err != nil {
			if err != io.EOF && err != io.ErrUnexpectedEOF && err != proto.ErrTooLarge {
				t.Fatalf("unexpected error %v", err)
			}
			return worst
		}
		switch {
		case bad > 0:
			t.Fatalf("a DATA piece out of bounds")
		case f.Type != proto.Data && len(f.Payload) > ctlKeep(f.Type):
			t.Fatalf("a %v payload of %d bytes", f.Type, len(f.Payload))
		case f.Type == proto.Data && len(f.Payload) > wholeData:
			t.Fatalf("a whole DATA payload of %d bytes", len(f.Payload))
		}
	}
}

func hdr(t byte, n uint32) []byte {
	b := []byte{t, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(b[1:], n)
	return b
}
