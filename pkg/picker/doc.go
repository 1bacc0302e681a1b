// Package picker is the interactive session list that `pty` opens when run
// with no arguments: a fuzzy filter over the sessions, Enter to attach, and
// back to the list on detach. It is a bubbletea model; attaching hands the
// terminal to a `pty-attach` child process, so the picker never has to
// re-implement the attach loop and a crash in one cannot take down the
// other.
package picker
