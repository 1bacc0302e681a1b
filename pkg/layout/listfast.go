package layout

import (
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/ptyorg/pty/internal/errs"
	"github.com/ptyorg/pty/internal/fsx"
	"golang.org/x/sys/unix"
)

// A dirFile is what one directory entry of the root says for listFast:
// that a session has a record, a pid file or a socket.
type dirFile uint8

const (
	hasMeta dirFile = 1 << iota
	hasPid
	hasSock
)

// entries is one directory read of the root: the ids that have a record,
// sorted, and which of their files exist. Deriving status from it spares
// a failed open or lstat per file that is not there, which is most of
// them for stopped sessions.
type entries struct {
	ids   []string
	files []dirFile // files[i] is ids[i]'s
}

// readEntries reads the directory open as fd (root) once. In a
// short-lived process every fresh page of heap is a page fault, and a
// slice grown by append touches a fresh span for each size it passes
// through, so the names are gathered in one buffer allocated large (the
// runtime hands over fresh memory unzeroed, and its pages cost nothing
// until written), then kept in a single string, indexed by slices
// allocated at their final size.
func readEntries(root string, fd int) (entries, error) {
	buf := make([]byte, dirBufSize+listArenaSize)
	// arena holds, for each name that matters, its kind, the length of
	// its id and the id.
	arena := buf[dirBufSize:dirBufSize]
	n := 0
	err := eachDirName(root, fd, buf[:dirBufSize], func(name string) {
		var f dirFile
		var id string
		switch {
		case strings.HasSuffix(name, SuffixMeta):
			if strings.Contains(name, ".tmp.") { // IsTemp
				return
			}
			f, id = hasMeta, name[:len(name)-len(SuffixMeta)]
		case strings.HasSuffix(name, SuffixPid):
			f, id = hasPid, name[:len(name)-len(SuffixPid)]
		case strings.HasSuffix(name, SuffixSock):
			f, id = hasSock, name[:len(name)-len(SuffixSock)]
		default:
			return
		}
		if len(id) > MaxIDLen {
			return
		}
		arena = append(append(arena, byte(f), byte(len(id))), id...)
		n++
	})
	if err != nil {
		return entries{}, errs.Wrap("read pty root "+root, err)
	}
	all := string(arena)
	type ent struct {
		id   string // in all
		file dirFile
	}
	ents := make([]ent, 0, n)
	for i := 0; i < len(all); {
		end := i + 2 + int(all[i+1])
		ents = append(ents, ent{all[i+2 : end], dirFile(all[i])})
		i = end
	}
	slices.SortFunc(ents, func(a, b ent) int { return strings.Compare(a.id, b.id) })
	metas := 0
	for _, e := range ents {
		if e.file == hasMeta {
			metas++
		}
	}
	es := entries{ids: make([]string, 0, metas), files: make([]dirFile, 0, metas)}
	for i := 0; i < len(ents); {
		id := ents[i].id
		var f dirFile
		for ; i < len(ents) && ents[i].id == id; i++ {
			f |= ents[i].file
		}
		if f&hasMeta != 0 && ValidateID(id) == nil {
			es.ids = append(es.ids, id)
			es.files = append(es.files, f)
		}
	}
	return es, nil
}

// dirBufSize is what one getdents call reads (as os does), and
// listArenaSize the room for names that readEntries allocates at once,
// enough for the names of a few thousand sessions.
const (
	dirBufSize    = 8 << 10
	listArenaSize = 64 << 10
)

// daemonAliveIn is DaemonAlive that trusts the directory read for files
// that do not exist: no pid file and no socket means no daemon, with no
// system call at all.
func daemonAliveIn(root, id, gen string, f dirFile) (bool, int) {
	if f&(hasPid|hasSock) == 0 {
		return false, 0
	}
	if f&hasPid == 0 {
		return daemonAliveGen(root, id, gen) // socket only: the original pty's probe
	}
	b, err := readFileNoFollow(pathsFor(root, id).Pid())
	if err != nil {
		return daemonAliveGen(root, id, gen) // removed since the directory read
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return daemonAliveGen(root, id, gen)
	}
	return daemonPidAlive(pid, root, id, gen), pid
}

