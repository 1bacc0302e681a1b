package docs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/ptyorg/pty/internal/testutil"
)

var docPath = regexp.MustCompile(`docs/[A-Za-z0-9_.-]*[A-Za-z0-9_-]`)

// namedInStrings returns the docs/ paths that string literals in the
// module's non-test Go files name (messages, --help texts), each with one
// place that names it. Comments do not count: no user reads them.
func namedInStrings(t *testing.T, mod string) map[string]string {
	t.Helper()
	named := map[string]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(mod, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != mod && (strings.HasPrefix(n, ".") || n == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			for _, p := range docPath.FindAllString(s, -1) {
				if _, seen := named[p]; !seen {
					pos := fset.Position(lit.Pos())
					rel, _ := filepath.Rel(mod, pos.Filename)
					named[p] = rel + ":" + strconv.Itoa(pos.Line)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return named
}

func TestDocsThatMessagesNameExistAndAreLinked(t *testing.T) {
	mod := testutil.ModuleRoot(t)
	readme, err := os.ReadFile(filepath.Join(mod, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	named := namedInStrings(t, mod)
	if len(named) == 0 {
		t.Fatal("no string names a docs/ file: the scan is broken")
	}
	paths := make([]string, 0, len(named))
	for p := range named {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	t.Logf("named in strings: %v", paths)
	for _, p := range paths {
		if _, err := os.Stat(filepath.Join(mod, p)); err != nil {
			t.Errorf("%s names %s, which does not exist", named[p], p)
			continue
		}
		if !strings.Contains(string(readme), "]("+p+")") {
			t.Errorf("%s names %s, which the README does not link", named[p], p)
		}
	}
	for _, m := range regexp.MustCompile(`\]\((docs/[^)#]+)`).FindAllStringSubmatch(string(readme), -1) {
		if _, err := os.Stat(filepath.Join(mod, m[1])); err != nil {
			t.Errorf("the README links %s, which does not exist", m[1])
		}
	}
}

// TestReadmeSaysFirstWhatSurprises: before its first command, the README
// says that a finished session's record goes (and a failed one stays),
// that the tests take minutes, and that -race needs a C compiler.
func TestReadmeSaysFirstWhatSurprises(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(testutil.ModuleRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	before, _, ok := strings.Cut(string(b), "```")
	if !ok {
		t.Fatal("the README has no command block")
	}
	before = strings.Join(strings.Fields(before), " ")
	for _, want := range []string{"exits 0 is removed", "fails", "is kept", "pty kill", "tests take minutes", "-race` needs a C compiler"} {
		if !strings.Contains(before, want) {
			t.Errorf("the README does not say %q before its first command", want)
		}
	}
}
