package quick

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/ptyorg/pty/pkg/proto"
)

// The frames of a socket, however the writes split them, come out whole
// and in order, each payload still intact after the frames read after it.
func TestFrameReader(t *testing.T) {
	payloads := [][]byte{nil, []byte("geometry"), bytes.Repeat([]byte("screen line\n"), 5000), {1}, bytes.Repeat([]byte{0xc2}, firstRead-proto.HeaderLen), []byte("x")}
	var stream []byte
	for i, p := range payloads {
		stream = proto.AppendFrame(stream, proto.Type(i+1), p)
	}
	for seed := range uint64(20) {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(seed, 1))
		go func() {
			defer unix.Close(fds[1])
			for b := stream; len(b) > 0; {
				n := min(len(b), 1+rng.IntN(3*firstRead))
				if writeAll(fds[1], b[:n]) != nil {
					return
				}
				b = b[n:]
			}
		}()
		r := frameReader{fd: fds[0]}
		var got [][]byte
		for range payloads {
			typ, p, err := r.next()
			if err != nil {
				t.Fatalf("seed %d: frame %d: %v", seed, len(got), err)
			}
			if int(typ) != len(got)+1 {
				t.Fatalf("seed %d: frame %d has type %d", seed, len(got), typ)
			}
			got = append(got, p)
		}
		for i, p := range payloads {
			if !bytes.Equal(got[i], p) {
				t.Fatalf("seed %d: frame %d: %d bytes, want %d", seed, i, len(got[i]), len(p))
			}
		}
		if _, _, err := r.next(); err != io.EOF {
			t.Fatalf("seed %d: after the last frame: %v, want EOF", seed, err)
		}
		unix.Close(fds[0])
	}
}

// A frame cut short is an error, and a header claiming more than any
// screen is refused before anything is read for it.
func TestFrameReaderBounds(t *testing.T) {
	for _, c := range []struct {
		name string
		in   []byte
		want error
	}{
		{"cut", proto.AppendFrame(nil, proto.Screen, []byte("abcdef"))[:8], io.ErrUnexpectedEOF},
		{"huge", []byte{byte(proto.Screen), 0xff, 0xff, 0xff, 0xff, 'a'}, proto.ErrTooLarge},
	} {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err != nil {
			t.Fatal(err)
		}
		writeAll(fds[1], c.in)
		unix.Close(fds[1])
		r := frameReader{fd: fds[0]}
		if _, _, err := r.next(); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
		if len(r.buf) > firstRead {
			t.Errorf("%s: read into %d bytes", c.name, len(r.buf))
		}
		unix.Close(fds[0])
	}
}
