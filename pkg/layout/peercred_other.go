//go:build !linux

package layout

// socketPeerPid needs SO_PEERCRED, which only Linux has.
func socketPeerPid(path string) int { return 0 }
