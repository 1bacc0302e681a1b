package daemon

// growStack gives the calling goroutine a 32 KB stack in one step; Main
// calls it first, before the start-up that would grow the main goroutine's
// stack from 2 KB to 8 KB by doubling.
//
// Why: the first stack of each size (4 KB, 8 KB) the runtime hands out
// comes from a 32 KB span it cuts into stacks of that size, writing a
// free-list link into each piece, so that every page of the span with a
// link in it becomes private at once: eight pages for 4 KB stacks, four
// for 8 KB ones. A 32 KB stack is a span of its own, of which only the
// pages the start-up touches become private, and it stays put: a daemon
// that never collects never shrinks it.
//
// How: on entry to a function the runtime grows the stack to hold the
// function's whole frame, doubling until it fits, so a frame of more than
// 16 KB makes one move from 2 KB to 32 KB. The frame here is that large
// because of an array in a branch that is never taken, which the compiler
// cannot drop (never is a variable), and so it is never written: the
// pages under it stay untouched.
//
//go:noinline
func growStack() {
	if never {
		var pad [20 << 10]byte
		stackSink = padSum(pad[:])
	}
}

// never is false; as a variable rather than a constant it keeps
// growStack's frame.
var never bool

var stackSink byte

//go:noinline
func padSum(b []byte) (s byte) {
	for _, c := range b {
		s += c
	}
	return s
}