// listFast is List from a single read of the root directory, for callers
// that read the whole registry (list, stats, the picker): same sessions,
// same statuses, fewer system calls. A live session costs two reads: its
// record, and the /proc entry of the daemon the record names. Records are
// read by a few goroutines at once, since the time goes into system calls
// that can overlap.
func listFast(root string) ([]Session, error) {
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, errs.Wrap("read pty root "+root, &os.PathError{Op: "open", Path: root, Err: err})
	}
	dirs := listDirs{root: fd, proc: openDir("/proc")}
	defer dirs.close()
	ents, err := readEntries(root, fd)
	if err != nil {
		return nil, err
	}
	ids := ents.ids
	out := make([]Session, len(ids))
	ok := make([]bool, len(ids))
	workers := min(1+len(ids)/listBatch, listWorkers)
	var next atomic.Int64
	work := func() {
		l := lister{root: root, dirs: dirs}
		for {
			i := int(next.Add(listBatch)) - listBatch
			if i >= len(ids) {
				return
			}
			for j := i; j < min(i+listBatch, len(ids)); j++ {
				out[j], ok[j] = l.one(ids[j], ents.files[j])
			}
		}
	}
	if workers == 1 {
		// A small registry: a goroutine would cost more (its stack
		// grown and copied, a thread woken for it) than it overlaps.
		work()
	} else {
		var wg sync.WaitGroup
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				work()
			}()
		}
		wg.Wait()
	}
	n := 0
	for i := range out {
		if ok[i] {
			out[n] = out[i]
			n++
		}
	}
	return out[:n], nil
}

// listBatch is how many records a listFast goroutine takes at a time, and
// listWorkers how many goroutines read at most: enough to overlap system
// calls on a few cores, few enough that a small registry is read by one.
const (
	listBatch   = 16
	listWorkers = 4
)

// listDirs are the directories listFast opens files in, each opened once:
// a file is then opened by its name alone, not walked to from /. Without
// /proc (proc is -1) daemons are identified as identifyDaemon does.
type listDirs struct{ root, proc int }

func openDir(path string) int {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1
	}
	return fd
}

func (d listDirs) close() {
	for _, fd := range []int{d.root, d.proc} {
		if fd >= 0 {
			unix.Close(fd)
		}
	}
}

// A lister reads sessions for one listFast goroutine. Every file it reads
// goes into the same buffer: what a record decodes to is copied out of it,
// and a fresh buffer per file would touch a fresh page of heap per file,
// which costs a short-lived process such as pty list more than the read.
type lister struct {
	root string
	dirs listDirs
	buf  []byte
}

// one reads one session; ok is false when its record was removed since
// the directory read.
func (l *lister) one(id string, files dirFile) (Session, bool) {
	m, err := l.record(id)
	var de *DamagedError
	if errors.As(err, &de) {
		// No generation to hold the daemon to: any daemon of this id
		// and root is the session's.
		alive, pid := daemonAliveIn(l.root, id, "", files)
		return damagedSession(l.root, id, de.Reason, alive, pid), true
	}
	if err != nil {
		return Session{}, false
	}
	// The record names its daemon: when that pid proves to be the daemon
	// of this record (its arguments carry the id, the generation and the
	// root), the pid file has nothing to add. Anything else, and exited
	// records (which show the pid file's pid while it lasts), take the
	// pid file's word as before.
	if !m.Exited() && m.DaemonPid > 0 && m.Generation != "" && files&hasPid != 0 &&
		l.identify(m.DaemonPid, id, m.Generation) == isDaemon {
		return Session{ID: id, Meta: m, Pid: m.DaemonPid, Live: true, Status: Running}, true
	}
	alive, pid := daemonAliveIn(l.root, id, m.Generation, files)
	if !alive {
		pid = 0
	}
	return Session{ID: id, Meta: m, Pid: pid, Live: alive, Status: StatusOf(m, alive)}, true
}

