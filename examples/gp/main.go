// Command gp fits the hyperparameters of a Gaussian process — the length-scale
// ell, the signal variance sf2 and the noise variance sn2 of the squared-exponential
// kernel
//
//	K_ij = sf2 exp(-(x_i - x_j)^2 / (2 ell^2)) + sn2 [i = j]
//
// — to synthetic data (n = 500 noisy samples of a smooth function, seeded) by
// minimising the negative log marginal likelihood
//
//	NLML(theta) = 1/2 y^T K^-1 y + 1/2 log det K + n/2 log(2 pi)
//	            = 1/2 ||L^-1 y||^2 + sum_i log L_ii + n/2 log(2 pi),   K = L L^T,
//
// over theta = (log ell, log sf2, log sn2). The loss is a tensor function: the
// kernel from elementwise ops, L from linalg.CholeskyOp, L^-1 y from
// linalg.SolveTriangularOp and the log-determinant from L's diagonal, so its
// gradient and its exact Hessian-vector products go through the factorisation. The
// program minimises it with the trust-region Newton-CG method of package hvp (HVPs
// through the Cholesky factorisation, no Hessian matrix) and with gonum's LBFGS,
// and prints for each the iterations, the function and gradient evaluations, the
// HVPs, the fitted hyperparameters and the time:
//
//	go run ./examples/gp          # n = 500
//	go run ./examples/gp -n 200
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"text/tabwriter"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/optimize"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/einsum"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/linalg"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

func main() {
	n := flag.Int("n", 500, "number of data points")
	flag.Parse()
	if _, err := run(os.Stdout, *n); err != nil {
		fmt.Fprintln(os.Stderr, "gp:", err)
		os.Exit(1)
	}
}

// The data: y = f(x) + noise at n points uniform in [0, 10], with
// f(x) = sin(x) + 0.5 sin(3x) and noise of standard deviation trueNoise.
const trueNoise = 0.2

func data(n int) (x, y []float64) {
	rng := rand.New(rand.NewPCG(2025, 7))
	x = make([]float64, n)
	y = make([]float64, n)
	for i := range n {
		x[i] = 10 * rng.Float64()
		y[i] = math.Sin(x[i]) + 0.5*math.Sin(3*x[i]) + trueNoise*rng.NormFloat64()
	}
	return x, y
}

// nll returns the negative log marginal likelihood as a function of
// theta = (log ell, log sf2, log sn2).
func nll(x, y []float64) (hvp.Func, error) {
	n := len(x)
	d2 := make([]float64, n*n)
	for i := range n {
		for j := range n {
			d := x[i] - x[j]
			d2[i*n+j] = d * d
		}
	}
	D2, err := tensor.FromFloat64(d2, n, n)
	if err != nil {
		return nil, err
	}
	Y, err := tensor.FromFloat64(y, n, 1)
	if err != nil {
		return nil, err
	}
	eye := tensor.New(tensor.Float64, n, n)
	for i := range n {
		eye.Set(1, i, i)
	}
	const halfLog2Pi = 0.9189385332046727 // log(2 pi) / 2
	return func(t *hvp.Tape, theta []cr.NodeID) cr.NodeID {
		at := func(k int) cr.NodeID { return t.Apply(index.SelectOp(0, k), theta[0]) }
		// 1/(2 ell^2) = exp(-2 log ell) / 2, sf2 = exp(log sf2), sn2 = exp(log sn2).
		inv2l2 := t.Apply(ew.ScaleOp(0.5), t.Apply(ew.ExpOp, t.Apply(ew.ScaleOp(-2), at(0))))
		sf2 := t.Apply(ew.ExpOp, at(1))
		sn2 := t.Apply(ew.ExpOp, at(2))
		e := t.Apply(ew.ExpOp, t.Apply(ew.NegOp, t.Apply(ew.MulOp, t.Constant(D2), inv2l2)))
		k := t.Apply(ew.AddOp, t.Apply(ew.MulOp, e, sf2), t.Apply(ew.MulOp, t.Constant(eye), sn2))
		l := t.Apply(linalg.CholeskyOp(false), k)
		z := t.Apply(linalg.SolveTriangularOp(false, true, false), l, t.Constant(Y))
		fit := t.Apply(ew.ScaleOp(0.5), t.Apply(reduce.SumOp(nil, false), t.Apply(ew.SquareOp, z)))
		logdet := t.Apply(reduce.SumOp(nil, false), t.Apply(ew.LogOp, t.Apply(einsum.Op("ii->i"), l)))
		return t.Apply(ew.ShiftOp(complex(float64(n)*halfLog2Pi, 0)), t.Apply(ew.AddOp, fit, logdet))
	}, nil
}

// start is the initial theta: ell = 3, sf2 = 0.25, sn2 = 0.25.
var start = []float64{math.Log(3), math.Log(0.25), math.Log(0.25)}

// outcome is one method's run.
type outcome struct {
	method  string
	res     *optimize.Result
	obj     *hvp.Objective
	elapsed time.Duration
}

// run fits the hyperparameters on n points with Newton-CG and LBFGS and prints a
// table to w.
func run(w io.Writer, n int) ([]outcome, error) {
	x, y := data(n)
	f, err := nll(x, y)
	if err != nil {
		return nil, err
	}
	methods := []struct {
		name  string
		build func(obj *hvp.Objective) optimize.Method
	}{
		{"Newton-CG", func(obj *hvp.Objective) optimize.Method { return &hvp.NewtonCG{HessVec: obj.HessVec} }},
		{"LBFGS", func(*hvp.Objective) optimize.Method { return &optimize.LBFGS{} }},
	}
	var out []outcome
	for _, m := range methods {
		obj := hvp.NewObjective(f, len(start))
		settings := &optimize.Settings{
			GradientThreshold: 1e-6,
			MajorIterations:   500,
			Converger:         &optimize.FunctionConverge{Absolute: 1e-12, Iterations: 20},
		}
		begin := time.Now()
		res, err := optimize.Minimize(obj.Problem(), start, settings, m.build(obj))
		elapsed := time.Since(begin)
		if err == nil {
			err = obj.Err()
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.name, err)
		}
		out = append(out, outcome{method: m.name, res: res, obj: obj, elapsed: elapsed})
	}
	fmt.Fprintf(w, "Gaussian process, n = %d, squared-exponential kernel; NLML minimised over (log ell, log sf2, log sn2)\n", n)
	fmt.Fprintf(w, "from ell = %.3g, sf2 = %.3g, sn2 = %.3g (data noise variance %.3g)\n", math.Exp(start[0]), math.Exp(start[1]), math.Exp(start[2]), trueNoise*trueNoise)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "method\tstatus\titers\tf evals\tgrad evals\tHVPs\tNLML\t|grad|_inf\tell\tsf2\tsn2\ttime\t")
	for _, o := range out {
		th := o.res.X
		fmt.Fprintf(tw, "%s\t%v\t%d\t%d\t%d\t%d\t%.10g\t%.1e\t%.4g\t%.4g\t%.4g\t%v\t\n",
			o.method, o.res.Status, o.res.Stats.MajorIterations-1, o.res.Stats.FuncEvaluations,
			o.res.Stats.GradEvaluations, o.obj.HVPs, o.res.F, floats.Norm(o.res.Gradient, math.Inf(1)),
			math.Exp(th[0]), math.Exp(th[1]), math.Exp(th[2]), o.elapsed.Round(time.Millisecond))
	}
	return out, tw.Flush()
}
