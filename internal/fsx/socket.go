package fsx

import "syscall"

// UnixSocket returns a unix stream socket that no child inherits. ForkLock
// keeps a concurrent exec from inheriting it before it is marked, as
// package net does where SOCK_CLOEXEC is missing.
func UnixSocket() (int, error) {
	syscall.ForkLock.RLock()
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	return fd, err
}
