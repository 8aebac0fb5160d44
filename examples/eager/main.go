// Command eager is the eager reverse-mode example of chainrules-go: a downstream
// program defines its own scalar op set (Add, Mul, Neg, Exp on float64) with
// pullbacks and tangent rules, records computations on a core.Tape as it runs them,
// and asks the engine for derivatives.
//
//	go run ./examples/eager
package main

import (
	"fmt"
	"io"
	"math"
	"os"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
)

// binaryRule differentiates y = f(a, b) given the partial derivatives at the recorded
// point: abar = df/da * ybar, bbar = df/db * ybar, ydot = df/da adot + df/db bdot.
type binaryRule struct {
	in       [2]cr.NodeID
	dfa, dfb float64
}

func (r *binaryRule) Inputs() []cr.NodeID { return r.in[:] }

func (r *binaryRule) Pullback(ybars []float64, _ []bool, dst []cr.Contribution[float64]) ([]cr.Contribution[float64], error) {
	ybar := ybars[0]
	return append(dst,
		cr.Contribution[float64]{Node: r.in[0], Value: r.dfa * ybar},
		cr.Contribution[float64]{Node: r.in[1], Value: r.dfb * ybar}), nil
}

func (r *binaryRule) Forward(tan cr.TangentOf[float64], ydot []float64, has []bool) error {
	ad, okA := tan(r.in[0])
	bd, okB := tan(r.in[1])
	ydot[0], has[0] = r.dfa*ad+r.dfb*bd, okA || okB
	return nil
}

// unaryRule differentiates y = f(x) given f'(x): xbar = f'(x) ybar, ydot = f'(x) xdot.
type unaryRule struct {
	in [1]cr.NodeID
	df float64
}

func (r *unaryRule) Inputs() []cr.NodeID { return r.in[:] }

func (r *unaryRule) Pullback(ybars []float64, _ []bool, dst []cr.Contribution[float64]) ([]cr.Contribution[float64], error) {
	ybar := ybars[0]
	return append(dst, cr.Contribution[float64]{Node: r.in[0], Value: r.df * ybar}), nil
}

func (r *unaryRule) Forward(tan cr.TangentOf[float64], ydot []float64, has []bool) error {
	xd, ok := tan(r.in[0])
	ydot[0], has[0] = r.df*xd, ok
	return nil
}

// The op set. Each op computes its primal and the rule that differentiates it there.
var (
	Add = cr.OpFunc[float64]{OpName: "add", F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
		return x[0] + x[1], &binaryRule{in: [2]cr.NodeID{in[0], in[1]}, dfa: 1, dfb: 1}, nil
	}}
	Mul = cr.OpFunc[float64]{OpName: "mul", F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
		return x[0] * x[1], &binaryRule{in: [2]cr.NodeID{in[0], in[1]}, dfa: x[1], dfb: x[0]}, nil
	}}
	Neg = cr.OpFunc[float64]{OpName: "neg", F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
		return -x[0], &unaryRule{in: [1]cr.NodeID{in[0]}, df: -1}, nil
	}}
	Exp = cr.OpFunc[float64]{OpName: "exp", F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
		y := math.Exp(x[0])
		return y, &unaryRule{in: [1]cr.NodeID{in[0]}, df: y}, nil
	}}
)

func run(w io.Writer) error {
	// A one-op graph: y = x*x at x = 3, backward with cotangent 1.
	t := core.NewTape[float64](cr.Float64Space{})
	x := t.Leaf(3)
	y := t.Apply(Mul, x, x)
	g, err := t.BackwardSeed(y, 1)
	if err != nil {
		return err
	}
	dx, _ := g.Of(x)
	fmt.Fprintf(w, "y = x*x at x = 3: y = %g, dy/dx = %g\n", must(t.Value(y)), dx)

	// A two-input DAG with fan-out: z = x*y + x. x feeds two ops, so its gradient is
	// the sum of two contributions: dz/dx = y + 1, dz/dy = x.
	t = core.NewTape[float64](cr.Float64Space{})
	x, yv := t.Leaf(2), t.Leaf(5)
	z := t.Apply(Add, t.Apply(Mul, x, yv), x)
	g, err = t.Backward(z) // a scalar output: the seed defaults to 1
	if err != nil {
		return err
	}
	dx, _ = g.Of(x)
	dy, _ := g.Of(yv)
	fmt.Fprintf(w, "z = x*y + x at (2, 5): z = %g, dz/dx = %g, dz/dy = %g\n", must(t.Value(z)), dx, dy)

	// Forward mode on the same graph: the directional derivative along (1, 0).
	tan, err := t.ForwardTangents(map[cr.NodeID]float64{x: 1})
	if err != nil {
		return err
	}
	zd, _ := tan.Of(z)
	fmt.Fprintf(w, "forward tangent along x: %g\n", zd)

	// Errors are values: chain ops and check once.
	u := t.Apply(Exp, t.Apply(Neg, z))
	g, err = t.Backward(u)
	if err != nil {
		return err
	}
	dx, _ = g.Of(x)
	fmt.Fprintf(w, "u = exp(-z): du/dx = %.6g\n", dx)
	return nil
}

func must(v float64, err error) float64 {
	if err != nil {
		panic(err)
	}
	return v
}

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
