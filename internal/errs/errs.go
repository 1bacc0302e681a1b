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
