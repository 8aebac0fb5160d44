package nn

import (
	"math"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/internal/vmath"
	"github.com/chainrules-go/chainrules/tensor"
)

// layer_norm's kernels: x is [rows, n] (the leading axes flattened, the
// normalised ones as one row of n), and every row is normalised on its own, so
// each kernel visits a row once, while it stays in the cache: the forward's
// mean, variance and output, and the pullback's two sums and its cotangent. The
// rows are split over goroutines (vmath.ParallelFor). The kernels are generic
// over float32 and float64: they compute in the input's precision with float64
// accumulators for the means, variances and every sum over a row or over the
// rows (the weight and bias cotangents), as PyTorch does on the CPU.

// rowGrain is the fewest rows of n elements worth a goroutine of their own in
// layer_norm's kernels (parallelGrain elements, as softmax's).
func rowGrain(n int) int { return max(1, parallelGrain/max(n, 1)) }

// layerNormForward is normForward for layer_norm (v.layer), in the precision T
// of x: per row, mean = sum(x)/n, var = sum((x - mean)^2)/n, rstd =
// 1/sqrt(var + eps) and y = (x - mean) rstd w + b.
func layerNormForward[T floating](x []*tensor.Dense, v normView, cfg normConfig) (*tensor.Dense, normStatistics, error) {
	xd := elemsOf[T](x[0])
	var w, b []T
	k := 1
	if cfg.weight {
		w = elemsOf[T](x[k])
		k++
	}
	if cfg.bias {
		b = elemsOf[T](x[k])
	}
	rows, n := v.m, v.b
	mean, variance, rstd := make([]float64, rows), make([]float64, rows), make([]float64, rows)
	yd := vmath.MakeNoZero[T](len(xd)) // every row is written whole
	rk := rowKernelsOf[T]()
	vmath.ParallelFor(rows, rowGrain(n), func(lo, hi int) {
		for r := lo; r < hi; r++ {
			xr, yr := xd[r*n:(r+1)*n], yd[r*n:(r+1)*n]
			mean[r], variance[r], rstd[r] = rk.forward(yr, xr, w, b, v.eps)
		}
	})
	return denseOf(yd, v.xshape), normStatistics{v: v, mean: mean, variance: variance, rstd: rstd}, nil
}

// rowKernels are layer_norm's kernels on one row, for element type T: vmath's
// assembly kernels of T (float64 or float32) for the statistics, and where the
// row has a weight (and for the forward a bias) for the rest, Go loops
// otherwise. Its fields are vmath's kernels of T; its methods forward, sums and
// bar are the row kernels built on them.
type rowKernels[T floating] struct {
	sumDev   func(x []T, mu float64) (sum, sumSq float64)                    // vmath.SumDev or SumDev32
	apply    func(y, x, w, b []T, mu, rs T)                                  // vmath.NormApply or NormApply32
	pullSums func(x, g, w []T, wa, ba []float64, mu, rs T) (sg, sgx float64) // vmath.NormPullSums or NormPullSums32
	pullBar  func(out, x, g, w []T, mu, rs, mg, mgx T)                       // vmath.NormPullBar or NormPullBar32
}

// rowKernelsOf returns the row kernels of T.
func rowKernelsOf[T floating]() rowKernels[T] {
	k64 := rowKernels[float64]{sumDev: vmath.SumDev, apply: vmath.NormApply, pullSums: vmath.NormPullSums, pullBar: vmath.NormPullBar}
	if k, ok := any(k64).(rowKernels[T]); ok {
		return k
	}
	k32 := rowKernels[float32]{sumDev: vmath.SumDev32, apply: vmath.NormApply32, pullSums: vmath.NormPullSums32, pullBar: vmath.NormPullBar32}
	if k, ok := any(k32).(rowKernels[T]); ok {
		return k
	}
	panic("nn: layer_norm's row kernels of an element type other than float32 and float64") // floating has no other
}

// forward writes the row yr = (x - mean) rstd w + b for the row xr (w and b
// optional) and returns its mean, variance and rstd = 1/sqrt(variance + eps):
// two passes of sumDev for the statistics, in float64 (the second over the
// centred values, which keeps the variance accurate when the mean is large
// against the spread), and apply for y in T (with weight and bias).
func (k rowKernels[T]) forward(yr, xr, w, b []T, eps float64) (mu, variance, rs float64) {
	n := float64(len(xr))
	sum, _ := k.sumDev(xr, 0)
	mu = sum / n
	_, sq := k.sumDev(xr, mu)
	variance = sq / n
	rs = 1 / math.Sqrt(variance+eps)
	if w == nil || b == nil {
		layerNormApplyRow(yr, xr, w, b, mu, rs)
		return mu, variance, rs
	}
	k.apply(yr, xr, w, b, T(mu), T(rs))
	return mu, variance, rs
}

