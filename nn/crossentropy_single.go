package nn

import (
	"math"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/internal/vmath"
	"github.com/chainrules-go/chainrules/tensor"
)

// cross_entropy of float32 logits x [C] or [N, C] with class labels, without
// class weights or label smoothing (the common case), natively in single
// precision: per row the log-sum-exp lse = m + log(sum(exp(x - m))) (the
// exponentials in float32 lanes, vmath.Exp32, their sum in float64) and the
// loss lse - x_y in float64, reduced in float64 and rounded once; the pullback
// xbar = s (exp(x - lse) - onehot(y)) in float32 (x - lse rounded once from
// float64). The other rules (forward,
// second order, recorded) are those of the op at the input widened to float64,
// rounded back (applySingle), made only when a sweep asks for them; other
// float32 input goes through applySingle whole.

// applyFloat32 applies cross_entropy natively to float32 logits. It reports
// false, having done nothing, for any other input or option, and for bad input,
// whose error the widened op reports.
func (o *ceOp) applyFloat32(in []cr.NodeID, x, out []*tensor.Dense, need []bool) (cr.Rule[*tensor.Dense], bool, error) {
	if !o.logits || o.probs || len(in) != 1 || len(x) != 1 || len(out) != 1 || x[0] == nil || x[0].DType() != tensor.Float32 ||
		o.cfg.classWeights != nil || o.cfg.smoothing != 0 || (len(need) > 0 && !need[0]) || o.cfg.check(o.name, o.allowed) != nil {
		return nil, false, nil
	}
	shape := x[0].Shape()
	var rows, c int
	var rowShape []int
	switch len(shape) {
	case 1:
		rows, c, rowShape = 1, shape[0], []int{}
	case 2:
		rows, c, rowShape = shape[0], shape[1], []int{shape[0]}
	default:
		return nil, false, nil
	}
	if c == 0 || len(o.labels) != rows {
		return nil, false, nil
	}
	r := &ceRule32{lazyForms: lazyForms{op: o, in: slices.Clone(in), x: []*tensor.Dense{x[0]}, need: slices.Clone(need), widen: true},
		c: c, rowShape: rowShape,
		labels: make([]int, rows), lse: make([]float64, rows), red: o.cfg.reduction}
	ignoring := o.cfg.set&optIgnore != 0
	var d float64 // the mean's denominator: the rows not ignored
	for i, y := range o.labels {
		switch {
		case ignoring && y == o.cfg.ignore:
			r.labels[i] = -1
			continue
		case y < 0 || y >= c:
			return nil, false, nil
		}
		r.labels[i], d = y, d+1
	}
	r.scale = 1
	if r.red == ReductionMean {
		r.scale = 1 / d // no row: Inf, and the loss is NaN (0/0), as in PyTorch
	}
	r.xs = x[0].Contiguous().Float32s()
	loss := make([]float64, rows)
	l := lanes{outer: rows, n: c, inner: 1}
	l.forRows(func(lo, hi int) {
		e := vmath.MakeNoZero[float32](c)
		defer vmath.Put(e)
		for k := lo; k < hi; k++ {
			row := r.xs[k*c : (k+1)*c]
			m := vmath.Max32(row)
			for i, v := range row {
				e[i] = v - m
			}
			vmath.Exp32(e, e)
			s, _ := vmath.SumDev32(e, 0)
			r.lse[k] = float64(m) + math.Log(s)
			if y := r.labels[k]; y >= 0 {
				loss[k] = r.lse[k] - float64(row[y])
			}
		}
	})
	var y *tensor.Dense
	if r.red == ReductionNone {
		l32 := make([]float32, rows)
		for i, v := range loss {
			l32[i] = float32(v)
		}
		var err error
		if y, err = tensor.FromFloat32(l32, rowShape...); err != nil {
			return nil, true, err
		}
	} else {
		var s float64
		for _, v := range loss {
			s += v
		}
		y = tensor.ScalarFloat32(float32(s * r.scale))
	}
	out[0] = y
	return r, true, nil
}

// ceRule32 is the rule of cross_entropy of float32 logits (applyFloat32): the
// native Pullback, and the widened op's rule for the rest.
type ceRule32 struct {
	lazyForms // Inputs, and the rules but Pullback, widened
	xs        []float32
	c         int
	rowShape  []int
	labels    []int     // per row; -1 marks an ignored row
	lse       []float64 // per row
	red       Reduction
	scale     float64 // 1 (sum, none) or 1/D (mean)
}

// FreshStorage marks the loss and every derivative the rule returns as storage
// of their own (chainrules.FreshStorage): the native ones are made by the call,
// the widened rule's are rounded into new tensors.
func (*ceRule32) FreshStorage() {}

// Pullback computes xbar_r = s_r (exp(x_r - lse_r) - onehot(y_r)) per row (zero
// for an ignored row), s_r the row's factor of the cotangent (its element for
// ReductionNone, the cotangent times 1 or 1/D otherwise), in float32; a
// cotangent that is not float32 of the loss's shape goes to the widened rule.
func (r *ceRule32) Pullback(ybar []*tensor.Dense, has []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	g := ybar[0]
	want := r.rowShape
	if r.red != ReductionNone {
		want = []int{}
	}
	if g == nil || g.DType() != tensor.Float32 || !slices.Equal(g.Shape(), want) {
		w, err := r.inner()
		if err != nil {
			return dst, err
		}
		return w.Pullback(ybar, has, dst)
	}
	gs := g.Contiguous().Float32s()
	rows, c := len(r.labels), r.c
	out := vmath.MakeNoZero[float32](len(r.xs)) // every row is written whole
	l := lanes{outer: rows, n: c, inner: 1}
	l.forRows(func(lo, hi int) {
		for k := lo; k < hi; k++ {
			or := out[k*c : (k+1)*c]
			y := r.labels[k]
			if y < 0 {
				clear(or)
				continue
			}
			s := float32(float64(gs[0]) * r.scale)
			if r.red == ReductionNone {
				s = gs[k]
			}
			// x - lse in float64, rounded once: near the label, where p is
			// near 1, lse rounded to float32 first would cost p - 1 several
			// ulps.
			lse := r.lse[k]
			for i, v := range r.xs[k*c : (k+1)*c] {
				or[i] = float32(float64(v) - lse)
			}
			vmath.Exp32(or, or)
			or[y]--
			for i := range or {
				or[i] *= s
			}
		}
	})
	shape := []int{c}
	if len(r.rowShape) == 1 {
		shape = []int{rows, c}
	}
	xbar, err := tensor.FromFloat32(out, shape...)
	if err != nil {
		return dst, err
	}
	return append(dst, cr.Contribution[*tensor.Dense]{Node: r.in[0], Value: xbar}), nil
}
