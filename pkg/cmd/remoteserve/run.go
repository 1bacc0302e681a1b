package remoteserve

import (
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"

	"golang.org/x/term"

	"github.com/ptyorg/pty/pkg/cmd/list"
	"github.com/ptyorg/pty/pkg/commands"
)

// RunMark is the byte --run writes on standard error before anything
// else: the client passes on only what follows it, so that what ssh says
// before the command starts (a refused login) is told apart from the
// command's own words, whatever the host's login shell.
const RunMark = 0x1e

// MaxRunArgs bounds the arguments of --run, decoded: Linux takes one
// argument of at most 128 KiB, and the whole command line reaches the
// host's shell as one.
const MaxRunArgs = 64 << 10

// EncodeArgs is the word --run takes for args: their bytes joined by NUL
// (which no argument holds) in unpadded URL-safe base64, whose letters
// every shell (sh, bash, zsh, fish, csh, tcsh) passes as they are.
func EncodeArgs(args []string) (string, error) {
	if len(args) == 0 || len(args) == 1 && args[0] == "" {
		return "", errors.New("no command to run")
	}
	for _, a := range args {
		if strings.ContainsRune(a, 0) {
			return "", fmt.Errorf("the argument %q holds a NUL byte, which no command line can carry", a)
		}
	}
	joined := strings.Join(args, "\x00")
	if len(joined) > MaxRunArgs {
		return "", fmt.Errorf("the command's arguments are %d bytes, more than the %d a host is sent", len(joined), MaxRunArgs)
	}
	return base64.RawURLEncoding.EncodeToString([]byte(joined)), nil
}

func decodeArgs(word string) ([]string, error) {
	if len(word) > base64.RawURLEncoding.EncodedLen(MaxRunArgs) {
		return nil, fmt.Errorf("--run: the arguments are longer than %d bytes", MaxRunArgs)
	}
	b, err := base64.RawURLEncoding.DecodeString(word)
	if err != nil || len(b) == 0 {
		return nil, errors.New("--run takes the arguments as pty --remote encodes them (unpadded URL-safe base64 of the arguments joined by NUL)")
	}
	return strings.Split(string(b), "\x00"), nil
}

// RunArgs runs "pty ARGS" for a client on another machine (pty --remote
// HOST COMMAND ...), ARGS encoded by EncodeArgs: after the mark, a
// built-in command's program pty-<sub> takes this process's place (list
// runs here, saving the start of one more program), anything else
// (flags, plugins, unknown commands) the dispatcher pty.
//
// With a terminal for standard error (ssh -tt, which merges the streams)
// there is no mark: the client does not look for one there, and it would
// reach the screen.
func RunArgs(word string) error {
	if !term.IsTerminal(int(os.Stderr.Fd())) {
		os.Stderr.Write([]byte{RunMark})
	}
	args, err := decodeArgs(word)
	if err != nil {
		return err
	}
	sub := args[0]
	if a, ok := commands.Unalias(sub); ok {
		sub = a
	}
	if _, builtin := commands.Lookup(sub); builtin && !strings.HasPrefix(sub, "-") {
		if sub == "list" {
			var o list.Options
			c := list.Command(&o)
			o.Args = c.Parse(args[1:])
			return list.Run(o, c.System())
		}
		if path, err := commands.Find(sub); err == nil {
			return execErr(path, syscall.Exec(path, append([]string{"pty-" + sub}, args[1:]...), os.Environ()))
		}
	}
	path, err := commands.Program("pty")
	if err != nil {
		return errors.New("pty is not installed beside pty-remote-serve or on the PATH: install it there")
	}
	return execErr(path, syscall.Exec(path, append([]string{"pty"}, args...), os.Environ()))
}

func execErr(path string, err error) error {
	return fmt.Errorf("run %s: %v", path, err)
}
