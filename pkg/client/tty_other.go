//go:build !linux

package client

import (
	"os"
	"syscall"
)

// reopenNonblock: without /proc there is no portable way to open a
// terminal again from its descriptor; attach reads and writes f itself.
func reopenNonblock(f *os.File, flag int) (*os.File, syscall.RawConn) { return nil, nil }
