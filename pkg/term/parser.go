package term

import (
	"math"
	"unicode/utf8"
)

// The control-sequence parser: the DEC/ECMA-48 state machine (ground,
// escape, CSI, DCS and the string states) that feeds the Screen's
// handlers. It is the package's own so that what links the emulator
// stays small: every session daemon has one, and a terminal-toolkit
// package brought width tables, colour and URL packages whose
// initialisation wrote some hundred kilobytes of private memory into each
// daemon. Its behaviour, down to the handling of C1 bytes, UTF-8 inside
// a sequence and overlong parameter lists, is that of the toolkit's
// parser the emulator was written against (TestParserMatchesToolkit
// compares the two).

// pstate is the parser's state. Screen.Write reads it to decide which
// bytes it handles itself.
type pstate uint8

const (
	stGround pstate = iota
	stCsiEntry
	stCsiInter
	stCsiParam
	stDcsEntry
	stDcsInter
	stDcsParam
	stDcsString
	stEscape
	stEscInter
	stOsc
	stSos
	stPm
	stApc
	stUTF8
)

// executesC0 reports whether a C0 control met in state st executes and
// leaves the sequence as it was (CSI and escape sequences).
func (st pstate) executesC0() bool {
	return st >= stCsiEntry && st <= stCsiParam || st == stEscape || st == stEscInter
}

// inString reports whether st is inside a DCS, SOS, PM or APC sequence.
func (st pstate) inString() bool {
	return st >= stDcsEntry && st <= stDcsString || st >= stSos && st <= stApc
}

// seqParam is one parameter of a sequence: its value, paramMissing when it
// was left out, and paramMore set when a ':' (a sub-parameter) follows.
type seqParam int

const (
	paramMore    = math.MinInt32
	paramMissing = ^paramMore
)

// Param is the parameter's value, def when it is missing.
func (p seqParam) Param(def int) int {
	v := int(p) & paramMissing
	if v == paramMissing {
		return def
	}
	return v
}

// HasMore reports whether a sub-parameter follows (a ':' after it).
func (p seqParam) HasMore() bool { return int(p)&paramMore != 0 }

type seqParams []seqParam

// seqCmd is a sequence's final byte, with its prefix ('?', '>', '<', '=')
// and its last intermediate byte packed above it.
type seqCmd int

func (c seqCmd) Final() byte        { return byte(c) }
func (c seqCmd) Prefix() byte       { return byte(c >> 8) }
func (c seqCmd) Intermediate() byte { return byte(c >> 16) }

const (
	maxParams = 32
	// maxData bounds a DCS payload kept; the rest is dropped.
	maxData = 4096
	// noCmd marks a string sequence's command as not yet known.
	noCmd = paramMissing
)

// seqHandler takes what the parser finds: the Screen. It may keep
// nothing it is passed.
type seqHandler interface {
	printRune(r rune)
	execute(b byte)
	handleCSI(cmd seqCmd, ps seqParams)
	handleESC(cmd seqCmd)
	handleDCS(cmd seqCmd, ps seqParams, data []byte)
}

// parser holds a sequence as it is read.
type parser struct {
	s     seqHandler
	state pstate
	cmd   int
	n     int // parameters complete; in stUTF8, the rune's bytes
	ps    [maxParams]seqParam
	data  []byte // allocated at the first DCS
}

func (p *parser) reset() {
	p.clear()
	p.state = stGround
}

func (p *parser) clear() {
	p.ps[0] = paramMissing
	p.n = 0
	p.cmd = 0
}

// isC0 is a C0 control other than CAN, SUB and ESC, which act the same
// in every state.
func isC0(b byte) bool { return b < 0x20 && b != 0x18 && b != 0x1a && b != 0x1b }

