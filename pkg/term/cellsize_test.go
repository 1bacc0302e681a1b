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

func TestPackAttrUL(t *testing.T) {
	var c Cell
	c.setAttrUL(packAttrUL(AttrBold|AttrItalic, 0x1234))
	if c.Attr != AttrBold|AttrItalic || c.ul != 0x1234 || c.R != 0 || c.Bg != 0 {
		t.Fatalf("packAttrUL does not match the Cell layout: %+v", c)
	}
}
