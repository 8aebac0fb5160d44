package reduce

import (
	"math"
	"sync"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// SumOp returns the op y = sum of x over axes: y[i, j] = sum_k x[i, k, j], where k
// runs over the reduced axes. Nil or empty axes reduce every axis; negative axes
// count from the end; keepdims keeps the reduced axes with size 1. It is defined for
// float64 and complex128; the sum of an empty slice is 0.
//
// Rules (linear): xbar[i, k, j] = ybar[i, j], ydot = Sum(xdot), xbardot = ybardot
// broadcast back.
func SumOp(axes []int, keepdims bool) cr.Op[*tensor.Dense] {
	return newOp("sum", axes, keepdims, linear{})
}

// Sum is SumOp without a tape.
func Sum(x *tensor.Dense, axes []int, keepdims bool) (*tensor.Dense, error) {
	return eval(SumOp(axes, keepdims), x)
}

// MeanOp returns the op y = Sum(x) / n, with n the number of elements reduced into
// each output (NaN for an empty slice). Axes and keepdims are those of SumOp.
//
// Rules (linear): xbar = ybar / n broadcast back, ydot = Mean(xdot).
func MeanOp(axes []int, keepdims bool) cr.Op[*tensor.Dense] {
	return newOp("mean", axes, keepdims, linear{mean: true})
}

// Mean is MeanOp without a tape.
func Mean(x *tensor.Dense, axes []int, keepdims bool) (*tensor.Dense, error) {
	return eval(MeanOp(axes, keepdims), x)
}

// NanSumOp returns Sum with NaN elements counted as zero (float64 only).
//
// Rules: xbar = ybar where x is not NaN and 0 where it is; ydot sums xdot over the
// elements that are not NaN.
func NanSumOp(axes []int, keepdims bool) cr.Op[*tensor.Dense] {
	o := newOp("nansum", axes, keepdims, linear{nan: true})
	o.realOnly = true
	return o
}

// NanSum is NanSumOp without a tape.
func NanSum(x *tensor.Dense, axes []int, keepdims bool) (*tensor.Dense, error) {
	return eval(NanSumOp(axes, keepdims), x)
}

// NanMeanOp returns the mean of the elements that are not NaN (float64 only): NanSum
// divided by their count c (NaN when c is 0).
//
// Rules: xbar = ybar / c where x is not NaN and 0 where it is.
func NanMeanOp(axes []int, keepdims bool) cr.Op[*tensor.Dense] {
	o := newOp("nanmean", axes, keepdims, linear{nan: true, mean: true})
	o.realOnly = true
	return o
}

// NanMean is NanMeanOp without a tape.
func NanMean(x *tensor.Dense, axes []int, keepdims bool) (*tensor.Dense, error) {
	return eval(NanMeanOp(axes, keepdims), x)
}

// linear implements sum, mean, nansum and nanmean.
type linear struct{ mean, nan bool }

func (l linear) apply(p *plan, in cr.NodeID, x *tensor.Dense) (*tensor.Dense, cr.ReverseRule[*tensor.Dense], error) {
	if x.DType() == tensor.Complex128 {
		xs := elems[complex128](p.canonical(x))
		out := sumKernel(xs, p.a, p.r, p.b)
		c := complex(1, 0)
		if l.mean {
			c = complex(1/float64(p.r), 0)
			for o := range out {
				out[o] *= c
			}
		}
		return output(p, out), &weighted[complex128]{in: in, p: p, x: xs, c: c}, nil
	}
	xs := elems[float64](p.canonical(x))
	if !l.nan {
		out := sumKernel(xs, p.a, p.r, p.b)
		c := 1.0
		if l.mean {
			c = 1 / float64(p.r)
			for o := range out {
				out[o] *= c
			}
		}
		return output(p, out), &weighted[float64]{in: in, p: p, x: xs, c: c}, nil
	}
	out := make([]float64, p.a*p.b)
	cnt := make([]float64, p.a*p.b)
	for i := range p.a {
		for k := range p.r {
			row := xs[(i*p.r+k)*p.b : (i*p.r+k+1)*p.b]
			for j, v := range row {
				if v == v {
					out[i*p.b+j] += v
					cnt[i*p.b+j]++
				}
			}
		}
	}
	r := &weighted[float64]{in: in, p: p, x: xs}
	if l.mean {
		for o := range out {
			out[o] /= cnt[o]
		}
		r.w = func(v float64, o int) float64 {
			if v != v {
				return 0
			}
			return 1 / cnt[o]
		}
	} else {
		r.w = func(v float64, _ int) float64 {
			if v != v {
				return 0
			}
			return 1
		}
	}
	return output(p, out), r, nil
}

// sumKernel returns out[i, j] = sum_k x[i, k, j].
func sumKernel[T elem](x []T, a, r, b int) []T {
	out := make([]T, a*b)
	for i := range a {
		base := i * r * b
		if b == 1 {
			out[i] = sumContig(x[base : base+r])
			continue
		}
		acc := out[i*b : i*b+b]
		for k := range r {
			addTo(acc, x[base+k*b:base+k*b+b])
		}
	}
	return out
}

// sumContig sums x with eight accumulators, which break the dependency chain of the
// additions (otherwise the loop runs at the latency of one add per element).
func sumContig[T elem](x []T) T {
	var s0, s1, s2, s3, s4, s5, s6, s7 T
	i := 0
	for ; i+8 <= len(x); i += 8 {
		v := x[i : i+8 : i+8]
		s0 += v[0]
		s1 += v[1]
		s2 += v[2]
		s3 += v[3]
		s4 += v[4]
		s5 += v[5]
		s6 += v[6]
		s7 += v[7]
	}
	for ; i < len(x); i++ {
		s0 += x[i]
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}

// addTo adds src into dst elementwise (same length).
func addTo[T elem](dst, src []T) {
	src = src[:len(dst)]
	i := 0
	for ; i+4 <= len(dst); i += 4 {
		d, s := dst[i:i+4:i+4], src[i:i+4:i+4]
		d[0] += s[0]
		d[1] += s[1]
		d[2] += s[2]
		d[3] += s[3]
	}
	for ; i < len(dst); i++ {
		dst[i] += src[i]
	}
}

// MaxOp returns the op "amax": y[i, j] = max_k x[i, k, j] (float64 only; a NaN in the
// slice makes the maximum NaN). Axes and keepdims are those of SumOp; a reduction
// over an empty axis is an error.
//
// Tie policy (that of PyTorch's amax and JAX): the cotangent is split evenly among
// the c elements equal to the maximum, xbar[i, k, j] = ybar[i, j] / c at those
// elements and 0 elsewhere, and ydot[i, j] is the mean of xdot over them. Away from
// ties this is the derivative (c = 1); at a tie it is the average of the one-sided
// derivatives' candidates. The second-order term is zero.
func MaxOp(axes []int, keepdims bool) cr.Op[*tensor.Dense] {
	o := newOp("amax", axes, keepdims, extremum{})
	o.realOnly, o.nonEmpty = true, true
	return o
}

// Max is MaxOp without a tape.
func Max(x *tensor.Dense, axes []int, keepdims bool) (*tensor.Dense, error) {
	return eval(MaxOp(axes, keepdims), x)
}

// MinOp returns the op "amin", the minimum with the rules and tie policy of MaxOp.
func MinOp(axes []int, keepdims bool) cr.Op[*tensor.Dense] {
	o := newOp("amin", axes, keepdims, extremum{min: true})
	o.realOnly, o.nonEmpty = true, true
	return o
}

// Min is MinOp without a tape.
func Min(x *tensor.Dense, axes []int, keepdims bool) (*tensor.Dense, error) {
	return eval(MinOp(axes, keepdims), x)
}

type extremum struct{ min bool }

func (e extremum) apply(p *plan, in cr.NodeID, x *tensor.Dense) (*tensor.Dense, cr.ReverseRule[*tensor.Dense], error) {
	xs := elems[float64](p.canonical(x))
	y := maxKernel(xs, p.a, p.r, p.b, e.min)
	r := &weighted[float64]{in: in, p: p, x: xs}
	// The tie counts are computed on first use: a forward-only pass never needs them.
	counts := sync.OnceValue(func() []float64 { return tieCounts(xs, y, p) })
	r.w = func(v float64, o int) float64 {
		if v == y[o] || (v != v && y[o] != y[o]) {
			return 1 / counts()[o]
		}
		return 0
	}
	return output(p, y), r, nil
}

// tieCounts returns, per output, the number of inputs equal to it (NaN matching NaN).
func tieCounts(xs, y []float64, p *plan) []float64 {
	cnt := make([]float64, len(y))
	for i := range p.a {
		yi, ci := y[i*p.b:i*p.b+p.b], cnt[i*p.b:i*p.b+p.b]
		for k := range p.r {
			row := xs[(i*p.r+k)*p.b : (i*p.r+k+1)*p.b]
			for j, v := range row {
				if v == yi[j] || (v != v && yi[j] != yi[j]) {
					ci[j]++
				}
			}
		}
	}
	return cnt
}

// maxKernel returns out[i, j] = max_k x[i, k, j] (min if isMin is set). A NaN in a
// slice makes its result NaN, as in PyTorch's amax.
func maxKernel(x []float64, a, r, b int, isMin bool) []float64 {
	out := make([]float64, a*b)
	if r == 0 {
		return out
	}
	for i := range a {
		base := i * r * b
		if b == 1 {
			if isMin {
				out[i] = minContig(x[base : base+r])
			} else {
				out[i] = maxContig(x[base : base+r])
			}
			continue
		}
		acc := out[i*b : i*b+b]
		copy(acc, x[base:base+b])
		for k := 1; k < r; k++ {
			row := x[base+k*b : base+k*b+b]
			row = row[:len(acc)]
			// The update branch is rarely taken on most data; the m == m test
			// keeps a NaN once it is in (a NaN v enters because !(v <= m)).
			if isMin {
				for j, v := range row {
					if m := acc[j]; !(v >= m) && m == m {
						acc[j] = v
					}
				}
			} else {
				for j, v := range row {
					if m := acc[j]; !(v <= m) && m == m {
						acc[j] = v
					}
				}
			}
		}
	}
	return out
}

// maxContig returns the maximum of x (NaN if any element is NaN), with four
// independent running maxima.
func maxContig(x []float64) float64 {
	m0 := x[0]
	m1, m2, m3 := m0, m0, m0
	i := 0
	for ; i+4 <= len(x); i += 4 {
		v := x[i : i+4 : i+4]
		if !(v[0] <= m0) && m0 == m0 {
			m0 = v[0]
		}
		if !(v[1] <= m1) && m1 == m1 {
			m1 = v[1]
		}
		if !(v[2] <= m2) && m2 == m2 {
			m2 = v[2]
		}
		if !(v[3] <= m3) && m3 == m3 {
			m3 = v[3]
		}
	}
	for ; i < len(x); i++ {
		if !(x[i] <= m0) && m0 == m0 {
			m0 = x[i]
		}
	}
	return max(max(m0, m1), max(m2, m3))
}

// minContig is maxContig for the minimum.
func minContig(x []float64) float64 {
	m0 := x[0]
	m1, m2, m3 := m0, m0, m0
	i := 0
	for ; i+4 <= len(x); i += 4 {
		v := x[i : i+4 : i+4]
		if !(v[0] >= m0) && m0 == m0 {
			m0 = v[0]
		}
		if !(v[1] >= m1) && m1 == m1 {
			m1 = v[1]
		}
		if !(v[2] >= m2) && m2 == m2 {
			m2 = v[2]
		}
		if !(v[3] >= m3) && m3 == m3 {
			m3 = v[3]
		}
	}
	for ; i < len(x); i++ {
		if !(x[i] >= m0) && m0 == m0 {
			m0 = x[i]
		}
	}
	return min(min(m0, m1), min(m2, m3))
}

// LogSumExpOp returns the op y[i, j] = log sum_k exp(x[i, k, j]) (float64 only),
// computed as m + log sum_k exp(x - m) with m the maximum of the slice, so that it
// neither overflows for large inputs nor underflows for very negative ones. An empty
// slice gives -Inf. Axes and keepdims are those of SumOp.
//
// Rules: with the softmax s = exp(x - y) (at most 1, so the rule is as stable as the
// primal), xbar = s ybar, ydot = sum_k s xdot, and
// xbardot = s ybardot + s (xdot - ydot) ybar.
func LogSumExpOp(axes []int, keepdims bool) cr.Op[*tensor.Dense] {
	o := newOp("logsumexp", axes, keepdims, logSumExp{})
	o.realOnly = true
	return o
}

// LogSumExp is LogSumExpOp without a tape.
func LogSumExp(x *tensor.Dense, axes []int, keepdims bool) (*tensor.Dense, error) {
	return eval(LogSumExpOp(axes, keepdims), x)
}

type logSumExp struct{}

func (logSumExp) apply(p *plan, in cr.NodeID, x *tensor.Dense) (*tensor.Dense, cr.ReverseRule[*tensor.Dense], error) {
	xs := elems[float64](p.canonical(x))
	y := lseKernel(xs, p.a, p.r, p.b)
	r := &weighted[float64]{in: in, p: p, x: xs,
		w:  func(v float64, o int) float64 { return exp(v - y[o]) },
		dw: func(v, vd float64, o int, yd float64) float64 { return exp(v-y[o]) * (vd - yd) },
	}
	return output(p, y), r, nil
}

// lseKernel returns out[i, j] = m + log sum_k exp(x[i, k, j] - m), m the slice max
// (taken as 0 when infinite, so that all -Inf gives -Inf and any +Inf gives +Inf).
func lseKernel(x []float64, a, r, b int) []float64 {
	out := make([]float64, a*b)
	if r == 0 {
		for o := range out {
			out[o] = math.Inf(-1)
		}
		return out
	}
	m := maxKernel(x, a, r, b, false)
	for o, v := range m {
		if math.IsInf(v, 0) {
			m[o] = 0
		}
	}
	for i := range a {
		base := i * r * b
		if b == 1 {
			mi := m[i]
			s := sumExp(x[base:base+r], mi)
			out[i] = mi + math.Log(s)
			continue
		}
		acc, mi := out[i*b:i*b+b], m[i*b:i*b+b]
		for k := range r {
			row := x[base+k*b : base+k*b+b]
			row, mi := row[:len(acc)], mi[:len(acc)]
			for j, v := range row {
				acc[j] += exp(v - mi[j])
			}
		}
		for j := range acc {
			acc[j] = mi[j] + math.Log(acc[j])
		}
	}
	return out
}
