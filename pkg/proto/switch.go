package proto

// Switching the client that shows a session to another session, as tmux's
// switch-client (docs/protocol.md, "Switching sessions"). Ours only: the
// original's daemons and clients ignore these types.
const (
	// SwitchReady (client→daemon, empty) says this connection's client can
	// move to another session when told to (SwitchTo). Sent before
	// ATTACH_TTY.
	SwitchReady Type = 40
	// Switch (client→daemon: a session id) asks the daemon to move the
	// client showing this session to that one, or with no id whether it
	// could; the daemon answers with a Switch frame of one byte, SwitchOK
	// or SwitchNone.
	Switch Type = 41
	// SwitchTo (daemon→client: a session id) tells a client that sent
	// SwitchReady to detach and attach to that session in the same
	// terminal.
	SwitchTo Type = 42
)

// The Switch reply's byte.
const (
	SwitchNone byte = 0 // no client of this session can switch
	SwitchOK   byte = 1 // one can, and with an id was told to (SwitchTo)
)

// MaxSwitchID is the longest session id a Switch or SwitchTo frame carries
// (layout.MaxIDLen, which proto cannot import).
const MaxSwitchID = 255
