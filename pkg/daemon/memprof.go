//go:build ptymemprof

package daemon

// A diagnostic build (go build -tags ptymemprof ./cmd/pty-daemon) that
// answers "what is this daemon's memory made of": on SIGUSR1 it writes a
// heap profile and the runtime's memory statistics next to
// $PTY_DAEMON_MEMPROFILE. It is a build tag rather than an env switch so
// the daemon people run does not link runtime/pprof and its compressors.

import (
	"encoding/json"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"syscall"
)

func init() {
	path := os.Getenv("PTY_DAEMON_MEMPROFILE")
	if path == "" {
		return
	}
	runtime.MemProfileRate = 1
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGUSR1)
	go func() {
		for range c {
			runtime.GC()
			if f, err := os.Create(path); err == nil {
				pprof.Lookup("heap").WriteTo(f, 0)
				f.Close()
			}
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			b, _ := json.MarshalIndent(struct {
				HeapAlloc, HeapInuse, HeapIdle, HeapReleased, HeapSys uint64
				StackInuse, StackSys, MSpanInuse, MSpanSys, MCacheSys uint64
				BuckHashSys, GCSys, OtherSys, Sys                     uint64
				NumGC                                                 uint32
			}{ms.HeapAlloc, ms.HeapInuse, ms.HeapIdle, ms.HeapReleased, ms.HeapSys,
				ms.StackInuse, ms.StackSys, ms.MSpanInuse, ms.MSpanSys, ms.MCacheSys,
				ms.BuckHashSys, ms.GCSys, ms.OtherSys, ms.Sys, ms.NumGC}, "", " ")
			os.WriteFile(path+".stats.json", b, 0o600)
		}
	}()
}
