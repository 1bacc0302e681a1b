package web

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/eventlog"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/listing"
	"github.com/ptyorg/pty/pkg/proto"
	"github.com/ptyorg/pty/pkg/term"
)

// recentEvents is how many of a session's events its page shows.
const recentEvents = 50

// redrawPrefix starts every baseline in the exact form (Screen.Redraw);
// the text form never contains ESC[?7h.
const redrawPrefix = term.RedrawPrefix

// snapshot is a published state of a followed session's screen. It is
// never modified once published; viewers compare rows with the last one
// they sent.
type snapshot struct {
	rows, cols int
	lines      [][]byte // each row's JSON
	title      string
	alt        bool
	ended      bool
	code       int // with ended; -1 when unknown
	// histSeq is the number of the newest scrollback line (as
	// term.Screen.HistorySeq counts them) of the emulator histGen, the
	// last one scrolled off this screen: a page is sent the lines up to
	// it with the screen.
	histSeq int64
	histGen int
}

// follower follows one session for all its viewers: one read-only PEEK
// connection, one emulator, snapshots published at most every
// FrameInterval however fast the session prints.
type follower struct {
	s      *server
	id     string
	key    string        // in server.followers: id, or the host's and id
	remote *remoteTarget // the host the session is on; nil: this one
	ctx    context.Context
	cancel context.CancelFunc

	dirty chan struct{} // cap 1: output arrived since the last snapshot

	// keep is how many scrollback lines the emulator and the pages
	// keep: the session's, and a line for a marker.
	keep int

	mu     sync.Mutex
	scr    *term.Screen // nil until the first baseline
	scrGen int          // counts emulators: a new one numbers its lines afresh
	// histCache is the last batch of scrollback rows sent to a page.
	histCache histBatch
	rows      int
	cols      int
	viewers   int
	snap      *snapshot
	changed   chan struct{} // closed when snap or events change
	ended     bool
	code      int
	refused   string // why the host refused the route, when it did
	linkDown  string // while the route to the host is down: what the pages say
	events    []string
	evSeq     int
	// inMu guards input, so typing never holds up the stream (mu).
	inMu  sync.Mutex
	input *typing // the connection typing goes on; nil until the first key
}

// typing is a command connection that a follower types on. Each send
// asks for a STATUS reply after its bytes, which says they reached the
// daemon; what was sent and not yet answered when the connection drops
// (a route whose ssh died: the bytes went into a pipe nobody reads) may
// be lost, and the pages that typed it are told, rather than told
// nothing or sent it twice.
type typing struct {
	c     *client.Conn
	close func() // ends c and, for a route, what carries it
	// mu guards waiting, apart from inMu so that the reader never waits
	// on a send.
	mu      sync.Mutex
	waiting []*inputState // who typed each send not yet answered, oldest first
	dropped bool
}

// answered takes the oldest send off the waiting list.
func (t *typing) answered() {
	t.mu.Lock()
	if len(t.waiting) > 0 {
		t.waiting = t.waiting[1:]
	}
	t.mu.Unlock()
}

// drop ends the connection and tells each page whose sends were not
// answered how many may be lost, once.
func (t *typing) drop(why string) {
	t.mu.Lock()
	w, was := t.waiting, t.dropped
	t.waiting, t.dropped = nil, true
	t.mu.Unlock()
	if was {
		return
	}
	t.close()
	n := map[*inputState]int{}
	var order []*inputState
	for _, in := range w {
		if n[in] == 0 {
			order = append(order, in)
		}
		n[in]++
	}
	for _, in := range order {
		in.lost(n[in], why)
	}
}

// follow returns the follower of id, starting it for the first viewer.
func (s *server) follow(id string, keep int) *follower { return s.followOn(nil, id, keep) }

