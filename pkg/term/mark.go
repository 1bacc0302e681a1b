package term

// HistMark names the scrollback's lines as they are at one moment, so
// that a caller can render them a few at a time, letting the screen take
// output in between: a line scrolled off keeps its content for as long as
// it stays in the scrollback, and the lines a mark names stay the same
// until they leave it, the scrollback is cleared, or a resize reflows it.
type HistMark struct {
	epoch uint64
	first uint64 // number of the oldest line
	n     int
}

// MarkHistory returns a mark of the scrollback as it is now.
func (s *Screen) MarkHistory() HistMark {
	return HistMark{epoch: s.hist.epoch, first: s.hist.seq - uint64(s.hist.n), n: s.hist.n}
}

// Len is how many lines the scrollback held at the mark.
func (m HistMark) Len() int { return m.n }

// LineForm is a rendering of one scrollback line.
type LineForm int

const (
	// FormANSI is a line of PeekANSI: its text with SGR attributes,
	// starting and ending with the default pen, no line break.
	FormANSI LineForm = iota
	// FormPlain is a line of PlainText, without its line break.
	FormPlain
	// FormHistory is a line of AppendHistory, each line starting from
	// the default pen: its line break (CR LF) included unless it
	// wrapped and is not the last line of the mark.
	FormHistory
)

// AppendMarkedLine appends line i (0 the oldest) of the scrollback as it
// was at m, in form f; ok is false, and b unchanged, once that line is no
// longer the one m named.
func (s *Screen) AppendMarkedLine(b []byte, m HistMark, i int, f LineForm) (_ []byte, ok bool) {
	if i < 0 || i >= m.n || m.epoch != s.hist.epoch {
		return b, false
	}
	oldest := s.hist.seq - uint64(s.hist.n)
	k := m.first + uint64(i)
	if k < oldest || k >= s.hist.seq {
		return b, false
	}
	h := s.hist.at(int(k - oldest))
	s.markBuf = h.appendCells(s.markBuf[:0])
	cells := s.markBuf
	switch f {
	case FormPlain:
		return s.appendPlain(b, cells), true
	case FormHistory:
		if !h.wrapped() {
			cells = trimDefaultBlanks(cells)
		}
		var cur Cell
		b = s.appendStyledCells(b, cells, &cur)
		if cur != (Cell{}) {
			b = s.appendLinkSwitch(b, cur, Cell{})
			b = append(b, "\x1b[0m"...)
		}
		if !h.wrapped() || i == m.n-1 {
			b = append(b, '\r', '\n')
		}
		return b, true
	}
	return s.appendANSILine(b, cells), true
}

// HistoryPrefix is what AppendHistory's output starts with: it puts the
// terminal in the state the lines are written in.
const HistoryPrefix = historyPrefix
