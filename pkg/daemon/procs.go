package daemon

import "runtime"

// fitProcs sets how many processors the daemon runs on: one while no
// client is attached, the runtime's default while one is. spawn starts the
// daemon with GOMAXPROCS=1, since each processor costs an idle session
// private memory; an attached client's output is written while the next
// chunk is emulated, which a second processor does in parallel. Called
// under d.mu whenever the attached clients change (renegotiate).
func (d *Daemon) fitProcs() {
	switch many := d.writers > 0; {
	case many && !d.manyProcs:
		runtime.SetDefaultGOMAXPROCS()
	case !many && d.manyProcs:
		runtime.GOMAXPROCS(1)
	default:
		return
	}
	d.manyProcs = !d.manyProcs
}
