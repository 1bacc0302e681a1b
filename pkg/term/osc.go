package term

import (
	"bytes"
	"encoding/base64"
	"strconv"
	"strings"
)

// xtermPalette16 holds the xterm default RGB values of the 16 basic
// colours, used to answer OSC 4 queries.
var xtermPalette16 = [16][3]uint8{
	{0, 0, 0}, {205, 0, 0}, {0, 205, 0}, {205, 205, 0},
	{0, 0, 238}, {205, 0, 205}, {0, 205, 205}, {229, 229, 229},
	{127, 127, 127}, {255, 0, 0}, {0, 255, 0}, {255, 255, 0},
	{92, 92, 255}, {255, 0, 255}, {0, 255, 255}, {255, 255, 255},
}

// paletteRGB returns the xterm default value of 256-colour entry i.
func paletteRGB(i int) (r, g, b uint8) {
	switch {
	case i < 16:
		c := xtermPalette16[i]
		return c[0], c[1], c[2]
	case i < 232:
		i -= 16
		lv := func(v int) uint8 {
			if v == 0 {
				return 0
			}
			return uint8(55 + v*40)
		}
		return lv(i / 36), lv(i / 6 % 6), lv(i % 6)
	default:
		v := uint8(8 + (i-232)*10)
		return v, v, v
	}
}

func rgbSpec(r, g, b uint8) string {
	h := func(v uint8) string {
		s := strconv.FormatUint(uint64(v)*0x101, 16)
		return strings.Repeat("0", 4-len(s)) + s
	}
	return "rgb:" + h(r) + "/" + h(g) + "/" + h(b)
}

func (s *Screen) oscReply(body string) {
	term := "\x07"
	if s.oscEsc {
		term = "\x1b\\"
	}
	s.reply([]byte("\x1b]" + body + term))
}

func (s *Screen) handleOSC(data []byte) {
	cmdEnd := bytes.IndexByte(data, ';')
	var arg []byte
	num := data
	if cmdEnd >= 0 {
		num, arg = data[:cmdEnd], data[cmdEnd+1:]
	}
	cmd, err := strconv.Atoi(string(num))
	if err != nil {
		return
	}
	switch cmd {
	case 0, 2:
		s.setTitle(string(arg))
	case 4:
		// Pairs of index;spec; only queries are answered.
		parts := strings.Split(string(arg), ";")
		for i := 0; i+1 < len(parts); i += 2 {
			n, err := strconv.Atoi(parts[i])
			if err != nil || n < 0 || n > 255 || parts[i+1] != "?" {
				continue
			}
			r, g, b := paletteRGB(n)
			s.oscReply("4;" + parts[i] + ";" + rgbSpec(r, g, b))
		}
	case 10, 11:
		if string(arg) == "?" {
			v := uint8(255)
			if cmd == 11 {
				v = 0
			}
			s.oscReply(strconv.Itoa(cmd) + ";" + rgbSpec(v, v, v))
		}
	case 8:
		s.setLink(arg)
	case 9:
		body := string(arg)
		if isConEmuProgress(body) {
			return
		}
		s.emit(Event{Type: "notification", Body: body, Source: "osc9"})
	case 777:
		parts := strings.SplitN(string(arg), ";", 3)
		if len(parts) >= 2 && parts[0] == "notify" {
			e := Event{Type: "notification", Title: parts[1], Source: "osc777"}
			if len(parts) == 3 {
				e.Body = parts[2]
			}
			s.emit(e)
		}
	case 99:
		s.kittyNotification(string(arg))
	case 1337:
		if string(arg) == "StealFocus" {
			s.emit(Event{Type: "focus_request"})
		}
	}
}

// isConEmuProgress recognises OSC 9;4;state;progress, which reports
// progress rather than notifying.
func isConEmuProgress(body string) bool {
	rest, ok := strings.CutPrefix(body, "4;")
	if !ok && body != "4" {
		return false
	}
	for _, c := range rest {
		if (c < '0' || c > '9') && c != ';' {
			return false
		}
	}
	return true
}

// kittyNotification handles OSC 99 metadata;payload. Title and body may
// arrive in separate chunks (d=0 means more follows); without p= the payload
// is taken as the body.
func (s *Screen) kittyNotification(arg string) {
	meta, payload, ok := strings.Cut(arg, ";")
	if !ok {
		return
	}
	done, kind, b64 := true, "body", false
	for _, kv := range strings.Split(meta, ":") {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "d":
			done = v != "0"
		case "p":
			kind = v
		case "e":
			b64 = v == "1"
		}
	}
	if kind != "title" && kind != "body" {
		return
	}
	if b64 {
		dec, err := base64.StdEncoding.DecodeString(payload)
		if err != nil {
			return
		}
		payload = string(dec)
	}
	// The chunks are appended in place: building strings chunk by chunk
	// copied the whole pending text for each one.
	p := &s.kittyPending
	if len(p.title)+len(p.body)+len(payload) > maxOSC {
		p.title, p.body = p.title[:0], p.body[:0]
		return
	}
	if kind == "title" {
		p.title = append(p.title, payload...)
	} else {
		p.body = append(p.body, payload...)
	}
	if !done {
		return
	}
	e := Event{Type: "notification", Title: string(p.title), Body: string(p.body), Source: "osc99"}
	p.title, p.body = p.title[:0], p.body[:0]
	s.emit(e)
}

// setTitle changes the title, reporting only actual changes.
func (s *Screen) setTitle(t string) {
	if t != s.title {
		s.title = t
		s.emit(Event{Type: "title_change", Value: t})
	}
}
