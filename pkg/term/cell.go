package term

import "unsafe"

// Color is a cell colour. The top byte is the kind so that a colour set by
// SGR 31 is re-emitted as 31 (and themed by the outer terminal) rather than
// being flattened to RGB; the low 24 bits are the palette index or RGB value.
type Color uint32

// Colour kinds stored in the top byte of a Color.
const (
	ColorKindDefault = 0 // the terminal's default colour
	ColorKindBasic   = 1 // index 0-15 set by SGR 30-37/90-97 (40-47/100-107)
	ColorKindIndexed = 2 // index 0-255 set by SGR 38;5;N
	ColorKindRGB     = 3 // truecolor set by SGR 38;2;R;G;B
)

// ColorDefault is the terminal's default foreground or background.
const ColorDefault Color = 0

// BasicColor returns palette colour i (0-15) as set by SGR 30-37 / 90-97.
func BasicColor(i uint8) Color { return Color(ColorKindBasic<<24 | uint32(i&15)) }

// IndexedColor returns 256-colour palette entry i as set by SGR 38;5;i.
func IndexedColor(i uint8) Color { return Color(ColorKindIndexed<<24 | uint32(i)) }

// RGBColor returns a truecolor value as set by SGR 38;2;r;g;b.
func RGBColor(r, g, b uint8) Color {
	return Color(ColorKindRGB<<24 | uint32(r)<<16 | uint32(g)<<8 | uint32(b))
}

// Kind returns one of the ColorKind constants.
func (c Color) Kind() int { return int(c >> 24) }

// Index returns the palette index of a basic or indexed colour.
func (c Color) Index() uint8 { return uint8(c) }

// RGB returns the components of a truecolor value.
func (c Color) RGB() (r, g, b uint8) { return uint8(c >> 16), uint8(c >> 8), uint8(c) }

// Attr holds the boolean rendition attributes, the underline style and the
// wide-character bookkeeping flags of a cell.
type Attr uint16

// Attribute bits.
const (
	AttrBold Attr = 1 << iota
	AttrDim
	AttrItalic
	AttrBlink
	AttrReverse
	AttrHidden
	AttrStrike
	AttrOverline
	// AttrWide marks the first cell of a double-width character.
	AttrWide
	// AttrWideCont marks the second (continuation) cell of a wide character;
	// it carries no rune of its own.
	AttrWideCont
	// AttrProtected is DECSCA's protection: the selective erases (DECSED,
	// DECSEL) leave the character alone. It is part of the pen, so it is
	// printed into cells, but not of the rendition: SGR 0 keeps it, as
	// in xterm, and captures do not show it.
	AttrProtected
)

// Underline styles live in bits 12-14 of Attr.
const (
	underlineShift = 12
	underlineMask  = Attr(7) << underlineShift

	UnderlineNone   = 0
	UnderlineSingle = 1
	UnderlineDouble = 2
	UnderlineCurly  = 3
	UnderlineDotted = 4
	UnderlineDashed = 5
)

// styleMask selects the bits that are part of the pen (not the wide flags).
const styleMask = ^(AttrWide | AttrWideCont)

// renditionMask selects the bits that SGR sets, which are what captures
// and redraws compare to decide whether to emit an SGR.
const renditionMask = styleMask &^ AttrProtected

// Underline returns the underline style (Underline* constants).
func (a Attr) Underline() int { return int(a&underlineMask) >> underlineShift }

func (a Attr) withUnderline(u int) Attr {
	return a&^underlineMask | Attr(u&7)<<underlineShift
}

// Cell is one character cell: 16 bytes. R == 0 is a blank (erased or never
// written) cell and prints as a space. Runes >= clusterBase index the
// screen's table of grapheme clusters (a base rune plus combining marks),
// which keeps the common case free of per-cell allocations. The underline
// colour (SGR 58) is rare, so it is an index into a per-screen table of
// colours (Screen.UnderlineColor) rather than a fourth colour per cell.
type Cell struct {
	_    [0]uint64 // 8-byte alignment, for asciiRun's word access
	R    rune
	Fg   Color
	Bg   Color
	Attr Attr
	// ul indexes Screen.ulColors, 0 being the default colour. It is in
	// the word that asciiRun compares with Bg and Attr, so it is part of
	// the pen there for free.
	ul uint16
}

// clusterBase is the first rune value (just past Unicode) used for
// references into the cluster table.
const clusterBase = 0x110000

