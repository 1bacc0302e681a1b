// Package quick is the one-shot exchange of "pty peek ID": a blocking
// socket, one PEEK, the screen printed. It is apart from package client so
// that pty-peek, which runs it in loops of scripts and status bars, links
// neither the runtime's network poller nor the terminal emulator that
// client's reattach links, whose set-up every start of a program pays
// (see cmd/pty-peek). Package client re-exports what it holds.
package quick

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"github.com/ptyorg/pty/internal/errs"
	"github.com/ptyorg/pty/internal/fsx"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/proto"
)

// Peek is client.Peek for the hot path of "pty peek ID", which scripts and
// status bars run in loops: it connects straight to the socket of the
// session whose id is exactly id, without reading the registry, and uses
// a blocking socket with kernel timeouts instead of the runtime's poller,
// so the whole exchange is a handful of system calls on one thread.
//
// An error wrapping ErrNotRunning (nothing listens on the socket, or the
// session has ended and lingers only to tell its clients) means "take the
// long way": read the registry, which knows ended sessions. A daemon that
// accepts but does not answer within timeout gives an error wrapping
// os.ErrDeadlineExceeded: it is running, so asking it again would only
// wait as long again.
func Peek(root, id string, flags byte, timeout time.Duration) ([]byte, error) {
	if err := layout.ValidateID(id); err != nil {
		return nil, err
	}
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		return nil, err
	}
	// Blocking, and never handed to os or net: reads and writes are
	// plain system calls, with no poller and no finalizer set up.
	defer unix.Close(fd)
	unix.CloseOnExec(fd)
	tv := unix.NsecToTimeval(timeout.Nanoseconds())
	unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_SNDTIMEO, &tv)
	name, done, err := fsx.SocketTarget(layout.At(root).Paths(id).Sock())
	if err != nil {
		return nil, errs.Both(ErrNotRunning, err)
	}
	defer done()
	sa := &unix.SockaddrUnix{Name: name}
	if err := retry(func() error { return unix.Connect(fd, sa) }); err != nil {
		if errors.Is(err, unix.EAGAIN) {
			// A full backlog: the daemon has stopped accepting.
			return nil, timedOut(timeout)
		}
		return nil, errs.Both(ErrNotRunning, err)
	}
	if err := writeAll(fd, proto.AppendFrame(nil, proto.Peek, proto.PeekRequest(flags))); err != nil {
		if errors.Is(err, unix.EAGAIN) {
			return nil, timedOut(timeout)
		}
		return nil, err
	}
	// GEOMETRY, then SCREEN (the one we want), perhaps EXIT between them.
	r := frameReader{fd: fd}
	for {
		t, payload, err := r.next()
		if errors.Is(err, unix.EAGAIN) {
			return nil, timedOut(timeout)
		}
		if err != nil {
			return nil, err
		}
		if IsRefusal(t) {
			return nil, RefusalOf(payload)
		}
		if t != proto.Screen {
			continue
		}
		if r.exitFollows() {
			// An ended session lingering to tell its clients: the long
			// way prints its saved last lines, or this screen when the
			// exit is not in the record yet (see EndedError).
			e := &EndedError{Screen: payload, Code: -1}
			if t, p, err := r.next(); err == nil && t == proto.Exit {
				e.Code = proto.ParseExitCode(p)
			}
			return nil, e
		}
		return payload, nil
	}
}

