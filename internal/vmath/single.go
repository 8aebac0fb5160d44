package vmath

import (
	"math"
)

// Single precision. Exp32, Tanh32 and Sigmoid32 compute in float32 lanes, eight (AVX2) or
// sixteen (AVX-512) at a time, with the reduction of Exp1 in base 2 and no table:
//
//	e^x = 2^k e^r,  k = round(x/ln2),  r = x - k ln2 (ln2 in two parts),  |r| <= ln2/2,
//
// e^r by its Taylor polynomial of degree 7 (truncation below 5.3e-9 relative, a
// tenth of an ulp), and the product with 2^k in one rounding, which also gives the
// subnormal results and the overflow to +Inf. tanh uses the same core on w = 2|x|:
//
//	tanh|x| = (e^w - 1)/(e^w + 1) = m/(m + 2),  m = e^w - 1 = (2^k - 1) + 2^k q,
//
// with q = e^r - 1 from the polynomial without its constant term, so that m, and
// tanh with it, keeps its relative accuracy as x goes to 0 (tanh x = x for tiny x);
// the sign of x is put back last (tanh(-0) = -0). The AVX-512 tanh kernel saves
// work where tanh allows it: w <= 20, so k <= 29 and ln2 in one float32 part is
// enough (the part left out, 1.9e-9, changes e^w by k 1.9e-9 relative and tanh by
// under 2e-9 absolute,
// below a tenth of its ulp where k >= 1), and q comes from a degree-6
// polynomial,
//
//	q = r + r^2 (T2 + T3 r + ... + T6 r^4),
//
// fitted (testdata/tanh32_poly.py) minimax with float32 coefficients to the error
// of q as it reaches tanh: an error dq moves tanh by (dq/q) (2^k q/m) (2/(m+2))
// relative, a factor of at most 1 for k = 0 (where r = w >= 0 and m = q) and
// largest for r < 0 at k = 1 (1.17 at r = -ln2/2, where m = 1 + 2q is smallest);
// weighted by that factor, the error is under 2^-26.6. sigmoid takes t = e^-|x| from
// the same core, 1/(1 + t) for x >= 0 and t/(1 + t) for x < 0. The tails of fewer than a vector
// and the machines without AVX2 compute in double precision (Exp1, Tanh1) and round
// once. All are within 2 ulp of the correctly rounded result (the tests sweep
// every 61st float32 bit pattern against package math in double precision, and
// tanh on every float32 in [2^-12, 9.1] of both signs).

// Slot indices of consts32: each constant is stored 8 times (32 bytes), so that the
// AVX2 kernels take it as a memory operand and the AVX-512 ones broadcast it.
const (
	k32Log2e = iota
	k32Shift
	k32Ln2Hi
	k32Ln2Lo
	k32C7
	k32C6
	k32C5
	k32C4
	k32C3
	k32C2
	k32One
	k32ExpHi
	k32ExpLo
	k32TanhHi
	k32Two
	k32Sign
	k32Bias
	k32TwoLog2e
	k32TanhCap
	k32T6
	k32T5
	k32T4
	k32T3
	k32T2
	n32Slots
)

// The clamp bounds: e^x rounds to 0 in float32 below -103.98 and overflows above
// 88.73, so clamping x to [-104, 89] keeps 2^k in range and the results exact;
// tanh(w/2) rounds to 1 for w > 18, so w = 2|x| is capped at 20 (|x| at 10 in the
// AVX-512 kernel).
const (
	exp32Hi  = 89
	exp32Lo  = -104
	tanh32Hi = 20
)

// consts32 holds the constants of the float32 kernels, 8 copies each.
//
//lint:ignore U1000 read by the assembly kernels (single_amd64.s)
var consts32 = func() (c [8 * n32Slots]float32) {
	bits := math.Float32frombits
	ln2Hi := float32(math.Ln2)
	vals := [n32Slots]float32{
		k32Log2e: math.Log2E, k32Shift: 0x1.8p23, k32Ln2Hi: ln2Hi, k32Ln2Lo: float32(math.Ln2 - float64(ln2Hi)),
		k32C7: 1.0 / 5040, k32C6: 1.0 / 720, k32C5: 1.0 / 120, k32C4: 1.0 / 24, k32C3: 1.0 / 6, k32C2: 0.5,
		k32One: 1, k32ExpHi: exp32Hi, k32ExpLo: exp32Lo, k32TanhHi: tanh32Hi, k32Two: 2,
		k32Sign: bits(1 << 31), k32Bias: bits(127),
		k32TwoLog2e: 2 * math.Log2E, k32TanhCap: tanh32Hi / 2,
		k32T6: 0x1.6d7558p-10, k32T5: 0x1.1236f2p-7, k32T4: 0x1.55538ep-5, k32T3: 0x1.555496p-3, k32T2: 0x1.000002p-1,
	}
	for i, v := range vals {
		for l := range 8 {
			c[8*i+l] = v
		}
	}
	return c
}()

