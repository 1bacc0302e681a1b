package client

import (
	"errors"
	"strconv"
	"strings"
)

// HistoryEnv names the variable that sets --history's default.
const HistoryEnv = "PTY_ATTACH_HISTORY"

// HistoryUsage is --history's help.
const HistoryUsage = "write the last `N` lines of the session's scrollback into this terminal's scrollback first (0: none; default: all)"

// History is the value of --history: a number of lines, or all.
type History struct {
	given bool // on the command line, which overrides the variable
	set   bool // lines, rather than all
	lines int
}

func (h *History) String() string {
	if h == nil || !h.set {
		return "" // all, the default
	}
	return strconv.Itoa(h.lines)
}

// Set parses N (0 or more) or "all".
func (h *History) Set(s string) error {
	n, err := parseHistory(s)
	if err != nil {
		return err
	}
	h.given, h.set, h.lines = true, n >= 0, n
	return nil
}

func parseHistory(s string) (int, error) {
	s = strings.TrimSpace(s)
	if strings.EqualFold(s, "all") {
		return -1, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, errors.New("it must be a number of lines (0 or more) or all")
	}
	return n, nil
}

// Apply sets o's history to h.
func (h *History) Apply(o *AttachOptions) {
	o.LimitHistory, o.History = h.set, h.lines
}
