// Package jsonlite reads and writes JSON without reflection, for the session
// daemon. Measured by what a session costs (smaps_rollup of idle daemons),
// encoding/json's reflection-based codec in its place costs each session
// about 50 KB more private memory (its type caches and the reflect values
// built on the way), and adds about half a megabyte to the binary, whose
// pages the sessions share (Pss).
//
// It does only what the daemon's files need, but does it exactly as
// encoding/json does, so files written either way are the same bytes and
// read back the same: the writer escapes strings like json.Marshal
// (including its HTML escaping and its replacement of invalid UTF-8 with
// U+FFFD) and formats floats like it; the reader accepts exactly the
// documents json.Valid accepts and unquotes strings like json.Unmarshal.
package jsonlite

import (
	"encoding/json"
	"errors"
	"maps"
	"math"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth is encoding/json's nesting limit, so the two agree on which
// documents are valid.
const maxDepth = 10000

const hex = "0123456789abcdef"

// AppendString appends s as a JSON string, byte for byte as json.Marshal
// writes it: <, > and & escaped as \u003c..., U+2028 and U+2029 escaped,
// control characters as \b \f \n \r \t or \u00XX, and each byte of invalid
// UTF-8 replaced with \ufffd.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= ' ' && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// AppendFloat appends f as json.Marshal writes a float of the given size
// (32 or 64): like JavaScript's Number.prototype.toString. NaN and the
// infinities have no JSON form and are an error.
func AppendFloat(dst []byte, f float64, bits int) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return dst, errors.New("json: unsupported value: " + strconv.FormatFloat(f, 'g', -1, bits))
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	dst = strconv.AppendFloat(dst, f, format, -1, bits)
	if format == 'e' {
		// e-09 to e-9, as json.Marshal does.
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, nil
}

// AppendArray appends a slice as json.Marshal writes it, each element
// with elem: nil is null.
func AppendArray[V any](b []byte, a []V, elem func([]byte, V) ([]byte, error)) ([]byte, error) {
	if a == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '[')
	for i, v := range a {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = elem(b, v); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

// AppendObject appends a map as json.Marshal writes it, each value with
// elem: keys in order, nil is null.
func AppendObject[V any](b []byte, m map[string]V, elem func([]byte, V) ([]byte, error)) ([]byte, error) {
	if m == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '{')
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, k)
		b = append(b, ':')
		var err error
		if b, err = elem(b, m[k]); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// AppendCompact appends the JSON document src compacted the way json.Marshal
// writes a json.RawMessage or a Marshaler's output: space between tokens
// dropped, and <, >, &, U+2028 and U+2029 in strings escaped. src must be
// exactly one valid JSON value, optionally surrounded by space.
func AppendCompact(dst, src []byte) ([]byte, error) {
	if err := Validate(src); err != nil {
		return dst, err
	}
	start := 0
	var str stringScan
	for i := 0; i < len(src); i++ {
		c := src[i]
		if !str.step(c) {
			if isSpace(c) {
				dst = append(dst, src[start:i]...)
				start = i + 1
			}
			continue
		}
		switch {
		case c == '<' || c == '>' || c == '&':
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			start = i + 1
		case c == 0xE2 && i+2 < len(src) && src[i+1] == 0x80 && src[i+2]&^1 == 0xA8:
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[src[i+2]&0xF])
			i += 2
			start = i + 1
		}
	}
	return append(dst, src[start:]...), nil
}

// AppendIndent appends src indented as json.Indent does: each element on
// its own line, prefix then one indent per level; empty objects and
// arrays stay {} and []. src must be one valid JSON value; space around
// it is dropped, except that trailing space is kept, as json.Indent does.
func AppendIndent(dst, src []byte, prefix, indent string) ([]byte, error) {
	return AppendIndentMax(dst, src, prefix, indent, -1)
}

