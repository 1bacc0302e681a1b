//go:build linux

package rawio

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Read reads from a non-blocking descriptor.
func Read(fd int, b []byte) (int, error) { return rw(unix.SYS_READ, fd, b) }

// Write writes to a non-blocking descriptor.
func Write(fd int, b []byte) (int, error) { return rw(unix.SYS_WRITE, fd, b) }

func rw(trap uintptr, fd int, b []byte) (int, error) {
	var p unsafe.Pointer
	if len(b) > 0 {
		p = unsafe.Pointer(&b[0])
	}
	n, _, e := syscall.RawSyscall(trap, uintptr(fd), uintptr(p), uintptr(len(b)))
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

// Recvmsg is recvmsg(2) on a non-blocking socket, with MSG_CMSG_CLOEXEC:
// the bytes into p, any ancillary data (passed descriptors) into oob.
func Recvmsg(fd int, p, oob []byte) (n, oobn int, err error) {
	var msg unix.Msghdr
	var iov unix.Iovec
	if len(p) > 0 {
		iov.Base = &p[0]
		iov.SetLen(len(p))
		msg.Iov = &iov
		msg.Iovlen = 1
	}
	if len(oob) > 0 {
		msg.Control = &oob[0]
		msg.SetControllen(len(oob))
	}
	r, _, e := syscall.RawSyscall(unix.SYS_RECVMSG, uintptr(fd), uintptr(unsafe.Pointer(&msg)), unix.MSG_CMSG_CLOEXEC)
	if e != 0 {
		return 0, 0, e
	}
	return int(r), int(msg.Controllen), nil
}
