package jsonlite

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// The package promises encoding/json's exact behaviour, so every test here
// compares against encoding/json on many random inputs.

// randString returns strings rich in what JSON quoting must get right:
// quotes, backslashes, control characters, HTML characters, U+2028/9,
// multi-byte runes, surrogate code points and invalid UTF-8.
func randString(r *rand.Rand) string {
	pieces := []string{
		"a", "Z", " ", "\"", "\\", "/", "<", ">", "&", "\x00", "\x01", "\x1f", "\x7f",
		"\b", "\f", "\n", "\r", "\t", "é", "日本", "\u2028", "\u2029", "\ufffd", "😀",
		"\xff", "\xc3", "\xe2\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\\u0041", "null",
	}
	var b strings.Builder
	for range r.IntN(12) {
		if r.IntN(4) == 0 {
			b.WriteByte(byte(r.IntN(256)))
		} else {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
	}
	return b.String()
}

// randEscapedLiteral returns a JSON string literal written with escapes
// json.Marshal never produces: \/, \uXXXX for anything, lone and paired
// surrogates, upper-case hex.
func randEscapedLiteral(r *rand.Rand) string {
	var b strings.Builder
	b.WriteByte('"')
	for range r.IntN(10) {
		switch r.IntN(9) {
		case 0:
			b.WriteString(`\/`)
		case 1:
			b.WriteString(`\u` + strings.ToUpper(strconv.FormatInt(int64(0x10000+r.IntN(0x10000)), 16)[1:]))
		case 2:
			b.WriteString(`\uD83D\uDE00`)
		case 3:
			b.WriteString(`\ud83d`)
		case 4:
			b.WriteString(`\ude00\ud83d`)
		case 5:
			b.WriteString(`\ud83dx`)
		case 6:
			b.WriteString(`\ud83d\u0041`)
		case 7:
			b.WriteString("\xff\xfe")
		default:
			b.WriteString(`\"\\\b\f\n\r\t`)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func randValue(r *rand.Rand, depth int) any {
	k := r.IntN(8)
	if depth > 3 && k >= 6 {
		k = r.IntN(6)
	}
	switch k {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2:
		return randString(r)
	case 3:
		return float64(r.Int64()) * math.Pow(10, float64(r.IntN(60)-30))
	case 4:
		return r.Int64() >> r.IntN(64)
	case 5:
		return json.Number("-12.5e+3")
	case 6:
		var a []any
		for range r.IntN(4) {
			a = append(a, randValue(r, depth+1))
		}
		return a
	default:
		m := map[string]any{}
		for range r.IntN(4) {
			m[randString(r)] = randValue(r, depth+1)
		}
		return m
	}
}

// spaced re-writes a valid document with random space between tokens.
func spaced(r *rand.Rand, src []byte) []byte {
	ws := []string{"", "", " ", "\n", "\t", "\r\n  "}
	var out []byte
	var str stringScan
	out = append(out, ws[r.IntN(len(ws))]...)
	for _, c := range src {
		out = append(out, c)
		if !str.step(c) || !str.in && c == '"' {
			out = append(out, ws[r.IntN(len(ws))]...)
		}
	}
	return out
}

func TestAppendStringMatchesMarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		s := randString(r)
		want, _ := json.Marshal(s)
		if got := AppendString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("AppendString(%q) = %s, json.Marshal = %s", s, got, want)
		}
	}
	for c := range 256 {
		s := string([]byte{byte(c)})
		want, _ := json.Marshal(s)
		if got := AppendString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("AppendString(%q) = %s, json.Marshal = %s", s, got, want)
		}
	}
}

func TestAppendFloatMatchesMarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	vals := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1e-6, 1e-7, 9.999999e-7, 1e20, 1e21, 1e-9, 123456789, math.MaxFloat64, math.SmallestNonzeroFloat64, 5e-324}
	for range 20000 {
		vals = append(vals, math.Float64frombits(r.Uint64()), float64(r.Int64())*math.Pow(10, float64(r.IntN(80)-40)))
	}
	for _, f := range vals {
		want64, err64 := json.Marshal(f)
		got64, gerr64 := AppendFloat(nil, f, 64)
		if (err64 == nil) != (gerr64 == nil) || !bytes.Equal(got64, want64) {
			t.Fatalf("AppendFloat(%v, 64) = %s, %v; json.Marshal = %s, %v", f, got64, gerr64, want64, err64)
		}
		f32 := float32(f)
		want32, err32 := json.Marshal(f32)
		got32, gerr32 := AppendFloat(nil, float64(f32), 32)
		if (err32 == nil) != (gerr32 == nil) || !bytes.Equal(got32, want32) {
			t.Fatalf("AppendFloat(%v, 32) = %s, %v; json.Marshal = %s, %v", f32, got32, gerr32, want32, err32)
		}
	}
}

// checkDoc compares everything the package does with one input against
// encoding/json.
func checkDoc(t *testing.T, src []byte) {
	t.Helper()
	err := Validate(src)
	if (err == nil) != json.Valid(src) {
		t.Fatalf("Validate(%q) = %v, json.Valid = %v", src, err, json.Valid(src))
	}
	gotC, cerr := AppendCompact([]byte("x"), src)
	wantC, merr := json.Marshal(json.RawMessage(src))
	if (cerr == nil) != (merr == nil) {
		t.Fatalf("AppendCompact(%q) err %v, json.Marshal(RawMessage) err %v", src, cerr, merr)
	}
	if cerr == nil && !bytes.Equal(gotC[1:], wantC) {
		t.Fatalf("AppendCompact(%q) = %q, json.Marshal(RawMessage) = %q", src, gotC[1:], wantC)
	}
	if cerr != nil && string(gotC) != "x" {
		t.Fatalf("AppendCompact(%q) failed but appended %q", src, gotC)
	}
	gotI, ierr := AppendIndent(nil, src, ">", "  ")
	var wantI bytes.Buffer
	jerr := json.Indent(&wantI, src, ">", "  ")
	if (ierr == nil) != (jerr == nil) || ierr == nil && !bytes.Equal(gotI, wantI.Bytes()) {
		t.Fatalf("AppendIndent(%q) = %q, %v; json.Indent = %q, %v", src, gotI, ierr, wantI.Bytes(), jerr)
	}
	if err != nil {
		return
	}
	raw, rerr := NewDecoder(src).Raw()
	if rerr != nil || !bytes.Equal(raw, bytes.Trim(src, " \t\r\n")) {
		t.Fatalf("Raw(%q) = %q, %v", src, raw, rerr)
	}
	if bytes.Equal(bytes.TrimSpace(src), []byte("null")) {
		// Callers test for null first, as json.Unmarshal leaves a
		// scalar alone on null.
		if d := NewDecoder(src); !d.Null() || d.End() != nil {
			t.Fatalf("Null(%q) = false", src)
		}
		a, aerr := NewDecoder(src).Strings()
		m, merr := NewDecoder(src).StringMap(map[string]string{"k": "v"})
		rm, rerr := NewDecoder(src).RawObject(nil)
		if a != nil || aerr != nil || m != nil || merr != nil || rm != nil || rerr != nil {
			t.Fatalf("null reads as %q, %v; %q, %v; %q, %v", a, aerr, m, merr, rm, rerr)
		}
		return
	}
	var ws string
	gs, serr := NewDecoder(src).String()
	if jerr := json.Unmarshal(src, &ws); (jerr == nil) != (serr == nil) || jerr == nil && gs != ws {
		t.Fatalf("String(%q) = %q, %v; json.Unmarshal = %q, %v", src, gs, serr, ws, jerr)
	}
	var wi int
	gi, ierr2 := NewDecoder(src).Int()
	if jerr := json.Unmarshal(src, &wi); (jerr == nil) != (ierr2 == nil) || jerr == nil && gi != wi {
		t.Fatalf("Int(%q) = %d, %v; json.Unmarshal = %d, %v", src, gi, ierr2, wi, jerr)
	}
	var wb bool
	gb, berr := NewDecoder(src).Bool()
	if jerr := json.Unmarshal(src, &wb); (jerr == nil) != (berr == nil) || jerr == nil && gb != wb {
		t.Fatalf("Bool(%q) = %v, %v; json.Unmarshal = %v, %v", src, gb, berr, wb, jerr)
	}
	var wss []string
	gss, sserr := NewDecoder(src).Strings()
	if jerr := json.Unmarshal(src, &wss); (jerr == nil) != (sserr == nil) || jerr == nil && !equalStrings(gss, wss) {
		t.Fatalf("Strings(%q) = %q, %v; json.Unmarshal = %q, %v", src, gss, sserr, wss, jerr)
	}
	checkRawObject(t, src)
	var wm map[string]string
	gm, merr2 := NewDecoder(src).StringMap(nil)
	if jerr := json.Unmarshal(src, &wm); (jerr == nil) != (merr2 == nil) {
		t.Fatalf("StringMap(%q) = %q, %v; json.Unmarshal = %q, %v", src, gm, merr2, wm, jerr)
	} else if jerr == nil {
		if len(gm) != len(wm) {
			t.Fatalf("StringMap(%q) = %q; json.Unmarshal = %q", src, gm, wm)
		}
		for k, v := range wm {
			if gm[k] != v {
				t.Fatalf("StringMap(%q) = %q; json.Unmarshal = %q", src, gm, wm)
			}
		}
	}
}

