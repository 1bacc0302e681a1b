// Command pty-send types text and keys into a session, as if from its
// keyboard.
package main

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"time"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/keys"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/lifecycle"
)

func main() {
	c := cli.NewCommand("send", "pty send REF TEXT | pty send REF [--with-delay SECS] [--paste] --seq ITEM [--seq ITEM]...")
	c.Long = `TEXT is sent exactly as given: no newline is added. To press keys, use
--seq items: an item "key:SPEC" is a key, anything else is literal text.

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

Example: pty send web --seq "make test" --seq key:return`
	var seq cli.StringList
	c.Flags.Var(&seq, "seq", "send `ITEM` (text, or key:SPEC); repeat for a sequence")
	delayS := c.Flags.String("with-delay", "0.3", "seconds to pause between --seq items")
	paste := c.Flags.Bool("paste", false, "wrap the payload in a bracketed paste (ESC[200~ ... ESC[201~)")
	for _, a := range os.Args[1:] {
		if a == "--" {
			break
		}
		switch a {
		case "--enter", "--newline", "--return", "--cr", "-enter", "-newline", "-return", "-cr":
			cli.Fatalf("%s is not a send flag: send adds no newline; to press Return use: pty send REF --seq \"TEXT\" --seq key:return", a)
		}
	}
	pos := c.Parse(os.Args[1:])
	if len(pos) == 0 {
		cli.Fatalf("send needs a session: pty send REF TEXT (see 'pty send --help')")
	}
	ref, pos := pos[0], pos[1:]
	if len(pos) > 0 && len(seq) > 0 {
		cli.Fatalf("give either TEXT or --seq items, not both: put the text in a --seq item (see 'pty send --help')")
	}
	if len(pos) > 1 {
		cli.Fatalf("Unexpected argument: %s (quote TEXT with spaces as one argument, or use --seq for several items)", pos[1])
	}
	delay, err := parseDelay(*delayS)
	cli.Check(err)

	var items []lifecycle.Item
	if len(pos) == 1 {
		items = append(items, lifecycle.Item{Bytes: []byte(pos[0])})
	}
	for _, s := range seq {
		b, err := keys.Item(s)
		cli.Check(err)
		it := lifecycle.Item{Bytes: b}
		if keys.ItemDependsOnModes(s) {
			it.Seq = s // encoded for the session's modes when its turn comes
		}
		items = append(items, it)
	}
	total := 0
	for _, it := range items {
		total += len(it.Bytes)
	}
	if total == 0 {
		cli.Fatalf("Nothing to send. Give TEXT or --seq items (see 'pty send --help')")
	}

	root := cli.Root()
	s := cli.Resolve(root, ref)
	if s.Shown() != layout.Running {
		cli.Check(s.DamagedErr())
		cli.Fatalf("Session %q is not running (status: %s); nothing was sent.", s.ID, s.Shown())
	}
	cli.Check(lifecycle.Send(root, s.ID, items, delay, *paste))
}

func parseDelay(s string) (time.Duration, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || math.IsNaN(f) || math.IsInf(f, 0) || f > 3600 {
		return 0, fmt.Errorf("--with-delay %q is not a number of seconds between 0 and 3600 (like 0.3, or 0 for none)", s)
	}
	return time.Duration(f * float64(time.Second)), nil
}
