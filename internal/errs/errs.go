// Package errs wraps errors the way fmt.Errorf's %w does, for code the
// session daemon runs: fmt brings reflect's Value machinery with it, and
// the daemon's whole binary stays resident in every session.
package errs

// Wrap returns an error that reads "msg: err" and unwraps to err, as
// fmt.Errorf(msg+": %w", err) does.
func Wrap(msg string, err error) error { return &wrapped{msg + ": " + err.Error(), err} }

// Text returns an error that reads text and unwraps to err, for messages
// where err is not at the end: text is usually built with err.Error().
func Text(text string, err error) error { return &wrapped{text, err} }

type wrapped struct {
	text string
	err  error
}

func (e *wrapped) Error() string { return e.text }
func (e *wrapped) Unwrap() error { return e.err }

// Both returns an error that reads "first: second" and unwraps to both,
// as fmt.Errorf("%w: %w", first, second) does.
func Both(first, second error) error {
	return &both{first.Error() + ": " + second.Error(), [2]error{first, second}}
}

type both struct {
	text string
	errs [2]error
}

func (e *both) Error() string   { return e.text }
func (e *both) Unwrap() []error { return e.errs[:] }
