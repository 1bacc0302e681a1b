package cli

import (
	"flag"
	"io"
	"testing"
	"time"
)

func TestFlagErrorsReadAsTyped(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--force"}, "unknown flag --force"},
		{[]string{"-z"}, "unknown flag -z"},
		{[]string{"--rows", "abc"}, `--rows: "abc" is not a whole number`},
		{[]string{"--rows", "99999999999999999999"}, `--rows: "99999999999999999999" is out of range`},
		{[]string{"--name"}, "--name needs a value"},
		{[]string{"-d=maybe"}, `-d: "maybe" is not true or false`},
		{[]string{"--every", "soon"}, `--every: "soon" is not a duration (write it like 30s, 5m or 2h)`},
	}
	for _, c := range cases {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Int("rows", 0, "")
		fs.String("name", "", "")
		fs.Bool("d", false, "")
		fs.Duration("every", time.Second, "")
		err := fs.Parse(c.args)
		if err == nil {
			t.Fatalf("%v: no error", c.args)
		}
		if got := cleanFlagErr(fs, err).Error(); got != c.want {
			t.Errorf("%v: %q, want %q (from %q)", c.args, got, c.want, err)
		}
	}
}
