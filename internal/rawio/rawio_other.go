//go:build !linux

package rawio

import "golang.org/x/sys/unix"

// Elsewhere these are ordinary system calls: the point of the package is
// Linux's scheduling cost (see the package doc).

// Read reads from a non-blocking descriptor.
func Read(fd int, b []byte) (int, error) { return unix.Read(fd, b) }

// Write writes to a non-blocking descriptor.
func Write(fd int, b []byte) (int, error) { return unix.Write(fd, b) }

// Recvmsg is recvmsg(2): the bytes into p, ancillary data into oob.
func Recvmsg(fd int, p, oob []byte) (n, oobn int, err error) {
	n, oobn, _, _, err = unix.Recvmsg(fd, p, oob, 0)
	return n, oobn, err
}
