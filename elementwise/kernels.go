package elementwise

import (
	"math"
	"math/big"
)

// Fast scalar kernels for the functions that dominate elementwise workloads. They
// are within an ulp of the exact value (tests compare them with a 240-bit reference
// and with package math) and fall back to math outside their fast ranges, so special
// values (NaN, ±Inf, overflow, subnormal results) are math's. They use math.FMA,
// which is one instruction on every x86-64 CPU since 2013 (and a slow software
// routine on older ones).

const expTableBits = 8

// expTable[j] = 2^(j/256) split into a double hi and a correction lo, so that
// hi + lo carries about 106 bits; computed once with math/big.
var expTableHi, expTableLo [1 << expTableBits]float64

func init() {
	const prec = 200
	// base = 2^(1/256) by eight square roots of 2.
	base := new(big.Float).SetPrec(prec).SetInt64(2)
	for range expTableBits {
		base.Sqrt(base)
	}
	p := new(big.Float).SetPrec(prec).SetInt64(1)
	for j := range expTableHi {
		hi, _ := p.Float64()
		rest := new(big.Float).SetPrec(prec).Sub(p, new(big.Float).SetFloat64(hi))
		lo, _ := rest.Float64()
		expTableHi[j], expTableLo[j] = hi, lo
		p.Mul(p, base)
	}
}

const (
	expShift   = 0x1.8p52 // adding it rounds a double of magnitude < 2^51 to an integer
	expInvLn2N = 1 << expTableBits / math.Ln2
	// ln2/256 split so that k*expLn2NHi is exact for |k| < 2^20 (the high part has 32
	// significant bits: fdlibm's ln2_hi divided by 256).
	expLn2NHi = 6.93147180369123816490e-01 / (1 << expTableBits)
	expLn2NLo = 1.90821492927058770002e-10 / (1 << expTableBits)
	// Inside (expMin, expMax) the result is a normal double and the fast path applies.
	expMin = -708.3
	expMax = 709.7
)

// fastExp returns e^x. With x = (256 m + j) ln2/256 + r, |r| <= ln2/512,
//
//	e^x = 2^m 2^(j/256) e^r,
//
// where e^r - 1 is a degree-5 Taylor polynomial (truncation error below 2e-20)
// evaluated with fused multiply-adds; the table's correction term keeps the product
// accurate to about 0.5 ulp.
func fastExp(x float64) float64 {
	if !(x > expMin && x < expMax) {
		return math.Exp(x)
	}
	return expCore(x)
}

// expCore is fastExp for expMin < x < expMax.
func expCore(x float64) float64 {
	t := x*expInvLn2N + expShift
	k := int64(math.Float64bits(t)) << 13 >> 13 // the integer in t's low 51 bits
	kf := t - expShift
	r := (x - kf*expLn2NHi) - kf*expLn2NLo
	q := r * math.FMA(r, math.FMA(r, math.FMA(r, math.FMA(r, 1.0/120, 1.0/24), 1.0/6), 0.5), 1)
	j := k & (1<<expTableBits - 1)
	hi, lo := expTableHi[j], expTableLo[j]
	v := hi + math.FMA(hi, q, math.FMA(lo, q, lo))
	return v * math.Float64frombits(uint64(k>>expTableBits+1023)<<52)
}

// expSlice writes e^x[i] to dst[i].
func expSlice(dst, x []float64) {
	x = x[:len(dst)]
	for i, v := range x {
		if !(v > expMin && v < expMax) {
			dst[i] = math.Exp(v)
			continue
		}
		// expCore, written out: the inliner's budget does not cover it, and the call
		// would cost a third of the kernel.
		t := v*expInvLn2N + expShift
		k := int64(math.Float64bits(t)) << 13 >> 13
		kf := t - expShift
		r := (v - kf*expLn2NHi) - kf*expLn2NLo
		q := r * math.FMA(r, math.FMA(r, math.FMA(r, math.FMA(r, 1.0/120, 1.0/24), 1.0/6), 0.5), 1)
		j := k & (1<<expTableBits - 1)
		hi, lo := expTableHi[j], expTableLo[j]
		dst[i] = (hi + math.FMA(hi, q, math.FMA(lo, q, lo))) * math.Float64frombits(uint64(k>>expTableBits+1023)<<52)
	}
}

// fastTanh returns tanh(x) = sign(x) tanh|x| with
//
//	tanh z = expm1(2z) / (expm1(2z) + 2),
//
// which is accurate for every z >= 0. expm1 comes from the exp table: with
// 2z = (256 m + j) ln2/256 + r and 2^(j/256) = hi + lo,
//
//	e^(2z) - 1 = 2^m ((hi - 2^-m) + (lo + (hi + lo)(e^r - 1))),
//
// where hi - 2^-m is exact (hi is in [1, 2)), so nothing cancels for small z. One
// formula for all z (2z capped at 44, where tanh rounds to 1) means no
// data-dependent branch.
func fastTanh(x float64) float64 {
	w := 2 * math.Abs(x)
	if w > 44 { // NaN passes through
		w = 44
	}
	t := w*expInvLn2N + expShift
	k := int64(math.Float64bits(t)) << 13 >> 13
	kf := t - expShift
	r := (w - kf*expLn2NHi) - kf*expLn2NLo
	q := r * math.FMA(r, math.FMA(r, math.FMA(r, math.FMA(r, 1.0/120, 1.0/24), 1.0/6), 0.5), 1)
	j := k & (1<<expTableBits - 1)
	m := uint64(k >> expTableBits)
	hi, lo := expTableHi[j], expTableLo[j]
	em1 := ((hi - math.Float64frombits((1023-m)<<52)) + math.FMA(hi, q, math.FMA(lo, q, lo))) * math.Float64frombits((m+1023)<<52)
	return math.Copysign(em1/(em1+2), x)
}

// tanhSlice writes tanh(x[i]) to dst[i]: fastTanh, written out (see expSlice).
func tanhSlice(dst, x []float64) {
	x = x[:len(dst)]
	for i, v := range x {
		w := 2 * math.Abs(v)
		if w > 44 {
			w = 44
		}
		t := w*expInvLn2N + expShift
		k := int64(math.Float64bits(t)) << 13 >> 13
		kf := t - expShift
		r := (w - kf*expLn2NHi) - kf*expLn2NLo
		q := r * math.FMA(r, math.FMA(r, math.FMA(r, math.FMA(r, 1.0/120, 1.0/24), 1.0/6), 0.5), 1)
		j := k & (1<<expTableBits - 1)
		m := uint64(k >> expTableBits)
		hi, lo := expTableHi[j], expTableLo[j]
		em1 := ((hi - math.Float64frombits((1023-m)<<52)) + math.FMA(hi, q, math.FMA(lo, q, lo))) * math.Float64frombits((m+1023)<<52)
		dst[i] = math.Copysign(em1/(em1+2), v)
	}
}

// sigmoid returns 1/(1 + e^-x) without overflow for either sign of x.
func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + fastExp(-x))
	}
	e := fastExp(x)
	return e / (1 + e)
}
