// Command pinn trains a physics-informed neural network: a 2-32-32-1 tanh network
// u(x, y) that solves the Poisson problem
//
//	-(u_xx + u_yy) = 2 pi^2 sin(pi x) sin(pi y)   on the unit square,
//	u = 0                                        on its boundary,
//
// whose solution is u*(x, y) = sin(pi x) sin(pi y). The loss is the mean square of
// the equation's residual at collocation points inside the square plus that of u on
// the boundary:
//
//	L(w) = mean_i (u_xx + u_yy + f)(p_i)^2 + mean_j u(q_j)^2.
//
// The Laplacian comes from two gradients recorded on the tape (hvp.GradOf, the
// create_graph of PyTorch), and the optimiser differentiates L, which contains them,
// with respect to the weights: a third derivative of the network, taken by composing
// the ops' rules. Training runs gonum's L-BFGS on the parameter set (hvp.Minimize).
//
//	go run ./examples/pinn                 # 1024 collocation points, 2000 iterations
//	go run ./examples/pinn -iters 300      # quicker
//	go run ./examples/pinn -out DIR        # where to write pinn-*.png
//
// It prints the loss as it goes and, at the end, the relative L2 error of u against
// u* on a 64x64 grid, and writes pinn-solution.png and pinn-error.png.
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"gonum.org/v1/gonum/optimize"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/examples/internal/nets"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

func main() {
	cfg := defaultConfig
	flag.IntVar(&cfg.Points, "points", cfg.Points, "collocation points inside the square")
	flag.IntVar(&cfg.Iterations, "iters", cfg.Iterations, "the most L-BFGS iterations")
	flag.StringVar(&cfg.Out, "out", cfg.Out, "directory for the PNG plots (empty: no plots)")
	flag.Parse()
	res, err := run(os.Stdout, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pinn:", err)
		os.Exit(1)
	}
	if cfg.Out != "" {
		if err := writePlots(cfg.Out, res); err != nil {
			fmt.Fprintln(os.Stderr, "pinn:", err)
			os.Exit(1)
		}
	}
}

// config is what the flags choose.
type config struct {
	Points, Boundary, Iterations int
	Widths                       []int
	Seed                         uint64
	Out                          string
	Grid                         int // the evaluation grid is Grid x Grid
}

var defaultConfig = config{Points: 1024, Boundary: 256, Iterations: 2000, Widths: []int{2, 32, 32, 1}, Seed: 1, Out: ".", Grid: 64}

// outcome is what a run found.
type outcome struct {
	Params       []*tensor.Dense
	Loss         float64
	RelErr       float64 // relative L2 error of u against u* on the grid
	Iterations   int
	Elapsed      time.Duration
	Grid         int
	U, UStar     []float64 // on the grid, row-major in (y, x)
	InitialLoss  float64
	GradientTime time.Duration // one evaluation of L and its gradient
}

// exact is the solution u*(x, y) = sin(pi x) sin(pi y).
func exact(x, y float64) float64 { return math.Sin(math.Pi*x) * math.Sin(math.Pi*y) }

// points returns n random points inside the unit square as an [n, 2] tensor.
func points(rng *rand.Rand, n int) *tensor.Dense {
	xs := make([]float64, 2*n)
	for i := range xs {
		xs[i] = rng.Float64()
	}
	p, _ := tensor.FromFloat64(xs, n, 2)
	return p
}

// boundary returns n points spread over the four sides of the square.
func boundary(rng *rand.Rand, n int) *tensor.Dense {
	xs := make([]float64, 2*n)
	for i := range n {
		s := rng.Float64()
		switch i % 4 {
		case 0:
			xs[2*i], xs[2*i+1] = s, 0
		case 1:
			xs[2*i], xs[2*i+1] = s, 1
		case 2:
			xs[2*i], xs[2*i+1] = 0, s
		default:
			xs[2*i], xs[2*i+1] = 1, s
		}
	}
	q, _ := tensor.FromFloat64(xs, n, 2)
	return q
}

// network records u at the points X (an [n, 2] node) for the weights p, [n, 1].
func network(t *hvp.Tape, p []cr.NodeID, X cr.NodeID) cr.NodeID { return nets.TanhMLP(t, p, X) }

// laplacian records u_xx + u_yy at the points X (an [n, 2] leaf), an [n] node. Each
// row of X is a point of its own, so the gradient of sum(u) with respect to X holds
// every point's gradient (u_x, u_y), and the gradient of the sum of its column a
// every point's second derivatives along axis a. Both gradients are recorded on
// the tape (core.Tape.GradGraph), so the loss that uses them can be differentiated
// with respect to the weights.
func laplacian(t *hvp.Tape, p []cr.NodeID, X cr.NodeID) cr.NodeID {
	sum := reduce.SumOp(nil, false)
	g := grad(t, t.Apply(sum, network(t, p, X)), X) // [n, 2]
	var lap cr.NodeID
	for axis := range 2 {
		h := grad(t, t.Apply(sum, t.Apply(index.SelectOp(1, axis), g)), X)
		second := t.Apply(index.SelectOp(1, axis), h) // u_xx or u_yy at every point
		if axis == 0 {
			lap = second
		} else {
			lap = t.Apply(ew.AddOp, lap, second)
		}
	}
	return lap
}

