package layout

// SuffixLaunch names a session's launch claim: a launcher writes it,
// under the session's locks, before it creates anything else of a new
// session, and the session's daemon removes it once it has its launch
// config. A claim still there when its daemon is dead is a start that
// never finished (its launcher was killed before it handed the daemon its
// config): the session never ran, and the next start of the id takes it
// over, as gc removes it.
const SuffixLaunch = ".launch"

// Launch is the session's launch claim.
func (p Paths) Launch() string { return p.file(SuffixLaunch) }