// followOn is follow of a session on rt's host (nil: this host).
func (s *server) followOn(rt *remoteTarget, id string, keep int) *follower {
	key := id
	if rt != nil {
		key = rt.key(id)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.followers[key]
	// A follower whose session ended stays with its viewers; a new
	// viewer (of a session restarted since, say) gets a fresh one.
	if f != nil && f.isEnded() {
		f = nil
	}
	if f == nil {
		ctx, cancel := context.WithCancel(s.ctx)
		f = &follower{s: s, id: id, key: key, remote: rt, ctx: ctx, cancel: cancel, dirty: make(chan struct{}, 1),
			changed: make(chan struct{}), code: -1, keep: keep}
		s.followers[key] = f
		go f.run()
		go f.publish()
		if rt == nil {
			go f.followEvents()
		} else if rt.host().Run != nil {
			go f.followRemoteEvents()
		}
	}
	f.mu.Lock()
	f.viewers++
	f.mu.Unlock()
	return f
}

// unfollow stops the follower with its last viewer.
func (s *server) unfollow(f *follower) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f.mu.Lock()
	f.viewers--
	last := f.viewers == 0
	f.mu.Unlock()
	if last {
		if s.followers[f.key] == f {
			delete(s.followers, f.key)
		}
		f.cancel()
	}
}

func (f *follower) isEnded() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ended
}

func (f *follower) markDirty() {
	select {
	case f.dirty <- struct{}{}:
	default:
	}
}

// notify wakes the viewers. Called with f.mu held.
func (f *follower) notify() {
	close(f.changed)
	f.changed = make(chan struct{})
}

// run reads the session's stream into the emulator until the session or
// the follower ends.
func (f *follower) run() {
	defer func() {
		f.mu.Lock()
		f.ended = true
		f.mu.Unlock()
		f.inMu.Lock()
		f.dropInputLocked("the session ended before it answered")
		f.inMu.Unlock()
		f.markDirty()
	}()
	if f.remote != nil {
		f.runRemote()
		return
	}
	conn, err := client.Dial(f.s.o.Root, f.id)
	if err != nil {
		return
	}
	f.stream(conn, nil)
}

// peekFollow asks for the exact screen, first with the scrollback
// (Full), and in a flood's redraws the lines that scrolled by since the
// last one (Follow).
const peekFollow = proto.PeekRedraw | proto.PeekFull | proto.PeekFollow

// stream reads one connection's stream into the emulator until it ends,
// and reports whether it ended with the session's EXIT. st, for a
// session on another host, carries the emulator over reconnects
// (stitch.go); nil, the first baseline starts it.
func (f *follower) stream(conn *client.Conn, st *stitch) (exited bool) {
	defer conn.Close()
	stop := context.AfterFunc(f.ctx, func() { conn.Close() })
	defer stop()
	if st != nil {
		defer func() {
			f.mu.Lock()
			st.dropped(f.scr)
			f.mu.Unlock()
		}()
		if err := st.begin(conn); err != nil {
			return false
		}
	}
	// The exact screen, first with the scrollback (Full), and in a
	// flood's redraws the lines that scrolled by since the last one
	// (Follow): the emulator's scrollback then holds every line the
	// session kept, once and in order, as an attached terminal's does.
	if err := conn.WriteFrame(proto.Peek, proto.PeekRequest(peekFollow)); err != nil {
		return false
	}
	write := func(b []byte) {
		f.mu.Lock()
		// Before a reconnect's baseline is drawn (one was asked for
		// again) the stream is not: the baseline has it.
		if f.scr != nil && (st == nil || !st.fresh) {
			f.scr.Write(b)
		}
		f.mu.Unlock()
		f.markDirty()
	}
	for {
		fr, err := conn.NextStreaming(write)
		if err != nil {
			return false
		}
		switch fr.Type {
		case proto.Geometry:
			rows, cols, ok := proto.ParseSize(fr.Payload)
			if !ok || rows <= 0 || cols <= 0 {
				continue
			}
			f.mu.Lock()
			f.rows, f.cols = rows, cols
			if f.scr != nil {
				f.scr.Resize(rows, cols)
			}
			f.mu.Unlock()
			f.markDirty()
		case proto.Screen:
			f.mu.Lock()
			exact := bytes.HasPrefix(fr.Payload, []byte(redrawPrefix))
			stitching := st != nil && st.fresh && exact
			if f.scr != nil && exact {
				// A resync or a flood's redraw, over the screen in
				// place as a terminal draws it (proto.RedrawInPlace):
				// the lines it starts with scroll into the scrollback,
				// and no ED 2 pushes a copy of the screen there. A
				// reconnect's baseline, the same without the lines the
				// emulator has.
				p, h := fr.Payload, 0
				if stitching {
					var ok bool
					if p, h, ok = st.dedupe(p, f.scr); !ok {
						f.mu.Unlock()
						if st.askAll(conn) != nil {
							return false
						}
						continue
					}
				}
				seq := f.scr.HistorySeq()
				rows, _ := f.scr.Size()
				f.scr.Write(proto.RedrawInPlace(nil, p, rows))
				if stitching {
					st.drawn(f.scr, seq, h)
				}
			} else {
				rows, cols := f.rows, f.cols
				if rows <= 0 || cols <= 0 {
					rows, cols = 24, 80
				}
				scr := term.New(rows, cols, term.Options{Scrollback: f.keep})
				if exact {
					scr.Write(fr.Payload)
				} else {
					// A daemon that does not know PeekRedraw sent text,
					// each time the whole of it.
					scr.Write(bytes.ReplaceAll(fr.Payload, []byte("\n"), []byte("\r\n")))
				}
				f.scr = scr
				f.scrGen++
				if stitching {
					st.drawn(scr, 0, int(scr.HistorySeq()))
				}
			}
			f.mu.Unlock()
			f.markDirty()
		case proto.Exit:
			f.mu.Lock()
			f.code = proto.ParseExitCode(fr.Payload)
			f.mu.Unlock()
			return true
		}
	}
}