// record is readMetadataFast reading into the lister's buffer. It takes a
// read that does not fill the buffer as the whole file, as the kernel
// ends a read of a regular file short only at its end; a record that then
// does not decode is read again by readMetadataFast, which reads to the
// end of the file, before it is called damaged.
func (l *lister) record(id string) (*Metadata, error) {
	b, err := l.read(l.dirs.root, id+SuffixMeta, unix.O_NOFOLLOW, MaxRecordBytes)
	if err != nil {
		return nil, readMetaErr(id, err)
	}
	if checkRecordShape(id, b) != nil {
		return readMetadataFast(l.root, id)
	}
	var m Metadata
	if m.decodeJSON(b) != nil {
		return readMetadataFast(l.root, id)
	}
	return &m, nil
}

// identify is identifyDaemon reading /proc/<pid>/cmdline into the
// lister's buffer.
func (l *lister) identify(pid int, id, gen string) verdict {
	if l.dirs.proc < 0 {
		return identifyDaemon(pid, l.root, id, gen)
	}
	cmdline, err := l.read(l.dirs.proc, strconv.Itoa(pid)+"/cmdline", 0, -1)
	return judgeCmdline(pid, cmdline, err, l.root, id, gen)
}

// read reads the file name in directory dir into l.buf, up to max bytes
// (no bound when max < 0; fsx.ErrTooLarge past it). The result is valid until
// the next read. A read that does not fill the buffer ends the file: the
// kernel hands over a /proc file such as cmdline in one read, and ends a
// read of a regular file short only at its end.
func (l *lister) read(dir int, name string, flags, max int) ([]byte, error) {
	// O_NONBLOCK: a FIFO under a session's file name reads as empty
	// instead of blocking the open (see fsx.OpenNoFollow).
	fd, err := unix.Openat(dir, name, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NONBLOCK|flags, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	if l.buf == nil {
		l.buf = make([]byte, listBufSize)
	}
	n := 0
	for {
		if n == len(l.buf) {
			if max >= 0 && n > max {
				return nil, fsx.ErrTooLarge
			}
			grow := len(l.buf)
			if max >= 0 {
				grow = min(grow, max+1-n)
			}
			l.buf = append(l.buf, make([]byte, grow)...)
		}
		m, err := unix.Read(fd, l.buf[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		n += m
		if m == 0 || n < len(l.buf) {
			return l.buf[:n], nil
		}
	}
}

// listBufSize is a lister's first buffer: a page, which holds the record
// of a session started with a modest environment and any cmdline.
const listBufSize = 4096

// readMetadataFast is ReadMetadata with the file read by bare system
// calls: os.ReadFile's stat, non-blocking setup and second read cost as
// much as the open on a slow-syscall machine.
func readMetadataFast(root, id string) (*Metadata, error) {
	b, err := readRecord(pathsFor(root, id).Meta())
	if err != nil {
		return nil, readMetaErr(id, err)
	}
	if err := checkRecordShape(id, b); err != nil {
		return nil, err
	}
	var m Metadata
	if err := m.decodeJSON(b); err != nil {
		return nil, &DamagedError{ID: id, Reason: damagedNotJSON, Err: err}
	}
	return &m, nil
}

func readFileFlags(path string, flags int) ([]byte, error) {
	return fsx.ReadFileMax(path, flags, -1)
}

// readFileNoFollow reads with bare system calls (fsx.ReadFileMax); errors
// are the bare errno.
func readFileNoFollow(path string) ([]byte, error) {
	return readFileFlags(path, syscall.O_NOFOLLOW)
}

// readProcFile reads a /proc file whose contents the kernel hands over in
// one read when the buffer holds them (cmdline, stat): a read that does
// not fill the buffer is the whole file, which spares the read that would
// only confirm the end.
func readProcFile(path string) ([]byte, error) {
	var l lister
	return l.read(unix.AT_FDCWD, path, 0, -1)
}