// sums is layerNormRowSums with pullSums where the row has a weight and both
// cotangents.
func (k rowKernels[T]) sums(xr, yr, w []T, wa, ba []float64, mu, rs float64) (sg, sgx float64) {
	if w == nil || wa == nil || ba == nil {
		return layerNormRowSums(xr, yr, w, wa, ba, mu, rs)
	}
	return k.pullSums(xr, yr, w, wa, ba, T(mu), T(rs))
}

// bar is layerNormRowBar with pullBar where the row has a weight.
func (k rowKernels[T]) bar(out, xr, yr, w []T, mu, rs, mg, mgx float64) {
	if w == nil {
		layerNormRowBar(out, xr, yr, w, mu, rs, mg, mgx)
		return
	}
	k.pullBar(out, xr, yr, w, T(mu), T(rs), T(mg), T(mgx))
}

// layerNormApplyRow writes the row yr = (x - mu) rs w + b in T (w and b
// optional).
func layerNormApplyRow[T floating](yr, xr, w, b []T, mu, rs float64) {
	m, q := T(mu), T(rs)
	switch {
	case w != nil && b != nil:
		w, b := w[:len(xr)], b[:len(xr)]
		for j, e := range xr {
			yr[j] = (e-m)*q*w[j] + b[j]
		}
	case w != nil:
		w := w[:len(xr)]
		for j, e := range xr {
			yr[j] = (e - m) * q * w[j]
		}
	case b != nil:
		b := b[:len(xr)]
		for j, e := range xr {
			yr[j] = (e-m)*q + b[j]
		}
	default:
		for j, e := range xr {
			yr[j] = (e - m) * q
		}
	}
}

// layerNormBlocks returns the number of blocks of rows layer_norm's pullback
// sums the parameters' cotangents over, and the rows of each: at least
// rowGrain(n) rows a block and at most 16 blocks, a split that depends on the
// shape only, so that the sums, added block by block in order, do not depend on
// GOMAXPROCS.
func layerNormBlocks(rows, n int) (blocks, per int) {
	per = max(rowGrain(n), (rows+15)/16)
	return (rows + per - 1) / per, per
}

// layerNormPullback computes layer_norm's cotangents in the precision T of x
// (see fastNormRule.Pullback), with g = ybar w and xhat = (x - mean) rstd per
// row of n:
//
//	xbar = rstd (g - mean(g) - xhat mean(g xhat)),  wbar = sum_rows ybar xhat,  bbar = sum_rows ybar,
//
// each row in two passes while it stays in the cache: one for the row's sums
// (and the parameters' cotangents, accumulated per block of rows), one writing
// xbar. It returns xbar, and wbar and bbar when the op has those inputs (nil
// otherwise).
func layerNormPullback[T floating](st normStatistics, x []*tensor.Dense, ybar *tensor.Dense) (xbar, wbar, bbar *tensor.Dense) {
	v, mean, rstd := st.v, st.mean, st.rstd
	xd, yb := elemsOf[T](x[0]), elemsOf[T](ybar)
	var w []T
	if v.weight {
		w = elemsOf[T](x[1])
	}
	rows, n := v.m, v.b
	blocks, per := layerNormBlocks(rows, n)
	// The parameters' cotangents per block, in float64.
	var wacc, bacc []float64
	if v.weight {
		wacc = vmath.MakeNoZero[float64](blocks * n)
		clear(wacc)
		defer vmath.Put(wacc)
	}
	if v.bias {
		bacc = vmath.MakeNoZero[float64](blocks * n)
		clear(bacc)
		defer vmath.Put(bacc)
	}
	xb := vmath.MakeNoZero[T](len(xd)) // every row is written whole
	cnt := float64(n)
	k := rowKernelsOf[T]()
	vmath.ParallelFor(blocks, 1, func(lo, hi int) {
		for blk := lo; blk < hi; blk++ {
			var wa, ba []float64
			if wacc != nil {
				wa = wacc[blk*n : (blk+1)*n]
			}
			if bacc != nil {
				ba = bacc[blk*n : (blk+1)*n]
			}
			for r := blk * per; r < min((blk+1)*per, rows); r++ {
				xr, yr, out := xd[r*n:(r+1)*n], yb[r*n:(r+1)*n], xb[r*n:(r+1)*n]
				sg, sgx := k.sums(xr, yr, w, wa, ba, mean[r], rstd[r])
				k.bar(out, xr, yr, w, mean[r], rstd[r], sg/cnt, sgx/cnt)
			}
		}
	})
	xbar = denseOf(xb, v.xshape)
	// The blocks' sums, added in order.
	total := func(acc []float64) *tensor.Dense {
		out := make([]T, n)
		for j := range out {
			var s float64
			for blk := range blocks {
				s += acc[blk*n+j]
			}
			out[j] = T(s)
		}
		return denseOf(out, v.wshape)
	}
	if wacc != nil {
		wbar = total(wacc)
	}
	if bacc != nil {
		bbar = total(bacc)
	}
	return xbar, wbar, bbar
}

