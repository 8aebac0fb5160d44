package core_test

import (
	"math"
	"runtime"
	"weak"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

// A hand-written scalar op set with first- and second-order rules, used to test the
// engine without any tensor code.

type unaryRule struct {
	in [1]cr.NodeID
	// d1 and d2 are f'(x) and f''(x) at the recorded point.
	d1, d2 float64
}

func (r *unaryRule) Inputs() []cr.NodeID { return r.in[:] }

func (r *unaryRule) Pullback(ybar []float64, _ []bool, dst []cr.Contribution[float64]) ([]cr.Contribution[float64], error) {
	return append(dst, cr.Contribution[float64]{Node: r.in[0], Value: r.d1 * ybar[0]}), nil
}

func (r *unaryRule) Forward(tan cr.TangentOf[float64], ydot []float64, has []bool) error {
	xd, ok := tan(r.in[0])
	ydot[0], has[0] = r.d1*xd, ok
	return nil
}

// xbar = f'(x) ybar, so xbardot = f'(x) ybardot + f”(x) xdot ybar.
func (r *unaryRule) PullbackWithTangents(a cr.SecondOrderArgs[float64], dst []cr.DualContribution[float64]) ([]cr.DualContribution[float64], error) {
	ct := a.Cotangents[0]
	xd, _ := a.TangentOf(r.in[0]) // absent means zero
	yd := 0.0
	if ct.HasTangent {
		yd = ct.Tangent
	}
	d := cr.Dual[float64]{Value: r.d1 * ct.Value, Tangent: r.d1*yd + r.d2*xd*ct.Value, HasTangent: true}
	return append(dst, cr.DualContribution[float64]{Node: r.in[0], Cotangent: d}), nil
}

// unary builds a unary op from a function returning f(x), f'(x) and f”(x).
func unary(name string, f func(float64) (y, d1, d2 float64)) cr.Op[float64] {
	return cr.OpFunc[float64]{OpName: name, F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
		y, d1, d2 := f(x[0])
		return y, &unaryRule{in: [1]cr.NodeID{in[0]}, d1: d1, d2: d2}, nil
	}}
}

var (
	sinOp = unary("sin", func(x float64) (float64, float64, float64) {
		s, c := math.Sincos(x)
		return s, c, -s
	})
	cubeOp = unary("cube", func(x float64) (float64, float64, float64) { return x * x * x, 3 * x * x, 6 * x })
)

func scaleOp(a float64) cr.Op[float64] {
	return unary("scale", func(x float64) (float64, float64, float64) { return a * x, a, 0 })
}

func shiftOp(b float64) cr.Op[float64] {
	return unary("shift", func(x float64) (float64, float64, float64) { return x + b, 1, 0 })
}

type mulRule struct {
	in   [2]cr.NodeID
	a, b float64
}

func (r *mulRule) Inputs() []cr.NodeID { return r.in[:] }

func (r *mulRule) Pullback(ybar []float64, _ []bool, dst []cr.Contribution[float64]) ([]cr.Contribution[float64], error) {
	return append(dst, cr.Contribution[float64]{Node: r.in[0], Value: r.b * ybar[0]},
		cr.Contribution[float64]{Node: r.in[1], Value: r.a * ybar[0]}), nil
}

func (r *mulRule) Forward(tan cr.TangentOf[float64], ydot []float64, has []bool) error {
	ad, okA := tan(r.in[0])
	bd, okB := tan(r.in[1])
	ydot[0], has[0] = ad*r.b+r.a*bd, okA || okB
	return nil
}

// abar = b ybar: abardot = bdot ybar + b ybardot; likewise for b.
func (r *mulRule) PullbackWithTangents(a cr.SecondOrderArgs[float64], dst []cr.DualContribution[float64]) ([]cr.DualContribution[float64], error) {
	ct := a.Cotangents[0]
	ad, _ := a.TangentOf(r.in[0])
	bd, _ := a.TangentOf(r.in[1])
	yd := 0.0
	if ct.HasTangent {
		yd = ct.Tangent
	}
	return append(dst,
		cr.DualContribution[float64]{Node: r.in[0], Cotangent: cr.Dual[float64]{Value: r.b * ct.Value, Tangent: bd*ct.Value + r.b*yd, HasTangent: true}},
		cr.DualContribution[float64]{Node: r.in[1], Cotangent: cr.Dual[float64]{Value: r.a * ct.Value, Tangent: ad*ct.Value + r.a*yd, HasTangent: true}},
	), nil
}

var mulOp = cr.OpFunc[float64]{OpName: "mul", F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
	return x[0] * x[1], &mulRule{in: [2]cr.NodeID{in[0], in[1]}, a: x[0], b: x[1]}, nil
}}

// firstOrderOnly wraps a rule and hides its optional methods.
type firstOrderOnly struct{ cr.Rule[float64] }

var sinNoTangents = cr.OpFunc[float64]{OpName: "sin1", F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
	y := make([]float64, 1)
	r, err := sinOp.Apply(in, x, y)
	return y[0], firstOrderOnly{r}, err
}}

var (
	logOp = unary("log", func(x float64) (float64, float64, float64) { return math.Log(x), 1 / x, -1 / (x * x) })
	// sqrt at 0 has a finite value and an infinite derivative: a NaN source for
	// anomaly tests.
	sqrtOp = unary("sqrt", func(x float64) (float64, float64, float64) {
		s := math.Sqrt(x)
		return s, 0.5 / s, -0.25 / (s * x)
	})
)

// tracker counts the applications of an op and keeps a weak pointer to every rule it
// made, so that tests can see which rules are still alive after a garbage
// collection.
type tracker struct {
	applies int
	rules   []weak.Pointer[unaryRule]
}

// op returns sin, instrumented.
func (tr *tracker) op() cr.Op[float64] {
	return cr.OpFunc[float64]{OpName: "tsin", F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
		tr.applies++
		s, c := math.Sincos(x[0])
		r := &unaryRule{in: [1]cr.NodeID{in[0]}, d1: c, d2: -s}
		tr.rules = append(tr.rules, weak.Make(r))
		return s, r, nil
	}}
}

// live collects garbage and returns the number of the tracker's rules that are
// still reachable.
func (tr *tracker) live() int {
	runtime.GC()
	n := 0
	for _, w := range tr.rules {
		if w.Value() != nil {
			n++
		}
	}
	return n
}

func sinOf(x float64) float64 {
	y, _ := cr.Eval(sinOp, x)
	return y
}
