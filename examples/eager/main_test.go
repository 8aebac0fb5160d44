package main

import "os"

// The assertions of the example: go test compares this output, and the numbers are
// the closed forms (dz/dx = y + 1 = 6, du/dx = -exp(-12) * 6).
func Example() {
	if err := run(os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// y = x*x at x = 3: y = 9, dy/dx = 6
	// z = x*y + x at (2, 5): z = 12, dz/dx = 6, dz/dy = 2
	// forward tangent along x: 6
	// u = exp(-z): du/dx = -3.68653e-05
}