// publish makes a snapshot when output arrived, at most every
// FrameInterval, and wakes the viewers.
func (f *follower) publish() {
	var enc rowEncoder
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-f.ctx.Done():
			return
		case <-f.dirty:
		}
		f.mu.Lock()
		if f.scr != nil || f.ended {
			sn := &snapshot{ended: f.ended, code: f.code}
			if f.scr != nil {
				scr := f.scr
				sn.rows, sn.cols = scr.Size()
				cy, cx, vis := scr.Cursor()
				sn.title = scr.Title()
				sn.histSeq, sn.histGen = scr.HistorySeq(), f.scrGen
				sn.alt = scr.Modes().AltScreen
				sn.lines = make([][]byte, sn.rows)
				var prev [][]byte
				if f.snap != nil && f.snap.cols == sn.cols {
					prev = f.snap.lines
				}
				for y := range sn.rows {
					cur := -1
					if vis && y == cy && !f.ended {
						cur = cx
					}
					row := enc.encodeScreenRow(scr, y, sn.cols, cur)
					// Unchanged rows keep the previous slice, so
					// viewers compare most rows by length and bytes
					// that are already in cache.
					if y < len(prev) && bytes.Equal(prev[y], row) {
						row = prev[y]
					}
					sn.lines[y] = row
				}
			}
			f.snap = sn
			f.notify()
		}
		ended := f.ended
		f.mu.Unlock()
		if ended {
			return
		}
		t.Reset(FrameInterval)
		select {
		case <-f.ctx.Done():
			return
		case <-t.C:
		}
	}
}

// followEvents keeps the session's recent events.
func (f *follower) followEvents() {
	add := func(ls []eventlog.Line) {
		f.mu.Lock()
		// A new slice each time: viewers encode the one they were given
		// outside the lock.
		evs := append([]string(nil), f.events...)
		for _, l := range ls {
			if l.Valid() {
				evs = append(evs, eventlog.Format(l, time.Local))
			}
		}
		if n := len(evs); n > recentEvents {
			evs = evs[n-recentEvents:]
		}
		f.events = evs
		f.evSeq++
		f.notify()
		f.mu.Unlock()
	}
	var (
		pmu     sync.Mutex
		pending []eventlog.Line
		live    bool
		once    sync.Once
		readyCh = make(chan struct{})
	)
	ready := func() { once.Do(func() { close(readyCh) }) }
	go func() {
		select {
		case <-readyCh:
		case <-f.ctx.Done():
			return
		}
		// A line appended between the watch starting and the log being
		// read is in both; it is dropped from the second by its bytes.
		recent, _ := eventlog.Recent(f.s.o.Root, f.id, recentEvents)
		pmu.Lock()
		defer pmu.Unlock()
		seen := map[string]bool{}
		for _, l := range recent {
			seen[string(l.Raw)] = true
		}
		for _, l := range pending {
			if !seen[string(l.Raw)] {
				recent = append(recent, l)
			}
		}
		pending, live = nil, true
		add(recent)
	}()
	eventlog.Follower{Root: f.s.o.Root, IDs: []string{f.id}, Ready: ready}.Follow(f.ctx,
		func(l eventlog.Line) error {
			pmu.Lock()
			defer pmu.Unlock()
			if !live {
				pending = append(pending, l)
				return nil
			}
			add([]eventlog.Line{l})
			return nil
		})
	ready() // the watch failed: the recent events still show
}

