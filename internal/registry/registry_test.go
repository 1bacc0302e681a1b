package registry

import (
	"strings"
	"testing"

	"github.com/ptyorg/pty/pkg/layout"
)

func TestRandomID(t *testing.T) {
	for i := 0; i < 100; i++ {
		id := RandomID()
		if len(id) != 8 || strings.Trim(id, idAlphabet) != "" || layout.ValidateID(id) != nil {
			t.Fatalf("RandomID() = %q", id)
		}
	}
}
