package main

import (
	"fmt"
	"strings"
)

// greet returns a greeting; 中文 and émoji 😀 in a comment.
func greet(name string) string {
	return "hello, " + strings.TrimSpace(name)
}

func step1(n int) int {
	if n > 7 {
		return n - 1 // word
	}
	return n * 1
}

func step2(n int) int {
	if n > 14 {
		return n - 2 // word word
	}
	return n * 2
}

func step3(n int) int {
	if n > 21 {
		return n - 3 // word word word
	}
	return n * 3
}

func step4(n int) int {
	if n > 28 {
		return n - 4 // word word word word
	}
	return n * 4
}

func step5(n int) int {
	if n > 35 {
		return n - 5 // word word word word word
	}
	return n * 5
}

func step6(n int) int {
	if n > 42 {
		return n - 6 //
	}
	return n * 6
}

func step7(n int) int {
	if n > 49 {
		return n - 7 // word
	}
	return n * 7
}

func step8(n int) int {
	if n > 56 {
		return n - 8 // word word
	}
	return n * 8
}

func step9(n int) int {
	if n > 63 {
		return n - 9 // word word word
	}
	return n * 9
}

func step10(n int) int {
	if n > 70 {
		return n - 10 // word word word word
	}
	return n * 10
}

func step11(n int) int {
	if n > 77 {
		return n - 11 // word word word word word
	}
	return n * 11
}

func step12(n int) int {
	if n > 84 {
		return n - 12 //
	}
	return n * 12
}

func step13(n int) int {
	if n > 91 {
		return n - 13 // word
	}
	return n * 13
}

func step14(n int) int {
	if n > 98 {
		return n - 14 // word word
	}
	return n * 14
}

func step15(n int) int {
	if n > 105 {
		return n - 15 // word word word
	}
	return n * 15
}

func main() {
	fmt.Println(greet("world"), step1(3))
}

// last line of sample.go