// current returns the latest snapshot and events, and a channel closed
// when either changes.
func (f *follower) current() (*snapshot, []string, int, <-chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.snap, f.events, f.evSeq, f.changed
}

// send types b, from the page of in, into the session over a command
// connection of its own (DATA on the read-only one is ignored by the
// daemon); for a session on another host, over a route of its own, made
// again when the last one has dropped. A send whose write failed before
// any of it left goes again once on a new connection; one that may have
// been typed in part is not repeated, and in is told (typing.drop).
func (f *follower) send(b []byte, in *inputState) error {
	if f.isEnded() {
		return errors.New("the session has ended")
	}
	f.inMu.Lock()
	defer f.inMu.Unlock()
	for try := 0; ; try++ {
		reused := f.input != nil
		if f.input == nil {
			if err := f.openInputLocked(); err != nil {
				return err
			}
		}
		t := f.input
		t.mu.Lock()
		t.waiting = append(t.waiting, in)
		t.mu.Unlock()
		t.c.Raw().SetWriteDeadline(time.Now().Add(5 * time.Second))
		n, err := t.c.SendAsking(b)
		if err == nil {
			return nil
		}
		t.mu.Lock()
		if k := len(t.waiting); k > 0 && t.waiting[k-1] == in {
			t.waiting = t.waiting[:k-1] // this one is answered here
		}
		t.mu.Unlock()
		f.dropInputLocked("the connection to the session dropped")
		if n > 0 {
			return errors.New("the connection dropped while typing; some of it may have reached the session: look at the screen before typing again")
		}
		if f.remote == nil || !reused || try > 0 {
			return err
		}
	}
}

// openInputLocked opens the command connection send types on.
func (f *follower) openInputLocked() error {
	var c *client.Conn
	closeIt := func() {}
	if f.remote != nil {
		rc, done, err := f.remote.host().Route(f.ctx, f.id)
		if err != nil {
			return err
		}
		c, closeIt = rc, done
	} else {
		lc, err := client.Dial(f.s.o.Root, f.id)
		if err != nil {
			return err
		}
		c = lc
	}
	t := &typing{c: c, close: func() { c.Close(); closeIt() }}
	f.input = t
	// A command connection receives STATUS replies and EXIT (and from
	// the original's daemon, the live output, which is skipped); each
	// STATUS answers the oldest send.
	go func() {
		for {
			fr, err := c.Next()
			if err != nil {
				f.inMu.Lock()
				if f.input == t {
					f.input = nil
				}
				f.inMu.Unlock()
				t.drop(f.lostWhy())
				return
			}
			if fr.Type == proto.Status {
				t.answered()
			}
		}
	}()
	return nil
}

// lostWhy says why typing that was not answered may be lost.
func (f *follower) lostWhy() string {
	if f.remote != nil {
		return "the connection to " + f.remote.host().Label + " dropped before the session answered"
	}
	return "the connection to the session dropped before it answered"
}

func (f *follower) dropInputLocked(why string) {
	if f.input != nil {
		f.input.drop(why)
		f.input = nil
	}
}

// modes returns the session's modes as the emulator has them.
func (f *follower) modes() term.Modes {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.scr == nil {
		return term.Modes{}
	}
	return f.scr.Modes()
}

