package nn

import (
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/internal/vmath"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// The normalisations' first-order pullback, fused: the op defined with
// core.Define (primal kernel, pullback recorded with ops) gives the forward,
// second-order and recorded rules, and fastNormOp replaces only its Pullback,
// the one every training step runs, by two passes over x and ybar with the
// statistics of the primal.

// fastNormOp is a normalisation op whose rule's Pullback is the fused kernel.
// Apply runs the primal kernel once and keeps its statistics for the pullback;
// the defined op's rule, which the other rules come from, is made (applying the
// op again) only when a forward, second-order or recorded sweep asks for it.
type fastNormOp struct {
	cr.Op[*tensor.Dense] // the core.Define op
	primal               func(x []*tensor.Dense) ([]*tensor.Dense, normStatistics, error)
	// single: the primal and the fused pullback take float32 inputs natively
	// (layer_norm's kernels), the other rules are the widened op's.
	single bool
}

// newFastNormOp defines the op of d with primal as its primal.
func newFastNormOp(d core.Def[*tensor.Dense], primal func(x []*tensor.Dense) ([]*tensor.Dense, normStatistics, error)) fastNormOp {
	d.Primal = func(x []*tensor.Dense) ([]*tensor.Dense, error) {
		y, _, err := primal(x)
		return y, err
	}
	return fastNormOp{Op: core.Define(d), primal: primal}
}

// Differentiable reports the defined op's differentiable inputs.
func (o fastNormOp) Differentiable(k int) bool { return o.Op.(cr.PartialOp).Differentiable(k) }

// OutputDifferentiable reports the defined op's differentiable outputs.
func (o fastNormOp) OutputDifferentiable(j int) bool {
	return o.Op.(cr.PartialOp).OutputDifferentiable(j)
}

// Apply computes the outputs and returns the rule with the fused pullback.
func (o fastNormOp) Apply(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	native := o.single && allFloat32(x)
	if opkit.HasSingle(x) && !native {
		return applySingle(o, in, x, y, nil)
	}
	outs, st, err := o.primal(x)
	if err != nil {
		return nil, err
	}
	if len(y) != len(outs) {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: %d output slots for %d outputs", o.Name(), len(y), len(outs))
	}
	copy(y, outs)
	r := &fastNormRule{lazyForms: lazyForms{op: o.Op, in: slices.Clone(in), x: slices.Clone(x)}, st: st}
	if native && x[0].DType() == tensor.Float32 {
		r.op, r.widen = o, true
	}
	return r, nil
}

// fastNormRule is the rule of a normalisation: the fused Pullback (and, in
// float64, Forward), and for the rest the inner rule of lazyForms: the defined
// op's rule at the same inputs, or for float32 inputs (widen, with op the
// normalisation itself) its rule at the inputs widened, whose outputs and
// derivatives are rounded to single precision.
type fastNormRule struct {
	lazyForms // Inputs, PullbackWithTangents, RecordPullback
	st        normStatistics
}

// Pullback computes, with xhat = (x - mean) rstd and g = ybar * w, per group,
//
//	xbar = rstd (g - mean(g) - xhat mean(g xhat)),  wbar = sum ybar xhat,  bbar = sum ybar,
//
// in two passes: one for the sums, one writing xbar.
func (r *fastNormRule) Pullback(ybar []*tensor.Dense, has []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	if !has[0] || r.widen && (ybar[0] == nil || ybar[0].DType() != tensor.Float32) {
		// No cotangent of y, or one the native float32 kernels do not take:
		// the defined (or widened) op's rule.
		inner, err := r.inner()
		if err != nil {
			return dst, err
		}
		return inner.Pullback(ybar, has, dst)
	}
	if r.st.v.layer || r.widen {
		return normCotangents(r.st, r.in, r.x, ybar[0], dst)
	}
	v, mean, rstd, in := r.st.v, r.st.mean, r.st.rstd, r.in
	xd := r.x[0].Contiguous().Float64s()
	yb := ybar[0].Contiguous().Float64s()
	var w []float64
	var wbar, bbar *tensor.Dense
	if v.weight {
		w = r.x[1].Contiguous().Float64s()
		wbar = tensor.New(tensor.Float64, v.wshape...)
	}
	if v.bias {
		bbar = tensor.New(tensor.Float64, v.wshape...)
	}
	sg, sgx := make([]float64, v.m), make([]float64, v.m)
	var wb, bb []float64
	if wbar != nil {
		wb = wbar.Float64s()
	}
	if bbar != nil {
		bb = bbar.Float64s()
	}
	// Pass 1: the sums of g and g xhat per group, and the parameters' cotangents.
	d := make([]float64, v.b)
	var gws []float64 // g = ybar w along a layer_norm row
	if w != nil && v.wInner == 1 {
		gws = make([]float64, v.b)
	}
	v.runs(func(off, n, m, c int) {
		mu, rs := mean[m], rstd[m]
		xr, yr, h := xd[off:off+n], yb[off:off+n], d[:n]
		if c < 0 && w != nil && wb != nil && bb != nil {
			// layer_norm with weight and bias (the common case): the loops
			// below in one pass, the same operations on every element.
			gw, w, wb, bb, yr := gws[:n], w[:n], wb[:n], bb[:n], yr[:n]
			for j, e := range xr {
				hj, g := (e-mu)*rs, yr[j]
				h[j] = hj
				wb[j] += g * hj
				bb[j] += g
				gw[j] = g * w[j]
			}
			sg[m] += vmath.Sum(gw)
			sgx[m] += vmath.Dot(gw, h)
			return
		}
		for j, e := range xr {
			h[j] = (e - mu) * rs
		}
		if c < 0 { // layer_norm: the parameters vary along the run
			if wb != nil {
				for j, g := range yr {
					wb[j] += g * h[j]
				}
			}
			if bb != nil {
				for j, g := range yr {
					bb[j] += g
				}
			}
			if w == nil {
				sg[m] += vmath.Sum(yr)
				sgx[m] += vmath.Dot(yr, h)
				return
			}
			gw := gws[:n]
			for j, g := range yr {
				gw[j] = g * w[j]
			}
			sg[m] += vmath.Sum(gw)
			sgx[m] += vmath.Dot(gw, h)
			return
		}
		sy, syx := vmath.Sum(yr), vmath.Dot(yr, h)
		wc := 1.0
		if w != nil {
			wc = w[c]
		}
		sg[m] += wc * sy
		sgx[m] += wc * syx
		if wb != nil {
			wb[c] += syx
		}
		if bb != nil {
			bb[c] += sy
		}
	})
	cnt := float64(v.a * v.b)
	// Pass 2: xbar.
	xb := vmath.MakeNoZero[float64](len(xd)) // every run is written whole
	v.runs(func(off, n, m, c int) {
		mu, rs := mean[m], rstd[m]
		mg, mgx := sg[m]/cnt, sgx[m]/cnt
		xr, yr, out := xd[off:off+n], yb[off:off+n], xb[off:off+n]
		if c < 0 && w != nil {
			for j, e := range xr {
				out[j] = rs * (w[j]*yr[j] - mg - (e-mu)*rs*mgx)
			}
			return
		}
		wc := 1.0
		if c >= 0 && w != nil {
			wc = w[c]
		}
		// rs (wc ybar - mg - (x - mu) rs mgx) = a ybar + b x + d, per run.
		a, b := rs*wc, -rs*rs*mgx
		d := -rs*mg + rs*rs*mgx*mu
		for j, e := range xr {
			out[j] = a*yr[j] + b*e + d
		}
	})
	xbar, err := tensor.FromFloat64(xb, v.xshape...)
	if err != nil {
		return dst, err
	}
	dst = append(dst, cr.Contribution[*tensor.Dense]{Node: in[0], Value: xbar})
	k := 1
	if v.weight {
		dst = append(dst, cr.Contribution[*tensor.Dense]{Node: in[k], Value: wbar})
		k++
	}
	if v.bias {
		dst = append(dst, cr.Contribution[*tensor.Dense]{Node: in[k], Value: bbar})
	}
	return dst, nil
}

// Forward computes, per group with xhat = (x - mean) rstd (the batch statistics
// of the primal: mean' = mean(xdot), rstd' = -rstd^2 mean(xhat xdot)),
//
//	ydot = w rstd (xdot - mean(xdot) - xhat mean(xhat xdot)) + wdot xhat + bdot,
//
// in two passes over x and xdot: the tangent of the normalised output (the
// updated running statistics carry none). Gauss-Newton products and every
// forward sweep run it, so it is fused like Pullback rather than taken from the
// defined op's transposed recording.
func (r *fastNormRule) Forward(tangentOf cr.TangentOf[*tensor.Dense], ydot []*tensor.Dense, has []bool) error {
	if r.widen {
		return r.lazyForms.Forward(tangentOf, ydot, has)
	}
	v, mean, rstd, in := r.st.v, r.st.mean, r.st.rstd, r.in
	tangent := func(k int, shape []int, what string) ([]float64, error) {
		t, ok := tangentOf(in[k])
		if !ok {
			return nil, nil
		}
		if t == nil || t.DType() != tensor.Float64 || !slices.Equal(t.Shape(), shape) {
			return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: tangent of the %s is %s, want float64%v", v.name, what, describe(t), shape)
		}
		return t.Contiguous().Float64s(), nil
	}
	xt, err := tangent(0, v.xshape, "input")
	if err != nil {
		return err
	}
	var w, wt, bt []float64
	k := 1
	if v.weight {
		w = r.x[1].Contiguous().Float64s()
		if wt, err = tangent(k, v.wshape, "weight"); err != nil {
			return err
		}
		k++
	}
	if v.bias {
		if bt, err = tangent(k, v.wshape, "bias"); err != nil {
			return err
		}
	}
	if xt == nil && wt == nil && bt == nil {
		return nil
	}
	xd := r.x[0].Contiguous().Float64s()
	h := make([]float64, v.b) // xhat along a run
	// Pass 1: the sums of xdot and xhat xdot per group.
	s1, s2 := make([]float64, v.m), make([]float64, v.m)
	if xt != nil {
		v.runs(func(off, n, m, _ int) {
			mu, rs := mean[m], rstd[m]
			hr := h[:n]
			for j, e := range xd[off : off+n] {
				hr[j] = (e - mu) * rs
			}
			s1[m] += vmath.Sum(xt[off : off+n])
			s2[m] += vmath.Dot(hr, xt[off:off+n])
		})
	}
	cnt := float64(v.a * v.b)
	// Pass 2: ydot.
	out := vmath.MakeNoZero[float64](len(xd)) // every run is written whole
	v.runs(func(off, n, m, c int) {
		mu, rs := mean[m], rstd[m]
		m1, m2 := s1[m]/cnt, s2[m]/cnt
		o := out[off : off+n]
		for j, e := range xd[off : off+n] {
			p := j // layer_norm: the parameters vary along the run
			if c >= 0 {
				p = c
			}
			hj := (e - mu) * rs
			var d float64
			if xt != nil {
				g := rs * (xt[off+j] - m1 - hj*m2)
				if w != nil {
					g *= w[p]
				}
				d = g
			}
			if wt != nil {
				d += wt[p] * hj
			}
			if bt != nil {
				d += bt[p]
			}
			o[j] = d
		}
	})
	y, err := tensor.FromFloat64(out, v.xshape...)
	if err != nil {
		return err
	}
	ydot[0], has[0] = y, true
	return nil
}

// runs calls f for each run of elements of x (row-major) that share their
// group m and their channel c: offset off and length n. A row of the [A, M, B]
// view belongs to one group; the channel is constant on runs of wInner elements,
// and for layer_norm, whose parameters vary along the row, the run is the row
// and c is -1: element j of the run has the parameters' index j. (The channel
// views of inputs without spatial axes, [N, C], have wInner 1 too, but their
// element j has channel (off + j) mod C: runs of one element.)
func (v normView) runs(f func(off, n, m, c int)) {
	for a := 0; a < v.a; a++ {
		for m := 0; m < v.m; m++ {
			off := (a*v.m + m) * v.b
			if v.layer {
				f(off, v.b, m, -1)
				continue
			}
			for r := off; r < off+v.b; r += v.wInner {
				f(r, min(v.wInner, off+v.b-r), m, (r/v.wInner)%v.wLen)
			}
		}
	}
}

// FreshStorage marks the normalisation's outputs and every derivative its rule
// returns as storage of their own or of the defined op's rule, which lives no
// longer than the recording (chainrules.FreshStorage), so that a released tape
// reuses it.
func (*fastNormRule) FreshStorage() {}