// writeAll writes b to the blocking socket fd.
func writeAll(fd int, b []byte) error {
	for len(b) > 0 {
		n, err := unix.Write(fd, b)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// A frameReader reads the frames of a blocking socket with as few reads
// as the daemon's writes allow, into one buffer: the frames of a peek are
// a few, and what proto.Reader would set up for a long stream (a 64 KiB
// buffer, a fresh slice per frame) costs a short-lived process page
// faults and heap set-up for nothing. Returned payloads stay valid: the
// buffer is only ever written past what has been returned, and replaced,
// not moved, when it is full.
type frameReader struct {
	fd         int
	buf        []byte
	start, end int // buf[start:end] is read and not yet returned
}

// firstRead is the buffer a frameReader reads into first: room for a
// plain screen of a wide terminal in one read.
const firstRead = 16 << 10

func (r *frameReader) next() (proto.Type, []byte, error) {
	for {
		avail := r.buf[r.start:r.end]
		need := proto.HeaderLen
		if len(avail) >= proto.HeaderLen {
			t, size := proto.ParseHeader(avail)
			if size > proto.MaxScreen {
				return 0, nil, proto.ErrTooLarge
			}
			need += int(size)
			if len(avail) >= need {
				r.start += need
				return t, avail[proto.HeaderLen:need:need], nil
			}
		}
		if r.end == len(r.buf) {
			// Full: a new buffer holding what is not returned yet, grown
			// as the bytes arrive rather than sized from the header (a
			// peer that claims 64 MiB and sends five bytes costs five
			// bytes), at least double what it holds.
			size := max(firstRead, min(need, 2*len(avail)), len(avail)+proto.HeaderLen)
			nb := make([]byte, size)
			r.end = copy(nb, avail)
			r.buf, r.start = nb, 0
		}
		n, err := unix.Read(r.fd, r.buf[r.end:])
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return 0, nil, err
		case n == 0 && r.end > r.start:
			return 0, nil, io.ErrUnexpectedEOF
		case n == 0:
			return 0, nil, io.EOF
		}
		r.end += n
	}
}

// exitFollows reports whether an EXIT frame comes right after the
// baseline: the daemon queues it with the baseline when the session has
// already ended, and sends both in one write, so it is either read
// already or waiting in the socket.
func (r *frameReader) exitFollows() bool {
	if r.start < r.end {
		return proto.Type(r.buf[r.start]) == proto.Exit
	}
	var b [1]byte
	n, _, _ := unix.Recvfrom(r.fd, b[:], unix.MSG_DONTWAIT|unix.MSG_PEEK)
	return n == 1 && proto.Type(b[0]) == proto.Exit
}

// EndedError is Peek's answer from a daemon whose session has ended
// and which lingers to tell its clients: the final screen and the exit
// code (-1 when the EXIT frame could not be read). It matches
// ErrNotRunning. The record normally holds the same; while the daemon
// cannot write it (a full disk) this is the only word on the exit.
type EndedError struct {
	Screen []byte
	Code   int
}

func (e *EndedError) Error() string        { return "session has ended" }
func (e *EndedError) Is(target error) bool { return target == ErrNotRunning }

// timedOut is the error of a socket whose kernel timeout expired: a
// blocking read or write then fails with EAGAIN.
func timedOut(d time.Duration) error {
	return errs.Text(os.ErrDeadlineExceeded.Error()+" (no answer within "+d.String()+")", os.ErrDeadlineExceeded)
}

// retry repeats a system call interrupted by a signal (the runtime's own
// preemption signals included: a socket with a timeout is not restarted).
func retry(f func() error) error {
	for {
		err := f()
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// PrintScreen writes a peeked screen the way pty peek prints it: as the
// daemon sent it (plain text without trailing blank lines), ending in
// exactly one newline.
//
// Whoever's daemon answered, the text carries no escape sequence but SGR
// (none at all when plain): the original's daemon ends its screen with the
// modes the program set (bracketed paste, say), which would otherwise
// print as text or change the reader's terminal.
func PrintScreen(w io.Writer, b []byte, plain bool) error {
	if plain && !hasControls(b) {
		// Our daemon's plain screens: written as they came, without
		// the copies the general case makes.
		b = append(bytes.TrimRight(b, "\n"), '\n')
		_, err := w.Write(b)
		return err
	}
	out := string(b)
	if plain {
		out = strings.TrimRight(TextOnly(out, false), "\n")
	} else {
		out = TextOnly(PeekText(out), true)
	}
	if !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	_, err := io.WriteString(w, out)
	return err
}

// maxCUF bounds the spaces one cursor-forward becomes: no screen is wider
// (proto.ClampSize).
const maxCUF = 1000

// hasControls reports whether b holds a byte that TextOnly removes or
// rewrites: a C0 control other than newline and tab, DEL, or a C1
// control (U+0080 to U+009F, which UTF-8 spells C2 80 to C2 9F; no
// other sequence holds the byte C2 but as its first). A byte loop rather
// than decoding runes, which would be most of the work of printing a wide
// screen.
func hasControls(b []byte) bool {
	for i, c := range b {
		switch {
		case c < 0x20 && c != '\n' && c != '\t', c == 0x7f:
			return true
		case c == 0xc2 && i+1 < len(b) && b[i+1] >= 0x80 && b[i+1] < 0xa0:
			return true
		}
	}
	return false
}

// TextOnly is s without escape sequences and control characters other
// than newline and tab, keeping SGR sequences and OSC 8 hyperlinks when
// sgr is set. A
// cursor-forward within a line (the original's daemon skips blank cells
// so) becomes the spaces it skips; CR LF becomes LF.
func TextOnly(s string, sgr bool) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 }) {
		return s // our daemon's screens: the common case costs one scan
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == 0x1b && i+1 < len(s) && s[i+1] == '[':
			j := i + 2
			for j < len(s) && s[j] >= 0x20 && s[j] <= 0x3f {
				j++
			}
			if j == len(s) {
				return b.String() // cut short: nothing of it is text
			}
			params, final := s[i+2:j], s[j]
			switch {
			case final == 'm' && sgr && !strings.ContainsAny(params, "<=>? !\"#$%&'()*+,-./"):
				b.WriteString(s[i : j+1])
			case final == 'C' && !strings.ContainsAny(params, "<=>?;: "):
				n := 1
				if params != "" {
					n, _ = strconv.Atoi(params)
				}
				b.WriteString(strings.Repeat(" ", min(max(n, 1), maxCUF)))
			}
			i = j + 1
		case c == 0x1b && i+1 < len(s) && strings.IndexByte("]P^_X", s[i+1]) >= 0:
			// A string (OSC, DCS, ...) up to BEL or ST.
			start := i
			j := i + 2
			for j < len(s) && s[j] != 0x07 && !(s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\') {
				j++
			}
			i = min(j+1, len(s))
			if j < len(s) && s[j] == 0x1b {
				i = j + 2
			}
			// An OSC 8 hyperlink goes with the styles: it changes how
			// text shows, not where it lands.
			if sgr && j < len(s) && isOSC8(s[start+2:j]) {
				b.WriteString(s[start:i])
			}
		case c == 0x1b:
			// ESC, its intermediates and final byte: charset choices,
			// keypad modes, saves and restores.
			j := i + 1
			for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
				j++
			}
			i = min(j+1, len(s))
		case c == '\r' && i+1 < len(s) && s[i+1] == '\n':
			i++
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && n == 1:
				b.WriteRune(utf8.RuneError) // as a terminal shows it
			case r < 0x20 && r != '\n' && r != '\t', r >= 0x7f && r < 0xa0:
				// C0, DEL and C1 controls: not text.
			default:
				b.WriteString(s[i : i+n])
			}
			i += n
		}
	}
	return b.String()
}

