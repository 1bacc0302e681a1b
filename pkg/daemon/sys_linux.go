//go:build linux

package daemon

import (
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

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

// statFields returns the fields of /proc/pid/stat after the command name.
func statFields(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 || i+2 > len(b) {
		return nil
	}
	return strings.Fields(string(b[i+2:]))
}

const clkTck = 100 // USER_HZ, fixed at 100 on every Linux ABI

func resourcesOf(pid int) *proto.Resources {
	f := statFields(pid)
	if len(f) < 20 {
		return nil
	}
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	start, _ := strconv.ParseFloat(f[19], 64)
	r := &proto.Resources{}
	if b, err := os.ReadFile("/proc/uptime"); err == nil {
		if up, err := strconv.ParseFloat(strings.Fields(string(b))[0], 64); err == nil {
			if el := up - start/clkTck; el > 0 {
				r.CPUPercent = float64(int(((utime+stime)/clkTck/el*100)*10+0.5)) / 10
			}
		}
	}
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				fs := strings.Fields(v)
				if len(fs) > 0 {
					r.RssKb, _ = strconv.ParseInt(fs[0], 10, 64)
				}
			}
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
