package nn

import (
	"math"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/internal/vmath"
	"github.com/chainrules-go/chainrules/tensor"
)

// softmax and log_softmax of a float32 tensor along contiguous lanes (the last
// axis, or an axis with only size-1 axes after it), natively in single
// precision: the exponentials in float32 lanes (vmath.Exp32), the sums over a
// lane in float64, as PyTorch's CPU kernels accumulate. The rule's Pullback is
// native too; its other rules (forward, second order, recorded) are those of
// the op at the inputs widened to float64, rounded back (applySingle), made
// only when a sweep asks for them. Other lanes go through applySingle whole.

// applyFloat32 applies the op natively to a float32 x along contiguous lanes.
// It reports false, having done nothing, for any other input (another dtype,
// a bad axis, lanes with a stride, an empty tensor), which the caller widens.
func (o *softmaxOp) applyFloat32(in []cr.NodeID, x, out []*tensor.Dense) (cr.Rule[*tensor.Dense], bool, error) {
	if len(in) != 1 || len(x) != 1 || len(out) != 1 || x[0] == nil || x[0].DType() != tensor.Float32 || x[0].Size() == 0 {
		return nil, false, nil
	}
	shape := x[0].Shape()
	ax, err := normAxis(o.name, o.axis, len(shape))
	if err != nil {
		return nil, false, nil
	}
	l := lanesOf(shape, ax)
	if l.inner != 1 {
		return nil, false, nil
	}
	xs := x[0].Contiguous().Float32s()
	y := vmath.MakeNoZero[float32](len(xs)) // every lane is written whole
	l.forRows(func(lo, hi int) {
		for k := lo; k < hi; k++ {
			row, yr := xs[k*l.n:(k+1)*l.n], y[k*l.n:(k+1)*l.n]
			m := vmath.Max32(row)
			for i, v := range row {
				yr[i] = v - m
			}
			vmath.Exp32(yr, yr)
			s, _ := vmath.SumDev32(yr, 0)
			if !o.log {
				c := float32(1 / s)
				for i := range yr {
					yr[i] *= c
				}
				continue
			}
			// x - m - log(s), rounded once.
			mm := float64(m) + math.Log(s)
			for i, v := range row {
				yr[i] = float32(float64(v) - mm)
			}
		}
	})
	yt, err := tensor.FromFloat32(y, shape...)
	if err != nil {
		return nil, true, err
	}
	out[0] = yt
	return &softmaxRule32{lazyForms: lazyForms{op: o, in: slices.Clone(in), x: []*tensor.Dense{x[0]}, widen: true},
		log: o.log, y: y, l: l, shape: slices.Clone(shape)}, true, nil
}

// softmaxRule32 is the rule of softmax or log_softmax of float32 input along
// contiguous lanes: the native Pullback (see softmaxRule for the formulas),
// from the output y (softmax's p, or log_softmax's log p), and the widened op's
// rule for the rest.
type softmaxRule32 struct {
	lazyForms // Inputs, and the rules but Pullback, widened
	log       bool
	y         []float32
	l         lanes
	shape     []int
}

// FreshStorage marks the output and every derivative the rule returns as storage
// of their own (chainrules.FreshStorage): the native ones are made by the call,
// the widened rule's are rounded into new tensors.
func (*softmaxRule32) FreshStorage() {}

// Pullback computes, lane by lane with float64 sums,
//
//	softmax:      xbar = p (ybar - sum(p ybar))
//	log_softmax:  xbar = ybar - exp(y) sum(ybar)
//
// in single precision; a cotangent that is not float32 of the output's shape
// goes to the widened rule.
func (r *softmaxRule32) Pullback(ybar []*tensor.Dense, has []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	g := ybar[0]
	if g == nil || g.DType() != tensor.Float32 || !slices.Equal(g.Shape(), r.shape) {
		w, err := r.inner()
		if err != nil {
			return dst, err
		}
		return w.Pullback(ybar, has, dst)
	}
	gs := g.Contiguous().Float32s()
	out := vmath.MakeNoZero[float32](len(gs)) // every lane is written whole
	l, y, log := r.l, r.y, r.log
	l.forRows(func(lo, hi int) {
		for k := lo; k < hi; k++ {
			gr, yr, or := gs[k*l.n:(k+1)*l.n], y[k*l.n:(k+1)*l.n], out[k*l.n:(k+1)*l.n]
			if log {
				sg, _ := vmath.SumDev32(gr, 0)
				a := float32(sg)
				vmath.Exp32(or, yr)
				for i, v := range gr {
					or[i] = v - or[i]*a
				}
				continue
			}
			a := float32(vmath.Dot32(yr, gr))
			for i, v := range gr {
				or[i] = yr[i] * (v - a)
			}
		}
	})
	xbar, err := tensor.FromFloat32(out, r.shape...)
	if err != nil {
		return dst, err
	}
	return append(dst, cr.Contribution[*tensor.Dense]{Node: r.in[0], Value: xbar}), nil
}