// isOSC8 reports whether an OSC body is a hyperlink ("8;params;URI"),
// made of printable ASCII only, as OSC 8 requires and our screens keep.
func isOSC8(body string) bool {
	rest, ok := strings.CutPrefix(body, "8;")
	if !ok || !strings.Contains(rest, ";") {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if rest[i] < 0x20 || rest[i] > 0x7e {
			return false
		}
	}
	return true
}

// PeekText is the text of a PEEK baseline in its SGR form as it is
// printed or split into lines: one "\n" per line, without the move to the
// program's cursor that ends it for a reader that draws it and follows
// the live output (docs/protocol.md). A baseline without them (the
// original's daemon's, whose moves use other sequences) is returned as
// it is, apart from its CRs before line feeds.
func PeekText(s string) string {
	if i := strings.LastIndexByte(s, '\r'); i >= 0 && !strings.HasPrefix(s[i:], "\r\n") && cursorMoveEnd(s[i+1:]) {
		s = strings.TrimRight(trimCUU(s[:i]), "\n")
	}
	return strings.ReplaceAll(s, "\r\n", "\n")
}

// cursorMoveEnd reports whether s is empty or one CUF.
func cursorMoveEnd(s string) bool {
	return s == "" || strings.HasPrefix(s, "\x1b[") && strings.HasSuffix(s, "C") && digits(s[2:len(s)-1])
}

// trimCUU drops one CUU at the end of s.
func trimCUU(s string) string {
	if !strings.HasSuffix(s, "A") {
		return s
	}
	if i := strings.LastIndex(s, "\x1b["); i >= 0 && digits(s[i+2:len(s)-1]) {
		return s[:i]
	}
	return s
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
