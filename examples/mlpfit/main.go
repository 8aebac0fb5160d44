// Command mlpfit fits a small tanh network to synthetic data with the Newton methods
// of package hvp, optimising its six parameter tensors as one parameter set and
// printing progress as it goes:
//
//	go run ./examples/mlpfit                          # trust region, Gauss-Newton curvature
//	go run ./examples/mlpfit -curvature hessian       # the exact Hessian instead
//	go run ./examples/mlpfit -method line-search      # line-search Newton-CG
//	go run ./examples/mlpfit -every 0                 # a line per iteration (default: 4 a second)
//
// The network is 2-20-16-1 with tanh hidden layers, 413 parameters in six tensors
// (W1 2x20, b1 20, W2 20x16, b2 16, W3 16x1, b3 1), fitted by mean squared error to
// y = sin(2 x1) cos(x2) + noise at 256 random points of [-2, 2]^2.
//
// What it shows:
//   - a parameter set: the loss is written on the tensors as they are (no packing into
//     one vector, no NarrowOp or ReshapeOp); hvp.LayoutOf gives the flat view gonum
//     works on, the objective hands the loss views of gonum's point, and the result is
//     unflattened into tensors again;
//   - progress: hvp.Printer prints f, |g|∞, the step, the trust radius (or line-search
//     step), CG iterations, curvature products and rejected steps per iteration, or a
//     line every -every for long runs;
//   - curvature: the Gauss-Newton matrix J^T H_L J (positive semi-definite, so the
//     inner CG never meets negative curvature) against the exact, indefinite Hessian.
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/optimize"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/einsum"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/tensor"
)

func main() {
	cfg := defaultConfig
	flag.StringVar(&cfg.Method, "method", cfg.Method, "trust-region or line-search")
	flag.StringVar(&cfg.Curvature, "curvature", cfg.Curvature, "gauss-newton or hessian")
	flag.IntVar(&cfg.Iterations, "iters", cfg.Iterations, "the most iterations")
	flag.DurationVar(&cfg.Every, "every", cfg.Every, "print a progress line at most this often (0: a line per iteration)")
	flag.Parse()
	if _, err := run(os.Stdout, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "mlpfit:", err)
		os.Exit(1)
	}
}

// config is what the flags choose.
type config struct {
	Method, Curvature string
	Iterations        int
	Every             time.Duration
	Samples           int
	Widths            []int
	Seed              uint64
}

var defaultConfig = config{
	Method: "trust-region", Curvature: "gauss-newton", Iterations: 150, Every: 250 * time.Millisecond,
	Samples: 256, Widths: []int{2, 20, 16, 1}, Seed: 1,
}

// outcome is what a run found.
type outcome struct {
	Result      *optimize.Result
	Params      []*tensor.Dense // the fitted parameter set
	Layout      hvp.Layout
	InitialLoss float64
	NoiseMSE    float64 // the noise's own mean square: the best a fit can do on average
	Trace       []hvp.Iteration
	Products    int // curvature products
	Objective   *hvp.Objective
	X, Y        *tensor.Dense // the data
}

// data returns inputs X [n, 2] and targets Y [n, 1] of y = sin(2 x1) cos(x2) + noise,
// and the noise's mean square.
func data(rng *rand.Rand, n int) (X, Y *tensor.Dense, noiseMSE float64) {
	xs, ys := make([]float64, 2*n), make([]float64, n)
	for i := range n {
		x1, x2 := 4*rng.Float64()-2, 4*rng.Float64()-2
		xs[2*i], xs[2*i+1] = x1, x2
		e := 0.05 * rng.NormFloat64()
		ys[i] = math.Sin(2*x1)*math.Cos(x2) + e
		noiseMSE += e * e / float64(n)
	}
	X, _ = tensor.FromFloat64(xs, n, 2)
	Y, _ = tensor.FromFloat64(ys, n, 1)
	return X, Y, noiseMSE
}

