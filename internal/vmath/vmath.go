package vmath

import (
	"math"
	"math/big"
)

// Constants of exp and tanh (see the package doc).
const (
	shift   = 0x1.8p52              // adding it rounds a double of magnitude < 2^51 to an integer
	invLn2N = 16 / math.Ln2         // 16/ln2
	ln2HiN  = 0x1.62e42fefa39efp-5  // ln2/16 rounded to a double
	ln2LoN  = 0x1.abc9e3b39803fp-60 // ln2/16 - ln2HiN
	c2      = 1.0 / 2
	c3      = 1.0 / 6
	c4      = 1.0 / 24
	c5      = 1.0 / 120
	c6      = 1.0 / 720
	c7      = 1.0 / 5040
	expHi   = 710.0  // e^x overflows above 709.79
	expLo   = -746.0 // e^x rounds to 0 below -745.14
	tanhHi  = 44.0   // tanh(22) rounds to 1: 2|x| is capped here
)

// slot indices of consts: each constant is stored 4 times (32 bytes), so that the
// AVX2 kernels take it as a memory operand and the AVX-512 ones broadcast it.
const (
	kInvLn2N = iota
	kShift
	kLn2Hi
	kLn2Lo
	kC7
	kC6
	kC5
	kC4
	kC3
	kC2
	kExpHi
	kExpLo
	kSixteenth
	kMask15
	kOffset
	kMask20
	kOne52
	kTanhHi
	kTwo
	kSign
	kBias52
	nSlots
)

// consts holds the constants of the assembly kernels (4 copies each, see the slot
// indices) followed by the table: hi_j = 2^(j/16) rounded to a double at
// consts[4*nSlots+j] and lo_j = 2^(j/16) - hi_j at consts[4*nSlots+16+j].
var consts [4*nSlots + 32]float64

// tab is the table part of consts.
var tab = (*[32]float64)(consts[4*nSlots:])

func init() {
	bits := math.Float64frombits
	vals := [nSlots]float64{
		kInvLn2N: invLn2N, kShift: shift, kLn2Hi: ln2HiN, kLn2Lo: ln2LoN,
		kC7: c7, kC6: c6, kC5: c5, kC4: c4, kC3: c3, kC2: c2,
		kExpHi: expHi, kExpLo: expLo, kSixteenth: 1.0 / 16,
		kMask15: bits(15), kOffset: bits(32768), kMask20: bits(1<<20 - 1), kOne52: bits(1 << 52),
		kTanhHi: tanhHi, kTwo: 2, kSign: bits(1 << 63), kBias52: bits(1023 << 52),
	}
	for i, v := range vals {
		for l := range 4 {
			consts[4*i+l] = v
		}
	}
	// 2^(1/16) by four square roots of 2, then its powers, to 200 bits.
	const prec = 200
	base := new(big.Float).SetPrec(prec).SetInt64(2)
	for range 4 {
		base.Sqrt(base)
	}
	p := new(big.Float).SetPrec(prec).SetInt64(1)
	for j := range 16 {
		hi, _ := p.Float64()
		lo, _ := new(big.Float).SetPrec(prec).Sub(p, new(big.Float).SetFloat64(hi)).Float64()
		tab[j], tab[16+j] = hi, lo
		p.Mul(p, base)
	}
}

// expReduce is the argument reduction and polynomial shared by Exp1 and Tanh1, as the
// vector kernels compute them: t = x 16/ln2 + shift, whose low bits hold the integer
// k nearest to 16x/ln2, and q ≈ e^r - 1 for r = x - k ln2/16 (|r| <= ln2/32), a
// degree-7 polynomial. Its inlining cost is 78, just under the inliner's budget of
// 80: Exp1 and Tanh1 rely on it being inlined.
func expReduce(x float64) (t, q float64) {
	t = math.FMA(x, invLn2N, shift)
	kf := t - shift
	r := math.FMA(-kf, ln2HiN, x)
	r = math.FMA(-kf, ln2LoN, r)
	p := math.FMA(c7, r, c6)
	p = math.FMA(p, r, c5)
	p = math.FMA(p, r, c4)
	p = math.FMA(p, r, c3)
	p = math.FMA(p, r, c2)
	return t, math.FMA(p, r*r, r)
}

