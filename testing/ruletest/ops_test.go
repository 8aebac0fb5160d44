package ruletest_test

import (
	"math"
	"math/cmplx"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// Hand-written ops for the checker's own tests: correct ones, and mutants each with
// one deliberate mistake.

// ---- float64 scalars ----

// scalarRule is the rule of a unary scalar op with f'(x) = d1 and f”(x) = d2.
type scalarRule struct {
	in     []cr.NodeID
	d1, d2 float64
	// Mutations, each off in a correct rule.
	signFlip, wrongForward, wrongSecond, affine, stale, quadratic bool
	calls                                                         int
}

func (r *scalarRule) Inputs() []cr.NodeID { return r.in }

func (r *scalarRule) Pullback(ybar []float64, _ []bool, dst []cr.Contribution[float64]) ([]cr.Contribution[float64], error) {
	g := r.d1 * ybar[0]
	switch {
	case r.signFlip:
		g = -g
	case r.affine:
		g += 0.25 // not linear: nonzero for ybar = 0
	case r.quadratic:
		g *= math.Abs(ybar[0]) // not linear, yet right for |ybar| = 1 and zero at 0
	case r.stale:
		r.calls++ // the rule remembers how often it was called
		g *= float64(r.calls)
	}
	return append(dst, cr.Contribution[float64]{Node: r.in[0], Value: g}), nil
}

func (r *scalarRule) Forward(tan cr.TangentOf[float64], ydot []float64, has []bool) error {
	xd, ok := tan(r.in[0])
	if r.wrongForward {
		ydot[0], has[0] = r.d2*xd, ok // f'' in place of f'
		return nil
	}
	ydot[0], has[0] = r.d1*xd, ok
	return nil
}

// xbar = f'(x) ybar, so xbardot = f'(x) ybardot + f”(x) xdot ybar.
func (r *scalarRule) PullbackWithTangents(a cr.SecondOrderArgs[float64], dst []cr.DualContribution[float64]) ([]cr.DualContribution[float64], error) {
	ct, tan := a.Cotangents[0], a.TangentOf
	xd, _ := tan(r.in[0])
	yd := 0.0
	if ct.HasTangent {
		yd = ct.Tangent
	}
	second := r.d2 * xd * ct.Value
	if r.wrongSecond {
		second = -second
	}
	return append(dst, cr.DualContribution[float64]{Node: r.in[0], Cotangent: cr.Dual[float64]{
		Value: r.d1 * ct.Value, Tangent: r.d1*yd + second, HasTangent: true}}), nil
}

// firstOrder hides the optional interfaces of a rule.
type firstOrder[V any] struct{ cr.Rule[V] }

// sinOp is sin with first- and second-order rules; mutate turns one mistake on.
func sinOp(mutate func(*scalarRule)) cr.Op[float64] {
	return cr.OpFunc[float64]{OpName: "sin", F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
		s, c := math.Sincos(x[0])
		r := &scalarRule{in: append([]cr.NodeID(nil), in...), d1: c, d2: -s}
		if mutate != nil {
			mutate(r)
		}
		return s, r, nil
	}}
}

// sinFirstOrder is sinOp with the optional interfaces hidden, so that a mutated
// Pullback cannot disagree with PullbackWithTangents.
func sinFirstOrder(mutate func(*scalarRule)) cr.Op[float64] {
	op := sinOp(mutate)
	return cr.OpFunc[float64]{OpName: "sin", F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
		y := make([]float64, 1)
		r, err := op.Apply(in, x, y)
		return y[0], firstOrder[float64]{r}, err
	}}
}

// mulRule is the rule of y = a*b on float64.
type mulRule struct {
	in   []cr.NodeID
	a, b float64
	// dropSecond returns one contribution only; asymmetric breaks the Hessian's
	// symmetry by dropping the cross term of abardot.
	dropSecond, asymmetric, foreign, wrongInputs bool
}

func (r *mulRule) Inputs() []cr.NodeID {
	if r.wrongInputs {
		return r.in[:1]
	}
	return r.in
}

func (r *mulRule) Pullback(ybar []float64, _ []bool, dst []cr.Contribution[float64]) ([]cr.Contribution[float64], error) {
	dst = append(dst, cr.Contribution[float64]{Node: r.in[0], Value: r.b * ybar[0]})
	switch {
	case r.dropSecond:
		return dst, nil
	case r.foreign:
		return append(dst, cr.Contribution[float64]{Node: r.in[1] + 7, Value: r.a * ybar[0]}), nil
	}
	return append(dst, cr.Contribution[float64]{Node: r.in[1], Value: r.a * ybar[0]}), nil
}

func (r *mulRule) Forward(tan cr.TangentOf[float64], ydot []float64, has []bool) error {
	ad, okA := tan(r.in[0])
	bd, okB := tan(r.in[1])
	ydot[0], has[0] = ad*r.b+r.a*bd, okA || okB
	return nil
}