// histRows returns, for a page that has the scrollback lines of emulator
// gen up to mark, the rows of the lines after it up to upTo, as a JSON
// array's elements, within MaxHistoryBatch bytes. Lines the emulator no
// longer keeps (the page fell behind by more than keep lines) are one dim
// marker row. A mark below zero stands for a page that has none yet,
// which gets the lines the emulator keeps. It returns the new mark. The
// rows may be shared with other pages: they are not to be modified.
func (f *follower) histRows(enc *rowEncoder, gen int, mark, upTo int64) ([]byte, int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	scr := f.scr
	if scr == nil || f.scrGen != gen {
		return nil, mark // a newer snapshot comes
	}
	newest := scr.HistorySeq()
	oldest := newest - int64(scr.ScrollbackLen()) + 1
	if mark < 0 {
		mark = oldest - 1
	}
	upTo = min(upTo, newest)
	mark = min(mark, upTo)
	// Pages that follow the same snapshots ask for the same rows: they
	// are encoded once.
	key := histKey{gen: gen, mark: mark, upTo: upTo, oldest: oldest}
	if c := &f.histCache; c.key == key && c.rows != nil {
		return c.rows, c.next
	}
	var b []byte
	sep := func() {
		if len(b) > 0 {
			b = append(b, ',')
		}
	}
	if lost := oldest - 1 - mark; lost > 0 {
		sep()
		b = appendMarkerRow(b, lost, f.keep)
		mark = oldest - 1
	}
	var cells []term.Cell
	for mark < upTo && len(b) < MaxHistoryBatch {
		var ok bool
		cells, ok = scr.AppendHistoryLine(cells[:0], mark+1)
		if !ok {
			break
		}
		sep()
		b = append(b, enc.encode(len(cells), -1, func(x int) term.Cell { return cells[x] }, scr)...)
		mark++
	}
	if b != nil {
		f.histCache = histBatch{key: key, rows: b, next: mark}
	}
	return b, mark
}

// histKey names a batch of scrollback rows (follower.histRows).
type histKey struct {
	gen                int
	mark, upTo, oldest int64
}

// histBatch is the last batch of scrollback rows encoded.
type histBatch struct {
	key  histKey
	rows []byte
	next int64
}

// appendMarkerRow is the row that stands for n lines a page was not
// sent, dim, as the daemon's marker for lines the session did not keep.
func appendMarkerRow(b []byte, n int64, keep int) []byte {
	text := "[pty: " + term.Thousands(n) + " lines not kept; the page keeps " + term.Thousands(int64(keep)) + "]"
	if n == 1 {
		text = "[pty: 1 line not kept; the page keeps " + term.Thousands(int64(keep)) + "]"
	}
	b = append(b, "[["...)
	b = appendJSONString(b, []byte(text))
	b = append(b, ",-1,-1,"...)
	b = strconv.AppendInt(b, int64(term.AttrDim), 10)
	return append(b, "]]"...)
}

// sessionMsg is the first message of a session page.
type sessionMsg struct {
	T       string `json:"t"`
	ID      string `json:"id"`
	Name    string `json:"name"`
	Status  string `json:"status"`
	Command string `json:"command"`
	Write   bool   `json:"write"`
	// Actions: the page may kill and restart the session.
	Actions bool `json:"actions,omitempty"`
	// Scrollback is how many scrollback lines the page keeps.
	Scrollback int `json:"scrollback"`
}

// endedMsg describes a session that is not running: its last lines.
type endedMsg struct {
	T    string `json:"t"`
	Code *int   `json:"code"`
	// How is the ending as pty list says it: "exit 3", "killed (SIGHUP)".
	How   string   `json:"how,omitempty"`
	Lines []string `json:"lines"`
}

func (s *server) liveSession(ctx context.Context, c *wsConn, id string) {
	s.liveSessionOn(ctx, c, nil, id)
}

