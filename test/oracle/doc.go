// Package oracle holds end-to-end tests that use tmux as the reference for
// what `pty peek` prints. Each case runs the same program with the same
// argv, environment (env -i with TERM=xterm-256color, LANG=C.UTF-8,
// TZ=UTC), directory and size once in a private tmux server and once in a
// pty session, types the same bytes into both (tmux send-keys -H, pty
// send), waits until both screens show an expected marker and have stopped
// changing, and then compares:
//
//   - `tmux capture-pane -p` with `pty peek --plain`, byte for byte
//     (peek drops the trailing empty rows capture-pane prints);
//   - the colours and attributes of every printed glyph, parsed from
//     `tmux capture-pane -p -e -N` and `pty peek` into a normalised style
//     (SGR 31 and 38;5;1 are the same palette colour);
//   - the size, cursor position and cursor visibility (`tmux
//     display-message` against `pty stats --json`);
//   - for the scrollback, `capture-pane -S -` with `peek --full`.
//
// Cases: coloured ls, vim (syntax off and on; typing, moving, number,
// search, visual selection, splits scrolled in scroll regions), less
// (paging, search), a scroll-region script, wide/combining/emoji widths,
// a truecolor gradient, the 256-colour table and attributes, editing
// sequences, the scrollback within and beyond the history limit, and
// resizes through a real attached client.
//
// Where tmux itself is not a good reference the test says why and
// compares what remains meaningful (tmux 3.3 overwriting the right half
// of a wide character in column 0; its overline written as "5:3"; emoji
// ZWJ sequences; OSC 11 background answers changing vim's colours).
//
// Programs needed: tmux (every test skips without it), coreutils (ls,
// env), vim (the full package: vim-tiny has no syntax highlighting), less.
// A case whose program is missing is skipped naming the package.
//
// The package has no non-test code; this file gives it a name for go vet
// and go build.
package oracle
