package gcservice

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/kardianos/service"
)

// Platform is the service manager this machine uses, as the service
// library detects it: Systemd, Launchd, or "" when neither.
func Platform() string {
	p := service.ChosenSystem()
	if p == nil {
		return ""
	}
	switch s := p.String(); {
	case strings.Contains(s, "systemd"):
		return Systemd
	case strings.Contains(s, "launchd"):
		return Launchd
	}
	return ""
}

// NativePlatform is what --print renders by default: by OS, without
// asking whether the service manager is actually running (a container may
// have none, and printing should still work).
func NativePlatform() string {
	if runtime.GOOS == "darwin" {
		return Launchd
	}
	return Systemd
}

// noop satisfies service.Interface: pty-gc is a one-shot the manager
// starts, never a long-running service the library runs.
type noop struct{}

func (noop) Start(service.Service) error { return nil }
func (noop) Stop(service.Service) error  { return nil }

// libService configures the library with our own rendered file as its
// template (it contains no template actions, so it comes out verbatim).
func libService(c Config, platform string) (service.Service, error) {
	files, err := Render(c, platform)
	if err != nil {
		return nil, err
	}
	sc := &service.Config{
		Executable:  c.Exec,
		Arguments:   c.args()[1:],
		Description: "pty gc for " + c.Root,
		EnvVars:     map[string]string{"PTY_ROOT": c.Root, "PATH": c.Path},
		Option:      service.KeyValue{"UserService": !c.System},
	}
	switch platform {
	case Systemd:
		sc.Name = Name(c.Root)
		sc.Option["SystemdScript"] = files[0].Content
	case Launchd:
		sc.Name = Label(c.Root)
		sc.Option["LaunchdConfig"] = files[0].Content
		sc.Option["KeepAlive"] = false
		sc.Option["RunAtLoad"] = true
	}
	return service.New(noop{}, sc)
}

// Install writes and enables the job, replacing an earlier install for
// the same root (so a new --interval takes effect), the original pty's
// launchd job for it included (Legacy). It returns the files written.
func Install(c Config) ([]File, error) {
	platform := Platform()
	if platform == "" {
		return nil, ErrUnsupported
	}
	files, err := Render(c, platform)
	if err != nil {
		return nil, err
	}
	if platform == Launchd {
		if _, err := removeLegacy(c); err != nil {
			return nil, err
		}
	}
	if _, err := os.Stat(files[0].Path); err == nil {
		if err := Uninstall(c); err != nil {
			return nil, fmt.Errorf("replace the existing install: %w", err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(files[0].Path), 0o755); err != nil {
		return nil, err
	}
	s, err := libService(c, platform)
	if err != nil {
		return nil, err
	}
	if err := s.Install(); err != nil {
		return nil, fmt.Errorf("install %s: %w", files[0].Path, err)
	}
	switch platform {
	case Systemd:
		timer := files[1]
		if err := os.WriteFile(timer.Path, []byte(timer.Content), 0o644); err != nil {
			return nil, fmt.Errorf("write %s: %w", timer.Path, err)
		}
		if err := systemctl(c, "daemon-reload"); err != nil {
			return nil, err
		}
		if err := systemctl(c, "enable", "--now", filepath.Base(timer.Path)); err != nil {
			return nil, err
		}
	case Launchd:
		if err := s.Start(); err != nil { // launchctl load
			return nil, fmt.Errorf("load %s: %w", files[0].Path, err)
		}
	}
	return files, nil
}

// Uninstall stops and removes the job for c.Root, and the original pty's
// launchd job for it (Legacy). Not installed is not an error.
func Uninstall(c Config) error {
	platform := Platform()
	if platform == "" {
		return ErrUnsupported
	}
	files, err := Render(c, platform)
	if err != nil {
		return err
	}
	var errs []error
	if platform == Launchd {
		if _, err := removeLegacy(c); err != nil {
			errs = append(errs, err)
		}
	}
	if platform == Systemd {
		timer := files[1]
		if _, err := os.Stat(timer.Path); err == nil {
			systemctl(c, "disable", "--now", filepath.Base(timer.Path)) // best effort: it may never have loaded
			if err := os.Remove(timer.Path); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if _, err := os.Stat(files[0].Path); err == nil {
		s, err := libService(c, platform)
		if err != nil {
			return err
		}
		if err := s.Uninstall(); err != nil {
			// The library stops at the first failing systemctl call; make
			// sure the file is gone all the same.
			if rerr := os.Remove(files[0].Path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
				errs = append(errs, err)
			}
		}
	}
	if platform == Systemd {
		systemctl(c, "daemon-reload")
	}
	return errors.Join(errs...)
}

// State is what Status found.
type State struct {
	Platform  string
	Installed bool
	Active    string // the timer's state (systemd) or the job's (launchd)
	Files     []File
	// Legacy are the original pty's launchd jobs for the root (see
	// Legacy), which install replaces and uninstall removes.
	Legacy []string
}

// Status reports whether the job for c.Root is installed and active.
func Status(c Config) (State, error) {
	st := State{Platform: Platform()}
	if st.Platform == "" {
		return st, ErrUnsupported
	}
	files, err := Render(c, st.Platform)
	if err != nil {
		return st, err
	}
	st.Files = files
	if st.Platform == Launchd {
		if st.Legacy, err = Legacy(c); err != nil {
			return st, err
		}
	}
	if _, err := os.Stat(files[0].Path); err != nil {
		return st, nil
	}
	st.Installed = true
	switch st.Platform {
	case Systemd:
		args := []string{"is-active", filepath.Base(files[1].Path)}
		if !c.System {
			args = append([]string{"--user"}, args...)
		}
		out, _ := exec.Command("systemctl", args...).Output()
		st.Active = strings.TrimSpace(string(out))
	case Launchd:
		s, err := libService(c, st.Platform)
		if err != nil {
			return st, err
		}
		switch ls, _ := s.Status(); ls {
		case service.StatusRunning:
			st.Active = "running now"
		case service.StatusStopped:
			st.Active = "loaded, waiting for its next interval"
		default:
			st.Active = "unknown"
		}
	}
	return st, nil
}

func systemctl(c Config, args ...string) error {
	if !c.System {
		args = append([]string{"--user"}, args...)
	}
	out, err := exec.Command("systemctl", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("systemctl %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}
