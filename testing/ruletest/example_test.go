package ruletest_test

import (
	"errors"
	"fmt"
	"math"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

// cubeRule differentiates y = x^3: xbar = 3 x^2 ybar.
type cubeRule struct {
	in    []cr.NodeID
	x     float64
	wrong bool
}

func (r cubeRule) Inputs() []cr.NodeID { return r.in }

func (r cubeRule) Pullback(ybar []float64, _ []bool, dst []cr.Contribution[float64]) ([]cr.Contribution[float64], error) {
	d := 3 * r.x * r.x
	if r.wrong {
		d = 2 * r.x * r.x // a typical slip: the power rule with the wrong factor
	}
	return append(dst, cr.Contribution[float64]{Node: r.in[0], Value: d * ybar[0]}), nil
}

func cube(wrong bool) cr.Op[float64] {
	return cr.OpFunc[float64]{OpName: "cube", F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
		return math.Pow(x[0], 3), cubeRule{in: []cr.NodeID{in[0]}, x: x[0], wrong: wrong}, nil
	}}
}

// Verify returns nil for a correct rule and the failed checks for a wrong one.
func ExampleVerify() {
	space := cr.Float64Space{}
	fmt.Println("correct rule:", ruletest.Verify(space, cube(false), []float64{1.5}, ruletest.Config{}))

	err := ruletest.Verify(space, cube(true), []float64{1.5}, ruletest.Config{})
	var f *ruletest.Failure
	if errors.As(err, &f) {
		fmt.Printf("wrong rule: %s fails %s on %s\n", f.Rule, f.Check, f.Input)
		fmt.Printf("J* ybar is %.4f, finite differences say %.4f\n", real(f.Got), real(f.Want))
	}
	// Output:
	// correct rule: <nil>
	// wrong rule: cube fails adjoint-fd on x0 float64[]
	// J* ybar is 4.5000, finite differences say 6.7500
}

// A rule checked at a kink: relu's rule takes the subgradient 0 at x = 0, which
// finite differences cannot confirm, so the point is declared with its documented
// pullback, tangent and second-order tangent (relu” is 0, so xbardot = 0 ybardot).
func ExampleKink() {
	relu := cr.OpFunc[float64]{OpName: "relu", F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
		d := 0.0
		if x[0] > 0 {
			d = 1
		}
		return max(x[0], 0), &scalarRule{in: []cr.NodeID{in[0]}, d1: d}, nil
	}}
	cfg := ruletest.Config{Kink: &ruletest.Kink[float64]{
		Reason:   "relu at 0: subgradient 0",
		Pullback: func(float64) ([]float64, error) { return []float64{0}, nil },
		JVP:      func([]float64) (float64, error) { return 0, nil },
		SecondOrder: func(ybar, ybardot float64, xdot []float64) ([]float64, error) {
			return []float64{0}, nil
		},
	}}
	fmt.Println(ruletest.Verify(cr.Float64Space{}, relu, []float64{0}, cfg))
	// Output:
	// <nil>
}

// polarRule differentiates (r, th) -> (x, y) = (r cos th, r sin th):
//
//	rbar  = cos th xbar + sin th ybar
//	thbar = r (cos th ybar - sin th xbar)
//
// An absent cotangent (has[m] false) is zero and is not read.
type polarRule struct {
	in      []cr.NodeID
	r, s, c float64
	wrong   bool
}

func (p polarRule) Inputs() []cr.NodeID { return p.in }

func (p polarRule) Pullback(ybar []float64, has []bool, dst []cr.Contribution[float64]) ([]cr.Contribution[float64], error) {
	var xb, yb float64
	if has[0] {
		xb = ybar[0]
	}
	if has[1] {
		yb = ybar[1]
	}
	if p.wrong {
		yb = -yb // a sign slip in y's terms only
	}
	return append(dst, cr.Contribution[float64]{Node: p.in[0], Value: p.c*xb + p.s*yb},
		cr.Contribution[float64]{Node: p.in[1], Value: p.r * (p.c*yb - p.s*xb)}), nil
}

type polarOp struct{ wrong bool }

func (polarOp) Name() string    { return "polar" }
func (polarOp) NumOutputs() int { return 2 }

func (o polarOp) Apply(in []cr.NodeID, x, y []float64) (cr.Rule[float64], error) {
	if len(x) != 2 || len(in) != 2 {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "polar takes 2 inputs, got %d", len(x))
	}
	s, c := math.Sincos(x[1])
	y[0], y[1] = x[0]*c, x[0]*s
	return polarRule{in: []cr.NodeID{in[0], in[1]}, r: x[0], s: s, c: c, wrong: o.wrong}, nil
}

// Verify checks a multi-output op with each output's cotangent alone and with
// both together; a failure names the output whose derivative is wrong.
func ExampleVerify_multiOutput() {
	space := cr.Float64Space{}
	fmt.Println("correct rule:", ruletest.Verify(space, polarOp{}, []float64{2, 0.5}, ruletest.Config{}))

	err := ruletest.Verify(space, polarOp{wrong: true}, []float64{2, 0.5}, ruletest.Config{})
	var f *ruletest.Failure
	if errors.As(err, &f) {
		fmt.Printf("wrong rule: %s fails %s for output %s on %s\n", f.Rule, f.Check, f.Output, f.Input)
	}
	// Output:
	// correct rule: <nil>
	// wrong rule: polar fails adjoint-fd for output y1 float64[] on x0 float64[]
}
