package layout

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"sort"
	"testing"
)

// oldEvent is Event with the encoding/json-based MarshalJSON it had.
type oldEvent Event

func (e oldEvent) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(`{"session":`)
	s, _ := json.Marshal(e.Session)
	buf.Write(s)
	buf.WriteString(`,"type":`)
	s, _ = json.Marshal(e.Type)
	buf.Write(s)
	buf.WriteString(`,"ts":`)
	s, _ = json.Marshal(e.TS)
	buf.Write(s)
	keys := make([]string, 0, len(e.Fields))
	for k := range e.Fields {
		if k != "session" && k != "type" && k != "ts" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		buf.WriteByte(',')
		kb, _ := json.Marshal(k)
		buf.Write(kb)
		buf.WriteByte(':')
		b, err := json.Marshal(e.Fields[k])
		if err != nil {
			return nil, err
		}
		buf.Write(b)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

type notPlain struct {
	A int    `json:"a"`
	B string `json:"b,omitempty"`
}

// randPayload returns a random value and whether it is plain.
func randPayload(r *rand.Rand, depth int) (any, bool) {
	k := r.IntN(22)
	if depth > 2 && k >= 17 {
		k = r.IntN(17)
	}
	switch k {
	case 0:
		return nil, true
	case 1:
		return randText(r), true
	case 2:
		return r.IntN(2) == 0, true
	case 3:
		return int(r.Int64() >> r.IntN(64)), true
	case 4:
		return int8(r.Int()), true
	case 5:
		return int16(r.Int()), true
	case 6:
		return int32(r.Int()), true
	case 7:
		return -r.Int64(), true
	case 8:
		return uint(r.Uint64()), true
	case 9:
		return uint8(r.Int()), true
	case 10:
		return uint16(r.Int()), true
	case 11:
		return uint32(r.Int()), true
	case 12:
		return r.Uint64(), true
	case 13:
		return []float64{0, 1.5, 1e21, 1e-7, -3, math.MaxFloat64}[r.IntN(6)] * r.Float64(), true
	case 14:
		return float32(r.NormFloat64() * 1e10), true
	case 15:
		if r.IntN(4) == 0 {
			return json.RawMessage(nil), true
		}
		return randRaw(r, 0), true
	case 16:
		return notPlain{A: r.IntN(9), B: randText(r)}, false
	case 17:
		if r.IntN(4) == 0 {
			return []string(nil), true
		}
		return []string{randText(r), randText(r)}, true
	case 18:
		if r.IntN(4) == 0 {
			return map[string]string(nil), true
		}
		return map[string]string{randText(r): randText(r), "b": randText(r)}, true
	case 19:
		if r.IntN(4) == 0 {
			return []int(nil), true
		}
		return []int{r.IntN(100), -r.IntN(100)}, true
	case 20:
		if r.IntN(4) == 0 {
			return []any(nil), true
		}
		var a []any
		plain := true
		for range r.IntN(3) {
			v, p := randPayload(r, depth+1)
			a = append(a, v)
			plain = plain && p
		}
		return a, plain
	default:
		if r.IntN(4) == 0 {
			return map[string]any(nil), true
		}
		m := map[string]any{}
		plain := true
		for range r.IntN(3) {
			v, p := randPayload(r, depth+1)
			m[randText(r)] = v
			plain = plain && p
		}
		return m, plain
	}
}

func TestEventsWriteTheBytesEncodingJSONWrote(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	plainOnes := 0
	for i := range 20000 {
		e := Event{Session: randText(r), Type: randText(r), TS: randText(r)}
		plainKey := map[string]bool{}
		for range r.IntN(4) {
			if e.Fields == nil {
				e.Fields = map[string]any{}
			}
			v, p := randPayload(r, 0)
			k := randText(r)
			if r.IntN(8) == 0 {
				k = "ts" // the envelope wins: not written
			}
			e.Fields[k] = v
			plainKey[k] = p || k == "ts"
		}
		plain := true
		for _, p := range plainKey {
			plain = plain && p
		}
		want, werr := json.Marshal(oldEvent(e))
		got, err := json.Marshal(e)
		if (werr == nil) != (err == nil) || !bytes.Equal(got, want) {
			t.Fatalf("event %d %+v: wrote %s, %v; encoding/json wrote %s, %v", i, e, got, err, want, werr)
		}
		got, err = e.appendJSON(nil, nil)
		switch {
		case werr != nil && err == nil:
			t.Fatalf("event %d %+v: plain encoding wrote %s; encoding/json failed: %v", i, e, got, werr)
		case werr == nil && plain && (err != nil || !bytes.Equal(got, want)):
			t.Fatalf("event %d %+v: plain encoding wrote %s, %v; encoding/json wrote %s", i, e, got, err, want)
		case werr == nil && !plain && err == nil:
			t.Fatalf("event %d %+v: plain encoding took a value that is not plain: %s", i, e, got)
		}
		if plain && werr == nil {
			plainOnes++
		}
	}
	if plainOnes < 2000 {
		t.Fatalf("only %d of the random events were plain and valid", plainOnes)
	}
}

func TestAppendEventsWritesPlainValuesAsJSONDoes(t *testing.T) {
	root := t.TempDir()
	name := "n<1>"
	evs := []Event{
		NewEvent("a", EventSessionExit, "exitCode", 0, "signal", 9),
		NewEvent("a", EventSessionStart, "tags", map[string]string{"k": "<v>"}),
		NewEvent("a", EventDescendantsSurvived, "data", map[string]any{"pids": []int{3, 4}}),
		NewEvent("a", EventStateSet, "key", "k", "value", json.RawMessage(`{ "x" : [1, "\u2028"] }`)),
		NewEvent("a", EventDisplayNameChange, "previous", (*string)(nil), "value", &name),
		NewEvent("a", EventMetadataChange, "value", map[string]any{"tags": map[string]*string{"k": &name, "gone": nil}}),
	}
	if err := appendEventsTo(root, "a", evs...); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(pathsFor(root, "a").Events())
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	if len(lines) != len(evs) {
		t.Fatalf("%d lines for %d events:\n%s", len(lines), len(evs), b)
	}
	for i, e := range evs {
		m := map[string]any{"session": e.Session, "type": e.Type, "ts": e.TS}
		for k, v := range e.Fields {
			m[k] = v
		}
		want, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var got, exp any
		if json.Unmarshal(lines[i], &got) != nil || json.Unmarshal(want, &exp) != nil || !reflect.DeepEqual(got, exp) {
			t.Errorf("event %d: wrote %s, json.Marshal says %s", i, lines[i], want)
		}
	}
	if err := appendEventsTo(root, "b", NewEvent("b", "user.x", "v", notPlain{A: 1})); err == nil {
		t.Fatal("AppendEvents wrote a struct, which needs reflection")
	}
}