// abar = b ybar gives abardot = bdot ybar + b ybardot; likewise for b.
func (r *mulRule) PullbackWithTangents(a cr.SecondOrderArgs[float64], dst []cr.DualContribution[float64]) ([]cr.DualContribution[float64], error) {
	ct, tan := a.Cotangents[0], a.TangentOf
	ad, _ := tan(r.in[0])
	bd, _ := tan(r.in[1])
	yd := 0.0
	if ct.HasTangent {
		yd = ct.Tangent
	}
	cross := bd * ct.Value
	if r.asymmetric {
		cross = 0
	}
	return append(dst,
		cr.DualContribution[float64]{Node: r.in[0], Cotangent: cr.Dual[float64]{Value: r.b * ct.Value, Tangent: cross + r.b*yd, HasTangent: true}},
		cr.DualContribution[float64]{Node: r.in[1], Cotangent: cr.Dual[float64]{Value: r.a * ct.Value, Tangent: ad*ct.Value + r.a*yd, HasTangent: true}},
	), nil
}

func mulOp(mutate func(*mulRule)) cr.Op[float64] {
	return cr.OpFunc[float64]{OpName: "mul", F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
		r := &mulRule{in: append([]cr.NodeID(nil), in...), a: x[0], b: x[1]}
		if mutate != nil {
			mutate(r)
		}
		return x[0] * x[1], r, nil
	}}
}

// reluOp is max(x, 0) with the subgradient 0 at x = 0 (or 1 with oneAtZero).
func reluOp(oneAtZero bool) cr.Op[float64] {
	return cr.OpFunc[float64]{OpName: "relu", F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
		d := 0.0
		if x[0] > 0 || (oneAtZero && x[0] == 0) {
			d = 1
		}
		return max(x[0], 0), &scalarRule{in: append([]cr.NodeID(nil), in...), d1: d}, nil
	}}
}

// counterOp returns a different primal on every evaluation.
func counterOp() cr.Op[float64] {
	n := 0.0
	return cr.OpFunc[float64]{OpName: "counter", F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
		n++
		return x[0] + n, &scalarRule{in: append([]cr.NodeID(nil), in...), d1: 1}, nil
	}}
}

// scaleByOp multiplies x0 by the non-differentiable x1; leak gives x1 a cotangent.
type scaleByOp struct{ leak bool }

func (scaleByOp) Name() string                  { return "scaleby" }
func (scaleByOp) NumOutputs() int               { return 1 }
func (scaleByOp) Differentiable(k int) bool     { return k == 0 }
func (scaleByOp) OutputDifferentiable(int) bool { return true }
func (o scaleByOp) Apply(in []cr.NodeID, x, y []float64) (cr.Rule[float64], error) {
	r := &mulRule{in: append([]cr.NodeID(nil), in...), a: x[0], b: x[1], dropSecond: !o.leak}
	y[0] = x[0] * x[1]
	return firstOrder[float64]{r}, nil
}

// ---- tensors ----

// expRule is the rule of elementwise exp on a float64 or complex128 tensor:
// xbar = conj(exp(x)) ybar, xdot -> exp(x) xdot, xbardot = conj(exp(x)) ybardot +
// conj(exp(x) xdot) ybar.
type expRule struct {
	in []cr.NodeID
	x  *tensor.Dense
	y  *tensor.Dense
	// noConj drops the conjugate; wrongShape flattens the cotangent; mutateInput
	// overwrites the captured input (which is the caller's value).
	noConj, wrongShape, mutateInput bool
}

func (r *expRule) Inputs() []cr.NodeID { return r.in }

func (r *expRule) Pullback(ybar []*tensor.Dense, _ []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	d := r.y
	if !r.noConj {
		d = d.Conj()
	}
	g, err := tensor.Mul(d, ybar[0])
	if err != nil {
		return dst, err
	}
	if r.wrongShape {
		if g, err = g.Reshape(g.Size()); err != nil {
			return dst, err
		}
	}
	if r.mutateInput && r.x.DType() == tensor.Float64 {
		xs := r.x.Float64s()
		xs[0] += 1
	}
	return append(dst, cr.Contribution[*tensor.Dense]{Node: r.in[0], Value: g}), nil
}

func (r *expRule) Forward(tan cr.TangentOf[*tensor.Dense], ydot []*tensor.Dense, has []bool) error {
	xd, ok := tan(r.in[0])
	if !ok {
		return nil
	}
	yd, err := tensor.Mul(r.y, xd)
	if err != nil {
		return err
	}
	ydot[0], has[0] = yd, true
	return nil
}

