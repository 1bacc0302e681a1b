package layout

import (
	"errors"
	"os"
	"strconv"
	"strings"
)

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

// WriteLaunchClaim records that this process is creating generation gen
// of session id. The caller holds the session's locks.
func WriteLaunchClaim(root, id, gen string) error {
	return WriteFileAtomicNoSync(PathsFor(root, id).Launch(), []byte(strconv.Itoa(os.Getpid())+" "+gen+"\n"), 0o600)
}

// ReadLaunchClaim reports whether session id has a launch claim, and the
// generation it names ("" when its content is not a claim's).
func ReadLaunchClaim(root, id string) (gen string, ok bool) {
	f, err := OpenNoFollow(PathsFor(root, id).Launch(), os.O_RDONLY, 0)
	if err != nil {
		// A link is nobody's claim but is in the way all the same.
		return "", errors.Is(err, ErrSymlink)
	}
	defer f.Close()
	b := make([]byte, 128)
	n, _ := f.Read(b)
	fields := strings.Fields(string(b[:n]))
	if len(fields) != 2 {
		return "", true
	}
	return fields[1], true
}

// DropLaunchClaim removes session id's launch claim if it names
// generation gen.
func DropLaunchClaim(root, id, gen string) {
	if g, ok := ReadLaunchClaim(root, id); ok && g == gen {
		os.Remove(PathsFor(root, id).Launch())
	}
}