// Exp1 returns e^x, bit-identical to the vector kernels: within 0.6 ulp in the normal
// range, +Inf above 709.78, 0 below -745.13, NaN for NaN.
//
// Each operation is one IEEE operation of the assembly kernels, in the same order.
func Exp1(x float64) float64 {
	if x > expHi {
		x = expHi
	}
	if x < expLo {
		x = expLo
	}
	t, q := expReduce(x)
	k := int64(math.Float64bits(t) - math.Float64bits(shift))
	hi, lo := tab[k&15], tab[16+k&15]
	v := hi + math.FMA(hi, q, math.FMA(lo, q, lo))
	// v 2^m, m = floor(k/16), in one rounding: while 2^m is normal, one exact
	// product; otherwise two power-of-two factors 2^m1 2^m2 (m1 = floor(m/2)), the
	// first exact and the second rounding to a subnormal, 0 or Inf.
	m := k >> 4
	if uint64(m+1022) < 2046 {
		return v * math.Float64frombits(uint64(m+1023)<<52)
	}
	m1 := m >> 1
	v *= math.Float64frombits(uint64(m1+1023) << 52)
	return v * math.Float64frombits(uint64(m-m1+1023)<<52)
}

// Tanh1 returns tanh x, bit-identical to the vector kernels, within 2 ulp, with the
// sign of x (also of ±0) and NaN for NaN.
func Tanh1(x float64) float64 {
	w := 2 * math.Abs(x)
	if w > tanhHi {
		w = tanhHi
	}
	t, q := expReduce(w)
	k := math.Float64bits(t) & (1<<20 - 1) // w >= 0, so k >= 0
	hi, lo := tab[k&15], tab[16+k&15]
	m := k >> 4
	b := math.FMA(hi, q, math.FMA(lo, q, lo))
	em1 := ((hi - math.Float64frombits(1023<<52-m<<52)) + b) * math.Float64frombits(m<<52+1023<<52)
	y := em1 / (em1 + 2)
	return math.Float64frombits(math.Float64bits(y) | math.Float64bits(x)&(1<<63))
}

// Exp sets dst[i] = e^x[i] for i < len(dst); x must be at least as long.
func Exp(dst, x []float64) {
	x = x[:len(dst)]
	for i := expBlocks(impl.exp, dst, x, 0, 1); i < len(dst); i++ {
		dst[i] = Exp1(x[i])
	}
}

// ExpSubScale sets dst[i] = e^(x[i] - m) c, the difference and the product rounded
// on their own.
func ExpSubScale(dst, x []float64, m, c float64) {
	x = x[:len(dst)]
	for i := expBlocks(impl.exp, dst, x, m, c); i < len(dst); i++ {
		dst[i] = Exp1(x[i]-m) * c
	}
}

// ExpSubScaleVec sets dst[i] = e^(x[i] - m[i]) c[i].
func ExpSubScaleVec(dst, x, m, c []float64) {
	x, m, c = x[:len(dst)], m[:len(dst)], c[:len(dst)]
	n := 0
	if k := impl.expVec; k != nil && len(dst) >= 8 {
		n = len(dst) &^ 7
		k(&dst[0], &x[0], &m[0], &c[0], n)
	}
	for i := n; i < len(dst); i++ {
		dst[i] = Exp1(x[i]-m[i]) * c[i]
	}
}

// AddExpSub sets acc[i] += e^(x[i] - m[i]).
func AddExpSub(acc, x, m []float64) {
	x, m = x[:len(acc)], m[:len(acc)]
	n := 0
	if k := impl.addExp; k != nil && len(acc) >= 8 {
		n = len(acc) &^ 7
		k(&acc[0], &x[0], &m[0], n)
	}
	for i := n; i < len(acc); i++ {
		acc[i] += Exp1(x[i] - m[i])
	}
}

// SumExpSub returns sum_i e^(x[i] - m). Element i is added to partial sum i mod 8,
// and the partial sums s are combined as ((s0+s1)+(s2+s3))+((s4+s5)+(s6+s7)).
func SumExpSub(x []float64, m float64) float64 {
	var s [8]float64
	n := sumExpBlocks(x, m, &s)
	for i := n; i < len(x); i++ {
		s[i&7] += Exp1(x[i] - m)
	}
	return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]))
}

// Tanh sets dst[i] = tanh x[i].
func Tanh(dst, x []float64) {
	x = x[:len(dst)]
	for i := pairBlocks(impl.tanh, dst, x); i < len(dst); i++ {
		dst[i] = Tanh1(x[i])
	}
}

// Max returns the largest element of the non-empty x with the semantics of Go's
// built-in max: NaN if any element is NaN, +0 over -0.
func Max(x []float64) float64 {
	return extreme(x, false)
}

// Min returns the smallest element of the non-empty x, NaN if any element is NaN,
// -0 under +0.
func Min(x []float64) float64 {
	return extreme(x, true)
}

func extreme(x []float64, isMin bool) float64 {
	var s [8]float64
	n := extremeBlocks(x, &s, isMin)
	if n == 0 {
		// Go: four running extremes over blocks of 4, each lane like the rest.
		n = len(x) &^ 3
		if n > 0 {
			s[0], s[1], s[2], s[3] = x[0], x[1], x[2], x[3]
			s[4], s[5], s[6], s[7] = x[0], x[1], x[2], x[3]
			if isMin {
				minInto4(s[:4], x[:n])
			} else {
				maxInto4(s[:4], x[:n])
			}
		}
	}
	m := x[0]
	if n > 0 {
		m = s[0]
		for _, v := range s[1:] {
			m = pick(m, v, isMin)
		}
	}
	for _, v := range x[n:] {
		m = pick(m, v, isMin)
	}
	return m
}

