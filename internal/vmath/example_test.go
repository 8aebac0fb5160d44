package vmath_test

import (
	"fmt"

	"github.com/chainrules-go/chainrules/internal/vmath"
)

// The package documentation's example: exponentials, the maximum and a stable sum
// of exponentials.
func Example() {
	x := []float64{0, 1, 2}
	y := make([]float64, len(x))
	vmath.Exp(y, x)   // y[i] = e^x[i]
	m := vmath.Max(x) // the largest element, NaN if any is NaN
	s := vmath.SumExpSub(x, m)
	fmt.Printf("%.4f %v %.4f\n", y, m, s)
	// Output:
	// [1.0000 2.7183 7.3891] 2 1.5032
}
