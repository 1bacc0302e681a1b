package layout

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The metadata file is read and written without encoding/json's
// reflection; these tests hold the hand-written code to what the
// reflection-based code it replaced did (kept here as oldMetadata), on
// random records and random documents.

// oldMetadata is Metadata with the encoding/json-based methods it had.
type oldMetadata Metadata

func (m oldMetadata) MarshalJSON() ([]byte, error) {
	known, err := json.Marshal(metadataAlias(m))
	if err != nil || len(m.Extra) == 0 {
		return known, err
	}
	keys := make([]string, 0, len(m.Extra))
	for k := range m.Extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var buf bytes.Buffer
	buf.Write(known[:len(known)-1])
	for _, k := range keys {
		kb, _ := json.Marshal(k)
		buf.WriteByte(',')
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(m.Extra[k])
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

func (m *oldMetadata) UnmarshalJSON(b []byte) error {
	var a metadataAlias
	if err := json.Unmarshal(b, &a); err != nil {
		return err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	for _, k := range MetadataFields() {
		delete(all, k)
	}
	if len(all) == 0 {
		all = nil
	}
	*m = oldMetadata(a)
	m.Extra = all
	return nil
}

func TestMetadataFieldsMatchStructTags(t *testing.T) {
	typ := reflect.TypeOf(Metadata{})
	var want []string
	for i := 0; i < typ.NumField(); i++ {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		if name != "-" {
			want = append(want, name)
		}
	}
	if got := MetadataFields(); !reflect.DeepEqual(got, want) {
		t.Fatalf("MetadataFields() = %q, struct tags say %q", got, want)
	}
}

// exactField, the decoder's switch, knows exactly the fields
// metadataFields lists.
func TestExactFieldMatchesMetadataFields(t *testing.T) {
	for _, f := range metadataFields {
		if got := exactField([]byte(f)); got != f {
			t.Errorf("exactField(%q) = %q", f, got)
		}
		if got := exactField([]byte(strings.ToUpper(f))); got != "" {
			t.Errorf("exactField(%q) = %q, want none (another letter case is fieldNamed's)", strings.ToUpper(f), got)
		}
	}
	for _, k := range []string{"", "x", "Command", "extra", "daemonpid"} {
		if got := exactField([]byte(k)); got != "" {
			t.Errorf("exactField(%q) = %q, want none", k, got)
		}
	}
}

func randText(r *rand.Rand) string {
	pieces := []string{"a", "Z", " ", "\"", "\\", "/", "<", ">", "&", "\x00", "\x1f", "\n", "\t", "é", "日本",
		"\u2028", "\ufffd", "😀", "\xff", "\xed\xa0\x80", "command", "-"}
	var b strings.Builder
	for range r.IntN(6) {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

func randRaw(r *rand.Rand, depth int) json.RawMessage {
	var v string
	switch r.IntN(7) {
	case 0:
		v = "null"
	case 1:
		v = strconv.Quote(randText(r))
		if json.Valid([]byte(v)) {
			break // strconv.Quote's \x escapes are not JSON
		}
		v = `"x"`
	case 2:
		v = " -12.5e+3 "
	case 3:
		v = "true"
	case 4:
		b, _ := json.Marshal(randText(r))
		v = string(b)
		if r.IntN(2) == 0 {
			v = "\"<&>\u2028" + v[1:] // raw, unescaped: must come out escaped
		}
	default:
		if depth > 2 {
			v = "[]"
			break
		}
		var parts []string
		for range r.IntN(3) {
			k, _ := json.Marshal(randText(r))
			parts = append(parts, string(k)+" : "+string(randRaw(r, depth+1)))
		}
		v = "{ " + strings.Join(parts, " ,\n") + " }"
	}
	return json.RawMessage(v)
}

func randMetadata(r *rand.Rand) *Metadata {
	s := func() string {
		if r.IntN(3) == 0 {
			return ""
		}
		return randText(r)
	}
	strs := func() []string {
		switch r.IntN(3) {
		case 0:
			return nil
		case 1:
			return []string{}
		}
		var a []string
		for range 1 + r.IntN(3) {
			a = append(a, randText(r))
		}
		return a
	}
	smap := func() map[string]string {
		switch r.IntN(3) {
		case 0:
			return nil
		case 1:
			return map[string]string{}
		}
		m := map[string]string{}
		for range 1 + r.IntN(3) {
			m[randText(r)] = randText(r)
		}
		return m
	}
	ip := func() *int {
		if r.IntN(2) == 0 {
			return nil
		}
		n := int(r.Int64() >> r.IntN(64))
		if r.IntN(2) == 0 {
			n = -n
		}
		return &n
	}
	n := func() int {
		if p := ip(); p != nil {
			return *p
		}
		return 0
	}
	m := &Metadata{
		Command: s(), Args: strs(), DisplayCommand: s(), Cwd: s(), CreatedAt: s(),
		ExitCode: ip(), Signal: ip(), ExitedAt: s(), LastLines: strs(), Tags: smap(),
		Rows: n(), Cols: n(), Scrollback: ip(), Ephemeral: r.IntN(2) == 0, IsolateEnv: r.IntN(2) == 0,
		ExtraEnv: smap(), UnsetEnv: strs(), Env: smap(), Generation: s(), DaemonPid: n(),
		LastAttachAt: s(), LastOutputAt: s(), Activity: strs(),
	}
	if r.IntN(2) == 0 {
		d := s()
		m.DisplayName = &d
	}
	if r.IntN(2) == 0 {
		m.Recovery = randRaw(r, 0)
	}
	if r.IntN(2) == 0 {
		m.State = map[string]json.RawMessage{}
		for range r.IntN(3) {
			m.State[randText(r)] = randRaw(r, 0)
		}
		if r.IntN(4) == 0 {
			m.State["nil"] = nil
		}
	}
	if r.IntN(2) == 0 {
		m.Extra = map[string]json.RawMessage{}
		for range r.IntN(3) {
			m.Extra["x"+randText(r)] = randRaw(r, 0)
		}
	}
	return m
}

func TestMetadataWritesTheBytesEncodingJSONWrote(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	root := t.TempDir()
	for i := range 3000 {
		m := randMetadata(r)
		want, werr := json.MarshalIndent(oldMetadata(*m), "", "  ")
		err := WriteMetadataNoSync(root, "s", m)
		if (werr == nil) != (err == nil) {
			t.Fatalf("record %d: encoding/json error %v, ours %v", i, werr, err)
		}
		if err != nil {
			continue
		}
		got, _ := os.ReadFile(pathsFor(root, "s").Meta())
		if !bytes.Equal(got, append(want, '\n')) {
			t.Fatalf("record %d: wrote\n%s\nencoding/json wrote\n%s", i, got, want)
		}
		viaMarshal, err := json.Marshal(m)
		compactWant, _ := json.Marshal(oldMetadata(*m))
		if err != nil || !bytes.Equal(viaMarshal, compactWant) {
			t.Fatalf("record %d: json.Marshal gives %s, %v; before %s", i, viaMarshal, err, compactWant)
		}
		// And back: ours and the old decoder read the same record.
		back, err := readMetadata(root, "s")
		var old oldMetadata
		if oerr := json.Unmarshal(got, &old); err != nil || oerr != nil || !reflect.DeepEqual(*back, Metadata(old)) {
			t.Fatalf("record %d: read back %+v, %v; encoding/json read %+v, %v", i, back, err, old, oerr)
		}
		var oldClone oldMetadata
		json.Unmarshal(compactWant, &oldClone)
		if c := m.Clone(); !reflect.DeepEqual(*c, Metadata(oldClone)) {
			t.Fatalf("record %d: Clone %+v, before %+v", i, c, oldClone)
		}
	}
}

// randField returns a key and a value for a random metadata document:
// known names, the same in other letter cases, unknown ones; values of
// every JSON type, so that most documents also exercise type errors.
func randField(r *rand.Rand) (string, string) {
	var key string
	switch r.IntN(5) {
	case 0:
		key = "x" + randText(r)
	case 1:
		f := []byte(metadataFields[r.IntN(len(metadataFields))])
		i := r.IntN(len(f))
		f[i] ^= 0x20 // another letter case
		key = string(f)
	default:
		key = metadataFields[r.IntN(len(metadataFields))]
	}
	var val string
	switch r.IntN(10) {
	case 0:
		val = "null"
	case 1:
		val = strconv.Itoa(r.IntN(1000) - 500)
	case 2:
		val = []string{"1.5", "1e3", "99999999999999999999", "-0", "true", "false"}[r.IntN(6)]
	case 3:
		b, _ := json.Marshal(randText(r))
		val = string(b)
	case 4:
		val = `["a", null, "\u00e9\ud800"]`
	case 5:
		val = `["a", 1]`
	case 6:
		val = `{"a": "b", "c": null}`
	case 7:
		val = `{"a": 1}`
	default:
		val = string(randRaw(r, 0))
	}
	return key, val
}

func TestMetadataReadsWhatEncodingJSONRead(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	okDocs := 0
	for i := range 20000 {
		var parts []string
		for range r.IntN(5) {
			k, v := randField(r)
			kb, _ := json.Marshal(k)
			parts = append(parts, string(kb)+":"+v)
		}
		doc := []byte("{" + strings.Join(parts, ",") + "}")
		var old oldMetadata
		oerr := json.Unmarshal(doc, &old)
		var m Metadata
		err := json.Unmarshal(doc, &m)
		if (oerr == nil) != (err == nil) {
			t.Fatalf("doc %d %s: encoding/json error %v, ours %v", i, doc, oerr, err)
		}
		if err == nil {
			okDocs++
		}
		m.zeroes = 0 // what encoding/json cannot hold: see TestMetadataKeepsExplicitZeroes
		if err == nil && !reflect.DeepEqual(m, Metadata(old)) {
			t.Fatalf("doc %d %s: read\n%+v\nencoding/json read\n%+v", i, doc, m, Metadata(old))
		}
	}
	if okDocs < 1000 {
		t.Fatalf("only %d of the random documents were valid records", okDocs)
	}
	for _, doc := range []string{``, `[]`, `null x`, `{"command":"a"} x`, `{"command":"a",}`, `{"rows":1.0}`, `{"args":{}}`} {
		var m Metadata
		if m.decodeJSON([]byte(doc)) == nil {
			t.Errorf("read %q without error", doc)
		}
	}
	m := Metadata{Command: "x"}
	if err := m.decodeJSON([]byte(" null ")); err != nil || !reflect.DeepEqual(m, Metadata{}) {
		t.Errorf("null read as %+v, %v; encoding/json read an empty record", m, err)
	}
}

// TestMetadataKeepsExplicitZeroes: the original writes "ephemeral":false
// on every record, and an exact environment may be empty ("env":{}, not
// no env at all). Read and written back, such a record keeps them, until
// the value changes.
func TestMetadataKeepsExplicitZeroes(t *testing.T) {
	in := `{"command":"/bin/sh","args":[],"displayCommand":"sh","cwd":"/","createdAt":"2026-01-01T00:00:00.000Z",` +
		`"ephemeral":false,"isolateEnv":false,"extraEnv":{},"unsetEnv":[],"env":{}}`
	var m Metadata
	if err := m.decodeJSON([]byte(in)); err != nil {
		t.Fatal(err)
	}
	out, err := m.appendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != in {
		t.Errorf("read and written back:\n%s\nwant\n%s", out, in)
	}
	m.Ephemeral, m.Env, m.UnsetEnv = true, nil, []string{"A"}
	out, _ = m.appendJSON(nil)
	if want := `"ephemeral":true,"isolateEnv":false,"extraEnv":{},"unsetEnv":["A"]}`; !strings.HasSuffix(string(out), want) {
		t.Errorf("changed: %s, want it to end %s", out, want)
	}
	for _, doc := range []string{`{"ephemeral":false,"ephemeral":null}`, `{"env":{},"env":null}`} {
		var n Metadata
		if err := n.decodeJSON([]byte(doc)); err != nil {
			t.Fatal(err)
		}
		out, _ := n.appendJSON(nil)
		if strings.Contains(string(out), `"ephemeral":false`) != strings.Contains(doc, `"ephemeral"`) || strings.Contains(string(out), `"env"`) {
			t.Errorf("%s written back as %s", doc, out)
		}
	}
}

// FuzzMetadataReadsWhatEncodingJSONRead: whatever the bytes of a record,
// the hand decoder (which pty list runs on every record) fails where
// encoding/json fails, and reads what it reads.
func FuzzMetadataReadsWhatEncodingJSONRead(f *testing.F) {
	for _, s := range []string{
		`{"command":"/bin/sh","args":["-l"],"cwd":"/","rows":24,"daemonPid":7,"tags":{"a":"b"},"x":[1,{"y":null}]}`,
		`{"COMMAND":"a","Command":"b","command":"c","dísplayName":"\u00e9","exitCode":null,"lastLines":["\ud83d\ude00"]}`,
		`{"env":{},"extraEnv":{"K":"V"},"unsetEnv":[],"ephemeral":false,"signal":9,"state":{"k":[true]}}`,
		` null `, `{"rows":1.0}`, "{\"cwd\":\"\xff\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		var old oldMetadata
		oerr := json.Unmarshal(doc, &old)
		var m Metadata
		err := m.decodeJSON(doc)
		if (oerr == nil) != (err == nil) {
			t.Fatalf("%q: encoding/json error %v, ours %v", doc, oerr, err)
		}
		m.zeroes = 0
		if err == nil && !reflect.DeepEqual(m, Metadata(old)) {
			t.Fatalf("%q: read\n%+v\nencoding/json read\n%+v", doc, m, Metadata(old))
		}
	})
}
