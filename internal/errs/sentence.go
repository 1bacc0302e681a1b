package errs

// Sentence returns an error that reads text, unwraps to err (which may
// be nil), and says with its method Sentence that it is printed as it
// is: text begins with what it is about ("Session \"web\" is not
// running."), where a command prints other errors after "pty: ". An
// error that wraps it is printed by its own form: a text before it names
// something else first.
func Sentence(text string, err error) error { return &sentence{wrapped{text, err}} }

type sentence struct{ wrapped }

func (*sentence) Sentence() bool { return true }
