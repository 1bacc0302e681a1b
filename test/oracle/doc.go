// Package oracle holds end-to-end tests that use tmux as the reference for
// what `pty peek` prints: each case runs the same program with the same
// argv, environment, directory and size once in a private tmux server and
// once in a pty session, types the same bytes into both, waits until both
// screens are stable and show an expected marker, and then compares
// `tmux capture-pane -p` with `pty peek --plain` and the per-cell colours
// and attributes of `tmux capture-pane -p -e` with `pty peek`.
//
// The package has no non-test code; this file exists so that `go vet` and
// `go build ./...` see a package here.
//
// Programs used: tmux (the whole package is skipped without it), ls
// (coreutils), vim (the full vim package: vim-tiny has no syntax
// highlighting), less, printf and sh. A case whose program is missing is
// skipped naming the Debian package to install.
package oracle
