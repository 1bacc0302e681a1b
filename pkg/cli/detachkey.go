package cli

import (
	"errors"
	"fmt"

	"github.com/ptyorg/pty/internal/detachkey"
)

// DetachKeyFlag defines --detach-key KEY, for the commands that attach a
// terminal, and returns the key to use: the flag's, else $PTY_DETACH_KEY's
// (from the environment the Source is given: IO.Getenv), else Ctrl+\. A
// bad PTY_DETACH_KEY is reported only when the key is asked for, so that
// it does not stop a command that never attaches (run -d).
func (c *Command) DetachKeyFlag() detachkey.Source {
	v := &detachKeyValue{}
	c.Flags.Var(v, "detach-key", "detach with `KEY` instead of Ctrl+\\: ctrl+a, ctrl+], ... (as pty send writes keys), or none (default $"+detachkey.Env+")")
	return func(getenv func(string) string) (detachkey.Key, error) {
		if v.set {
			return v.key, nil
		}
		env := getenv(detachkey.Env)
		if env == "" {
			return detachkey.Default, nil
		}
		k, err := detachkey.Parse(env)
		if err != nil {
			return detachkey.Key{}, fmt.Errorf("%s=%v", detachkey.Env, err)
		}
		return k, nil
	}
}

type detachKeyValue struct {
	key detachkey.Key
	set bool
}

func (v *detachKeyValue) String() string {
	if v == nil || !v.set {
		return ""
	}
	return v.key.Spec()
}

func (v *detachKeyValue) Set(s string) error {
	k, err := detachkey.Parse(s)
	if e, ok := err.(*detachkey.Error); ok {
		return errors.New(e.Why)
	} else if err != nil {
		return err
	}
	v.key, v.set = k, true
	return nil
}
