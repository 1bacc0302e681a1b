package term

import (
	"testing"
	"unsafe"
)

func TestCellSize(t *testing.T) {
	if s, a := unsafe.Sizeof(Cell{}), unsafe.Alignof(Cell{}); s != 16 || a != 8 {
		t.Fatalf("Cell is %d bytes, align %d", s, a)
	}
}
