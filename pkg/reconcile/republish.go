package reconcile

import (
	"errors"
	"strconv"

	"github.com/ptyorg/pty/internal/registry"
)

// errRepublishing: a session that looks vanished (no socket or pid file
// names a live daemon) still has its daemon, found by its identity in the
// process table. Its files were deleted under it and it is publishing
// them again (pkg/daemon, republish.go), or waits for pty recover: it is
// not gc's to remove or respawn, and its program is not a leftover.
var errRepublishing = errors.New("its daemon is alive and publishing its files again")

// republishing reports the live daemon of e's generation that its files
// no longer name. Its look at the process table is the truth the files
// are not: a daemon alive now is found whatever is left of its files, and
// one found dead cannot publish them again, so there is no window in
// which gc acts on a session its daemon is about to bring back.
func (p *pass) republishing(e *entry) error {
	if !p.daemonsRead {
		p.daemonsRead = true
		p.daemons, _ = registry.Daemons(p.o.Root)
	}
	for _, d := range p.daemons {
		if d.ID == e.id && d.Generation == e.meta.Generation {
			return errors.Join(errRepublishing, errors.New("daemon pid "+strconv.Itoa(d.Proc.Pid)))
		}
	}
	return nil
}
