package testutil

import (
	"debug/elf"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// Symbols returns the names of the functions linked into the built
// command name (pty, pty-daemon, ...), for tests that keep a binary free
// of a package. It skips where binaries are not ELF.
func Symbols(t testing.TB, name string) []string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("reads the ELF symbol table")
	}
	f, err := elf.Open(filepath.Join(BinDir(t), name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatalf("%s symbols: %v", name, err)
	}
	var names []string
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC {
			names = append(names, s.Name)
		}
	}
	return names
}

// LinksNone fails t for each entry of unwanted (a symbol prefix such as
// "net." or "github.com/charmbracelet/", and why the package is unwanted)
// that a function of the built program name matches, naming one such
// function; fix says what to do instead. It is the check of a command's
// small program (pty-peek, pty-list, pty-run), which serves its common
// command lines and execs the whole command for the others: a linked
// package's set-up and its share of the binary's page faults come with
// every start, whether the run uses it or not.
func LinksNone(t testing.TB, name string, unwanted map[string]string, fix string) {
	t.Helper()
	found := map[string]string{}
	for _, s := range Symbols(t, name) {
		for pkg := range unwanted {
			if strings.HasPrefix(s, pkg) && found[pkg] == "" {
				found[pkg] = s
			}
		}
	}
	for _, pkg := range slices.Sorted(maps.Keys(found)) {
		t.Errorf("%s links %s (%s: %s); %s", name, strings.TrimSuffix(pkg, "."), found[pkg], unwanted[pkg], fix)
	}
}

// Unwanted returns, for LinksNone, the packages that no small program
// links: the attach client and its terminal emulator (whose parser's and
// width tables' set-up was most of the work of a peek), remote routes and
// the network poller; with atStart also flag parsing, signal handling,
// fmt and the reflection-based encoding/json, for a program that parses
// its command line by hand (pty-peek, pty-list). More can be added to
// the map it returns.
func Unwanted(atStart bool) map[string]string {
	m := map[string]string{
		"github.com/ptyorg/pty/pkg/term.":   "the terminal emulator (reattach's screen tracking)",
		"github.com/charmbracelet/":         "the emulator's parser and width tables",
		"github.com/mattn/go-runewidth.":    "width tables",
		"github.com/ptyorg/pty/pkg/client.": "the attach client (net, the emulator)",
		"github.com/ptyorg/pty/pkg/remote.": "remote routes (ssh, toml)",
		"github.com/pelletier/go-toml":      "remotes.toml",
		"net.":                              "the network poller",
	}
	if atStart {
		for pkg, why := range map[string]string{
			"github.com/ptyorg/pty/pkg/cli.": "flag parsing and help (pkg/cli/lite has the rest)",
			"flag.":                          "flag parsing",
			"github.com/peterbourgon/ff":     "flag parsing",
			"os/signal.":                     "signal handling",
			"os/user.":                       "user lookup, which brings fmt",
			"fmt.":                           "fmt: messages are put together with strconv",
			"internal/fmtsort.":              "fmt's map sorting, with fmt",
			"encoding/json.Marshal":          "json.Marshal: JSON is written with internal/jsonlite",
			"encoding/json.Unmarshal":        "json.Unmarshal: records are read with internal/jsonlite",
			"encoding/json.(*encodeState)":   "encoding/json's reflection-based encoder",
			"encoding/json.(*decodeState)":   "encoding/json's reflection-based decoder",
			"reflect.Value.Field":            "walking structs by reflection",
			"reflect.(*MapIter)":             "walking maps by reflection",
			"sort.Slice":                     "sorting by reflection (slices.SortFunc does not)",
		} {
			m[pkg] = why
		}
	}
	return m
}

// Lone copies the built program name (pty-peek, say) alone into a
// directory of its own and returns a runner of that copy under root,
// with nothing else on PATH: what a program that hands some command lines
// over to another does when the other is missing.
func Lone(t *testing.T, root, name string) func(args ...string) Result {
	t.Helper()
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join(BinDir(t), name))
	if err != nil {
		t.Fatal(err)
	}
	lone := filepath.Join(dir, name)
	if err := os.WriteFile(lone, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return func(args ...string) Result {
		cmd := Command(t, root, "", args...)
		cmd.Path, cmd.Args = lone, append([]string{lone}, args...)
		cmd.Env = append(cmd.Env, "PATH="+dir)
		return RunCmd(t, cmd)
	}
}