// maxInto4 sets m[l] = max(m[l], x[4i+l]) over all i (len(x) a multiple of 4). The
// test !(v < m) sends only the rare candidates (v >= m, or NaN) to the built-in max,
// whose NaN and signed-zero rules then apply.
func maxInto4(m, x []float64) {
	m0, m1, m2, m3 := m[0], m[1], m[2], m[3]
	for i := 0; i+4 <= len(x); i += 4 {
		v := x[i : i+4 : i+4]
		if !(v[0] < m0) {
			m0 = max(m0, v[0])
		}
		if !(v[1] < m1) {
			m1 = max(m1, v[1])
		}
		if !(v[2] < m2) {
			m2 = max(m2, v[2])
		}
		if !(v[3] < m3) {
			m3 = max(m3, v[3])
		}
	}
	m[0], m[1], m[2], m[3] = m0, m1, m2, m3
}

// minInto4 is maxInto4 for the minimum.
func minInto4(m, x []float64) {
	m0, m1, m2, m3 := m[0], m[1], m[2], m[3]
	for i := 0; i+4 <= len(x); i += 4 {
		v := x[i : i+4 : i+4]
		if !(v[0] > m0) {
			m0 = min(m0, v[0])
		}
		if !(v[1] > m1) {
			m1 = min(m1, v[1])
		}
		if !(v[2] > m2) {
			m2 = min(m2, v[2])
		}
		if !(v[3] > m3) {
			m3 = min(m3, v[3])
		}
	}
	m[0], m[1], m[2], m[3] = m0, m1, m2, m3
}

// MaxInto sets acc[i] = max(acc[i], x[i]) (Go's built-in max).
func MaxInto(acc, x []float64) {
	x = x[:len(acc)]
	for i := pairBlocks(impl.maxInto, acc, x); i < len(acc); i++ {
		if !(x[i] < acc[i]) { // see maxInto4
			acc[i] = max(acc[i], x[i])
		}
	}
}

// MinInto sets acc[i] = min(acc[i], x[i]) (Go's built-in min).
func MinInto(acc, x []float64) {
	x = x[:len(acc)]
	for i := pairBlocks(impl.minInto, acc, x); i < len(acc); i++ {
		if !(x[i] > acc[i]) {
			acc[i] = min(acc[i], x[i])
		}
	}
}

// expBlocks sets dst[i] = e^(x[i] - m) c with the exp kernel k of the
// implementation in use for i < n = len(dst) rounded down to a multiple of 8, and
// returns n (0 when k is nil, pure Go, or for fewer than 8 elements). x must be at
// least as long as dst.
func expBlocks(k func(dst, x *float64, n int, m, c float64), dst, x []float64, m, c float64) int {
	if k == nil || len(dst) < 8 {
		return 0
	}
	n := len(dst) &^ 7
	k(&dst[0], &x[0], n, m, c)
	return n
}

// pairBlocks runs the block kernel k of the implementation in use on dst[:n] and
// x[:n], n = len(dst) rounded down to a multiple of 8, and returns n (0 when k is
// nil, pure Go, or for fewer than 8 elements). x must be at least as long as dst.
func pairBlocks(k func(dst, x *float64, n int), dst, x []float64) int {
	if k == nil || len(dst) < 8 {
		return 0
	}
	n := len(dst) &^ 7
	k(&dst[0], &x[0], n)
	return n
}

// kernels is one implementation: block kernels over n elements, n a positive
// multiple of 8 (the exported functions finish the tail with the scalar kernels).
// A nil kernel means pure Go. The kernels that write partial results to an [8]float64
// are called through sumExpBlocks and extremeBlocks instead, direct calls that keep
// the array on the caller's stack.
type kernels struct {
	name             string
	exp              func(dst, x *float64, n int, m, c float64)
	expVec           func(dst, x, m, c *float64, n int)
	addExp           func(acc, x, m *float64, n int)
	tanh             func(dst, x *float64, n int)
	maxInto, minInto func(acc, x *float64, n int)
}

// generic is the pure-Go implementation.
var generic = &kernels{name: "go"}

// impl is the implementation in use: the fastest one available, chosen at init.
// Tests switch it to exercise every implementation.
var impl = available()[0]

// available returns the implementations usable on this machine, fastest first.
func available() []*kernels {
	return append(asmKernels(), generic)
}

func pick(a, b float64, isMin bool) float64 {
	if isMin {
		return min(a, b)
	}
	return max(a, b)
}
