package gc

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/reconcile"
)

func testIO(t *testing.T) (cli.IO, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	var out, errb bytes.Buffer
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	return cli.IO{In: os.Stdin, Out: &out, Err: &errb, Root: testutil.Root(t), Now: func() time.Time { return now }}, &out, &errb
}

func TestLogIsStampedByTheClockAndRotated(t *testing.T) {
	io, out, _ := testIO(t)
	log := filepath.Join(t.TempDir(), "gc.log")
	if err := os.WriteFile(log, bytes.Repeat([]byte("x"), MaxLog+1), 0o600); err != nil {
		t.Fatal(err)
	}
	o := Options{Pass: reconcile.DefaultOptions(""), Log: log}
	if err := Run(context.Background(), o, io); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(log)
	if string(b) != "2030-01-02T03:04:05.000Z Nothing to clean up.\n" || out.Len() != 0 {
		t.Errorf("log %q, stdout %q", b, out)
	}
	if fi, err := os.Stat(log + ".1"); err != nil || fi.Size() != MaxLog+1 {
		t.Errorf("rotated log: %v %v", fi, err)
	}
	if got := LastLines(log, 5); got != "  2030-01-02T03:04:05.000Z Nothing to clean up.\n" {
		t.Errorf("LastLines = %q", got)
	}
}

func TestLogWithoutRootDoesNothing(t *testing.T) {
	io, out, errb := testIO(t)
	io.Root = filepath.Join(io.Root, "not-mounted")
	if err := Run(context.Background(), Options{Pass: reconcile.DefaultOptions(""), Log: filepath.Join(t.TempDir(), "gc.log")}, io); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 || !strings.Contains(errb.String(), "is not there (yet)") {
		t.Errorf("stdout %q stderr %q", out, errb)
	}
	if _, err := os.Stat(io.Root); err == nil {
		t.Errorf("gc made the root")
	}
}

func TestIntervalIsCheckedByValidate(t *testing.T) {
	io, out, _ := testIO(t)
	for _, iv := range []string{"0", "1500ms"} {
		err := Service(ServiceOptions{Sub: "install", Interval: iv}, io)
		if err == nil || !strings.Contains(err.Error(), "whole seconds") {
			t.Errorf("--interval %s: %v", iv, err)
		}
		err = Run(context.Background(), Options{PrintPlist: true, Interval: iv}, io)
		if err == nil || !strings.Contains(err.Error(), "whole seconds") {
			t.Errorf("--print-launchd-plist --interval %s: %v", iv, err)
		}
	}
	if err := Service(ServiceOptions{Sub: "install", Interval: "x"}, io); err == nil || !strings.Contains(err.Error(), `--interval "x" is not valid`) {
		t.Errorf("--interval x: %v", err)
	}
	if err := Service(ServiceOptions{Sub: "install", Interval: "-5s"}, io); err == nil || !strings.Contains(err.Error(), `--interval "-5s" is not valid: a duration is not negative`) {
		t.Errorf("--interval -5s: %v", err)
	}
	if err := Run(context.Background(), Options{PrintPlist: true, Interval: "90"}, io); err != nil || !strings.Contains(out.String(), "<integer>90</integer>") {
		t.Errorf("--print-launchd-plist --interval 90: %v %q", err, out)
	}
	if ents, _ := os.ReadDir(io.Root); len(ents) != 0 {
		t.Errorf("refused installs left files: %v", ents)
	}
}

func TestBadArguments(t *testing.T) {
	io, _, _ := testIO(t)
	if err := Run(context.Background(), Options{Args: []string{"extra"}}, io); err == nil || !strings.Contains(err.Error(), `unexpected argument "extra"`) {
		t.Errorf("extra argument: %v", err)
	}
	if err := Service(ServiceOptions{Sub: "install", Platform: "launchd"}, io); err == nil || !strings.Contains(err.Error(), "--platform works only with --print") {
		t.Errorf("--platform without --print: %v", err)
	}
}

// TestInstallFailedTTL: the timer's passes get the --failed-ttl it was
// installed with; a bad one is refused before anything is written.
func TestInstallFailedTTL(t *testing.T) {
	io, out, _ := testIO(t)
	o := ServiceOptions{Sub: "install", Interval: "30s", Print: true, Platform: "systemd", FailedTTL: "48h"}
	if err := Service(o, io); err != nil || !strings.Contains(out.String(), `"--log" "`+filepath.Join(io.Root, "gc.log")+`" "--failed-ttl" "2d"`) {
		t.Errorf("systemd with --failed-ttl 48h: %v\n%s", err, out)
	}
	out.Reset()
	o.Platform = "launchd"
	if err := Service(o, io); err != nil || !strings.Contains(out.String(), "<string>--failed-ttl</string>\n\t\t<string>2d</string>") {
		t.Errorf("launchd with --failed-ttl 48h: %v\n%s", err, out)
	}
	out.Reset()
	o.Platform = "systemd"
	o.FailedTTL = ""
	if err := Service(o, io); err != nil || strings.Contains(out.String(), "failed-ttl") {
		t.Errorf("without --failed-ttl: %v\n%s", err, out)
	}
	o.Print, o.Platform, o.FailedTTL = false, "", "a while"
	if err := Service(o, io); err == nil || !strings.Contains(err.Error(), "--failed-ttl") {
		t.Errorf("--failed-ttl 'a while': %v", err)
	}
	if ents, _ := os.ReadDir(io.Root); len(ents) != 0 {
		t.Errorf("a refused install left files: %v", ents)
	}
}

func TestCommandsFillOptions(t *testing.T) {
	var o Options
	if _, err := Command(&o).ParseArgs([]string{"-n", "--keep-max-age", "2h", "--fast-fail-limit", "5"}); err != nil {
		t.Fatal(err)
	}
	if !o.DryRun || o.Pass.KeepMaxAge != 2*time.Hour || o.Pass.FastFailLimit != 5 || o.Pass.FailedTTL != reconcile.DefaultOptions("").FailedTTL {
		t.Fatalf("parsed into %+v", o)
	}
	s := ServiceOptions{Sub: "status"}
	if _, err := ServiceCommand(&s).ParseArgs([]string{"--interval", "5m"}); err == nil {
		t.Fatal("status took install's --interval")
	}
	s = ServiceOptions{Sub: "install"}
	if _, err := ServiceCommand(&s).ParseArgs([]string{"--interval", "5m", "--print"}); err != nil || s.Interval != "5m" || !s.Print {
		t.Fatalf("install: %v %+v", err, s)
	}
}
