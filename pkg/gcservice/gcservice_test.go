package gcservice

import (
	"encoding/xml"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
)

func testConfig(t *testing.T) Config {
	t.Helper()
	// Any real executable will do for ExecStart (systemd-analyze checks
	// it exists); the test binary needs no build of the commands.
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Config{
		Root:     "/tmp/pty root & <co>", // spaces and XML specials must survive both formats
		Exec:     exe,
		Path:     "/usr/local/bin:/usr/bin:/bin",
		Interval: 45 * time.Second,
		Home:     t.TempDir(),
	}
}

// The generated units must pass systemd's own checker with no warnings at
// all (systemd-analyze exits 0 even for unknown keys, so stderr must be
// empty too).
func TestSystemdUnitsVerify(t *testing.T) {
	sa, err := exec.LookPath("systemd-analyze")
	if err != nil {
		testutil.MissingTool(t, "systemd-analyze (apt-get install systemd)")
	}
	for _, system := range []bool{false, true} {
		c := testConfig(t)
		c.System = system
		files, err := Render(c, Systemd)
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != 2 || !strings.HasSuffix(files[0].Path, ".service") || !strings.HasSuffix(files[1].Path, ".timer") {
			t.Fatalf("want a .service and a .timer, got %+v", files)
		}
		if !system && !strings.HasPrefix(files[0].Path, filepath.Join(c.Home, ".config/systemd/user")+"/") {
			t.Errorf("user unit goes to %s", files[0].Path)
		}
		if system && filepath.Dir(files[0].Path) != "/etc/systemd/system" {
			t.Errorf("system unit goes to %s", files[0].Path)
		}
		dir := t.TempDir()
		var paths []string
		for _, f := range files {
			p := filepath.Join(dir, filepath.Base(f.Path))
			if err := os.WriteFile(p, []byte(f.Content), 0o644); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, p)
		}
		cmd := exec.Command(sa, append([]string{"verify"}, paths...)...)
		out, err := cmd.CombinedOutput()
		if err != nil || len(strings.TrimSpace(string(out))) > 0 {
			t.Fatalf("systemd-analyze verify (system=%v): %v\n%s\n--- service:\n%s\n--- timer:\n%s", system, err, out, files[0].Content, files[1].Content)
		}
		svc, timer := files[0].Content, files[1].Content
		for _, want := range []string{"Type=oneshot", `"PTY_ROOT=/tmp/pty root & <co>"`, `"PATH=/usr/local/bin:/usr/bin:/bin"`, "--log", "gc.log", "KillMode=process"} {
			if !strings.Contains(svc, want) {
				t.Errorf("service lacks %q:\n%s", want, svc)
			}
		}
		if system != strings.Contains(svc, "\nUser=") {
			t.Errorf("system=%v but User= line presence differs:\n%s", system, svc)
		}
		if !strings.Contains(timer, "OnUnitActiveSec=45s") || !strings.Contains(timer, "Unit="+Name(c.Root)+".service") {
			t.Errorf("timer:\n%s", timer)
		}
	}
}

// plist is the subset of a property list we check: a dict of keys and
// typed values, decoded generically.
type plistDict struct {
	Items []plistItem `xml:",any"`
}

type plistItem struct {
	XMLName xml.Name
	Content string      `xml:",chardata"`
	Items   []plistItem `xml:",any"`
}

func TestLaunchdPlist(t *testing.T) {
	c := testConfig(t)
	files, err := Render(c, Launchd)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Path != filepath.Join(c.Home, "Library/LaunchAgents", Label(c.Root)+".plist") {
		t.Fatalf("files: %+v", files)
	}
	dec := xml.NewDecoder(strings.NewReader(files[0].Content))
	var top struct {
		XMLName xml.Name  `xml:"plist"`
		Dict    plistDict `xml:"dict"`
	}
	if err := dec.Decode(&top); err != nil {
		t.Fatalf("plist is not well-formed XML: %v\n%s", err, files[0].Content)
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if cd, ok := tok.(xml.CharData); err != nil || !ok || strings.TrimSpace(string(cd)) != "" {
			t.Fatalf("trailing content after </plist>: %v %v", tok, err)
		}
	}
	got := map[string]plistItem{}
	items := top.Dict.Items
	for i := 0; i+1 < len(items); i += 2 {
		if items[i].XMLName.Local != "key" {
			t.Fatalf("dict entry %d is <%s>, want <key>", i, items[i].XMLName.Local)
		}
		got[items[i].Content] = items[i+1]
	}
	if v := got["StartInterval"]; v.XMLName.Local != "integer" || v.Content != "45" {
		t.Errorf("StartInterval = <%s>%s, want <integer>45", v.XMLName.Local, v.Content)
	}
	if v := got["Label"]; v.Content != Label(c.Root) {
		t.Errorf("Label = %q", v.Content)
	}
	if got["KeepAlive"].XMLName.Local != "false" || got["RunAtLoad"].XMLName.Local != "true" {
		t.Errorf("KeepAlive/RunAtLoad: %+v %+v", got["KeepAlive"], got["RunAtLoad"])
	}
	env := map[string]string{}
	e := got["EnvironmentVariables"].Items
	for i := 0; i+1 < len(e); i += 2 {
		env[e[i].Content] = e[i+1].Content
	}
	if env["PTY_ROOT"] != c.Root || env["PATH"] != c.Path {
		t.Errorf("EnvironmentVariables = %v", env)
	}
	var argv []string
	for _, a := range got["ProgramArguments"].Items {
		argv = append(argv, a.Content)
	}
	if strings.Join(argv, "|") != c.Exec+"|--log|"+filepath.Join(c.Root, "gc.log") {
		t.Errorf("ProgramArguments = %q", argv)
	}
	if _, ok := got["UserName"]; ok {
		t.Error("a LaunchAgent must not set UserName")
	}
}

func TestNamesPerRoot(t *testing.T) {
	a, b := Name("/home/u/.local/state/pty"), Name("/srv/other/pty")
	if a == b {
		t.Fatalf("two roots with the same basename share the name %s", a)
	}
	if Name("/home/u/.local/state/pty") != a {
		t.Fatal("name is not stable")
	}
	for _, n := range []string{a, b, Name("/"), Name("/tmp/weird name!")} {
		if !strings.HasPrefix(n, "pty-gc-") || strings.ContainsAny(n, " !/") {
			t.Errorf("bad unit name %q", n)
		}
	}
}

func TestValidate(t *testing.T) {
	c := testConfig(t)
	for _, bad := range []func(*Config){
		func(c *Config) { c.Interval = 0 },
		func(c *Config) { c.Interval = 1500 * time.Millisecond },
		func(c *Config) { c.Root = "relative" },
		func(c *Config) { c.Root = "/tmp/{{x}}" },
		func(c *Config) { c.Path = "a\nb" },
	} {
		cc := c
		bad(&cc)
		if _, err := Render(cc, Systemd); err == nil {
			t.Errorf("config %+v rendered without error", cc)
		}
	}
	if got := SystemdTimer(Config{Root: "/r", Interval: 5 * time.Minute}); !strings.Contains(got, "OnUnitActiveSec="+strconv.Itoa(300)+"s") {
		t.Errorf("timer: %s", got)
	}
}