func checkRawObject(t *testing.T, src []byte) {
	t.Helper()
	var want map[string]json.RawMessage
	got, err := NewDecoder(src).RawObject(nil)
	if jerr := json.Unmarshal(src, &want); (jerr == nil) != (err == nil) || jerr == nil && len(got) != len(want) {
		t.Fatalf("RawObject(%q) = %q, %v; json.Unmarshal = %q, %v", src, got, err, want, jerr)
	} else if jerr == nil {
		for k, v := range want {
			if !bytes.Equal(got[k], v) {
				t.Fatalf("RawObject(%q) = %q; json.Unmarshal = %q", src, got, want)
			}
		}
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestDocumentsMatchEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	fixed := []string{
		``, ` `, `null`, `nul`, `true`, `tru`, `false`, `0`, `-0`, `01`, `-`, `1.`, `.5`, `1e`, `1e+`, `1E-7`, `-1.5e300`,
		`9223372036854775807`, `9223372036854775808`, `-9223372036854775808`, `1.0`, `1e3`,
		`""`, `"`, `"\`, `"\x"`, `"\u12"`, `"\u12G4"`, "\"\x1f\"", "\"\x7f\"", `"\'"`, `"a\/b"`,
		`[]`, `[`, `[1,]`, `[,1]`, `[1 2]`, `{}`, `{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{1:2}`, `{"a":1 "b":2}`,
		`["a",null,"b"]`, `{"a":"x","b":null}`, `{"a":"x","a":"y"}`, `[1][2]`, `1 2`, "1\n", " {\"a\" : [ ] , \"b\":{ } }\r\n",
		`"<>&\u2028"`, "\"\u2028\u2029<\"", `{"k":"\ud800"}`, `"\ud800\udc00"`, `"\udc00\ud800"`,
	}
	for _, s := range fixed {
		checkDoc(t, []byte(s))
	}
	// Nesting at encoding/json's limit: only validity, since decoding
	// such documents every way checkDoc does is slow under -race.
	for _, s := range []string{
		strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
		strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
		strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000),
		strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001),
	} {
		if err := Validate([]byte(s)); (err == nil) != json.Valid([]byte(s)) {
			t.Fatalf("Validate(%.20q...) = %v, json.Valid = %v", s, err, json.Valid([]byte(s)))
		}
	}
	for range 3000 {
		checkDoc(t, []byte(randEscapedLiteral(r)))
		b, err := json.Marshal(randValue(r, 0))
		if err != nil {
			continue
		}
		doc := spaced(r, b)
		checkDoc(t, doc)
		// And broken: a byte dropped, changed or inserted.
		if len(doc) > 0 {
			i := r.IntN(len(doc))
			checkDoc(t, append(doc[:i:i], doc[i+1:]...))
			mut := bytes.Clone(doc)
			const set = "{}[],:\"\\ 0-.eE\x00\xff"
			mut[i] = set[r.IntN(len(set))]
			checkDoc(t, mut)
		}
	}
}

func FuzzDocument(f *testing.F) {
	for _, s := range []string{`{"a":[1,"x\u00e9",null,true,{"b":-1.5e3}]}`, `"\ud83d\ude00<>"`, `[]`, "\"\xff\"", `1e-7`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkDoc(t, b) })
}

func FuzzString(f *testing.F) {
	f.Add("a\"\\<\u2028\xff\x00")
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		got := AppendString(nil, s)
		if !bytes.Equal(got, want) {
			t.Fatalf("AppendString(%q) = %s, json.Marshal = %s", s, got, want)
		}
		var back string
		json.Unmarshal(want, &back)
		d := NewDecoder(got)
		if s2, err := d.String(); err != nil || s2 != back {
			t.Fatalf("String(%s) = %q, %v; json.Unmarshal = %q", got, s2, err, back)
		}
	})
}

func TestObjectAndArrayReadTheirElements(t *testing.T) {
	d := NewDecoder([]byte(` {"a": [1, 2], "b": {"c": true}, "d": "x", "e": null} `))
	var got []string
	err := d.Object(func(k string) error {
		got = append(got, k)
		switch k {
		case "a":
			return d.Array(func() error { _, err := d.Int(); return err })
		case "b":
			raw, err := d.Raw()
			got = append(got, string(raw))
			return err
		case "d":
			s, err := d.String()
			got = append(got, s)
			return err
		}
		if !d.Null() {
			t.Errorf("e is not null")
		}
		return nil
	})
	if err != nil || d.End() != nil {
		t.Fatalf("Object: %v, End: %v", err, d.End())
	}
	if strings.Join(got, "|") != `a|b|{"c": true}|d|x|e` {
		t.Fatalf("read %q", got)
	}
	if err := NewDecoder([]byte(`{"a":1}`)).Array(func() error { return nil }); err == nil {
		t.Fatal("Array read an object")
	}
	if _, err := NewDecoder([]byte(`"1"`)).Int(); err == nil {
		t.Fatal("Int read a string")
	}
}

func TestAppendIndentMaxStopsIndentingDeepLevels(t *testing.T) {
	src := []byte(`{"a":[[1,{"b":2}]],"c":{}}`)
	got, err := AppendIndentMax(nil, src, "", "  ", 1)
	want := "{\n  \"a\": [[1,{\"b\":2}]],\n  \"c\": {}\n}"
	if err != nil || string(got) != want {
		t.Fatalf("maxDepth 1: %q, %v; want %q", got, err, want)
	}
	// Within the bound it is json.Indent.
	var full bytes.Buffer
	json.Indent(&full, src, "", "  ")
	if got, _ := AppendIndentMax(nil, src, "", "  ", 4); string(got) != full.String() {
		t.Fatalf("maxDepth 4: %q; want %q", got, full.String())
	}
	// Deep nesting stays linear.
	deep := append(bytes.Repeat([]byte("["), 5000), bytes.Repeat([]byte("]"), 5000)...)
	if got, _ := AppendIndentMax(nil, deep, "", "  ", 8); len(got) > 2*len(deep) {
		t.Fatalf("nested 5000 deep: %d bytes from %d", len(got), len(deep))
	}
}
