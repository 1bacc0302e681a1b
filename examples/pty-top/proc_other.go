//go:build !linux

package main

import (
	"errors"
	"time"
)

// notAvailable is what the CPU and memory columns say: without /proc
// (macOS, the BSDs) this example does not measure processes.
const notAvailable = "n/a"

const clockTicks = 100

type proc struct {
	pid, ppid int
	start     uint64
	cpu       uint64
}

func (proc) startedAfter(time.Time) bool { return false }

var errNoProc = errors.New("CPU and memory are read from /proc, which this system does not have")

func readProcs() (map[int]proc, error) { return nil, errNoProc }

func readPss(int) (int64, error) { return 0, errNoProc }
