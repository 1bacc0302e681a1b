package ansi

import "github.com/charmbracelet/x/ansi/parser"

// Params represents a list of packed parameters.
type Params []Param

// Param returns the parameter at the given index and if it is part of a
// sub-parameters. It falls back to the default value if the parameter is
// missing. If the index is out of bounds, it returns the default value and
// false.
func (p Params) Param(i, def int) (int, bool, bool) {
	if i < 0 || i >= len(p) {
		return def, false, false
	}
	return p[i].Param(def), p[i].HasMore(), true
}

// ForEach iterates over the parameters and calls the given function for each
// parameter. If a parameter is part of a sub-parameter, it will be called with
// hasMore set to true.
// Use def to set a default value for missing parameters.
func (p Params) ForEach(def int, f func(i, param int, hasMore bool)) {
	for i := range p {
		f(i, p[i].Param(def), p[i].HasMore())
	}
}

// Handler handles actions performed by the parser.
// It is used to handle ANSI escape sequences, control characters, and runes.
type Handler struct {
	// Print is called when a printable rune is encountered.
	Print func(r rune)
	// Execute is called when a control character is encountered.
	Execute func(b byte)
	// HandleCsi is called when a CSI sequence is encountered.
	HandleCsi func(cmd Cmd, params Params)
	// HandleEsc is called when an ESC sequence is encountered.
	HandleEsc func(cmd Cmd)
	// HandleDcs is called when a DCS sequence is encountered.
	HandleDcs func(cmd Cmd, params Params, data []byte)
	// HandleOsc is called when an OSC sequence is encountered.
	HandleOsc func(cmd int, data []byte)
	// HandlePm is called when a PM sequence is encountered.
	HandlePm func(data []byte)
	// HandleApc is called when an APC sequence is encountered.
	HandleApc func(data []byte)
	// HandleSos is called when a SOS sequence is encountered.
	HandleSos func(data []byte)
}

// SetHandler sets the handler for the parser.
func (p *Parser) SetHandler(h Handler) {
	p.handler = h
}

// ESC is the escape control character.
const ESC = 0x1B

// Cmd represents a sequence command. This is used to pack/unpack a sequence
// command with its intermediate and prefix characters. Those are commonly
// found in CSI and DCS sequences.
type Cmd int

// Prefix returns the unpacked prefix byte of the CSI sequence.
// This is always gonna be one of the following '<' '=' '>' '?' and in the
// range of 0x3C-0x3F.
// Zero is returned if the sequence does not have a prefix.
func (c Cmd) Prefix() byte {
	return byte(parser.Prefix(int(c))) //nolint:gosec
}

// Intermediate returns the unpacked intermediate byte of the CSI sequence.
// An intermediate byte is in the range of 0x20-0x2F. This includes these
// characters from ' ', '!', '"', '#', '$', '%', '&', ”', '(', ')', '*', '+',
// ',', '-', '.', '/'.
// Zero is returned if the sequence does not have an intermediate byte.
func (c Cmd) Intermediate() byte {
	return byte(parser.Intermediate(int(c))) //nolint:gosec
}

// Final returns the unpacked command byte of the CSI sequence.
func (c Cmd) Final() byte {
	return byte(parser.Command(int(c))) //nolint:gosec
}

// Command packs a command with the given prefix, intermediate, and final. A
// zero byte means the sequence does not have a prefix or intermediate.
//
// Prefixes are in the range of 0x3C-0x3F that is one of `<=>?`.
//
// Intermediates are in the range of 0x20-0x2F that is anything in
// `!"#$%&'()*+,-./`.
//
// Final bytes are in the range of 0x40-0x7E that is anything in the range
// `@A–Z[\]^_`a–z{|}~`.
func Command(prefix, inter, final byte) (c int) {
	c = int(final)
	c |= int(prefix) << parser.PrefixShift
	c |= int(inter) << parser.IntermedShift
	return c
}

// Param represents a sequence parameter. Sequence parameters with
// sub-parameters are packed with the HasMoreFlag set. This is used to unpack
// the parameters from a CSI and DCS sequences.
type Param int

// Param returns the unpacked parameter at the given index.
// It returns the default value if the parameter is missing.
func (s Param) Param(def int) int {
	p := int(s) & parser.ParamMask
	if p == parser.MissingParam {
		return def
	}
	return p
}

// HasMore unpacks the HasMoreFlag from the parameter.
func (s Param) HasMore() bool {
	return s&parser.HasMoreFlag != 0
}

// Parameter packs an escape code parameter with the given parameter and
// whether this parameter has following sub-parameters.
func Parameter(p int, hasMore bool) (s int) {
	s = p & parser.ParamMask
	if hasMore {
		s |= parser.HasMoreFlag
	}
	return s
}