// layerNormRowSums returns sum(g) and sum(g xhat) over a row, g = ybar w (w nil:
// 1) and xhat = (x - mu) rs, and adds ybar xhat to wa and ybar to ba (when not
// nil), in float64: the rows without a weight or without both parameters (the
// others take vmath's NormPullSums kernels). Two sets of running sums halve the
// loop's chain of dependent additions.
func layerNormRowSums[T floating](xr, yr, w []T, wa, ba []float64, mu64, rs64 float64) (sg, sgx float64) {
	n, mu, rs := len(xr), T(mu64), T(rs64)
	yr = yr[:n]
	var s0, s1, t0, t1 float64
	for j, e := range xr {
		h, y := (e-mu)*rs, yr[j]
		if wa != nil {
			wa[j] += float64(y * h)
		}
		if ba != nil {
			ba[j] += float64(y)
		}
		g := y
		if w != nil {
			g *= w[j]
		}
		if j&1 == 0 {
			s0 += float64(g)
			t0 += float64(g * h)
		} else {
			s1 += float64(g)
			t1 += float64(g * h)
		}
	}
	return s0 + s1, t0 + t1
}

// layerNormRowBar writes a row of xbar = rs (g - mg - xhat mgx), g = ybar w (w
// nil: 1), xhat = (x - mu) rs.
func layerNormRowBar[T floating](out, xr, yr, w []T, mu64, rs64, mg64, mgx64 float64) {
	n := len(xr)
	mu, rs, mg, mgx := T(mu64), T(rs64), T(mg64), T(mgx64)
	out, yr = out[:n], yr[:n]
	if w == nil {
		for j, e := range xr {
			out[j] = rs * (yr[j] - mg - (e-mu)*rs*mgx)
		}
		return
	}
	w = w[:n]
	for j, e := range xr {
		out[j] = rs * (w[j]*yr[j] - mg - (e-mu)*rs*mgx)
	}
}

// normCotangents is layerNormPullback (or for float32 x over another view,
// channelPullback32) in the precision of x, appended to dst as the contributions
// to the inputs in.
func normCotangents(st normStatistics, in []cr.NodeID, x []*tensor.Dense, ybar *tensor.Dense, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	pull := layerNormPullback[float64]
	want := tensor.Float64
	if x[0].DType() == tensor.Float32 {
		pull, want = layerNormPullback[float32], tensor.Float32
		if !st.v.layer {
			pull = channelPullback32
		}
	}
	if ybar == nil || ybar.DType() != want || !equalInts(ybar.Shape(), st.v.xshape) {
		return dst, cr.Errorf(cr.ErrShapeMismatch, "%s: cotangent is %s, want %v%v", st.v.name, describe(ybar), want, st.v.xshape)
	}
	xbar, wbar, bbar := pull(st, x, ybar)
	dst = append(dst, cr.Contribution[*tensor.Dense]{Node: in[0], Value: xbar})
	k := 1
	if wbar != nil {
		dst = append(dst, cr.Contribution[*tensor.Dense]{Node: in[k], Value: wbar})
		k++
	}
	if bbar != nil {
		dst = append(dst, cr.Contribution[*tensor.Dense]{Node: in[k], Value: bbar})
	}
	return dst, nil
}
