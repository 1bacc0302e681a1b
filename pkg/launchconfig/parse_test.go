package launchconfig

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
)

func TestParseReadsWhatJSONUnmarshalReads(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	text := func() string {
		pieces := []string{"a", "\"", "\\", "<", "\x00", "\n", "é", "\u2028", "\xff", "😀", "/"}
		s := ""
		for range r.IntN(5) {
			s += pieces[r.IntN(len(pieces))]
		}
		return s
	}
	strs := func() []string {
		if r.IntN(3) == 0 {
			return nil
		}
		a := []string{}
		for range r.IntN(3) {
			a = append(a, text())
		}
		return a
	}
	smap := func() map[string]string {
		if r.IntN(3) == 0 {
			return nil
		}
		m := map[string]string{}
		for range r.IntN(3) {
			m[text()] = text()
		}
		return m
	}
	for i := range 5000 {
		c := Config{
			Root: text(), ID: text(), Command: text(), Args: strs(), DisplayCommand: text(), Cwd: text(),
			Rows: r.IntN(1000), Cols: r.IntN(1000) - 10, Tags: smap(), ExtraEnv: smap(), UnsetEnv: strs(),
			IsolateEnv: r.IntN(2) == 0, Ephemeral: r.IntN(2) == 0, Replace: r.IntN(2) == 0, ReplaceGen: text(),
			CreatedAt: text(), SockIno: uint64(r.IntN(1 << 40)), Waited: r.IntN(2) == 0,
		}
		if r.IntN(2) == 0 {
			n := text()
			c.DisplayName = &n
		}
		if r.IntN(2) == 0 {
			n := r.IntN(MaxScrollback + 1)
			c.Scrollback = &n
		}
		if r.IntN(2) == 0 {
			c.Extra = map[string]json.RawMessage{
				"state":      json.RawMessage(`{"k": [1, "x<"], "n": null}`),
				text():       json.RawMessage(`null`),
				"x" + text(): json.RawMessage(`"` + "\u2028" + `"`),
			}
		}
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		var want Config
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		got, err := Parse(b)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("config %d %s: read %+v, %v; json.Unmarshal read %+v", i, b, got, err, want)
		}
	}
	for _, bad := range []string{``, `[]`, `{"rows":"1"}`, `{"args":[1]}`, `{"id":"a"} {}`, `{"future":[}`} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("Parse(%q) succeeded", bad)
		}
	}
	if c, err := Parse([]byte(`{"id":"a","future":{"x":[1]}}`)); err != nil || c.ID != "a" {
		t.Errorf("an unknown field: %+v, %v", c, err)
	}
}
