// Package relay carries a test's connections to a session's daemon the
// way a route to another host does, slowly: through a relay that delays
// every byte and splits the daemon's frames, so that lines scroll between
// a reconnect's count and its baseline, and a connection closed at a
// random moment ends mid-frame.
package relay

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/proto"
)

// Slow is a connection to session id's daemon under root carried, as a
// route is, by a relay: here one that delays every byte by lag each way,
// as a slow link does, and writes each of the daemon's frames in two
// pieces cut at a random place. Closing the connection ends the relay
// and its connection to the daemon.
func Slow(root, id string, lag time.Duration) (*client.Conn, error) {
	d, err := client.Dial(root, id)
	if err != nil {
		return nil, err
	}
	conns, err := pair()
	if err != nil {
		d.Close()
		return nil, err
	}
	far := d.Raw()
	var once sync.Once
	end := func() { once.Do(func() { far.Close(); conns[1].Close() }) }
	go lagCopy(conns[1], framesOf(far), lag, end)
	go lagCopy(far, conns[1], lag, end)
	return client.Relayed(conns[0]), nil
}

// framesOf is the daemon's stream as read from c, frame by frame, each
// frame split in two at a random place (a drop can fall between them).
func framesOf(c io.Reader) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		r := proto.NewReader(c)
		for {
			fr, err := r.Next()
			if err != nil {
				pw.CloseWithError(err)
				return
			}
			b := proto.AppendFrame(nil, fr.Type, fr.Payload)
			cut := rand.IntN(len(b) + 1)
			if _, err := pw.Write(b[:cut]); err != nil {
				return
			}
			if _, err := pw.Write(b[cut:]); err != nil {
				return
			}
		}
	}()
	return pr
}

// lagCopy copies src to dst, each chunk lag after it was read, until
// either fails; then end.
func lagCopy(dst io.Writer, src io.Reader, lag time.Duration, end func()) {
	type chunk struct {
		at time.Time
		b  []byte
	}
	q := make(chan chunk, 1024)
	go func() {
		defer close(q)
		for {
			b := make([]byte, 4096)
			n, err := src.Read(b)
			if n > 0 {
				q <- chunk{time.Now().Add(lag), b[:n]}
			}
			if err != nil {
				return
			}
		}
	}()
	defer end()
	for c := range q {
		time.Sleep(time.Until(c.at))
		if _, err := dst.Write(c.b); err != nil {
			return
		}
	}
}

// pair is two connected Unix stream sockets: the client's end of a route
// and the relay's.
func pair() ([2]*net.UnixConn, error) {
	var conns [2]*net.UnixConn
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		return conns, err
	}
	for i, fd := range fds {
		f := os.NewFile(uintptr(fd), "route")
		c, err := net.FileConn(f)
		f.Close()
		if err != nil {
			for _, c := range conns {
				if c != nil {
					c.Close()
				}
			}
			if i == 0 {
				syscall.Close(fds[1])
			}
			return conns, err
		}
		conns[i] = c.(*net.UnixConn)
	}
	return conns, nil
}

// Blocking carries a connection to a daemon as a route does, until Block
// stops what the client writes from going on (it is read and dropped, as
// by an ssh whose link is dead); End closes both sides.
type Blocking struct {
	mu        sync.Mutex
	blocked   bool
	near, far *net.UnixConn
	once      sync.Once
}

// NewBlocking is a Blocking relay to session id's daemon under root, and
// the client's end of it.
func NewBlocking(root, id string) (*Blocking, *client.Conn, error) {
	d, err := client.Dial(root, id)
	if err != nil {
		return nil, nil, err
	}
	conns, err := pair()
	if err != nil {
		d.Close()
		return nil, nil, err
	}
	r := &Blocking{near: conns[1], far: d.Raw()}
	go func() { io.Copy(r.near, r.far); r.End() }()
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := r.near.Read(b)
			r.mu.Lock()
			blocked := r.blocked
			r.mu.Unlock()
			if n > 0 && !blocked {
				if _, err := r.far.Write(b[:n]); err != nil {
					break
				}
			}
			if err != nil {
				break
			}
		}
		r.End()
	}()
	return r, client.Relayed(conns[0]), nil
}

// Block drops what the client writes from now on.
func (r *Blocking) Block() { r.mu.Lock(); r.blocked = true; r.mu.Unlock() }

// End closes both sides, as a route's end does when its ssh dies.
func (r *Blocking) End() { r.once.Do(func() { r.near.Close(); r.far.Close() }) }

// Counter starts session id under root for a reconnect test: it waits
// until the returned file exists, then prints n1 to nN (lines), running
// pace (a shell command) after each, then END, and sleeps. scrollback is
// the session's ("" its default).
func Counter(t *testing.T, root, id, scrollback string, lines int, pace string) (gate string) {
	t.Helper()
	gate = filepath.Join(t.TempDir(), "go")
	args := []string{"run", "-d", "--id", id}
	if scrollback != "" {
		args = append(args, "--scrollback", scrollback)
	}
	testutil.MustRun(t, root, append(args, "--", "sh", "-c", fmt.Sprintf(
		`while [ ! -e %s ]; do sleep 0.02; done; i=0; while [ $i -lt %d ]; do i=$((i+1)); echo n$i; %s; done; echo END; exec sleep 100`,
		gate, lines, pace))...)
	return gate
}
