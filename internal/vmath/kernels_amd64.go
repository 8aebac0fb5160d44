//go:build amd64 && !noasm

package vmath

import "golang.org/x/sys/cpu"

// The assembly kernels (kernels_amd64.s). n is a positive multiple of 8; the
// constants and the table come from consts.

//go:noescape
func expAVX512(dst, x *float64, n int, m, c float64)

//go:noescape
func expVecAVX512(dst, x, m, c *float64, n int)

//go:noescape
func addExpAVX512(acc, x, m *float64, n int)

//go:noescape
func sumExpAVX512(x *float64, n int, m float64, s *[8]float64)

//go:noescape
func tanhAVX512(dst, x *float64, n int)

//go:noescape
func maxAVX512(x *float64, n int, s *[8]float64)

//go:noescape
func minAVX512(x *float64, n int, s *[8]float64)

//go:noescape
func maxIntoAVX512(acc, x *float64, n int)

//go:noescape
func minIntoAVX512(acc, x *float64, n int)

//go:noescape
func expAVX2(dst, x *float64, n int, m, c float64)

//go:noescape
func expVecAVX2(dst, x, m, c *float64, n int)

//go:noescape
func addExpAVX2(acc, x, m *float64, n int)

//go:noescape
func sumExpAVX2(x *float64, n int, m float64, s *[8]float64)

//go:noescape
func tanhAVX2(dst, x *float64, n int)

//go:noescape
func maxAVX2(x *float64, n int, s *[8]float64)

//go:noescape
func minAVX2(x *float64, n int, s *[8]float64)

//go:noescape
func maxIntoAVX2(acc, x *float64, n int)

//go:noescape
func minIntoAVX2(acc, x *float64, n int)

//go:noescape
func dotAVX512(x, y *float64, n int, s *[32]float64)

//go:noescape
func dotAVX2(x, y *float64, n int, s *[32]float64)

// dotBlocks adds x[i] y[i] (fused) to s[i mod 32] for i < n = len(x) rounded down
// to a multiple of 32 with the assembly kernel in use, and returns n (0 for pure
// Go). s must be zero.
func dotBlocks(x, y []float64, s *[32]float64) int {
	n := len(x) &^ 31
	switch {
	case n == 0:
	case impl == avx512:
		dotAVX512(&x[0], &y[0], n, s)
		return n
	case impl == avx2:
		dotAVX2(&x[0], &y[0], n, s)
		return n
	}
	return 0
}

var (
	avx512 = &kernels{name: "avx512", exp: expAVX512, expVec: expVecAVX512, addExp: addExpAVX512,
		tanh: tanhAVX512, maxInto: maxIntoAVX512, minInto: minIntoAVX512}
	avx2 = &kernels{name: "avx2", exp: expAVX2, expVec: expVecAVX2, addExp: addExpAVX2,
		tanh: tanhAVX2, maxInto: maxIntoAVX2, minInto: minIntoAVX2}
)

// sumExpBlocks adds e^(x[i] - m) to s[i mod 8] for i < n = len(x) rounded down to a
// multiple of 8 with the assembly kernel in use, and returns n (0 for pure Go).
func sumExpBlocks(x []float64, m float64, s *[8]float64) int {
	n := len(x) &^ 7
	switch {
	case n == 0:
	case impl == avx512:
		sumExpAVX512(&x[0], n, m, s)
		return n
	case impl == avx2:
		sumExpAVX2(&x[0], n, m, s)
		return n
	}
	return 0
}

// extremeBlocks reduces x[:n] into the 8 lanes of s (max, or min if isMin) with
// the assembly kernel in use, n = len(x) rounded down to a multiple of 8, and
// returns n (0 for pure Go).
func extremeBlocks(x []float64, s *[8]float64, isMin bool) int {
	n := len(x) &^ 7
	switch {
	case n == 0:
	case impl == avx512 && isMin:
		minAVX512(&x[0], n, s)
		return n
	case impl == avx512:
		maxAVX512(&x[0], n, s)
		return n
	case impl == avx2 && isMin:
		minAVX2(&x[0], n, s)
		return n
	case impl == avx2:
		maxAVX2(&x[0], n, s)
		return n
	}
	return 0
}

func asmKernels() []*kernels {
	var ks []*kernels
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ {
		ks = append(ks, avx512)
	}
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		ks = append(ks, avx2)
	}
	return ks
}