// kernels32 is one implementation of the float32 kernels: block kernels over n
// elements, n a positive multiple of the block size.
type kernels32 struct {
	name               string
	block              int
	exp, tanh, sigmoid func(dst, x *float32, n int)
}

// impl32 is the float32 implementation in use: the fastest one available, chosen at
// init. Tests switch it to exercise every implementation.
var impl32 = available32()[0]

// generic32 is the pure-Go implementation: double precision, rounded.
var generic32 = &kernels32{name: "go"}

// available32 returns the float32 implementations usable on this machine, fastest
// first.
func available32() []*kernels32 {
	return append(asmKernels32(), generic32)
}

// Exp32 sets dst[i] = e^x[i], rounded to float32, for i < len(dst): within 2 ulp of
// the correctly rounded result, +Inf above 88.73, 0 below -103.98, NaN for NaN. x
// must be at least as long as dst.
func Exp32(dst, x []float32) {
	x = x[:len(dst)]
	i := blocks32(impl32.exp, impl32.block, dst, x)
	i += expHalfBlocks32(dst[i:], x[i:])
	if len(dst)-i < 16 {
		// The tail of fewer than a block (or nothing) element by element: Exp1
		// is Exp's arithmetic, and widened32's buffers, which escape through
		// the kernel's function value, would cost an allocation a call.
		for ; i < len(dst); i++ {
			dst[i] = float32(Exp1(float64(x[i])))
		}
		return
	}
	widened32(dst[i:], x[i:], Exp)
}

// Tanh32 sets dst[i] = tanh x[i], rounded to float32, for i < len(dst): within 2
// ulp, with the sign of x (also of ±0), NaN for NaN.
func Tanh32(dst, x []float32) {
	x = x[:len(dst)]
	i := blocks32(impl32.tanh, impl32.block, dst, x)
	widened32(dst[i:], x[i:], Tanh)
}

// Sigmoid32 sets dst[i] = 1/(1 + e^-x[i]), rounded to float32, for i < len(dst):
// within 2 ulp, with e^-|x| from the kernel of Exp32 and no overflow for any x.
func Sigmoid32(dst, x []float32) {
	x = x[:len(dst)]
	i := blocks32(impl32.sigmoid, impl32.block, dst, x)
	widened32(dst[i:], x[i:], sigmoid64)
}

// sigmoid64 is the double-precision sigmoid of the tails: with t = e^-|x|,
// 1/(1 + t) for x >= 0 and t/(1 + t) for x < 0.
func sigmoid64(dst, x []float64) {
	for i, v := range x[:len(dst)] {
		t := Exp1(-math.Abs(v))
		if v < 0 {
			dst[i] = t / (1 + t)
		} else {
			dst[i] = 1 / (1 + t)
		}
	}
}

// blocks32 runs the block kernel k on dst[:n] and x[:n], n = len(dst) rounded down
// to a multiple of block, and returns n (0 when k is nil).
func blocks32(k func(dst, x *float32, n int), block int, dst, x []float32) int {
	if k == nil || len(dst) < block {
		return 0
	}
	n := len(dst) / block * block
	k(&dst[0], &x[0], n)
	return n
}

// widened32 sets dst = f(x) through the double-precision kernel f, a block of 256
// at a time on the stack, rounding each result once.
func widened32(dst, x []float32, f func(dst, x []float64)) {
	var in, out [256]float64
	for len(dst) > 0 {
		n := min(len(dst), len(in))
		for i, v := range x[:n] {
			in[i] = float64(v)
		}
		f(out[:n], in[:n])
		for i, v := range out[:n] {
			dst[i] = float32(v)
		}
		dst, x = dst[n:], x[n:]
	}
}
