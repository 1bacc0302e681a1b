//go:build ptymemprof

package daemon

// A diagnostic build (go build -tags ptymemprof ./cmd/pty-daemon) that
// answers "what is this daemon's memory made of": on SIGUSR1 it writes a
// heap profile, the goroutines, where its threads were made and the
// runtime's memory statistics next to
// $PTY_DAEMON_MEMPROFILE. Run it with
// GODEBUG=memprofilerate=1,profstackdepth=128 to see every allocation
// rather than a sample (the runtime must know the rate before the first
// allocation, hence GODEBUG), each with its stack (a daemon's own GODEBUG
// has profstackdepth=0: see launchconfig.DaemonEnv). It is a build tag rather than an env switch so
// the daemon people run does not link runtime/pprof and its compressors.

import (
	"encoding/json"
	"os"
	"os/signal"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"syscall"
)

func init() {
	path := os.Getenv("PTY_DAEMON_MEMPROFILE")
	if path == "" {
		return
	}
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGUSR1)
	go func() {
		for range c {
			// What the daemon had before this GC: whether it had
			// collected at all, and how much it had allocated.
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			runtime.GC()
			// Statistics first: writing the profile allocates a
			// compressor bigger than the daemon's own heap.
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			classes := memClasses()
			if f, err := os.Create(path); err == nil {
				pprof.Lookup("heap").WriteTo(f, 0)
				f.Close()
			}
			// Who holds the goroutines and who made the threads: each
			// costs stacks and runtime structures of its own.
			if f, err := os.Create(path + ".goroutines"); err == nil {
				pprof.Lookup("goroutine").WriteTo(f, 2)
				f.Close()
			}
			if f, err := os.Create(path + ".threads"); err == nil {
				pprof.Lookup("threadcreate").WriteTo(f, 1)
				f.Close()
			}
			b, _ := json.MarshalIndent(struct {
				HeapAlloc, HeapInuse, HeapIdle, HeapReleased, HeapSys uint64
				StackInuse, StackSys, MSpanInuse, MSpanSys, MCacheSys uint64
				BuckHashSys, GCSys, OtherSys, Sys                     uint64
				NumGC                                                 uint32
				NumGCBefore                                           uint32
				HeapAllocBefore, TotalAllocBefore                     uint64
				Goroutines                                            int
				Mallocs, Frees                                        uint64
				BySize                                                []string
				Classes                                               map[string]uint64
			}{ms.HeapAlloc, ms.HeapInuse, ms.HeapIdle, ms.HeapReleased, ms.HeapSys,
				ms.StackInuse, ms.StackSys, ms.MSpanInuse, ms.MSpanSys, ms.MCacheSys,
				ms.BuckHashSys, ms.GCSys, ms.OtherSys, ms.Sys, ms.NumGC, before.NumGC, before.HeapAlloc, before.TotalAlloc, runtime.NumGoroutine(), ms.Mallocs, ms.Frees, bySize(&ms), classes}, "", " ")
			os.WriteFile(path+".stats.json", b, 0o600)
		}
	}()
}

// bySize lists the size classes holding more than 8 KiB of live objects.
func bySize(ms *runtime.MemStats) []string {
	var out []string
	for _, b := range ms.BySize {
		if n := b.Mallocs - b.Frees; n*uint64(b.Size) > 8<<10 {
			out = append(out, strconv.Itoa(int(b.Size))+" x "+strconv.Itoa(int(n)))
		}
	}
	return out
}

// memClasses is the runtime's own split of the memory it mapped
// (/memory/classes/...), which names what MemStats lumps into GCSys and
// OtherSys.
func memClasses() map[string]uint64 {
	var samples []metrics.Sample
	for _, d := range metrics.All() {
		if len(d.Name) > 16 && d.Name[:16] == "/memory/classes/" {
			samples = append(samples, metrics.Sample{Name: d.Name})
		}
	}
	metrics.Read(samples)
	out := map[string]uint64{}
	for _, s := range samples {
		if s.Value.Kind() == metrics.KindUint64 {
			out[s.Name[16:]] = s.Value.Uint64()
		}
	}
	return out
}
