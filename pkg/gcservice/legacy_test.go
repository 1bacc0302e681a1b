package gcservice

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// upstreamPlist is a plist as the original's `pty gc --print-launchd-plist`
// prints it; env is its EnvironmentVariables entries after PATH.
func upstreamPlist(label, root, envKey string) string {
	esc := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace
	env := ""
	if envKey != "" {
		env = "\n    <key>" + envKey + "</key>\n    <string>" + esc(root) + "</string>"
	}
	return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>Label</key>
  <string>` + esc(label) + `</string>
  <key>ProgramArguments</key>
  <array>
    <string>/usr/local/bin/node</string>
    <string>/usr/local/lib/node_modules/@compoundingtech/pty/bin/pty</string>
    <string>gc</string>
  </array>
  <key>StartInterval</key>
  <integer>30</integer>
  <key>RunAtLoad</key>
  <true/>
  <key>StandardOutPath</key>
  <string>` + esc(filepath.Join(root, "gc.log")) + `</string>
  <key>StandardErrorPath</key>
  <string>` + esc(filepath.Join(root, "gc.log")) + `</string>
  <key>EnvironmentVariables</key>
  <dict>
    <key>PATH</key>
    <string>/usr/bin:/bin</string>` + env + `
  </dict>
</dict>
</plist>
`
}

// TestLegacyLaunchdJobs: the original pty's gc jobs (0.12's label and the
// one before, with or without a root suffix, naming the root by PTY_ROOT
// or PTY_SESSION_DIR, or the default root by naming none) are found for
// their own root only, and removed by install's and uninstall's step,
// which leaves every other job alone.
func TestLegacyLaunchdJobs(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "Library", "LaunchAgents")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	def := filepath.Join(home, ".local", "state", "pty")
	work := "/srv/pty work&co"
	files := map[string]string{
		"com.compoundingtech.pty.gc.plist":             upstreamPlist("com.compoundingtech.pty.gc", def, "PTY_ROOT"),
		"com.myobie.pty.gc.plist":                      upstreamPlist("com.myobie.pty.gc", def, ""),
		"com.compoundingtech.pty.gc.pty-work-co.plist": upstreamPlist("com.compoundingtech.pty.gc.pty-work-co", work, "PTY_ROOT"),
		"com.myobie.pty.gc.pty-work-co.plist":          upstreamPlist("com.myobie.pty.gc.pty-work-co", work, "PTY_SESSION_DIR"),
		"com.compoundingtech.pty.gc.other.plist":       upstreamPlist("com.compoundingtech.pty.gc.other", "/srv/other", "PTY_ROOT"),
		"com.compoundingtech.pty.gc.nameless.plist":    upstreamPlist("com.compoundingtech.pty.gc.nameless", "", ""),
		"com.compoundingtech.pty.gcx.plist":            upstreamPlist("com.compoundingtech.pty.gcx", work, "PTY_ROOT"),
		Label(work) + ".plist":                         "ours",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := func(root string) Config {
		return Config{Root: root, Exec: "/usr/local/bin/pty-gc", Interval: 30 * time.Second, Home: home}
	}
	names := func(paths []string) []string {
		var out []string
		for _, p := range paths {
			out = append(out, filepath.Base(p))
		}
		slices.Sort(out)
		return out
	}
	for _, tc := range []struct {
		root string
		want []string
	}{
		{def, []string{"com.compoundingtech.pty.gc.plist", "com.myobie.pty.gc.plist"}},
		{work, []string{"com.compoundingtech.pty.gc.pty-work-co.plist", "com.myobie.pty.gc.pty-work-co.plist"}},
		{"/srv/nothing", nil},
	} {
		got, err := Legacy(cfg(tc.root))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(names(got), tc.want) {
			t.Errorf("Legacy(%s) = %v, want %v", tc.root, names(got), tc.want)
		}
	}

	removed, err := removeLegacy(cfg(work))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"com.compoundingtech.pty.gc.pty-work-co.plist", "com.myobie.pty.gc.pty-work-co.plist"}; !slices.Equal(names(removed), want) {
		t.Errorf("removed %v, want %v", names(removed), want)
	}
	ents, _ := os.ReadDir(dir)
	var left []string
	for _, e := range ents {
		left = append(left, e.Name())
	}
	for name := range files {
		gone := !slices.Contains(left, name)
		if gone != slices.Contains(removed, filepath.Join(dir, name)) {
			t.Errorf("%s: removed %v, want only the original's jobs for %s removed", name, gone, work)
		}
	}
	if got, _ := Legacy(cfg(work)); len(got) != 0 {
		t.Errorf("after removal, Legacy = %v", got)
	}
}