// advance feeds one byte.
func (p *parser) advance(b byte) {
	if p.state == stUTF8 {
		p.utf8Byte(b)
		return
	}
	old := p.state
	next, act := transition(old, b)
	if next != old {
		if old == stEscape {
			p.clear()
		}
		if act == actPut && old == stDcsEntry && next == stDcsString {
			p.start(old, 0)
		}
	}
	if b == 0x1b && old == stEscape {
		act = actExecute // ESC ESC: the first one executes
	}
	switch act {
	case actClear:
		p.clear()
	case actPrint:
		p.cmd = int(b)
		p.s.printRune(rune(b))
	case actExecute:
		p.cmd = int(b)
		p.s.execute(b)
	case actPrefix:
		p.cmd = p.cmd&^(0xff<<8) | int(b)<<8
	case actCollect:
		if next == stUTF8 {
			p.n = 0
			p.collectRune(b)
		} else {
			p.cmd = p.cmd&^(0xff<<16) | int(b)<<16
		}
	case actParam:
		p.addParam(b)
	case actStart:
		p.start(old, b)
	case actPut:
		if p.data == nil {
			p.data = make([]byte, 0, maxData)
		}
		if len(p.data) < maxData {
			p.data = append(p.data, b)
		}
	case actDispatch:
		p.dispatch(old, b)
	}
	p.state = next
}

func (p *parser) addParam(b byte) {
	if p.n >= maxParams {
		return
	}
	switch {
	case b >= '0' && b <= '9':
		if p.ps[p.n] == paramMissing {
			p.ps[p.n] = 0
		}
		p.ps[p.n] = p.ps[p.n]*10 + seqParam(b-'0')
	case b == ':':
		p.ps[p.n] |= paramMore
		fallthrough
	case b == ';':
		p.n++
		if p.n < maxParams {
			p.ps[p.n] = paramMissing
		}
	}
}

// start begins a string sequence's payload; a DCS keeps the byte that
// began it as its final.
func (p *parser) start(old pstate, b byte) {
	p.data = p.data[:0]
	if old >= stDcsEntry && old <= stDcsString {
		p.cmd |= int(b)
	} else {
		p.cmd = noCmd
	}
}

func (p *parser) dispatch(old pstate, b byte) {
	// The parameter being read when the sequence ended counts, unless
	// the list overflowed.
	if p.n > 0 && p.n < maxParams-1 || p.n == 0 && p.ps[0] != paramMissing {
		p.n++
	}
	switch old {
	case stCsiEntry, stCsiParam, stCsiInter:
		p.cmd |= int(b)
		p.s.handleCSI(seqCmd(p.cmd), p.ps[:p.n])
	case stEscape, stEscInter:
		p.cmd |= int(b)
		p.s.handleESC(seqCmd(p.cmd))
	case stDcsEntry, stDcsParam, stDcsInter, stDcsString:
		p.s.handleDCS(seqCmd(p.cmd), p.ps[:p.n], p.data)
	}
}

// collectRune keeps a byte of a UTF-8 sequence met inside a control
// sequence, in cmd's bytes from the lowest.
func (p *parser) collectRune(b byte) {
	if p.n >= utf8.UTFMax {
		return
	}
	shift := p.n * 8
	p.cmd = p.cmd&^(0xff<<shift) | int(b)<<shift
	p.n++
}

func (p *parser) utf8Byte(b byte) {
	p.collectRune(b)
	lead := byte(p.cmd)
	size := 4
	switch {
	case lead < 0xe0:
		size = 2
	case lead < 0xf0:
		size = 3
	}
	if p.n < size {
		return
	}
	var buf [utf8.UTFMax]byte
	for i := range size {
		buf[i] = byte(p.cmd >> (8 * i))
	}
	r, _ := utf8.DecodeRune(buf[:size])
	p.s.printRune(r)
	p.state = stGround
	p.n = 0
}

// The parser's actions.
type action uint8

const (
	actNone action = iota
	actClear
	actCollect
	actPrefix
	actDispatch
	actExecute
	actStart
	actPut
	actParam
	actPrint
)

