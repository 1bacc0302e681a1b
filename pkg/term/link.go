package term

// OSC 8 hyperlinks. A cell's link lives in the entry its ul field already
// indexes (Screen.ulColors, now an underline colour and a link), so cells
// stay 16 bytes and the printing loops are untouched; a session that never
// sends OSC 8 has no link table at all. Links are interned per screen and
// bounded by maxLinks; when the table is full, a walk over the screens and
// the scrollback frees the links no cell refers to any more.

import "strings"

const (
	// maxLinks bounds the links alive on one screen (its cells, its
	// scrollback and the pen); a new link past it is dropped and its text
	// prints without a link.
	maxLinks = 1024
	// maxLinkURI bounds a link's URI, VTE's limit; a longer URI opens
	// no link.
	maxLinkURI = 2083
	// maxLinkID bounds the id= parameter, VTE's limit; a longer one is
	// dropped and the link kept.
	maxLinkID = 250
	// collectEvery is how many cells or runs a collection may visit per
	// link made or dropped since the last one.
	collectEvery = 256
)

// linkTable holds a screen's hyperlinks. Entry 0 is "no link".
type linkTable struct {
	targets []string          // "id;uri" as OSC 8 carries it, "" when free
	ids     map[string]uint16 // target -> index
	free    []uint16          // indices of freed entries
	// ulLinks[i] is the link of ulColors[i] (nil until a link is used).
	ulLinks []uint16
	extIDs  map[penExt]uint16 // entries with a link
	extFree []uint16          // freed entries of ulColors
	// walk is how many cells and runs the last collection visited and
	// events how many links were made or dropped since: a collection
	// waits for walk/collectEvery events, which keeps its cost per link
	// bounded however large the scrollback is.
	walk, events int
}

type penExt struct {
	ul   Color
	link uint16
}

// linkOf returns the link index of a pen or cell's ul entry.
func (s *Screen) linkOf(ul uint16) uint16 {
	if int(ul) < len(s.links.ulLinks) {
		return s.links.ulLinks[ul]
	}
	return 0
}

// keepLink is the ul entry with the default underline colour and ul's
// link: what SGR 0 and SGR 59 leave, as they do not end a hyperlink.
func (s *Screen) keepLink(ul uint16) uint16 {
	if s.links.ulLinks == nil {
		return 0
	}
	return s.extIndex(ColorDefault, s.linkOf(ul))
}

// Link returns the OSC 8 link of a cell: its id parameter ("" when it
// has none) and its URI ("" when the cell is not a link).
func (s *Screen) Link(c Cell) (id, uri string) {
	l := s.linkOf(c.ul)
	if l == 0 {
		return "", ""
	}
	id, uri, _ = strings.Cut(s.links.targets[l], ";")
	return id, uri
}

// extIndex interns an underline colour with a link.
func (s *Screen) extIndex(ul Color, link uint16) uint16 {
	if link == 0 {
		return s.ulIndex(ul)
	}
	t := &s.links
	k := penExt{ul, link}
	if id, ok := t.extIDs[k]; ok {
		return id
	}
	if len(s.ulColors) == 0 {
		s.ulColors = append(s.ulColors, ColorDefault)
		s.ulIDs = make(map[Color]uint16)
	}
	if t.extIDs == nil {
		t.extIDs = make(map[penExt]uint16)
	}
	var id uint16
	if n := len(t.extFree); n > 0 {
		id = t.extFree[n-1]
		t.extFree = t.extFree[:n-1]
		s.ulColors[id] = ul
	} else {
		if len(s.ulColors) > maxULColors {
			return 0
		}
		id = uint16(len(s.ulColors))
		s.ulColors = append(s.ulColors, ul)
	}
	for len(t.ulLinks) < len(s.ulColors) {
		t.ulLinks = append(t.ulLinks, 0)
	}
	t.ulLinks[id] = link
	t.extIDs[k] = id
	return id
}

