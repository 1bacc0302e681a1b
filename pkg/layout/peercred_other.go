//go:build !linux

package layout

// peerCredKnown says whether socketPeerPid can name a socket's listener.
const peerCredKnown = false

// socketPeerPid needs SO_PEERCRED, which only Linux has.
func socketPeerPid(path string) int { return 0 }