// initParams returns W_l with N(0, 1/fan_in) entries and zero biases, as
// [W1, b1, W2, b2, ...].
func initParams(rng *rand.Rand, widths []int) []*tensor.Dense {
	var params []*tensor.Dense
	for l := 0; l+1 < len(widths); l++ {
		w := tensor.RandN(rng, tensor.Float64, widths[l], widths[l+1])
		params = append(params, tensor.Scale(w, 1/math.Sqrt(float64(widths[l]))), tensor.New(tensor.Float64, widths[l+1]))
	}
	return params
}

// model records the network's output on t: tanh layers, then a linear one. p holds
// the parameter set's leaves, [W1, b1, W2, b2, W3, b3].
func model(X *tensor.Dense) hvp.Func {
	return func(t *hvp.Tape, p []cr.NodeID) cr.NodeID {
		h := t.Constant(X)
		for l := 0; l < len(p); l += 2 {
			h = t.Apply(ew.AddOp, t.Apply(einsum.Op("bi,ij->bj"), h, p[l]), p[l+1])
			if l+2 < len(p) {
				h = t.Apply(ew.TanhOp, h)
			}
		}
		return h
	}
}

func run(w io.Writer, cfg config) (*outcome, error) {
	rng := rand.New(rand.NewPCG(cfg.Seed, 2024))
	X, Y, noise := data(rng, cfg.Samples)
	params := initParams(rng, cfg.Widths)
	layout, err := hvp.LayoutOf(params)
	if err != nil {
		return nil, err
	}
	obj := hvp.NewModelObjective(model(X), hvp.MSELoss(Y), layout)
	x0, err := layout.Flatten(params)
	if err != nil {
		return nil, err
	}

	curvature := hvp.GaussNewtonCurvature
	switch cfg.Curvature {
	case "gauss-newton":
	case "hessian":
		curvature = hvp.HessianCurvature
	default:
		return nil, fmt.Errorf("unknown curvature %q", cfg.Curvature)
	}
	var method optimize.Method
	switch cfg.Method {
	case "trust-region":
		method = &hvp.NewtonCG{Curvature: curvature}
	case "line-search":
		method = &hvp.LineSearchNewtonCG{Curvature: curvature}
	default:
		return nil, fmt.Errorf("unknown method %q", cfg.Method)
	}

	fmt.Fprintf(w, "a %v tanh network, %d parameters in %d tensors %v, fitted to %d samples\n",
		cfg.Widths, layout.Dim(), layout.Len(), layout, cfg.Samples)
	fmt.Fprintf(w, "%s Newton-CG with the %v curvature, at most %d iterations\n\n", cfg.Method, curvature, cfg.Iterations)
	trace := &hvp.Trace{}
	printer := &hvp.Printer{Writer: w, HeadingInterval: 40, ValueInterval: cfg.Every, Runtime: true}
	settings := &optimize.Settings{
		GradientThreshold: 1e-8,
		MajorIterations:   cfg.Iterations + 1, // gonum counts the start
		Recorder:          hvp.Recorders{trace, printer},
	}
	initial := obj.Func(x0)
	res, err := hvp.Minimize(obj, x0, settings, method)
	if err != nil {
		return nil, err
	}
	fitted, err := layout.Unflatten(res.X)
	if err != nil {
		return nil, err
	}
	products := obj.HVPs + obj.GaussNewtonProducts
	fmt.Fprintf(w, "\n%v after %d iterations: mean squared error %.3e (from %.3e; the noise's is %.3e), |g|∞ %.1e\n",
		res.Status, res.Stats.MajorIterations-1, res.F, initial, noise, floats.Norm(res.Gradient, math.Inf(1)))
	fmt.Fprintf(w, "work: %d gradients, %d curvature products, %d tapes\n", obj.Gradients, products, obj.Recordings)
	fmt.Fprintf(w, "fitted parameter set: W1 %v, b1 %v, ..., b3 = %.4f\n", fitted[0].Shape(), fitted[1].Shape(), fitted[5].AtFloat64(0))
	return &outcome{Result: res, Params: fitted, Layout: layout, InitialLoss: initial, NoiseMSE: noise,
		Trace: trace.Iterations, Products: products, Objective: obj, X: X, Y: Y}, nil
}