// maxClusters bounds the cluster table so hostile output cannot grow it
// without limit; past it, combining marks are dropped.
const maxClusters = 1 << 16

// maxClusterBytes bounds the UTF-8 length of one cell's grapheme cluster
// (its base and combining marks); further marks are dropped. It is long
// enough for the longest emoji ZWJ sequences in common use (a family of
// four is 25 bytes) and for a letter with several accents, and it bounds
// the cluster table to maxClusters short strings.
const maxClusterBytes = 32

// littleEndian is fixed at init; packAttrUL follows the memory layout.
var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// packAttrUL returns an Attr and an underline colour index laid out as
// Cell.Attr and Cell.ul are, for setAttrUL: the printing loops store both
// with one write. It is computed in registers; going through memory
// stalled store forwarding.
func packAttrUL(a Attr, ul uint16) uint32 {
	if littleEndian {
		return uint32(a) | uint32(ul)<<16
	}
	return uint32(a)<<16 | uint32(ul)
}

// cellWords returns c as the two machine words it occupies. It is
// computed in registers: storing the fields and loading the words back
// stalled store forwarding.
func cellWords(c Cell) (uint64, uint64) {
	if littleEndian {
		return uint64(uint32(c.R)) | uint64(c.Fg)<<32,
			uint64(c.Bg) | uint64(c.Attr)<<32 | uint64(c.ul)<<48
	}
	return uint64(uint32(c.R))<<32 | uint64(c.Fg),
		uint64(c.Bg)<<32 | uint64(c.Attr)<<16 | uint64(c.ul)
}

// cellRUnit is the first word of a cell whose R is 1: R's place in the
// word, whatever the byte order.
func cellRUnit() uint64 {
	if littleEndian {
		return 1
	}
	return 1 << 32
}

func (c *Cell) setAttrUL(v uint32) { *(*uint32)(unsafe.Pointer(&c.Attr)) = v }

// maxULColors bounds the table of underline colours; past it, new
// colours are dropped (the underline takes the text colour).
const maxULColors = 1<<16 - 1

// sameStyle reports whether two cells of one screen render with the same
// SGR rendition.
func sameStyle(a, b Cell) bool {
	return a.Fg == b.Fg && a.Bg == b.Bg && a.Attr&renditionMask == b.Attr&renditionMask && a.ul == b.ul
}

// isDefaultBlank reports whether c is indistinguishable from a never-written
// cell, which lets trailing cells be dropped from scrollback and output.
func isDefaultBlank(c Cell) bool {
	// Written to stay cheap enough for trimmedLen to be inlined.
	return c.R|' ' == ' ' && c.Fg|c.Bg == 0 && c.Attr&^AttrProtected == 0 && c.ul == 0
}

func runeWidth(r rune) int {
	if r < 0x300 {
		if r < 0x20 || (r >= 0x7f && r < 0xa0) {
			return 0
		}
		return 1 // the soft hyphen U+00AD included, as wcwidth(3) counts it
	}
	if r >= 0x1160 && (r <= 0x11ff || r >= 0xd7b0 && r <= 0xd7ff) {
		// Conjoining Hangul vowels and trailing consonants join the
		// leading consonant before them into one 2-column syllable
		// (glibc wcwidth, xterm.js, tmux); go-runewidth counts them 2.
		return 0
	}
	return tableWidth(r)
}

//go:generate go run gen_width.go

// tableWidth is go-runewidth's width of r (StrictEmojiNeutral, which
// matches wcwidth(3) for ambiguous runes), from the 14 KB table
// gen_width.go builds. go-runewidth itself fills a 2.2 MB table over all
// of Unicode on its first lookup past U+02FF, which every session daemon
// would pay the first time its child prints a box-drawing character.
func tableWidth(r rune) int {
	if r < 0 || r > 0x10ffff {
		return 0
	}
	b := &widthBlocks[widthIndex[r>>widthBlockBits]]
	i := r & (1<<widthBlockBits - 1)
	return int(b[i>>2]>>(uint(i&3)*2)) & 3
}

// decGraphics maps 0x5f..0x7e to the DEC special graphics (line drawing)
// characters.
var decGraphics = [...]rune{
	' ', // 0x5f blank
	'◆', '▒', '␉', '␌', '␍', '␊', '°', '±', '␤', '␋', '┘', '┐', '┌', '└', '┼', '⎺',
	'⎻', '─', '⎼', '⎽', '├', '┤', '┴', '┬', '│', '≤', '≥', 'π', '≠', '£', '·',
}