// AppendIndentMax is AppendIndent that indents only the first maxDepth
// levels (all of them when maxDepth < 0) and writes anything nested deeper
// compact, as json.Compact does. Indenting every level makes the output
// grow with the square of the nesting (a 20 KB array nested 10,000 deep
// becomes 100 MB); with a bound it stays within a constant factor of src.
func AppendIndentMax(dst, src []byte, prefix, indent string, maxDepth int) ([]byte, error) {
	if err := Validate(src); err != nil {
		return dst, err
	}
	newline := func(depth int) {
		if maxDepth >= 0 && depth > maxDepth {
			return
		}
		dst = append(dst, '\n')
		dst = append(dst, prefix...)
		for range depth {
			dst = append(dst, indent...)
		}
	}
	needIndent := false
	depth := 0
	var str stringScan
	end := len(src)
	for end > 0 && isSpace(src[end-1]) {
		end--
	}
	for _, c := range src[:end] {
		if !str.in {
			if isSpace(c) {
				continue
			}
			if needIndent && c != '}' && c != ']' {
				needIndent = false
				depth++
				newline(depth)
			}
		}
		if str.step(c) {
			dst = append(dst, c)
			continue
		}
		switch c {
		case '{', '[':
			// The newline waits for the first element, so that an
			// empty object or array stays on one line.
			needIndent = true
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			newline(depth)
		case ':':
			dst = append(dst, c)
			if maxDepth < 0 || depth <= maxDepth {
				dst = append(dst, ' ')
			}
		case '}', ']':
			if needIndent {
				needIndent = false
			} else {
				depth--
				if maxDepth < 0 || depth < maxDepth {
					newline(depth)
				}
			}
			dst = append(dst, c)
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, src[end:]...), nil
}

// stringScan follows a valid document byte by byte to tell the bytes of
// string literals from the rest.
type stringScan struct{ in, escaped bool }

// step reports whether c, the document's next byte, belongs to a string
// literal, quotes included.
func (s *stringScan) step(c byte) bool {
	switch {
	case !s.in:
		s.in = c == '"'
		return s.in
	case s.escaped:
		s.escaped = false
	case c == '\\':
		s.escaped = true
	case c == '"':
		s.in = false
	}
	return true
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// SyntaxError is a JSON syntax error: what was wrong, and the byte offset
// where it was noticed.
type SyntaxError struct {
	Msg    string
	Offset int
}

func (e *SyntaxError) Error() string {
	return e.Msg + " at offset " + strconv.Itoa(e.Offset)
}

// Validate reports whether src is exactly one JSON value, optionally
// surrounded by space, by the rules json.Valid applies.
func Validate(src []byte) error {
	d := Decoder{data: src}
	if _, err := d.Raw(); err != nil {
		return err
	}
	return d.End()
}

// Decoder reads one JSON document, value by value, into concrete types.
// It checks syntax as it goes, with encoding/json's rules; the caller
// checks the document's shape by which method it calls.
type Decoder struct {
	data  []byte
	pos   int
	depth int
}

// NewDecoder returns a Decoder reading data.
func NewDecoder(data []byte) *Decoder { return &Decoder{data: data} }

func (d *Decoder) errorf(msg string) error { return &SyntaxError{Msg: msg, Offset: d.pos} }

func (d *Decoder) unexpected() error {
	if d.pos >= len(d.data) {
		return d.errorf("unexpected end of JSON input")
	}
	return d.errorf("invalid character " + strconv.QuoteRune(rune(d.data[d.pos])))
}

func (d *Decoder) skipSpace() {
	for d.pos < len(d.data) && isSpace(d.data[d.pos]) {
		d.pos++
	}
}

// Peek returns the first byte of the next value ('{', '[', '"', 't', 'f',
// 'n', '-' or a digit), or 0 at the end of the input.
func (d *Decoder) Peek() byte {
	d.skipSpace()
	if d.pos >= len(d.data) {
		return 0
	}
	return d.data[d.pos]
}

// End checks that nothing but space follows the value read.
func (d *Decoder) End() error {
	d.skipSpace()
	if d.pos < len(d.data) {
		return d.errorf("invalid character " + strconv.QuoteRune(rune(d.data[d.pos])) + " after top-level value")
	}
	return nil
}

// Null consumes a null and reports whether there was one.
func (d *Decoder) Null() bool {
	at := d.pos
	if d.Peek() == 'n' && d.literal("null") == nil {
		return true
	}
	d.pos = at
	return false
}

func (d *Decoder) literal(word string) error {
	for i := 0; i < len(word); i++ {
		if d.pos >= len(d.data) || d.data[d.pos] != word[i] {
			return d.unexpected()
		}
		d.pos++
	}
	return nil
}

func (d *Decoder) typeError(want string) error {
	what := "value"
	switch d.Peek() {
	case '{':
		what = "object"
	case '[':
		what = "array"
	case '"':
		what = "string"
	case 't', 'f':
		what = "bool"
	case 'n':
		what = "null"
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		what = "number"
	}
	return d.errorf("cannot read " + what + " as " + want)
}

// Object reads an object, calling fn with each key; fn must read the
// key's value with one of the Decoder's methods.
func (d *Decoder) Object(fn func(key string) error) error {
	more, err := d.enter('{', '}', "object")
	for more && err == nil {
		if d.Peek() != '"' {
			return d.unexpected()
		}
		var k string
		if k, err = d.String(); err != nil {
			return err
		}
		if d.Peek() != ':' {
			return d.unexpected()
		}
		d.pos++
		if err = fn(k); err == nil {
			more, err = d.next('}')
		}
	}
	return err
}

// ObjectBytes is Object for a caller that looks its keys up rather than
// keeping them: key is valid only during fn (it may be the input's own
// bytes), and a key is not allocated for each member.
func (d *Decoder) ObjectBytes(fn func(key []byte) error) error {
	more, err := d.enter('{', '}', "object")
	for more && err == nil {
		if d.Peek() != '"' {
			return d.unexpected()
		}
		start := d.pos + 1
		var plain bool
		if plain, err = d.stringEnd(); err != nil {
			return err
		}
		k := d.data[start : d.pos-1 : d.pos-1]
		if !plain {
			k = []byte(unquote(k))
		}
		if d.Peek() != ':' {
			return d.unexpected()
		}
		d.pos++
		if err = fn(k); err == nil {
			more, err = d.next('}')
		}
	}
	return err
}

// Array reads an array, calling fn for each element; fn must read the
// element with one of the Decoder's methods.
func (d *Decoder) Array(fn func() error) error {
	more, err := d.enter('[', ']', "array")
	for more && err == nil {
		if err = fn(); err == nil {
			more, err = d.next(']')
		}
	}
	return err
}

// enter consumes an object's or array's opening byte, and its closing one
// too when it is empty; more reports whether elements follow.
func (d *Decoder) enter(open, close byte, kind string) (more bool, err error) {
	switch d.Peek() {
	case open:
	case 0:
		return false, d.unexpected()
	default:
		return false, d.typeError(kind)
	}
	if d.depth++; d.depth > maxDepth {
		return false, d.errorf("exceeded max depth")
	}
	d.pos++
	if d.Peek() == close {
		d.pos++
		d.depth--
		return false, nil
	}
	return true, nil
}

// next consumes the comma before another element (more is true) or the
// closing byte.
func (d *Decoder) next(close byte) (more bool, err error) {
	switch d.Peek() {
	case ',':
		d.pos++
		return true, nil
	case close:
		d.pos++
		d.depth--
		return false, nil
	}
	return false, d.unexpected()
}

// Raw reads any value and returns a copy of its bytes, unchanged.
func (d *Decoder) Raw() ([]byte, error) {
	d.skipSpace()
	start := d.pos
	if err := d.skip(); err != nil {
		return nil, err
	}
	return append([]byte(nil), d.data[start:d.pos]...), nil
}

func (d *Decoder) skip() error {
	switch d.Peek() {
	case '{':
		return d.Object(func(string) error { return d.skip() })
	case '[':
		return d.Array(d.skip)
	case '"':
		_, err := d.stringEnd()
		return err
	case 't':
		return d.literal("true")
	case 'f':
		return d.literal("false")
	case 'n':
		return d.literal("null")
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		_, err := d.number()
		return err
	}
	return d.unexpected()
}

// number consumes a number literal and returns its text.
func (d *Decoder) number() ([]byte, error) {
	start := d.pos
	digits := func() int {
		n := 0
		for d.pos < len(d.data) && d.data[d.pos] >= '0' && d.data[d.pos] <= '9' {
			d.pos++
			n++
		}
		return n
	}
	if d.data[d.pos] == '-' {
		d.pos++
	}
	switch {
	case d.pos < len(d.data) && d.data[d.pos] == '0':
		d.pos++
	case digits() == 0:
		return nil, d.unexpected()
	}
	if d.pos < len(d.data) && d.data[d.pos] == '.' {
		d.pos++
		if digits() == 0 {
			return nil, d.unexpected()
		}
	}
	if d.pos < len(d.data) && (d.data[d.pos] == 'e' || d.data[d.pos] == 'E') {
		d.pos++
		if d.pos < len(d.data) && (d.data[d.pos] == '+' || d.data[d.pos] == '-') {
			d.pos++
		}
		if digits() == 0 {
			return nil, d.unexpected()
		}
	}
	return d.data[start:d.pos], nil
}

// Int reads a number that is an integer literal fitting an int, as
// json.Unmarshal requires of an int field (1.0 and 1e3 are errors).
func (d *Decoder) Int() (int, error) {
	c := d.Peek()
	if c != '-' && (c < '0' || c > '9') {
		if c == 0 {
			return 0, d.unexpected()
		}
		return 0, d.typeError("int")
	}
	at := d.pos
	lit, err := d.number()
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(string(lit), 10, 0)
	if err != nil {
		return 0, &SyntaxError{Msg: "cannot read number " + string(lit) + " as int", Offset: at}
	}
	return int(n), nil
}

// Bool reads true or false.
func (d *Decoder) Bool() (bool, error) {
	switch d.Peek() {
	case 't':
		return true, d.literal("true")
	case 'f':
		return false, d.literal("false")
	case 0:
		return false, d.unexpected()
	}
	return false, d.typeError("bool")
}

// String reads a string and unquotes it as json.Unmarshal does: escapes
// decoded, a lone UTF-16 surrogate and each byte of invalid UTF-8 replaced
// with U+FFFD.
func (d *Decoder) String() (string, error) {
	if d.Peek() != '"' {
		if d.Peek() == 0 {
			return "", d.unexpected()
		}
		return "", d.typeError("string")
	}
	start := d.pos + 1
	plain, err := d.stringEnd()
	if err != nil {
		return "", err
	}
	s := d.data[start : d.pos-1]
	if plain {
		return string(s), nil
	}
	return unquote(s), nil
}

// stringEnd consumes a string, checking it, and reports whether it is
// plain: no escapes and valid UTF-8, so its bytes are its value.
func (d *Decoder) stringEnd() (plain bool, err error) {
	d.pos++ // the opening quote
	plain = true
	for d.pos < len(d.data) {
		// Most of a string is printable ASCII other than the quote and
		// the backslash: a run of it is stepped over with the index in
		// a local, not stored back at every byte.
		i, data := d.pos, d.data
		for i < len(data) && data[i] >= ' ' && data[i] != '"' && data[i] != '\\' && data[i] < utf8.RuneSelf {
			i++
		}
		d.pos = i
		if i == len(data) {
			break
		}
		c := data[i]
		switch {
		case c == '"':
			d.pos++
			return plain, nil
		case c < ' ':
			return false, d.errorf("invalid character " + strconv.QuoteRune(rune(c)) + " in string literal")
		case c == '\\':
			plain = false
			d.pos++
			if d.pos >= len(d.data) {
				return false, d.unexpected()
			}
			switch d.data[d.pos] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				d.pos++
			case 'u':
				d.pos++
				for range 4 {
					if d.pos >= len(d.data) {
						return false, d.unexpected()
					}
					if unhex(d.data[d.pos]) < 0 {
						return false, d.errorf("invalid character " + strconv.QuoteRune(rune(d.data[d.pos])) + " in \\u hexadecimal character escape")
					}
					d.pos++
				}
			default:
				return false, d.errorf("invalid character " + strconv.QuoteRune(rune(d.data[d.pos])) + " in string escape code")
			}
		case c < utf8.RuneSelf:
			d.pos++
		default:
			r, size := utf8.DecodeRune(d.data[d.pos:])
			if r == utf8.RuneError && size == 1 {
				plain = false
			}
			d.pos += size
		}
	}
	return false, d.unexpected()
}

func unhex(c byte) rune {
	switch {
	case '0' <= c && c <= '9':
		return rune(c - '0')
	case 'a' <= c && c <= 'f':
		return rune(c - 'a' + 10)
	case 'A' <= c && c <= 'F':
		return rune(c - 'A' + 10)
	}
	return -1
}

// getu4 decodes \uXXXX at the start of s, or returns -1.
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		h := unhex(c)
		if h < 0 {
			return -1
		}
		r = r*16 + h
	}
	return r
}

