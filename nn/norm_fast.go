package nn

import (
	"slices"
	"sync"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/internal/vmath"
	"github.com/chainrules-go/chainrules/tensor"
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
	outs, st, err := o.primal(x)
	if err != nil {
		return nil, err
	}
	if len(y) != len(outs) {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: %d output slots for %d outputs", o.Name(), len(y), len(outs))
	}
	copy(y, outs)
	return &fastNormRule{op: o.Op, in: slices.Clone(in), x: slices.Clone(x), st: st}, nil
}

// fastNormRule is the rule of a normalisation: the fused Pullback, and the
// defined op's rule for the rest.
type fastNormRule struct {
	op    cr.Op[*tensor.Dense]
	in    []cr.NodeID
	x     []*tensor.Dense
	st    normStatistics
	once  sync.Once
	inner cr.Rule[*tensor.Dense]
	err   error
}

func (r *fastNormRule) Inputs() []cr.NodeID { return r.in }

// defined returns the defined op's rule at the same inputs.
func (r *fastNormRule) defined() (cr.Rule[*tensor.Dense], error) {
	r.once.Do(func() {
		r.inner, r.err = r.op.Apply(r.in, r.x, make([]*tensor.Dense, r.op.NumOutputs()))
	})
	return r.inner, r.err
}

// Pullback computes, with xhat = (x - mean) rstd and g = ybar * w, per group,
//
//	xbar = rstd (g - mean(g) - xhat mean(g xhat)),  wbar = sum ybar xhat,  bbar = sum ybar,
//
// in two passes: one for the sums, one writing xbar.
func (r *fastNormRule) Pullback(ybar []*tensor.Dense, has []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	if !has[0] {
		inner, err := r.defined()
		if err != nil {
			return dst, err
		}
		return inner.Pullback(ybar, has, dst)
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

// Forward is the inner rule's (the transposed recorded pullback).
func (r *fastNormRule) Forward(tangentOf cr.TangentOf[*tensor.Dense], ydot []*tensor.Dense, has []bool) error {
	inner, err := r.defined()
	if err != nil {
		return err
	}
	return inner.(cr.ForwardRule[*tensor.Dense]).Forward(tangentOf, ydot, has)
}

// PullbackWithTangents is the inner rule's (a forward sweep through the recorded pullback).
func (r *fastNormRule) PullbackWithTangents(a cr.SecondOrderArgs[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	inner, err := r.defined()
	if err != nil {
		return dst, err
	}
	return inner.(cr.SecondOrderRule[*tensor.Dense]).PullbackWithTangents(a, dst)
}

// RecordPullback is the inner rule's: the same cotangents recorded with ops.
func (r *fastNormRule) RecordPullback(rec cr.Recorder[*tensor.Dense], x, y, ybar []cr.NodeID) ([]cr.NodeID, error) {
	inner, err := r.defined()
	if err != nil {
		return nil, err
	}
	return inner.(cr.PullbackRecorder[*tensor.Dense]).RecordPullback(rec, x, y, ybar)
}

// runs calls f for each run of elements of x (row-major) that share their
// group m and their channel c: offset off and length n. A row of the [A, M, B]
// view belongs to one group; the channel is constant on runs of wInner elements,
// and for layer_norm (wInner 1), whose parameters vary along the row, the run is
// the row and c is -1: element j of the run has the parameters' index j.
func (v normView) runs(f func(off, n, m, c int)) {
	for a := 0; a < v.a; a++ {
		for m := 0; m < v.m; m++ {
			off := (a*v.m + m) * v.b
			if v.wInner == 1 {
				f(off, v.b, m, -1)
				continue
			}
			for r := off; r < off+v.b; r += v.wInner {
				f(r, min(v.wInner, off+v.b-r), m, (r/v.wInner)%v.wLen)
			}
		}
	}
}
