// Command pty-stats shows what sessions' daemons report about themselves
// (pkg/cmd/stats).
package main

import (
	"os"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/cmd/stats"
)

func main() {
	var o stats.Options
	c := stats.Command(&o)
	stats.Parse(c, &o, os.Args[1:])
	cli.Exit(stats.Run(o, c.System()))
}
