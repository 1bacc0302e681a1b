// Package term is the terminal emulator behind pty sessions: it consumes a
// child's output and keeps the screen, scrollback, cursor, modes and title
// so that a client attaching later can be shown exactly what is there
// (Redraw), and so that the daemon can answer capture requests (PlainText,
// ANSI, LastLines) the way `tmux capture-pane` does.
//
// # Why not an existing emulator
//
// charmbracelet/x/vt, the obvious candidate, managed about 2.4 MB/s on
// coloured scrolling output at 200x50 because it copies the whole screen
// on every scroll, and it blocks when a query reply is not read. A session
// daemon sees bursts of megabytes (builds, logs, `cat`), so the emulator
// has to be cheap per byte and must never block the reader. The screen
// model here follows tmux's grid and alacritty's terminal; escape sequences
// are read by the package's own parser (parser.go), which behaves as
// github.com/charmbracelet/x/ansi's does without linking that package's
// tables into every session daemon.
//
// # Design
//
//   - Cells are 16 bytes: a rune and packed colours and attributes. A
//     colour keeps its kind (default, basic 16, 256-palette, RGB) in its
//     top byte, so a cell coloured with SGR 31 is re-emitted as 31 and the
//     attaching terminal's theme still applies. Grapheme clusters (a base
//     plus combining marks) live in a per-screen interned table referenced
//     from the rune field, so ordinary cells carry no pointers and the GC
//     never scans the grid. A cell's cluster is at most 32 bytes (a
//     letter and 15 two-byte accents, or a family emoji); further marks
//     are dropped, as in xterm and tmux, at the cost of a length check.
//     DECSCA's protection is an attribute bit of the cell, so it costs
//     nothing and travels through the scrollback with the style. The
//     rare underline colour (SGR 58) is likewise
//     a 16-bit index into a per-screen table, in bits the cell had spare;
//     scrollback style runs carry it only when it is set.
//   - The visible screen is a ring of rows: a full-screen scroll advances
//     the ring's origin and recycles the departing row, so scrolling never
//     moves cell data. Scroll regions rotate row headers only.
//   - Lines leaving the top of the main screen are encoded into a ring of
//     compact scrollback lines: trailing never-written cells dropped, text
//     kept as UTF-8 and styling as run lengths (absent for default-styled
//     lines), packed into 16 KiB chunks that are reused once their lines
//     have left the ring, so continuous output allocates nothing. 10,000
//     lines of 80-column text cost about 0.97 MB. Lines keep their
//     soft-wrap flag. A row printed only by appending ASCII keeps its
//     encoding up as it is printed, so scrolling it out is a copy; rows
//     also bound their written cells, so scrolling clears only those.
//   - When the width changes, the main screen and its scrollback are
//     reflowed as in tmux (reflow.go): rows joined by soft wraps are one
//     logical line, split again at the new width, and the cursor stays on
//     its character. The alternate screen is cut or extended; its program
//     repaints it. Which rows are joined follows tmux too: a row's written
//     extent survives erasing its tail (the erased cells become spaces)
//     and erasing a whole row ends the line that wrapped into it.
//   - Write has a fast path: runs of printable ASCII are stored straight
//     into the current row with the current pen, and complete plain CSI
//     sequences (the SGRs of coloured output) are decoded in place. Only
//     other escape sequences go through the byte-at-a-time parser.
//     OSC strings are collected here rather than by the parser so UTF-8
//     titles containing a 0x9c byte survive.
//
// Behaviour follows xterm where shells, editors, pagers and TUIs depend on
// it, and tmux where the two differ in ways visible in captures: ED 2 (and
// ED 0 from the home position) moves the screen into the scrollback like
// tmux's scroll-on-clear; lines scrolled out of any scroll region on the
// main screen are kept; a pending wrap survives LF; REP only repeats the
// character immediately before it (any control sequence in between, REP,
// OSC and DCS included, cancels it); conjoining Hangul vowels and final
// consonants have width 0 (glibc's wcwidth); a resize reflows. The tests
// compare against tmux byte for byte, resizes included. Where tmux loses
// text we do not follow it: it deletes rows below the cursor when the
// screen gets shorter even if they hold text (we keep those and push rows
// into the scrollback instead), and its reflow sometimes breaks a logical
// line before a wide character. Nor do we copy how ICH and DCH stretch a
// row's written extent to (nearly) the whole width in tmux, which makes a
// narrower reflow add rows of blanks. Where tmux departs from xterm we follow xterm, because the bytes
// also reach the client's own (xterm-like) terminal and a later Redraw
// must agree with what it showed: DEC line-drawing characters are stored
// as their Unicode equivalents (tmux captures the raw letters); CHT is
// implemented; cursor motion, BS and edits cancel a pending wrap and act
// on the last column; IL/DL do nothing outside the scroll region and move
// to column 0; REP wraps; autowrap scrolling fills the new line with the
// current background; overwriting either half of a wide character blanks
// the other half; Cursor reports a pending wrap on the last column;
// DECCOLM acts only while mode 40 allows it, and then clears the screen
// (into the scrollback, like ED 2), resets the margins and homes the
// cursor without changing the width, which is the clients' to choose;
// DECSED and DECSEL spare DECSCA-protected characters, and with none in
// their range are ED and EL (ED, EL and ECH erase protected characters).
//
// # Limits
//
// Output is untrusted: nothing a program prints may grow the emulator's
// memory beyond what the screen size and scrollback length imply, nor
// cost more than a bounded amount of work per byte. A cell keeps at most
// 32 bytes of grapheme cluster, and the per-screen cluster and
// underline-colour tables at most 65,536 entries each. A full cluster
// table drops the clusters no cell shows any more; only while all are in
// use do new clusters lose their marks. New underline colours past the
// limit fall back to the text colour. An OSC payload (title, notification) is kept up to
// 64 KiB, a DCS payload up to 4 KiB, and APC, PM and SOS strings not at
// all; a CSI keeps 32 parameters. Counts (CUU, IL, ICH, ECH, ...) are
// capped at 65,536 and REP at one screenful; scrolling a region by any
// count is one pass over it, and the other sequences that touch the whole
// screen (ED, DECALN, DECCOLM, REP, switching to the alternate screen and
// back) cost about what filling it does: the alternate grid is kept until
// the main screen has scrolled a screenful, so switching back and forth
// does not allocate. The title stack holds 10 entries, the kitty
// keyboard stacks 16. The scrollback holds its configured number of rows
// (reflow counts rows too), each at most the screen width: about a byte
// a cell for text, more for styles, 16 bytes a cell for rows holding
// clusters. FuzzRepeatedWrite checks these bounds against output
// repeated up to a megabyte.
//
// A Screen is not safe for concurrent use: the daemon serialises access.
// Callbacks (Options.Reply, Options.OnEvent) run synchronously inside Write
// and must not block; they may read the Screen but must not Write to or
// Resize it.
package term
