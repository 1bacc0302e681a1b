package remoteserve

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzDispatch holds the answer to any request line to the protocol: one
// JSON object with a single line, never a route, in a registry with no
// sessions: an error, or no sessions and the host's clock.
func FuzzDispatch(f *testing.F) {
	for _, s := range []string{`{"op":"list"}`, `{"op":"route","name":"web"}`, `{"op":5}`, `{}`, `[1]`, `null`, "{\"op\":\"route\",\"name\":\"\\u0000\"}", `{"op":"\ud800"}`} {
		f.Add([]byte(s))
	}
	s := &server{root: f.TempDir(), wait: RequestWait}
	f.Fuzz(func(t *testing.T, line []byte) {
		resp, target := s.dispatch(line)
		if target != nil {
			target.Close()
			t.Fatalf("%q routed in an empty registry", line)
		}
		var v map[string]any
		err := json.Unmarshal(resp, &v)
		_, list := v["now"]
		if bytes.ContainsAny(resp, "\r\n") || err != nil || len(v) != 1 && !(list && len(v) == 2) {
			t.Fatalf("%q: answer %q is not one JSON object on one line", line, resp)
		}
		if _, ok := v["error"]; !ok {
			if sessions, ok := v["sessions"].([]any); !ok || len(sessions) != 0 {
				t.Fatalf("%q: answer %q", line, resp)
			}
		}
	})
}
