package nn

import (
	"math"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/internal/vmath"
	"github.com/chainrules-go/chainrules/tensor"
)

// batch_norm in training, group_norm and instance_norm on float32 input,
// natively in single precision: the kernels of normForward and
// fastNormRule.Pullback for the views whose parameters are per channel (a run of
// x is a channel's spatial positions of one sample), with the statistics and every sum in float64 (vmath.SumDev32, the
// running sums of g xhat) and the elementwise work in float32, as PyTorch's CPU
// kernels. The other rules (forward, second order, recorded) are the widened
// op's (fastNormRule.wide).

// channelForward32 is normForward for float32 x over a channel view: per group
// m the mean and biased variance over its runs (two passes, the second over the
// centred values), and y = (x - mean) (rstd w_c) + b_c per run, in float32.
func channelForward32(x []*tensor.Dense, v normView, cfg normConfig, strict bool) (*tensor.Dense, normStatistics, error) {
	xd := x[0].Contiguous().Float32s()
	var w, b []float32
	k := 1
	if cfg.weight {
		w = x[k].Contiguous().Float32s()
		k++
	}
	if cfg.bias {
		b = x[k].Contiguous().Float32s()
	}
	mean, variance, rstd := make([]float64, v.m), make([]float64, v.m), make([]float64, v.m)
	cnt := float64(v.a * v.b)
	v.runs(func(off, n, m, _ int) {
		s, _ := vmath.SumDev32(xd[off:off+n], 0)
		mean[m] += s
	})
	for m := range mean {
		mean[m] /= cnt
	}
	v.runs(func(off, n, m, _ int) {
		_, q := vmath.SumDev32(xd[off:off+n], mean[m])
		variance[m] += q
	})
	for m, s := range variance {
		s /= cnt
		variance[m] = s
		if strict && (math.IsNaN(s) || math.IsInf(s, 0) || math.IsNaN(mean[m]) || math.IsInf(mean[m], 0)) {
			return nil, normStatistics{}, cr.Errorf(cr.ErrNonFinite, "%s: the statistics of group %d of input %s are mean %v, variance %v",
				v.name, m, x[0].Describe(), mean[m], s)
		}
		rstd[m] = 1 / math.Sqrt(s+v.eps)
	}
	yd := vmath.MakeNoZero[float32](len(xd)) // every run is written whole
	v.runs(func(off, n, m, c int) {
		sc, t := rstd[m], 0.0
		if w != nil {
			sc *= float64(w[c])
		}
		if b != nil {
			t = float64(b[c])
		}
		mu, s32, t32 := float32(mean[m]), float32(sc), float32(t)
		yr := yd[off : off+n]
		for j, e := range xd[off : off+n] {
			yr[j] = (e-mu)*s32 + t32
		}
	})
	return denseOf(yd, v.xshape), normStatistics{v: v, mean: mean, variance: variance, rstd: rstd}, nil
}

// channelPullback32 is fastNormRule.Pullback for float32 x over a channel view:
// with xhat = (x - mean) rstd and g = ybar w_c, per group m,
//
//	xbar = rstd (g - mean(g) - xhat mean(g xhat)),  wbar_c = sum ybar xhat,  bbar_c = sum ybar,
//
// in two passes over the runs: the sums in float64, then xbar in float32.
func channelPullback32(st normStatistics, x []*tensor.Dense, ybar *tensor.Dense) (xbar, wbar, bbar *tensor.Dense) {
	v, mean, rstd := st.v, st.mean, st.rstd
	xd, yb := x[0].Contiguous().Float32s(), ybar.Contiguous().Float32s()
	var w []float32
	if v.weight {
		w = x[1].Contiguous().Float32s()
	}
	wb, bb := make([]float64, v.wLen), make([]float64, v.wLen)
	sg, sgx := make([]float64, v.m), make([]float64, v.m)
	v.runs(func(off, n, m, c int) {
		mu, rs := float32(mean[m]), float32(rstd[m])
		xr, yr := xd[off:off+n], yb[off:off+n]
		sy, _ := vmath.SumDev32(yr, 0)
		var t0, t1, t2, t3 float64 // sum ybar xhat, four running sums
		j := 0
		for ; j+4 <= n; j += 4 {
			t0 += float64(yr[j] * ((xr[j] - mu) * rs))
			t1 += float64(yr[j+1] * ((xr[j+1] - mu) * rs))
			t2 += float64(yr[j+2] * ((xr[j+2] - mu) * rs))
			t3 += float64(yr[j+3] * ((xr[j+3] - mu) * rs))
		}
		for ; j < n; j++ {
			t0 += float64(yr[j] * ((xr[j] - mu) * rs))
		}
		syx := (t0 + t1) + (t2 + t3)
		wc := 1.0
		if w != nil {
			wc = float64(w[c])
		}
		sg[m] += wc * sy
		sgx[m] += wc * syx
		wb[c] += syx
		bb[c] += sy
	})
	cnt := float64(v.a * v.b)
	xb := vmath.MakeNoZero[float32](len(xd)) // every run is written whole
	v.runs(func(off, n, m, c int) {
		wc := float32(1)
		if w != nil {
			wc = w[c]
		}
		mu, rs := float32(mean[m]), float32(rstd[m])
		mg, mgx := float32(sg[m]/cnt), float32(sgx[m]/cnt)
		out, yr := xb[off:off+n], yb[off:off+n]
		for j, e := range xd[off : off+n] {
			out[j] = rs * (wc*yr[j] - mg - (e-mu)*rs*mgx)
		}
	})
	xbar = denseOf(xb, v.xshape)
	round := func(s []float64) *tensor.Dense {
		out := make([]float32, len(s))
		for i, e := range s {
			out[i] = float32(e)
		}
		return denseOf(out, v.wshape)
	}
	if v.weight {
		wbar = round(wb)
	}
	if v.bias {
		bbar = round(bb)
	}
	return xbar, wbar, bbar
}
