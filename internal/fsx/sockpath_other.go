//go:build !linux

package fsx

import (
	"os"
	"syscall"
)

// socketTarget checks the path with lstat and connects to it by name:
// without /proc/self/fd there is no name for a descriptor that connect(2)
// takes, so a swap between the check and the connect is not excluded.
func socketTarget(path string) (string, func(), error) {
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		return "", nil, &os.PathError{Op: "lstat", Path: path, Err: err}
	}
	if err := checkSocketStat(path, &st); err != nil {
		return "", nil, err
	}
	return path, func() {}, nil
}
