//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package testutil

import "golang.org/x/sys/unix"

const getTermios = unix.TIOCGETA
