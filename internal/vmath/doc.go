// Package vmath holds vectorised float64 kernels: e^x and its variants for
// softmax and logsumexp, tanh, and NaN-propagating max/min reductions. On amd64 they
// run in AVX-512 (8 lanes) or AVX2+FMA (4 lanes) assembly, chosen at init from the
// CPU's features; elsewhere, or when built with the noasm tag, in pure Go.
//
// Every implementation computes the same IEEE operations in the same order, so the
// results are bit-identical across AVX-512, AVX2 and Go (NaN payloads aside): the
// assembly kernels process whole blocks of 8 elements and the Go scalar kernels
// ([Exp1], [Tanh1]) finish the tail with the same arithmetic.
//
// # exp
//
// With x clamped to [-746, 710] (which keeps every result, e^-746 rounds to 0 and
// e^710 overflows), x = (16 m + j) ln2/16 + r with |r| <= ln2/32 and
//
//	e^x = 2^m 2^(j/16) e^r,
//
// where 2^(j/16) = hi_j + lo_j is a 106-bit table value and e^r - 1 = q is its
// degree-7 Taylor polynomial (truncation error below 2^-59). The result
// hi + (hi q + (lo q + lo)) is scaled by 2^m in one rounding (vscalefpd on AVX-512,
// two exact power-of-two products elsewhere), so overflow gives +Inf, underflow 0
// and subnormal results are rounded once. Errors stay below 0.6 ulp in the normal
// range.
//
// # tanh
//
// tanh x = sign(x) em1/(em1 + 2) with em1 = e^(2|x|) - 1 from the same table:
// e^w - 1 = 2^m ((hi - 2^-m) + (hi q + (lo q + lo))), where hi - 2^-m is exact, so
// nothing cancels near 0; 2|x| is capped at 44, where tanh rounds to ±1.
//
// # max and min
//
// They follow Go's built-in max and min: a NaN anywhere makes the result NaN, and
// +0 is larger than -0, so the result does not depend on the order of the elements.
//
// # Memory, sums and loops
//
// The package also holds what every kernel package shares:
//
//   - [MakeNoZero] allocates a slice a kernel overwrites whole, without clearing
//     it, and takes buffers of 8 kB and more from a pool of buffers given back with
//     [Put] (size classes of eight steps per power of two, emptied by the garbage
//     collector when unused): the storage engine tapes reuse (core.Tape.Release).
//     The pool counts 8-byte words, so it serves all four element types
//     (float64, complex128, float32, complex64) from the same buffers;
//   - [Dot] and [Sum] are blocked sums with several accumulators ([Sum32] is Sum
//     of float32 values accumulated in float64, in the same order);
//   - [SumDev], [NormApply], [NormPullSums] and [NormPullBar] are the row
//     kernels of layer normalisation (statistics, output, and the two passes of
//     the pullback), AVX2 assembly bit-identical to their Go loops;
//   - [GatherRows32], [ShiftRows32] and [ShiftSum32] move the float32 columns of
//     a convolution's im2col: rows gathered through an index table (VPGATHERDD),
//     or, where every row is its channel shifted, masked runs (AVX-512 masked
//     loads) and their adjoint, the runs summed in order, bit-identical to
//     their Go loops;
//   - [ParallelFor] runs a loop over disjoint chunks on up to GOMAXPROCS goroutines
//     with a dynamic schedule, and brings a worker's panic back to the caller;
//     [Each] is that schedule over indices, which the GEMM's driver shares.
//
// Example:
//
//	y := make([]float64, len(x))
//	vmath.Exp(y, x)   // y[i] = e^x[i]
//	m := vmath.Max(x) // the largest element, NaN if any is NaN
//	s := vmath.SumExpSub(x, m)
package vmath
