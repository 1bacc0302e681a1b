// Package send is "pty send": type text and keys into a session, as if
// from its keyboard. cmd/pty-send only parses the command line and calls
// Run.
package send

import (
	"errors"
	"fmt"
	stdio "io"
	"os"
	"strings"
	"time"

	"github.com/ptyorg/pty/internal/duration"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/keys"
	"github.com/ptyorg/pty/pkg/layout"
)

// Options are send's flags and arguments.
type Options struct {
	Seq   []string // --seq ITEM, repeatable
	Delay string   // --with-delay D
	Paste bool     // --paste
	File  string   // --file PATH: the text to type
	// NewlineFlag is a flag people try for pressing Return (--enter, ...),
	// found before parsing: send refuses it with a hint.
	NewlineFlag string
	Args        []string // REF [TEXT]
	// Route, when set, connects to the session on another host (pty
	// --remote HOST send): REF is resolved there.
	Route client.Router
}

// Command declares send's flags, filling o.
func Command(o *Options) *cli.Command {
	c := cli.NewCommand("send", "pty send REF TEXT | pty send REF - | pty send REF --file PATH | pty send REF [--with-delay D] [--paste] --seq ITEM [--seq ITEM]...")
	c.Long = `TEXT is sent exactly as given: no newline is added. To press keys, use
--seq items: an item "key:SPEC" is a key, anything else is literal text.
TEXT that looks like a key (key:...) is still typed as text, with a
warning: to press the key, use --seq.

TEXT "-" types what comes on standard input, and --file PATH a file's
contents, of any length, as they are read, in pieces of at most 64 KiB;
send returns once the session's daemon has read it all. To type a
literal "-", use --seq -.

Key specs are case-insensitive; modifiers ctrl, alt and shift come first,
joined by '+', '-' or '_' (C-x is ctrl+x). Named keys: return (enter), tab,
esc, backspace, delete, insert, space, up, down, left, right, home, end,
pageup, pagedown, f1 to f12, the keypad's kp0 to kp9, kpenter, kpplus,
kpminus, kpmultiply, kpdivide, kpperiod, kpcomma, kpequal; or any letter,
digit or punctuation.
Examples: key:return  key:ctrl+c  key:C-d  key:shift+tab  key:alt+f  key:ctrl+up

Keys are typed as the program expects them: arrows, Home and End are sent
as ESC O A etc. while it has the cursor keys in application mode (less,
vim and other full-screen programs), and the keypad as ESC O p etc. while
it has the keypad in application mode, as a terminal would.

Items are sent 0.3 s apart so programs see them as separate keystrokes;
--with-delay 0 sends them back to back. Every item is checked before
anything is sent. --paste wraps everything in one bracketed paste.

Example: pty send web --seq "make test" --seq key:return

--remote HOST (or PTY_REMOTE=HOST) sends to a session on another host over
ssh, REF resolved there, keys following that program's modes. See 'pty
remote --help' and docs/remote.md.`
	c.Flags.Var((*cli.StringList)(&o.Seq), "seq", "send `ITEM` (text, or key:SPEC); repeat for a sequence")
	c.Flags.StringVar(&o.Delay, "with-delay", "0.3", "pause `D` between --seq items: seconds (0.3) or 300ms, 1s")
	c.Flags.StringVar(&o.File, "file", "", "type the contents of the file at `PATH` (- for standard input)")
	c.Flags.BoolVar(&o.Paste, "paste", false, "wrap the payload in a bracketed paste (ESC[200~ ... ESC[201~)")
	return c
}

// Parse fills o from the command line (without the program name). A flag
// meant to press Return is not parsed (it would be an unknown flag) but
// kept for Run to explain.
func Parse(c *cli.Command, o *Options, args []string) {
	for _, a := range args {
		if a == "--" {
			break
		}
		switch a {
		case "--enter", "--newline", "--return", "--cr", "-enter", "-newline", "-return", "-cr":
			o.NewlineFlag = a
			return
		}
	}
	o.Args = c.Parse(args)
}