func (r *expRule) PullbackWithTangents(a cr.SecondOrderArgs[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	ct, tan := a.Cotangents[0], a.TangentOf
	cy := r.y.Conj()
	xbar, err := tensor.Mul(cy, ct.Value)
	if err != nil {
		return dst, err
	}
	xbardot := tensor.New(r.x.DType(), r.x.Shape()...)
	if ct.HasTangent {
		if xbardot, err = tensor.Mul(cy, ct.Tangent); err != nil {
			return dst, err
		}
	}
	if xd, ok := tan(r.in[0]); ok {
		ydot, err := tensor.Mul(r.y, xd)
		if err != nil {
			return dst, err
		}
		term, err := tensor.Mul(ydot.Conj(), ct.Value)
		if err != nil {
			return dst, err
		}
		if xbardot, err = tensor.Add(xbardot, term); err != nil {
			return dst, err
		}
	}
	return append(dst, cr.DualContribution[*tensor.Dense]{Node: r.in[0],
		Cotangent: cr.Dual[*tensor.Dense]{Value: xbar, Tangent: xbardot, HasTangent: true}}), nil
}

// expOp is elementwise exp; firstOrderOnly hides the optional interfaces.
func expOp(mutate func(*expRule), firstOrderOnly bool) cr.Op[*tensor.Dense] {
	return cr.OpFunc[*tensor.Dense]{OpName: "exp", F: func(in []cr.NodeID, x []*tensor.Dense) (*tensor.Dense, cr.Rule[*tensor.Dense], error) {
		y := tensor.New(x[0].DType(), x[0].Shape()...)
		if x[0].DType() == tensor.Complex128 {
			ys, xs := y.Complex128s(), x[0].Complex128s()
			for i, z := range xs {
				ys[i] = cmplx.Exp(z)
			}
		} else {
			ys, xs := y.Float64s(), x[0].Float64s()
			for i, v := range xs {
				ys[i] = math.Exp(v)
			}
		}
		r := &expRule{in: append([]cr.NodeID(nil), in...), x: x[0], y: y}
		if mutate != nil {
			mutate(r)
		}
		if firstOrderOnly {
			return y, firstOrder[*tensor.Dense]{r}, nil
		}
		return y, r, nil
	}}
}

// matmulRule is the rule of C = A B: Abar = Cbar B^H, Bbar = A^H Cbar.
type matmulRule struct {
	in         []cr.NodeID
	a, b       *tensor.Dense
	transposed bool // uses Cbar^T in place of Cbar
}

func (r *matmulRule) Inputs() []cr.NodeID { return r.in }

func adjoint(t *tensor.Dense) (*tensor.Dense, error) {
	tt, err := t.Transpose(0, 1)
	if err != nil {
		return nil, err
	}
	return tt.Conj(), nil
}

func (r *matmulRule) Pullback(ybar []*tensor.Dense, _ []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	cbar := ybar[0]
	if r.transposed {
		var err error
		if cbar, err = cbar.Transpose(0, 1); err != nil {
			return dst, err
		}
	}
	bh, err := adjoint(r.b)
	if err != nil {
		return dst, err
	}
	ah, err := adjoint(r.a)
	if err != nil {
		return dst, err
	}
	abar, err := tensor.MatMul(cbar, bh)
	if err != nil {
		return dst, err
	}
	bbar, err := tensor.MatMul(ah, cbar)
	if err != nil {
		return dst, err
	}
	return append(dst, cr.Contribution[*tensor.Dense]{Node: r.in[0], Value: abar},
		cr.Contribution[*tensor.Dense]{Node: r.in[1], Value: bbar}), nil
}

// Forward sets Cdot = Adot B + A Bdot.
func (r *matmulRule) Forward(tan cr.TangentOf[*tensor.Dense], ydot []*tensor.Dense, has []bool) error {
	ad, okA := tan(r.in[0])
	bd, okB := tan(r.in[1])
	if !okA && !okB {
		return nil
	}
	out := tensor.New(tensor.ResultDType(r.a.DType(), r.b.DType()), r.a.Shape()[0], r.b.Shape()[1])
	if okA {
		t, err := tensor.MatMul(ad, r.b)
		if err != nil {
			return err
		}
		if out, err = tensor.Add(out, t); err != nil {
			return err
		}
	}
	if okB {
		t, err := tensor.MatMul(r.a, bd)
		if err != nil {
			return err
		}
		if out, err = tensor.Add(out, t); err != nil {
			return err
		}
	}
	ydot[0], has[0] = out, true
	return nil
}

func matmulOp(transposed bool) cr.Op[*tensor.Dense] {
	return cr.OpFunc[*tensor.Dense]{OpName: "matmul", F: func(in []cr.NodeID, x []*tensor.Dense) (*tensor.Dense, cr.Rule[*tensor.Dense], error) {
		y, err := tensor.MatMul(x[0], x[1])
		if err != nil {
			return nil, nil, err
		}
		return y, &matmulRule{in: append([]cr.NodeID(nil), in...), a: x[0], b: x[1], transposed: transposed}, nil
	}}
}
