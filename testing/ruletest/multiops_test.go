package ruletest_test

import (
	"errors"
	"math"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
)

// Multi-output ops for the checker's own tests: correct ones, and mutants each with
// one deliberate mistake.

// toXY is the lead's test op of core/multi_test.go: (r, th) -> (x, y, q) with
// x = r cos th, y = r sin th and q the quadrant of (x, y), not differentiable.
type toXY struct {
	mut        toXYMutation
	firstOrder bool // hide the forward and second-order rules
	wrongCount bool // NumOutputs reports two outputs, Apply writes three
}

// toXYMutation switches one mistake on.
type toXYMutation struct {
	ignoreY      bool // the pullbacks drop y's cotangent
	flipX        bool // the pullbacks flip the sign of x's contribution
	wrongSecondY bool // the second-order term of y has the wrong sign
	wrongFwdY    bool // the forward tangent of y is wrong
	readQ        bool // the pullback reads q's cotangent without looking at has[2]
	tangentQ     bool // the forward rule reports a (meaningless) tangent for q: allowed
	mutateHas    bool // the pullback writes into has
}

func (toXY) Name() string { return "toxy" }
func (o toXY) NumOutputs() int {
	if o.wrongCount {
		return 2
	}
	return 3
}
func (toXY) Differentiable(int) bool         { return true }
func (toXY) OutputDifferentiable(m int) bool { return m < 2 }

func (o toXY) Apply(in []cr.NodeID, x, y []float64) (cr.Rule[float64], error) {
	if len(x) != 2 || len(in) != 2 {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "toxy takes 2 inputs")
	}
	r, th := x[0], x[1]
	s, c := math.Sincos(th)
	q := math.Floor(math.Mod(th, 2*math.Pi) / (math.Pi / 2))
	rule := &toXYRule{in: [2]cr.NodeID{in[0], in[1]}, r: r, s: s, c: c, mut: o.mut}
	y[0], y[1], y[2] = r*c, r*s, q // with wrongCount, y has two slots: a panic
	if o.firstOrder {
		return toXYFirst{rule}, nil
	}
	return rule, nil
}

type toXYRule struct {
	in      [2]cr.NodeID
	r, s, c float64
	mut     toXYMutation
}

// toXYFirst hides the forward and second-order rules.
type toXYFirst struct{ r *toXYRule }

func (f toXYFirst) Inputs() []cr.NodeID { return f.r.Inputs() }
func (f toXYFirst) Pullback(ybar []float64, has []bool, dst []cr.Contribution[float64]) ([]cr.Contribution[float64], error) {
	return f.r.Pullback(ybar, has, dst)
}

func (u *toXYRule) Inputs() []cr.NodeID { return u.in[:] }

func get(v []float64, has []bool, m int) float64 {
	if has[m] {
		return v[m]
	}
	return 0
}

// cot returns the cotangents of x and y, mutations applied.
func (u *toXYRule) cot(xb, yb float64) (float64, float64) {
	if u.mut.ignoreY {
		yb = 0
	}
	if u.mut.flipX {
		xb = -xb
	}
	return xb, yb
}

// rbar = c xbar + s ybar, thbar = -r s xbar + r c ybar.
func (u *toXYRule) Pullback(ybar []float64, has []bool, dst []cr.Contribution[float64]) ([]cr.Contribution[float64], error) {
	if has[2] {
		return dst, errors.New("cotangent reached the non-differentiable output")
	}
	xb, yb := u.cot(get(ybar, has, 0), get(ybar, has, 1))
	if u.mut.readQ {
		xb += ybar[2] // has[2] is false: ybar[2] must not be read
	}
	if u.mut.mutateHas {
		has[0] = !has[0]
	}
	return append(dst, cr.Contribution[float64]{Node: u.in[0], Value: u.c*xb + u.s*yb},
		cr.Contribution[float64]{Node: u.in[1], Value: -u.r*u.s*xb + u.r*u.c*yb}), nil
}

// xdot = c rdot - r s thdot, ydot = s rdot + r c thdot.
func (u *toXYRule) Forward(tan cr.TangentOf[float64], ydot []float64, has []bool) error {
	rd, ok1 := tan(u.in[0])
	td, ok2 := tan(u.in[1])
	if !ok1 && !ok2 {
		return nil
	}
	ydot[0], ydot[1] = u.c*rd-u.r*u.s*td, u.s*rd+u.r*u.c*td
	has[0], has[1] = true, true
	if u.mut.wrongFwdY {
		ydot[1] = u.s*rd - u.r*u.c*td
	}
	if u.mut.tangentQ {
		ydot[2], has[2] = 1e6, true
	}
	return nil
}

