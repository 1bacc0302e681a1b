package remoteserve

import (
	"slices"
	"strings"
	"testing"
)

func TestArgsRoundTrip(t *testing.T) {
	for _, args := range [][]string{{"list"}, {"run", "--", "", "it's", "a\nb", "é", ""}} {
		enc, err := EncodeArgs(args)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Trim(enc, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
			t.Fatalf("%q encodes to %q, not a plain word", args, enc)
		}
		got, err := decodeArgs(enc)
		if err != nil || !slices.Equal(got, args) {
			t.Fatalf("%q: decoded %q %v", args, got, err)
		}
	}
	if _, err := EncodeArgs([]string{"a\x00b"}); err == nil {
		t.Fatal("a NUL byte was encoded")
	}
	if _, err := EncodeArgs([]string{strings.Repeat("x", MaxRunArgs+1)}); err == nil {
		t.Fatal("more than MaxRunArgs was encoded")
	}
	if _, err := decodeArgs("not base64!"); err == nil {
		t.Fatal("a bad word was decoded")
	}
}