// Run sends what o gives to the session it names.
func Run(o Options, io cli.IO) error {
	if o.NewlineFlag != "" {
		return fmt.Errorf("%s is not a send flag: send adds no newline; to press Return use: pty send REF --seq \"TEXT\" --seq key:return", o.NewlineFlag)
	}
	pos := o.Args
	if len(pos) == 0 {
		return errors.New("send needs a session: pty send REF TEXT (see 'pty send --help')")
	}
	ref, pos := pos[0], pos[1:]
	if len(pos) > 0 && len(o.Seq) > 0 {
		return errors.New("give either TEXT or --seq items, not both: put the text in a --seq item (see 'pty send --help')")
	}
	if o.File != "" && (len(pos) > 0 || len(o.Seq) > 0) {
		return errors.New("give either --file or TEXT or --seq items, not several (see 'pty send --help')")
	}
	if len(pos) > 1 {
		return fmt.Errorf("Unexpected argument: %s (quote TEXT with spaces as one argument, or use --seq for several items)", pos[1])
	}
	delay, err := parseDelay(o.Delay)
	if err != nil {
		return err
	}

	var items []Item
	from := o.File
	if len(pos) == 1 && pos[0] == "-" {
		from = "-"
	} else if len(pos) == 1 {
		items = append(items, Item{Bytes: []byte(pos[0])})
		if looksLikeKey(pos[0]) {
			fmt.Fprintf(io.Err, "pty: warning: %q is typed as text, not pressed as a key; to press it use: pty send REF --seq %s\n", pos[0], pos[0])
		}
	}
	for _, s := range o.Seq {
		b, err := keys.Item(s)
		if err != nil {
			return err
		}
		it := Item{Bytes: b}
		if keys.ItemDependsOnModes(s) {
			it.Seq = s // encoded for the session's modes when its turn comes
		}
		items = append(items, it)
	}
	total := 0
	for _, it := range items {
		total += len(it.Bytes)
	}
	if total == 0 && from == "" {
		return errors.New("Nothing to send. Give TEXT or --seq items (see 'pty send --help')")
	}

	if o.Route != nil {
		return sendRouted(o, io, ref, from, items, delay)
	}
	root := io.Root
	s, err := layout.At(root).Resolve(ref)
	if err != nil {
		return err
	}
	if s.Shown() != layout.Running {
		if err := s.DamagedErr(); err != nil {
			return err
		}
		return cli.Sentencef("Session %q is not running (status: %s); nothing was sent.", s.ID, s.Shown())
	}
	if from != "" {
		r, closeFrom, err := openFrom(from, io)
		if err != nil {
			return err
		}
		defer closeFrom()
		items = []Item{{From: r}}
	}
	return Send(root, s.ID, items, delay, o.Paste)
}

// looksLikeKey: TEXT of the form of a --seq key item, which people give
// as TEXT expecting the key to be pressed.
func looksLikeKey(text string) bool {
	return len(text) > len("key:") && strings.EqualFold(text[:len("key:")], "key:")
}

// openFrom opens the text to type: standard input for "-", else a file.
func openFrom(path string, io cli.IO) (stdio.Reader, func(), error) {
	if path == "-" {
		if io.In == nil {
			return nil, nil, errors.New("send has no standard input to read the text from")
		}
		return io.In, func() {}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, cli.Sentencef("Cannot read --file %s: %v; nothing was sent.", path, errors.Unwrap(err))
	}
	return f, func() { f.Close() }, nil
}

func parseDelay(s string) (time.Duration, error) {
	d, err := duration.Parse(s)
	if err != nil {
		return 0, fmt.Errorf("--with-delay %q is not valid: %v", s, err)
	}
	if d > time.Hour {
		return 0, fmt.Errorf("--with-delay %q is more than an hour: give up to 3600 (like 0.3, 300ms, or 0 for none)", s)
	}
	return d, nil
}