// transition is the state machine: the state after b in st, and what to
// do with b.
func transition(st pstate, b byte) (pstate, action) {
	switch st {
	case stGround:
		switch {
		case isC0(b) || b == 0x7f:
			return stGround, actExecute
		case b >= 0x20 && b < 0x7f:
			return stGround, actPrint
		}
	case stEscape:
		switch {
		case isC0(b):
			return stEscape, actExecute
		case b == 0x7f:
			return stEscape, actNone
		case b >= 0x20 && b <= 0x2f:
			return stEscInter, actCollect
		case b == 'P':
			return stDcsEntry, actClear
		case b == '[':
			return stCsiEntry, actClear
		case b == ']':
			return stOsc, actStart
		case b == 'X':
			return stSos, actStart
		case b == '^':
			return stPm, actStart
		case b == '_':
			return stApc, actStart
		case b >= 0x30 && b <= 0x7e:
			return stGround, actDispatch
		}
	case stEscInter:
		switch {
		case isC0(b):
			return stEscInter, actExecute
		case b == 0x7f:
			return stEscInter, actNone
		case b >= 0x20 && b <= 0x2f:
			return stEscInter, actCollect
		case b >= 0x30 && b <= 0x7e:
			return stGround, actDispatch
		}
	case stCsiEntry, stCsiParam, stCsiInter:
		switch {
		case isC0(b):
			return st, actExecute
		case b == 0x7f:
			return st, actNone
		case b >= 0x20 && b <= 0x2f:
			return stCsiInter, actCollect
		case b >= 0x40 && b <= 0x7e:
			return stGround, actDispatch
		case st == stCsiInter && b >= 0x30 && b <= 0x3f:
			return stGround, actNone // a malformed sequence ends here
		case b >= 0x30 && b <= 0x3b:
			return stCsiParam, actParam
		case b >= 0x3c && b <= 0x3f && st == stCsiEntry:
			return stCsiParam, actPrefix
		case b >= 0x3c && b <= 0x3f:
			return stCsiParam, actNone
		}
	case stDcsEntry, stDcsParam, stDcsInter:
		switch {
		case st == stDcsEntry && (b >= 0x08 && b <= 0x0d || b == 0x1b):
			return stDcsString, actPut
		case isC0(b) || b == 0x7f:
			return st, actNone
		case b >= 0x20 && b <= 0x2f:
			return stDcsInter, actCollect
		case b >= 0x40 && b <= 0x7e, st == stDcsInter && b >= 0x30 && b <= 0x3f:
			return stDcsString, actStart
		case b >= 0x30 && b <= 0x3b:
			return stDcsParam, actParam
		case b >= 0x3c && b <= 0x3f && st == stDcsEntry:
			return stDcsParam, actPrefix
		case b >= 0x3c && b <= 0x3f:
			return stDcsParam, actNone
		}
	case stDcsString:
		switch b {
		case 0x1b:
			return stEscape, actDispatch
		case 0x9c:
			return stGround, actDispatch
		case 0x18, 0x1a:
			return stGround, actNone
		}
		return stDcsString, actPut
	case stSos, stPm, stApc:
		switch {
		case b == 0x1b:
			return stEscape, actDispatch
		case b == 0x9c:
			return stGround, actDispatch
		case b == 0x18 || b == 0x1a:
			return stGround, actNone
		case b <= 0x7f:
			return st, actPut
		}
	case stOsc:
		switch {
		case b == 0x1b:
			return stEscape, actDispatch
		case b == 0x07 || b == 0x9c:
			return stGround, actDispatch
		case b == 0x18 || b == 0x1a:
			return stGround, actNone
		case b >= 0x20:
			return stOsc, actPut
		default:
			return stOsc, actNone
		}
	}
	return anywhere(b)
}

// anywhere is what b does in any state that has no use of its own for it.
func anywhere(b byte) (pstate, action) {
	switch {
	case b == 0x1b:
		return stEscape, actClear
	case b == 0x18 || b == 0x1a:
		return stGround, actExecute
	case b == 0x90:
		return stDcsEntry, actClear
	case b == 0x9b:
		return stCsiEntry, actClear
	case b == 0x9d:
		return stOsc, actStart
	case b == 0x98:
		return stSos, actStart
	case b == 0x9e:
		return stPm, actStart
	case b == 0x9f:
		return stApc, actStart
	case b >= 0x80 && b <= 0x9c && b != 0x9b:
		return stGround, actExecute
	case b >= 0xc2 && b <= 0xf4:
		return stUTF8, actCollect
	}
	return stGround, actNone
}
