//go:build linux

package daemon

import (
	"bytes"
	"strconv"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/ptyorg/pty/pkg/procs"
	"github.com/ptyorg/pty/pkg/proto"
)

// becomeSubreaper keeps double-forked and setsid'd descendants of the
// session in our tree, so a stop reaches them and we reap them.
func becomeSubreaper() { unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) }

func peerUID(c syscall.Conn) (int, error) {
	sc, err := c.SyscallConn()
	if err != nil {
		return -1, err
	}
	uid := -1
	var uerr error
	err = sc.Control(func(fd uintptr) {
		var cred *unix.Ucred
		cred, uerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
		if uerr == nil {
			uid = int(cred.Uid)
		}
	})
	if err != nil {
		return -1, err
	}
	return uid, uerr
}

// procScratch is the one buffer resourcesOf reads /proc into. A STATUS
// reply (an attach asks one, and a web page after each message it types)
// reads three /proc files twice; read with os.ReadFile and split into
// strings, that was garbage of a dozen sizes each time, and in a daemon
// whose heap is too small for the collector to run, each size keeps pages
// for the session's life.
var procScratch struct {
	sync.Mutex
	buf *[4096]byte
}

// readProc reads the start of a /proc file into buf: the fields read here
// come early in each.
func readProc(buf []byte, path string) []byte {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer unix.Close(fd)
	n := 0
	for n < len(buf) {
		m, err := unix.Read(fd, buf[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil || m <= 0 {
			break
		}
		n += m
	}
	return buf[:n]
}

// decimal parses a count or seconds as /proc writes them. The
// conversion to string does not allocate: ParseFloat keeps no reference
// to its argument, so it lives on the stack.
func decimal(b []byte) (float64, bool) {
	v, err := strconv.ParseFloat(string(b), 64)
	return v, err == nil
}

const clkTck = 100 // USER_HZ, fixed at 100 on every Linux ABI

func resourcesOf(pid int) *proto.Resources {
	procScratch.Lock()
	defer procScratch.Unlock()
	if procScratch.buf == nil {
		procScratch.buf = new([4096]byte)
	}
	buf := procScratch.buf[:]
	dir := "/proc/" + strconv.Itoa(pid)
	stat := readProc(buf, dir+"/stat")
	utime, ok1 := decimal(procs.StatField(stat, 14))
	stime, ok2 := decimal(procs.StatField(stat, 15))
	start, ok3 := decimal(procs.StatField(stat, 22))
	if !ok1 || !ok2 || !ok3 {
		return nil
	}
	r := &proto.Resources{}
	if up, ok := decimal(procs.Field(readProc(buf, "/proc/uptime"), 0)); ok {
		if el := up - start/clkTck; el > 0 {
			r.CPUPercent = float64(int(((utime+stime)/clkTck/el*100)*10+0.5)) / 10
		}
	}
	status := readProc(buf, dir+"/status")
	if i := bytes.Index(status, []byte("\nVmRSS:")); i >= 0 {
		if v, ok := decimal(procs.Field(status[i+len("\nVmRSS:"):], 0)); ok {
			r.RssKb = int64(v)
		}
	}
	return r
}

// cloexecFrom marks every descriptor from first up close-on-exec in one
// system call (Linux 5.11 and later).
func cloexecFrom(first int) error {
	return unix.CloseRange(uint(first), ^uint(0), unix.CLOSE_RANGE_CLOEXEC)
}

// acceptNonblock accepts a connection as a non-blocking, close-on-exec
// descriptor, in one system call.
func acceptNonblock(fd int) (int, error) {
	nfd, _, err := unix.Accept4(fd, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
	return nfd, err
}
