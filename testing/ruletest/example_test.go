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

func (r cubeRule) Pullback(ybar float64, dst []cr.Contribution[float64]) ([]cr.Contribution[float64], error) {
	d := 3 * r.x * r.x
	if r.wrong {
		d = 2 * r.x * r.x // a typical slip: the power rule with the wrong factor
	}
	return append(dst, cr.Contribution[float64]{Node: r.in[0], Value: d * ybar}), nil
}

func cube(wrong bool) cr.Op[float64] {
	return cr.OpFunc[float64]{OpName: "cube", F: func(in []cr.NodeID, x []float64) (float64, cr.ReverseRule[float64], error) {
		return math.Pow(x[0], 3), cubeRule{in: in[:1:1], x: x[0], wrong: wrong}, nil
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
	// J* ybar is -4.5000, finite differences say -6.7500
}

// A rule checked at a kink: relu's rule takes the subgradient 0 at x = 0, which
// finite differences cannot confirm, so the point is declared with its documented
// pullback.
func ExampleKink() {
	relu := cr.OpFunc[float64]{OpName: "relu", F: func(in []cr.NodeID, x []float64) (float64, cr.ReverseRule[float64], error) {
		d := 0.0
		if x[0] > 0 {
			d = 1
		}
		return max(x[0], 0), &scalarRule{in: in[:1:1], d1: d}, nil
	}}
	cfg := ruletest.Config{Kink: &ruletest.Kink[float64]{
		Reason:   "relu at 0: subgradient 0",
		Pullback: func(float64) ([]float64, error) { return []float64{0}, nil },
		JVP:      func([]float64) (float64, error) { return 0, nil },
	}}
	fmt.Println(ruletest.Verify(cr.Float64Space{}, relu, []float64{0}, cfg))
	// Output:
	// <nil>
}
