// Package registry holds the registry's contract test: one table of the
// states a session can be in on disk and in the process table (live,
// exiting in its grace, exited, vanished, damaged, a pid reused by another
// process, a socket another process owns, a record of another generation)
// against what every command says and does about it, through the built
// binaries. Every command derives a session's status from
// layout.Registry, so a row where two commands disagree is a bug. Beside
// it, the rule by which every command resolves a REF (resolve_test.go).
package registry