func (u *toXYRule) PullbackWithTangents(a cr.SecondOrderArgs[float64], dst []cr.DualContribution[float64]) ([]cr.DualContribution[float64], error) {
	ct, has, tan := a.Cotangents, a.Has, a.TangentOf
	rd, _ := tan(u.in[0])
	td, _ := tan(u.in[1])
	var xb, yb, xbd, ybd float64
	if has[0] {
		xb = ct[0].Value
		if ct[0].HasTangent {
			xbd = ct[0].Tangent
		}
	}
	if has[1] {
		yb = ct[1].Value
		if ct[1].HasTangent {
			ybd = ct[1].Tangent
		}
	}
	if u.mut.readQ {
		xb += ct[2].Value
	}
	xb, yb = u.cot(xb, yb)
	xbd, ybd = u.cot(xbd, ybd)
	r, s, c := u.r, u.s, u.c
	// The second-order terms (d/dth of the coefficients times thdot, d/dr times rdot).
	secX, secY := -s*td*xb, c*td*yb
	thSecX, thSecY := (-s*rd-r*c*td)*xb, (c*rd-r*s*td)*yb
	if u.mut.wrongSecondY {
		secY, thSecY = -secY, -thSecY
	}
	rbar := cr.Dual[float64]{Value: c*xb + s*yb, Tangent: c*xbd + s*ybd + secX + secY, HasTangent: true}
	thbar := cr.Dual[float64]{Value: -r*s*xb + r*c*yb, Tangent: -r*s*xbd + r*c*ybd + thSecX + thSecY, HasTangent: true}
	return append(dst, cr.DualContribution[float64]{Node: u.in[0], Cotangent: rbar},
		cr.DualContribution[float64]{Node: u.in[1], Cotangent: thbar}), nil
}

// ---- more float64 ops, for pullbacks written with ops ----

// unaryOp is a scalar op with f, f' and f”, with all rules.
func unaryOp(name string, f, d1, d2 func(float64) float64) cr.Op[float64] {
	return cr.OpFunc[float64]{OpName: name, F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
		if len(x) != 1 {
			return 0, nil, cr.Errorf(cr.ErrInvalidArgument, "%s takes 1 input", name)
		}
		return f(x[0]), &scalarRule{in: slices.Clone(in), d1: d1(x[0]), d2: d2(x[0])}, nil
	}}
}

var (
	cosOp   = unaryOp("cos", math.Cos, func(x float64) float64 { return -math.Sin(x) }, func(x float64) float64 { return -math.Cos(x) })
	negOp   = unaryOp("neg", func(x float64) float64 { return -x }, func(float64) float64 { return -1 }, func(float64) float64 { return 0 })
	plainOp = sinOp(nil)
)

// addRule is the rule of a + b.
type addRule struct{ in []cr.NodeID }

func (r addRule) Inputs() []cr.NodeID { return r.in }
func (r addRule) Pullback(ybar []float64, _ []bool, dst []cr.Contribution[float64]) ([]cr.Contribution[float64], error) {
	return append(dst, cr.Contribution[float64]{Node: r.in[0], Value: ybar[0]}, cr.Contribution[float64]{Node: r.in[1], Value: ybar[0]}), nil
}
func (r addRule) Forward(tan cr.TangentOf[float64], ydot []float64, has []bool) error {
	a, okA := tan(r.in[0])
	b, okB := tan(r.in[1])
	ydot[0], has[0] = a+b, okA || okB
	return nil
}
func (r addRule) PullbackWithTangents(a cr.SecondOrderArgs[float64], dst []cr.DualContribution[float64]) ([]cr.DualContribution[float64], error) {
	ct := a.Cotangents[0]
	return append(dst, cr.DualContribution[float64]{Node: r.in[0], Cotangent: ct}, cr.DualContribution[float64]{Node: r.in[1], Cotangent: ct}), nil
}

var addOp = cr.OpFunc[float64]{OpName: "add", F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
	if len(x) != 2 {
		return 0, nil, cr.Errorf(cr.ErrInvalidArgument, "add takes 2 inputs")
	}
	return x[0] + x[1], addRule{in: slices.Clone(in)}, nil
}}

// mulSinDef defines (a, b) -> (a b, sin a, floor a) by a primal and a pullback
// written with ops; floor a is not differentiable. wrongY flips the sign of the
// pullback's sin term.
func mulSinDef(wrongY bool) cr.Op[float64] {
	return core.Define(core.Def[float64]{
		Name: "mulsin", Space: cr.Float64Space{}, Arity: 2, Outputs: 3, NonDifferentiableOutputs: []int{2},
		Primal: func(x []float64) ([]float64, error) {
			if len(x) != 2 {
				return nil, cr.Errorf(cr.ErrInvalidArgument, "mulsin takes 2 inputs")
			}
			return []float64{x[0] * x[1], math.Sin(x[0]), math.Floor(x[0])}, nil
		},
		// abar = b ybar0 + cos(a) ybar1, bbar = a ybar0.
		Pullback: func(t *core.Tape[float64], x, _, ybar []cr.NodeID) []cr.NodeID {
			cy := t.Apply(mulOp(nil), t.Apply(cosOp, x[0]), ybar[1])
			if wrongY {
				cy = t.Apply(negOp, cy)
			}
			abar := t.Apply(addOp, t.Apply(mulOp(nil), x[1], ybar[0]), cy)
			return []cr.NodeID{abar, t.Apply(mulOp(nil), x[0], ybar[0])}
		},
	})
}

// mulSinComposite is (a, b) -> (a b, sin a) as a composite of ops.
func mulSinComposite() cr.Op[float64] {
	return core.Composite("mulsin", cr.Float64Space{}, 2, func(t *core.Tape[float64], x []cr.NodeID) []cr.NodeID {
		return []cr.NodeID{t.Apply(mulOp(nil), x[0], x[1]), t.Apply(plainOp, x[0])}
	}, core.Outputs(2))
}