// setLink handles OSC 8: params;URI opens a link for what is printed
// next, an empty URI closes it.
func (s *Screen) setLink(arg []byte) {
	params, uri, ok := strings.Cut(string(arg), ";")
	link := uint16(0)
	if ok && uri != "" && len(uri) <= maxLinkURI && printable(uri) {
		link = s.linkIndex(linkID(params) + ";" + uri)
	}
	cur := s.linkOf(s.pen.ul)
	if link == cur {
		return
	}
	if link == 0 && s.links.ulLinks == nil {
		return
	}
	s.pen.ul = s.extIndex(s.UnderlineColor(s.pen), link)
}

// linkID returns the id=VALUE parameter of OSC 8's colon-separated
// params, the only one terminals define, or "".
func linkID(params string) string {
	for _, p := range strings.Split(params, ":") {
		if v, ok := strings.CutPrefix(p, "id="); ok && v != "" && len(v) <= maxLinkID && printable(v) && !strings.ContainsAny(v, ";:") {
			return "id=" + v
		}
	}
	return ""
}

// printable reports whether s has only printable ASCII, what OSC 8
// allows in a URI; anything else could not be sent again safely.
func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// linkIndex interns a link target, 0 when the table is full.
func (s *Screen) linkIndex(target string) uint16 {
	t := &s.links
	if id, ok := t.ids[target]; ok {
		return id
	}
	if t.ids == nil {
		t.ids = make(map[string]uint16)
		t.targets = []string{""}
	}
	t.events++
	if len(t.free) == 0 && len(t.targets) > maxLinks && !s.collectLinks() {
		return 0
	}
	var id uint16
	if n := len(t.free); n > 0 {
		id = t.free[n-1]
		t.free = t.free[:n-1]
		t.targets[id] = target
	} else {
		id = uint16(len(t.targets))
		t.targets = append(t.targets, target)
	}
	t.ids[target] = id
	return id
}

// collectLinks frees the links and ul entries no cell, pen or saved
// cursor refers to; it reports whether a link entry is free afterwards.
func (s *Screen) collectLinks() bool {
	t := &s.links
	if t.events*collectEvery < t.walk {
		return false
	}
	used := make([]bool, len(s.ulColors))
	mark := func(ul uint16) {
		if int(ul) < len(used) {
			used[ul] = true
		}
	}
	walked := 0
	visit := func(cells []Cell) {
		walked += len(cells)
		for i := range cells {
			mark(cells[i].ul)
		}
	}
	for _, g := range []*grid{&s.main, &s.alt} {
		for i := range g.lines {
			visit(g.lines[i].cells)
		}
	}
	for i := range s.hist.n {
		h := s.hist.at(i)
		if raw := h.raw(); raw != nil {
			visit(raw)
			continue
		}
		data := h.data()
		for off := h.textLen(); off < len(data); walked++ {
			var r styleRun
			r, off = h.run(off)
			mark(r.ul)
		}
	}
	mark(s.pen.ul)
	for _, sc := range s.saved {
		mark(sc.pen.ul)
	}
	linkUsed := make([]bool, len(t.targets))
	for i, l := range t.ulLinks {
		if l != 0 && used[i] {
			linkUsed[l] = true
		}
	}
	for i, l := range t.ulLinks {
		if l != 0 && !used[i] {
			delete(t.extIDs, penExt{s.ulColors[i], l})
			t.ulLinks[i] = 0
			t.extFree = append(t.extFree, uint16(i))
		}
	}
	for i := 1; i < len(t.targets); i++ {
		if !linkUsed[i] && t.targets[i] != "" {
			delete(t.ids, t.targets[i])
			t.targets[i] = ""
			t.free = append(t.free, uint16(i))
		}
	}
	t.walk, t.events = walked, 0
	return len(t.free) > 0
}

// appendLinkSwitch appends the OSC 8 that goes from from's link to to's,
// nothing when they are the same (always, on a screen without links).
func (s *Screen) appendLinkSwitch(b []byte, from, to Cell) []byte {
	if s.links.ulLinks == nil {
		return b
	}
	l := s.linkOf(to.ul)
	if s.linkOf(from.ul) == l {
		return b
	}
	b = append(b, "\x1b]8;"...)
	if l == 0 {
		b = append(b, ';')
	} else {
		b = append(b, s.links.targets[l]...)
	}
	return append(b, "\x1b\\"...)
}