// liveSessionOn is liveSession of a session on rt's host (nil: this
// host), which has no record here: it is shown as the host's list has it
// until its stream ends.
func (s *server) liveSessionOn(ctx context.Context, c *wsConn, rt *remoteTarget, id string) {
	var sess layout.Session
	var err error
	if rt != nil {
		sess = rt.session(id)
	} else {
		sess, err = layout.At(s.o.Root).Load(id)
	}
	if err != nil {
		// The page stops asking: a removed session does not come back.
		c.sendJSON(ctx, map[string]string{"t": "gone", "msg": "No session " + id + " in the registry: it was removed (pty rm, gc, or it ended cleanly)."})
		c.c.Close(websocket.StatusNormalClosure, "")
		return
	}
	keep := term.DefaultScrollback
	if sess.Meta != nil && sess.Meta.Scrollback != nil {
		keep = *sess.Meta.Scrollback
	}
	keep = min(keep+1, MaxHistoryLines)
	hello := sessionMsg{T: "hello", ID: id, Name: listing.Printable(sess.Name()), Status: string(sess.Shown()),
		Command: listing.Command(sess.Meta), Write: s.o.Write && sess.Shown() == layout.Running,
		Actions: s.o.Write && s.o.Actions != nil && (rt == nil || rt.host().Run != nil), Scrollback: keep}
	if err := c.sendJSON(ctx, hello); err != nil {
		return
	}
	if sess.Shown() != layout.Running {
		s.sendEnded(ctx, c, id, sess)
		if rt != nil {
			rt.sendRecentEvents(ctx, c, id)
		} else {
			s.sendRecentEvents(ctx, c, id)
		}
		// Until the page goes: CloseRead's context ends with the
		// connection.
		<-c.c.CloseRead(ctx).Done()
		return
	}
	f := s.followOn(rt, id, keep)
	defer s.unfollow(f)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	in := &inputState{f: f, c: c, write: hello.Write, acks: make(chan struct{}, 1)}
	go func() {
		defer cancel()
		in.readLoop(ctx)
	}()

	// Each screen update waits for the page's acknowledgement before the
	// next is sent: at most one is ever in flight, however fast the
	// session prints or however slowly the page draws, and a page that
	// stops answering is dropped.
	var last *snapshot
	// The page has the scrollback lines of emulator histGen up to
	// mark; -1: none yet.
	histGen, mark := 0, int64(-1)
	var enc rowEncoder
	lastEv := 0
	lastLink := ""
	awaiting := false
	ackTimer := time.NewTimer(time.Hour)
	ackTimer.Stop()
	defer ackTimer.Stop()
	// Scrollback lines left over from a full batch go with the next
	// update, a frame later, as a new snapshot would.
	var sent time.Time
	frame := time.NewTimer(time.Hour)
	frame.Stop()
	defer frame.Stop()
	for {
		sn, evs, evSeq, changed := f.current()
		if why := f.refusal(); why != "" {
			// The host says the session is not there: the page stops
			// asking, as for a removed one.
			c.sendJSON(ctx, map[string]string{"t": "gone", "msg": why})
			c.c.Close(websocket.StatusNormalClosure, "")
			return
		}
		histLeft := sn != nil && sn.histGen == histGen && mark < sn.histSeq
		sendHist := histLeft
		if histLeft && sn == last && !awaiting {
			if wait := FrameInterval - time.Since(sent); wait > 0 {
				frame.Reset(wait)
				sendHist = false
			}
		}
		if !awaiting && sn != nil && (sn != last || sendHist) {
			// The lines that scrolled off the screen go with it, so
			// the page never shows a line twice or misses one.
			reset := sn.histGen != histGen
			if reset {
				histGen, mark = sn.histGen, -1
			}
			var hist []byte
			hist, mark = f.histRows(&enc, sn.histGen, mark, sn.histSeq)
			if msg := screenDiff(last, sn, hist, reset); msg != nil {
				if err := c.send(ctx, msg); err != nil {
					return
				}
				awaiting, sent = true, time.Now()
				ackTimer.Reset(s.viewerTimeout())
			}
			last = sn
			histLeft = mark < sn.histSeq
		}
		if down := f.link(); down != lastLink {
			lastLink = down
			if err := c.sendJSON(ctx, map[string]string{"t": "link", "down": down}); err != nil {
				return
			}
		}
		if evSeq != lastEv {
			lastEv = evSeq
			if err := c.sendJSON(ctx, map[string]any{"t": "events", "lines": evs}); err != nil {
				return
			}
		}
		if sn != nil && sn.ended && sn == last && !histLeft {
			sess, err := layout.Session{}, errors.New("on another host")
			if rt == nil {
				sess, err = s.endedRecord(ctx, id)
			}
			if err != nil || sess.Meta == nil {
				// Removed as it ended (a clean exit of a session that
				// does not keep its record): the stream's code.
				sess = layout.Session{ID: id, Meta: &layout.Metadata{}}
			}
			if sn.code >= 0 && sess.Meta.ExitCode == nil && sess.Meta.Signal == nil {
				code := sn.code
				sess.Meta.ExitCode = &code
			}
			s.sendEnded(ctx, c, id, sess)
			<-ctx.Done()
			return
		}
		select {
		case <-ctx.Done():
			c.c.Close(websocket.StatusGoingAway, "")
			return
		case <-changed:
		case <-frame.C:
		case <-in.acks:
			awaiting = false
			ackTimer.Stop()
		case <-ackTimer.C:
			c.c.Close(websocket.StatusPolicyViolation, "no acknowledgement: the page stopped reading")
			return
		}
	}
}

