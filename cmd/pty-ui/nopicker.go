//go:build !ptyui

// Command pty-ui is the interactive session picker. This is the stand-in
// built while go.mod's bubbletea and lipgloss versions do not compile
// together (see main.go): it says so instead of breaking every build.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

func main() {
	for _, a := range os.Args[1:] {
		if a == "--help" || a == "-h" {
			fmt.Println("the interactive session picker\n\nUsage: pty [ui] [--filter-tag K=V]... [--preselect-new] [--force]\n\nThis build does not include the picker: build with -tags ptyui.")
			return
		}
	}
	fmt.Fprintln(os.Stderr, "pty: this build does not include the session picker (build with -tags ptyui); use 'pty list' and 'pty attach ID'")
	if len(os.Args) == 1 {
		// Plain `pty` lands here: show the usage it would show without
		// a picker.
		if exe, err := os.Executable(); err == nil {
			p := filepath.Join(filepath.Dir(exe), "pty")
			syscall.Exec(p, []string{"pty", "help"}, os.Environ())
		}
	}
	os.Exit(1)
}
