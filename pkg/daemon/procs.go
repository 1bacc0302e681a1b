package daemon

import "runtime"

// fitProcsLocked sets how many processors the daemon runs on: the runtime's
// default while a flood of output (see floodingLocked), or output on its way to
// one, goes to an attached client, whose output is then written while the
// next chunk is emulated, which a second processor does in parallel; one
// otherwise. spawn starts the daemon with GOMAXPROCS=1 because every
// processor the runtime has ever set up keeps private memory for good: its
// own structures, a thread to run it, and the partly used spans its
// allocation cache took. Taken for as long as a client was attached, a
// second processor made a session someone had once attached to cost a
// third more than with one (TestAttachedSessionStaysSmall). A flood ends
// with its garbage handed back to the system (recordLoop), after the
// processors are back to one.
func (d *Daemon) fitProcsLocked(many bool) {
	switch {
	case many && !d.manyProcs:
		runtime.SetDefaultGOMAXPROCS()
	case !many && d.manyProcs:
		runtime.GOMAXPROCS(1)
	default:
		return
	}
	d.manyProcs = many
}
