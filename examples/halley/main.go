// Command halley solves Kepler's equation
//
//	E - e sin E = M
//
// for the eccentric anomaly E of an orbit of eccentricity e at mean anomaly M, by
// Halley's method, which converges cubically:
//
//	E <- E - 2 g g' / (2 g'^2 - g g''),   g(E) = E - e sin E - M.
//
// g, g' and g” are the first three derivatives of the potential
//
//	F(E) = E^2/2 + e cos E - M E,
//
// which the program writes once, with ops; hvp.DirectionalDerivatives takes its
// derivatives up to the third (nested gradients recorded on the tape, then one
// forward sweep), so no derivative is written by hand. Newton's method, which
// needs only g and g', runs beside it for comparison.
//
//	go run ./examples/halley
//	go run ./examples/halley -e 0.99 -M 0.1   # a nearly parabolic orbit
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"

	cr "github.com/chainrules-go/chainrules/chainrules"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

func main() {
	e := flag.Float64("e", 0.9, "eccentricity, in [0, 1)")
	m := flag.Float64("M", 0.5, "mean anomaly (radians)")
	flag.Parse()
	if _, err := run(os.Stdout, *e, *m); err != nil {
		fmt.Fprintln(os.Stderr, "halley:", err)
		os.Exit(1)
	}
}

// potential returns F(E) = E^2/2 + e cos E - M E, a function of one scalar tensor.
func potential(e, m float64) hvp.Func {
	return func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		E := x[0]
		half := t.Apply(ew.ScaleOp(0.5), t.Apply(ew.SquareOp, E))
		f := t.Apply(ew.AddOp, half, t.Apply(ew.ScaleOp(e), t.Apply(ew.CosOp, E)))
		f = t.Apply(ew.SubOp, f, t.Apply(ew.ScaleOp(m), E))
		return t.Apply(reduce.SumOp(nil, false), f)
	}
}

// step is one update of the root finder from g, g' and g”.
type step func(g, g1, g2 float64) float64

func halley(g, g1, g2 float64) float64 { return 2 * g * g1 / (2*g1*g1 - g*g2) }
func newton(g, g1, _ float64) float64  { return g / g1 }

// solve runs a root finder from E = M until |g| <= 1e-15 or 50 steps, and returns
// E and the residuals after each step.
func solve(f hvp.Func, m float64, upd step) (float64, []float64, error) {
	E := m
	one, _ := tensor.FromFloat64([]float64{1})
	var res []float64
	for range 50 {
		x, _ := tensor.FromFloat64([]float64{E})
		d, err := hvp.DirectionalDerivatives(f, []*tensor.Dense{x}, []*tensor.Dense{one}, 3)
		if err != nil {
			return 0, nil, err
		}
		g, g1, g2 := d[1], d[2], d[3] // F', F'', F'''
		if math.Abs(g) <= 1e-15 {
			break
		}
		E -= upd(g, g1, g2)
		res = append(res, math.Abs(g))
	}
	return E, res, nil
}

func run(w io.Writer, e, m float64) (float64, error) {
	if e < 0 || e >= 1 {
		return 0, fmt.Errorf("eccentricity %v is not in [0, 1)", e)
	}
	f := potential(e, m)
	fmt.Fprintf(w, "Kepler's equation E - e sin E = M with e = %v, M = %v\n", e, m)
	var root float64
	for _, method := range []struct {
		name string
		upd  step
	}{{"Halley (uses F''')", halley}, {"Newton", newton}} {
		E, res, err := solve(f, m, method.upd)
		if err != nil {
			return 0, err
		}
		fmt.Fprintf(w, "%-20s E = %.15f after %d steps; |g| per step:", method.name, E, len(res))
		for _, r := range res {
			fmt.Fprintf(w, " %.1e", r)
		}
		fmt.Fprintf(w, "\n")
		if root == 0 {
			root = E
		}
	}
	fmt.Fprintf(w, "check: E - e sin E - M = %.1e\n", root-e*math.Sin(root)-m)
	return root, nil
}