// grad records d out / d x on t; an error becomes t's sticky error.
func grad(t *hvp.Tape, out, x cr.NodeID) cr.NodeID {
	g, err := t.GradGraph(out, x)
	if err != nil {
		return t.Apply(cr.FailOp[*tensor.Dense]("laplacian", err))
	}
	return g[0]
}

// loss returns the PINN loss as a function of the parameter set.
func loss(P, Q *tensor.Dense) hvp.Func {
	n := P.Shape()[0]
	fs := make([]float64, n)
	for i := range n {
		x, y := P.AtFloat64(i, 0), P.AtFloat64(i, 1)
		fs[i] = 2 * math.Pi * math.Pi * exact(x, y)
	}
	f, _ := tensor.FromFloat64(fs, n)
	return func(t *hvp.Tape, p []cr.NodeID) cr.NodeID {
		// The points are a leaf: derivatives are taken with respect to them.
		residual := t.Apply(ew.AddOp, laplacian(t, p, t.Leaf(P)), t.Constant(f))
		interior := t.Apply(reduce.MeanOp(nil, false), t.Apply(ew.SquareOp, residual))
		ub := network(t, p, t.Constant(Q))
		edge := t.Apply(reduce.MeanOp(nil, false), t.Apply(ew.SquareOp, ub))
		return t.Apply(ew.AddOp, interior, edge)
	}
}

func run(w io.Writer, cfg config) (*outcome, error) {
	rng := rand.New(rand.NewPCG(cfg.Seed, 7))
	P, Q := points(rng, cfg.Points), boundary(rng, cfg.Boundary)
	params := nets.XavierUniform(rng, cfg.Widths)
	layout, err := hvp.LayoutOf(params)
	if err != nil {
		return nil, err
	}
	L := loss(P, Q)
	obj := hvp.NewParamObjective(L, layout)
	x0, err := layout.Flatten(params)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	grad := make([]float64, len(x0))
	obj.Grad(grad, x0)
	initial := obj.Func(x0)
	gradTime := time.Since(start)
	if err := obj.Err(); err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "PINN for -Δu = 2π² sin(πx) sin(πy) on the unit square, u = 0 on its boundary\n")
	fmt.Fprintf(w, "a %v tanh network (%d parameters), %d interior and %d boundary points; loss and gradient in %v\n\n",
		cfg.Widths, layout.Dim(), cfg.Points, cfg.Boundary, gradTime.Round(time.Millisecond))
	printer := &hvp.Printer{Writer: w, HeadingInterval: 40, ValueInterval: time.Second, Runtime: true}
	settings := &optimize.Settings{
		GradientThreshold: 1e-9,
		MajorIterations:   cfg.Iterations,
		Recorder:          printer,
	}
	began := time.Now()
	res, err := hvp.Minimize(obj, x0, settings, &optimize.LBFGS{Store: 20})
	if err != nil && res == nil {
		return nil, err
	}
	fitted, err := layout.Unflatten(res.X)
	if err != nil {
		return nil, err
	}
	out := &outcome{Params: fitted, Loss: res.F, Iterations: res.Stats.MajorIterations, Elapsed: time.Since(began),
		Grid: cfg.Grid, InitialLoss: initial, GradientTime: gradTime}
	if err := evaluate(out); err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "\n%v after %d iterations in %v: loss %.3e (from %.3e)\n", res.Status, out.Iterations, out.Elapsed.Round(time.Millisecond), out.Loss, initial)
	fmt.Fprintf(w, "relative L2 error of u against sin(πx) sin(πy) on a %dx%d grid: %.2e\n", cfg.Grid, cfg.Grid, out.RelErr)
	return out, nil
}

// evaluate computes u and u* on the grid and the relative L2 error.
func evaluate(out *outcome) error {
	n := out.Grid
	xs := make([]float64, 2*n*n)
	out.UStar = make([]float64, n*n)
	for i := range n {
		for j := range n {
			x, y := (float64(j)+0.5)/float64(n), (float64(i)+0.5)/float64(n)
			xs[2*(i*n+j)], xs[2*(i*n+j)+1] = x, y
			out.UStar[i*n+j] = exact(x, y)
		}
	}
	G, _ := tensor.FromFloat64(xs, n*n, 2)
	t := core.NewTape[*tensor.Dense](tensor.Space{})
	p := make([]cr.NodeID, len(out.Params))
	for k, v := range out.Params {
		p[k] = t.Constant(v)
	}
	u, err := t.Value(network(t, p, t.Constant(G)))
	if err != nil {
		return err
	}
	out.U = u.Float64s()
	var num, den float64
	for i, v := range out.U {
		d := v - out.UStar[i]
		num, den = num+d*d, den+out.UStar[i]*out.UStar[i]
	}
	out.RelErr = math.Sqrt(num / den)
	return nil
}

// writePlots writes pinn-solution.png and pinn-error.png into dir.
func writePlots(dir string, res *outcome) error {
	if err := heatmap(filepath.Join(dir, "pinn-solution.png"), "u(x, y), trained", res.Grid, res.U); err != nil {
		return err
	}
	errs := make([]float64, len(res.U))
	for i := range errs {
		errs[i] = res.U[i] - res.UStar[i]
	}
	return heatmap(filepath.Join(dir, "pinn-error.png"), fmt.Sprintf("u - u* (relative L2 error %.1e)", res.RelErr), res.Grid, errs)
}
