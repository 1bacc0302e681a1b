package errs

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

func TestWrapReadsAndUnwrapsLikeErrorf(t *testing.T) {
	base := &fs.PathError{Op: "open", Path: "/x", Err: fs.ErrNotExist}
	got := Wrap("read session a", base)
	want := fmt.Errorf("read session a: %w", base)
	if got.Error() != want.Error() {
		t.Fatalf("Error() = %q, fmt.Errorf gives %q", got, want)
	}
	var pe *fs.PathError
	if !errors.Is(got, fs.ErrNotExist) || !errors.As(got, &pe) || pe != base {
		t.Fatalf("%v does not unwrap to %v", got, base)
	}
}

func TestTextUnwraps(t *testing.T) {
	err := Text("lock x: busy (held by pid 3)", fs.ErrExist)
	if err.Error() != "lock x: busy (held by pid 3)" || !errors.Is(err, fs.ErrExist) {
		t.Fatalf("Text gives %q, unwrapping to %v", err, errors.Unwrap(err))
	}
}

func TestSentenceSaysSoAndUnwraps(t *testing.T) {
	err := Sentence(`Session "web" is not running.`, fs.ErrNotExist)
	s, ok := err.(interface{ Sentence() bool })
	if err.Error() != `Session "web" is not running.` || !errors.Is(err, fs.ErrNotExist) || !ok || !s.Sentence() {
		t.Fatalf("Sentence gives %q, unwrapping to %v, sentence %v", err, errors.Unwrap(err), ok)
	}
}

func TestBothReadsAndUnwrapsLikeErrorf(t *testing.T) {
	first := errors.New("session is not running")
	second := &fs.PathError{Op: "connect", Path: "/x.sock", Err: fs.ErrNotExist}
	got := Both(first, second)
	want := fmt.Errorf("%w: %w", first, second)
	if got.Error() != want.Error() {
		t.Fatalf("Error() = %q, fmt.Errorf gives %q", got, want)
	}
	var pe *fs.PathError
	if !errors.Is(got, first) || !errors.Is(got, fs.ErrNotExist) || !errors.As(got, &pe) || pe != second {
		t.Fatalf("%v does not unwrap to both %v and %v", got, first, second)
	}
}
