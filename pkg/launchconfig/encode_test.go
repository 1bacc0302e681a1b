package launchconfig

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// AppendJSON must write what json.Marshal writes, and Parse must read it
// back as it was.
func TestAppendJSONIsMarshal(t *testing.T) {
	n, name, odd := 0, "a <name> & \u2028", "bad \xff utf-8"
	full := Config{
		Root: "/r", ID: "id", Command: "/bin/sh", Args: []string{"-c", "echo \"hi\"\n"}, DisplayCommand: "sh -c ...",
		Cwd: "/tmp", Rows: 24, Cols: 80, Scrollback: &n, Tags: map[string]string{"b": "2", "a": "1"},
		DisplayName: &name, ExtraEnv: map[string]string{"K": "V"}, UnsetEnv: []string{"U"}, IsolateEnv: true,
		Ephemeral: true, Extra: map[string]json.RawMessage{"state": json.RawMessage(`{ "k" : [1, "<x>"] }`), "n": nil},
		Replace: true, ReplaceGen: "g0", ExactEnv: map[string]string{"PATH": "/bin"}, Generation: "g1",
		CreatedAt: "2026-12-02T07:00:00.000Z", SockIno: 1 << 40, Waited: true,
	}
	for _, c := range []Config{{}, {Args: []string{}}, {Tags: map[string]string{}}, {DisplayName: &odd}, full} {
		want, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.AppendJSON(nil)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("AppendJSON = %s, %v\njson.Marshal = %s", got, err, want)
		}
	}
	b, _ := full.AppendJSON(nil)
	back, err := Parse(b)
	full.Extra["state"] = json.RawMessage(`{"k":[1,"\u003cx\u003e"]}`)
	full.Extra["n"] = json.RawMessage(`null`)
	if err != nil || !reflect.DeepEqual(back, full) {
		t.Errorf("Parse(AppendJSON) = %+v, %v\nwant %+v", back, err, full)
	}
	bad := Config{Extra: map[string]json.RawMessage{"x": json.RawMessage(`{`)}}
	if _, err := bad.AppendJSON(nil); err == nil {
		t.Error("AppendJSON wrote invalid raw JSON")
	}
}