// endRecordWait bounds the wait for an ended session's daemon to write
// how it ended, which can come after the end of its stream.
const endRecordWait = 3 * time.Second

// endedRecord loads an ended session's record once it says how the
// session ended, or as it is after endRecordWait.
func (s *server) endedRecord(ctx context.Context, id string) (layout.Session, error) {
	deadline := time.Now().Add(endRecordWait)
	for {
		sess, err := layout.At(s.o.Root).Load(id)
		if err != nil || sess.Meta == nil || sess.Meta.Exited() || sess.Meta.Signal != nil || time.Now().After(deadline) {
			return sess, err
		}
		t := time.NewTimer(50 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return sess, ctx.Err()
		case <-t.C:
		}
	}
}

func (s *server) sendEnded(ctx context.Context, c *wsConn, id string, sess layout.Session) {
	msg := endedMsg{T: "ended", Lines: []string{}}
	if sess.Meta != nil {
		msg.Code = sess.Meta.ExitCode
		if sess.Meta.Exited() || sess.Meta.Signal != nil {
			msg.How = listing.Ending(sess.Meta)
		}
		if sess.Meta.LastLines != nil {
			msg.Lines = sess.Meta.LastLines
		}
	}
	c.sendJSON(ctx, msg)
}

func (s *server) sendRecentEvents(ctx context.Context, c *wsConn, id string) {
	ls, _ := eventlog.Recent(s.o.Root, id, recentEvents)
	lines := []string{}
	for _, l := range ls {
		if l.Valid() {
			lines = append(lines, eventlog.Format(l, time.Local))
		}
	}
	c.sendJSON(ctx, map[string]any{"t": "events", "lines": lines})
}

// screenDiff is the message taking a page from prev (nil: nothing yet)
// to sn: the rows that changed, or all of them when the size did, after
// the scrollback rows hist (JSON array elements) that scrolled off since
// the last message. With reset, the page's scrollback is of another
// emulator and is dropped first.
func screenDiff(prev, sn *snapshot, hist []byte, reset bool) []byte {
	full := prev == nil || prev.rows != sn.rows || prev.cols != sn.cols
	var b bytes.Buffer
	b.WriteString(`{"t":"screen","rows":`)
	b.WriteString(strconv.Itoa(sn.rows))
	b.WriteString(`,"cols":`)
	b.WriteString(strconv.Itoa(sn.cols))
	b.WriteString(`,"title":`)
	b.Write(appendJSONString(nil, []byte(sn.title)))
	if sn.alt {
		b.WriteString(`,"alt":true`)
	}
	if full {
		b.WriteString(`,"full":true`)
	}
	if reset {
		b.WriteString(`,"histReset":true`)
	}
	if len(hist) > 0 {
		b.WriteString(`,"hist":[`)
		b.Write(hist)
		b.WriteByte(']')
	}
	b.WriteString(`,"lines":[`)
	n := 0
	for y, row := range sn.lines {
		if !full && y < len(prev.lines) && bytes.Equal(prev.lines[y], row) {
			continue
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		b.WriteByte('[')
		b.WriteString(strconv.Itoa(y))
		b.WriteByte(',')
		b.Write(row)
		b.WriteByte(']')
	}
	b.WriteString("]}")
	if n == 0 && !full && !reset && len(hist) == 0 && prev.title == sn.title && prev.alt == sn.alt {
		return nil
	}
	return b.Bytes()
}
