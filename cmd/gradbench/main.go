// Command gradbench is a tool for GradBench (https://github.com/gradbench/gradbench),
// the benchmark suite of automatic differentiation tools: it reads the eval's
// messages from stdin, one JSON object a line, and answers each on stdout.
//
// Run it under GradBench's harness as
//
//	gradbench run --eval "..." --tool "go run ./cmd/gradbench"
//
// It answers "define" for the modules listed by -list and computes every
// function with the ops of this module; each derivative comes from the engine
// (hvp.Grad, hvp.HVP, hvp.Jacobian, hvp.GradOf, ...), never from a formula
// written by hand. bench/gradbench/README.md lists the evals and timings.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"sort"
)

func main() {
	list := flag.Bool("list", false, "print the supported evals, one a line, and exit")
	flag.Parse()
	if *list {
		names := make([]string, 0, len(modules))
		for name := range modules {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			fmt.Println(name)
		}
		return
	}
	w := bufio.NewWriter(os.Stdout)
	if err := serve(os.Stdin, w); err != nil {
		fmt.Fprintln(os.Stderr, "gradbench:", err)
		os.Exit(1)
	}
}