// unquote decodes the inside of a string literal already checked by
// stringEnd, exactly as encoding/json's unquoteBytes does.
func unquote(s []byte) string {
	b := make([]byte, 0, len(s)+utf8.UTFMax)
	for r := 0; r < len(s); {
		c := s[r]
		switch {
		case c == '\\':
			r++
			switch s[r] {
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				rr := getu4(s[r-1:])
				r += 5
				if utf16.IsSurrogate(rr) {
					if dec := utf16.DecodeRune(rr, getu4(s[r:])); dec != utf8.RuneError {
						r += 6
						b = utf8.AppendRune(b, dec)
						continue
					}
					rr = utf8.RuneError
				}
				b = utf8.AppendRune(b, rr)
				continue
			default: // '"', '\\', '/'
				b = append(b, s[r])
			}
			r++
		case c < utf8.RuneSelf:
			b = append(b, c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			r += size
			b = utf8.AppendRune(b, rr)
		}
	}
	return string(b)
}

// Strings reads an array of strings as json.Unmarshal reads a []string:
// null is nil, and a null element is "".
func (d *Decoder) Strings() ([]string, error) {
	if d.Null() {
		return nil, nil
	}
	out := []string{}
	err := d.Array(func() error {
		var s string
		err := Into(d, &s, d.String)
		out = append(out, s)
		return err
	})
	return out, err
}

// StringMap reads an object of strings into m as json.Unmarshal reads a
// map[string]string: it makes m when nil and adds to it otherwise (so a
// key given twice merges), null is nil, and a null value is "".
func (d *Decoder) StringMap(m map[string]string) (map[string]string, error) {
	return objectInto(d, m, func() (string, error) {
		var s string
		err := Into(d, &s, d.String)
		return s, err
	})
}

// RawObject reads an object of raw values (see Raw) into m as
// json.Unmarshal reads a map[string]json.RawMessage: like StringMap, but
// a null value is the raw null.
func (d *Decoder) RawObject(m map[string]json.RawMessage) (map[string]json.RawMessage, error) {
	return objectInto(d, m, func() (json.RawMessage, error) { return d.Raw() })
}

func objectInto[V any](d *Decoder, m map[string]V, read func() (V, error)) (map[string]V, error) {
	if d.Null() {
		return nil, nil
	}
	if m == nil {
		m = map[string]V{}
	}
	err := d.Object(func(k string) error {
		v, err := read()
		m[k] = v
		return err
	})
	return m, err
}

// Into reads a value into p with read (d.String, d.Int or d.Bool), as
// json.Unmarshal reads a string, number or bool: null leaves p alone.
func Into[T any](d *Decoder, p *T, read func() (T, error)) error {
	if d.Null() {
		return nil
	}
	v, err := read()
	if err == nil {
		*p = v
	}
	return err
}

// Ptr reads a value into a new pointer with read, as json.Unmarshal reads
// a pointer: null is nil.
func Ptr[T any](d *Decoder, read func() (T, error)) (*T, error) {
	if d.Null() {
		return nil, nil
	}
	v, err := read()
	return &v, err
}
