//go:build race

package term

const raceEnabled = true
