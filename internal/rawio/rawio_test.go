package rawio

import (
	"bytes"
	"io"
	"os"
	"testing"
)

// A megabyte through a pipe, far more than it holds, so that both sides
// wait on the poller for each other; then EOF when the writer closes.
func TestConnThroughPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rc, err := r.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	wc, err := w.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	want := bytes.Repeat([]byte("0123456789"), 100000)
	errc := make(chan error, 1)
	go func() {
		n, err := Conn{RC: wc}.Write(want)
		if err == nil && n != len(want) {
			err = io.ErrShortWrite
		}
		w.Close()
		errc <- err
	}()
	got, err := io.ReadAll(Conn{RC: rc})
	if err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes, want %d", len(got), len(want))
	}
}
