// Command newtoncg minimises two real problems with the Newton-CG methods of package
// hvp — trust region (hvp.NewtonCG) and line search (hvp.LineSearchNewtonCG, scipy's
// algorithm) — which need only exact Hessian-vector products (one recording and two
// sweeps of the tape each, no finite differences), and compares them with gonum's
// quasi-Newton methods BFGS and LBFGS on the same objectives:
//
//   - L2-regularised logistic regression on a seeded synthetic dataset,
//     L(w) = 1/n sum_i softplus(-y_i x_i.w) + lambda/2 ||w||² with y_i in {-1, +1};
//   - the extended Rosenbrock function in 100 dimensions from the standard start
//     (-1.2, 1, -1.2, 1, ...).
//
// Both losses are written as tensor functions (einsum, elementwise and reduce ops);
// hvp.Objective turns each into a gonum optimize.Problem and counts the tapes it
// records, its gradients and its HVPs, and an hvp.Trace records every iteration. For
// each problem the program prints a table
// — status, iterations (steps after the start), function and gradient evaluations
// (gonum's counts), HVPs, tapes (forward recordings of the loss: an evaluation at a
// new point records one, and the HVPs at an iterate reuse its tape), final f, the
// infinity norm of the final gradient and the wall time — and writes a convergence
// plot, f - f* on a log scale against iterations and against gradients + HVPs (an HVP
// is two sweeps of a recorded tape, a small multiple of a gradient), as
// newtoncg-logistic.png and newtoncg-rosenbrock.png:
//
//	go run ./examples/newtoncg                  # plots in the current directory
//	go run ./examples/newtoncg -out /tmp        # plots in /tmp
//	go run ./examples/newtoncg -progress 10ms   # and each run's progress (hvp.Printer)
//
// What it shows: on logistic regression, whose Hessian is ill-conditioned by
// unstandardised features, Newton-CG converges quadratically in a handful of
// iterations while BFGS and LBFGS need many times more, and it is competitive even
// counted in gradients + HVPs. The chained Rosenbrock function is the hard case for
// every method: the iterates must follow a curved valley in which the solution
// propagates along the chain one coordinate at a time, and the Newton methods,
// although they need the fewest iterations, spend several HVPs on each of them, so
// that the quasi-Newton methods finish with less work. The program says so under the
// table, with scipy's own Newton-CG for scale, so that the table is not read as a
// verdict on Newton-CG.
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"text/tabwriter"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/optimize"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/einsum"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/examples/internal/plots"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

func main() {
	out := flag.String("out", ".", "directory for the convergence plots")
	progress := flag.Duration("progress", 0, "print each run's progress, a line at most this often (0: none)")
	flag.Parse()
	if err := run(os.Stdout, *out, *progress); err != nil {
		fmt.Fprintln(os.Stderr, "newtoncg:", err)
		os.Exit(1)
	}
}

// sizes are the problem dimensions.
type sizes struct {
	Samples, Features int     // logistic regression data: n x d
	Lambda            float64 // its L2 penalty
	RosenbrockDim     int
}

// fullSizes are the sizes the command runs.
var fullSizes = sizes{Samples: 500, Features: 20, Lambda: 1e-3, RosenbrockDim: 100}

// run solves both problems at full size, prints the tables (and each run's progress
// every progress, if not 0) to w and writes the plots to outDir.
func run(w io.Writer, outDir string, progress time.Duration) error {
	_, err := compare(w, outDir, fullSizes, progress)
	return err
}

// problem is one minimisation: a loss of one vector, its starting point and, if
// known in closed form, its minimum value; note is printed under its table.
type problem struct {
	name, short, title string
	note               string
	f                  hvp.Func
	x0                 []float64
	fstar              float64
	fstarKnown         bool
}

// outcome is the run of one method on one problem.
type outcome struct {
	method  string
	res     *optimize.Result
	obj     *hvp.Objective
	elapsed time.Duration
	trace   []tracePoint
}

// tracePoint is the state after a major iteration.
type tracePoint struct {
	f    float64
	work int // gradients + HVPs so far
}

// comparison is every method's outcome on one problem.
type comparison struct {
	problem  problem
	outcomes []outcome
	fstar    float64 // the minimum used for f - f*
	plotPath string
}

// compare runs Newton-CG, BFGS and LBFGS on both problems at the given sizes, prints
// one table per problem and writes one plot per problem into outDir.
func compare(w io.Writer, outDir string, sz sizes, progress time.Duration) ([]comparison, error) {
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, err
	}
	logistic, err := logisticProblem(sz)
	if err != nil {
		return nil, err
	}
	problems := []problem{logistic, rosenbrockProblem(sz.RosenbrockDim)}
	fmt.Fprint(w, legend)
	var all []comparison
	for _, p := range problems {
		c := comparison{problem: p}
		for _, m := range methods {
			if progress > 0 {
				fmt.Fprintf(w, "%s, %s:\n", p.short, m.name)
			}
			o, err := solve(p, m, w, progress)
			if err != nil {
				return nil, fmt.Errorf("%s with %s: %w", p.name, m.name, err)
			}
			c.outcomes = append(c.outcomes, o)
		}
		c.fstar = p.fstar
		if !p.fstarKnown {
			c.fstar = math.Inf(1)
			for _, o := range c.outcomes {
				c.fstar = math.Min(c.fstar, o.res.F)
			}
		}
		printTable(w, &c)
		if p.note != "" {
			fmt.Fprintln(w, p.note)
		}
		c.plotPath = filepath.Join(outDir, "newtoncg-"+p.name+".png")
		if err := writePlot(c.plotPath, &c); err != nil {
			return nil, err
		}
		fmt.Fprintf(w, "convergence plot of f - f*, f* = %.15g (%s): %s\n\n", c.fstar, fstarSource(p), c.plotPath)
		all = append(all, c)
	}
	return all, nil
}

// gradientThreshold is the convergence test of every run: gonum stops with the
// status GradientThreshold, which the tables print, once |grad|_inf falls below it.
const gradientThreshold = 1e-9

// legend explains the columns of the tables and the plots, printed once before them.
var legend = fmt.Sprintf(`Each table compares four methods on one problem:
  status       why gonum stopped; GradientThreshold means converged: |grad|_inf < %g
  iters        steps taken after the start point
  f evals, grad evals   evaluations of the loss and of its gradient (gonum's counts)
  HVPs         exact Hessian-vector products (Newton-CG only; no Hessian matrix is formed)
  tapes        recordings of the loss: a tape is the engine's record of the ops f ran,
               which gradients and HVPs are swept back through; a new point records one,
               and the HVPs at that point reuse it
  final f, |grad|_inf   the loss and the largest gradient entry at the result
The plots show f - f*, the distance to the minimum value f*, on a log scale.

`, gradientThreshold)

// fstarSource says where the minimum f* of a comparison comes from.
func fstarSource(p problem) string {
	if p.fstarKnown {
		return "the known minimum"
	}
	return "the lowest final f of the four methods"
}

// method builds a fresh optimize.Method for an objective.
type method struct {
	name  string
	build func(obj *hvp.Objective) optimize.Method
}

var methods = []method{
	{"Newton-CG", func(obj *hvp.Objective) optimize.Method { return &hvp.NewtonCG{} }},
	{"Newton-CG (line search)", func(obj *hvp.Objective) optimize.Method { return &hvp.LineSearchNewtonCG{} }},
	{"BFGS", func(*hvp.Objective) optimize.Method { return &optimize.BFGS{} }},
	{"LBFGS", func(*hvp.Objective) optimize.Method { return &optimize.LBFGS{} }},
}

// solve minimises p with m, on an objective of its own so that the counters are m's,
// printing its progress to w every progress if that is not 0.
func solve(p problem, m method, w io.Writer, progress time.Duration) (outcome, error) {
	obj := hvp.NewObjective(p.f, len(p.x0))
	rec := &hvp.Trace{}
	var recorder optimize.Recorder = rec
	if progress > 0 {
		recorder = hvp.Recorders{rec, &hvp.Printer{Writer: w, ValueInterval: progress, Runtime: true}}
	}
	settings := &optimize.Settings{
		// Converged: gonum stops with status GradientThreshold once |grad|_inf < 1e-9.
		GradientThreshold: gradientThreshold,
		MajorIterations:   5000,
		// Stop if f has not decreased by 1e-15 in 50 iterations (stalled line searches
		// at the limit of floating point); the gradient threshold normally comes first.
		Converger: &optimize.FunctionConverge{Absolute: 1e-15, Iterations: 50},
		Recorder:  recorder,
	}
	meth := m.build(obj)
	start := time.Now()
	// hvp.Minimize wires the Newton methods' HessVec to obj.HessVec and the trace to
	// the method.
	res, err := hvp.Minimize(obj, p.x0, settings, meth)
	elapsed := time.Since(start)
	if err != nil {
		return outcome{}, err
	}
	return outcome{method: m.name, res: res, obj: obj, elapsed: elapsed, trace: tracePoints(rec.Iterations)}, nil
}

// tracePoints turns the trace of every major iteration, the start first and the
// result last, into f and the work so far (gradients + HVPs).
func tracePoints(its []hvp.Iteration) []tracePoint {
	points := make([]tracePoint, len(its))
	hvps := 0
	for i, it := range its {
		hvps += max(it.HVPs, 0) // -1: a method without HVPs
		points[i] = tracePoint{f: it.F, work: it.GradEvaluations + hvps}
	}
	return points
}

// iterations is the number of steps taken: major iterations after the start.
func (o *outcome) iterations() int { return o.res.Stats.MajorIterations - 1 }

func printTable(w io.Writer, c *comparison) {
	fmt.Fprintf(w, "%s\n", c.problem.title)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "method\tstatus\titers\tf evals\tgrad evals\tHVPs\ttapes\tfinal f\t|grad|_inf\ttime\t")
	for _, o := range c.outcomes {
		fmt.Fprintf(tw, "%s\t%v\t%d\t%d\t%d\t%d\t%d\t%.15g\t%.2e\t%v\t\n",
			o.method, o.res.Status, o.iterations(), o.res.Stats.FuncEvaluations, o.res.Stats.GradEvaluations,
			o.obj.HVPs, o.obj.Recordings, o.res.F, floats.Norm(o.res.Gradient, math.Inf(1)),
			o.elapsed.Round(10*time.Microsecond))
	}
	tw.Flush()
}

// logisticData generates n samples x_i ~ N(0, diag(s)²), row-major in xs, with
// labels y_i = +1 with probability sigmoid(x_i.w_true) and -1 otherwise, returned as
// negY_i = -y_i. The features are unstandardised, as in raw data: column j has scale
// s_j = 10^(-2j/(d-1)), so the Hessian of the loss is ill-conditioned, and the true
// weights compensate so that every feature carries signal (margins x_i.w_true of
// standard deviation about 3).
func logisticData(n, d int) (xs, negY []float64) {
	rng := rand.New(rand.NewPCG(2024, 11))
	scale := make([]float64, d)
	for j := range scale {
		scale[j] = math.Pow(10, -2*float64(j)/float64(max(d-1, 1)))
	}
	xs = make([]float64, n*d)
	for i := range xs {
		xs[i] = scale[i%d] * rng.NormFloat64()
	}
	wTrue := make([]float64, d)
	for j := range wTrue {
		wTrue[j] = 3 * rng.NormFloat64() / math.Sqrt(float64(d)) / scale[j]
	}
	negY = make([]float64, n)
	for i := range n {
		z := floats.Dot(xs[i*d:(i+1)*d], wTrue)
		negY[i] = 1
		if rng.Float64() < 1/(1+math.Exp(-z)) {
			negY[i] = -1
		}
	}
	return xs, negY
}

// logisticProblem is the regularised mean logistic loss on logisticData,
//
//	L(w) = 1/n sum_i softplus(-y_i x_i.w) + lambda/2 ||w||²,
//
// started at w = 0.
func logisticProblem(sz sizes) (problem, error) {
	n, d := sz.Samples, sz.Features
	xs, negY := logisticData(n, d)
	X, err := tensor.FromFloat64(xs, n, d)
	if err != nil {
		return problem{}, err
	}
	NegY, err := tensor.FromFloat64(negY, n)
	if err != nil {
		return problem{}, err
	}
	lambda := sz.Lambda
	f := func(t *hvp.Tape, w []cr.NodeID) cr.NodeID {
		margins := t.Apply(ew.MulOp, t.Apply(einsum.Op("nd,d->n"), t.Constant(X), w[0]), t.Constant(NegY))
		data := t.Apply(reduce.MeanOp(nil, false), t.Apply(ew.SoftplusOp, margins))
		penalty := t.Apply(ew.ScaleOp(lambda/2), t.Apply(einsum.Op("d,d->"), w[0], w[0]))
		return t.Apply(ew.AddOp, data, penalty)
	}
	return problem{
		name:  "logistic",
		short: fmt.Sprintf("logistic regression (n = %d, d = %d)", n, d),
		title: fmt.Sprintf("logistic regression: n = %d samples, d = %d features, lambda = %g, from w = 0", n, d, lambda),
		f:     f,
		x0:    make([]float64, d),
	}, nil
}

// rosenbrockProblem is f(x) = sum_{i<n-1} 100 (x_{i+1} - x_i²)² + (1 - x_i)², whose
// minimum is f(1, ..., 1) = 0, from (-1.2, 1, -1.2, 1, ...).
func rosenbrockProblem(n int) problem {
	f := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		head := t.Apply(index.SliceOp(index.Range{Stop: -1}), x[0])          // x[:-1]
		tail := t.Apply(index.SliceOp(index.Range{Start: 1, Stop: n}), x[0]) // x[1:]
		d := t.Apply(ew.SubOp, tail, t.Apply(ew.SquareOp, head))
		a := t.Apply(ew.ScaleOp(100), t.Apply(ew.SquareOp, d))
		b := t.Apply(ew.SquareOp, t.Apply(ew.ShiftOp(-1), head))
		return t.Apply(reduce.SumOp(nil, false), t.Apply(ew.AddOp, a, b))
	}
	x0 := make([]float64, n)
	for i := range x0 {
		x0[i] = -1.2
		if i%2 == 1 {
			x0[i] = 1
		}
	}
	return problem{
		name:  "rosenbrock",
		short: fmt.Sprintf("Rosenbrock (n = %d)", n),
		title: fmt.Sprintf("Rosenbrock: n = %d, from (-1.2, 1, -1.2, 1, ...)", n),
		note: "Context: the chained Rosenbrock function is a textbook hard case for Newton methods, not a verdict on them " +
			"(scipy 1.10's Newton-CG: 228 iterations and 1869 HVPs to the same gradient).",
		f:          f,
		x0:         x0,
		fstarKnown: true,
	}
}

// writePlot draws f - f* against iterations and against gradients + HVPs, side by
// side, into a PNG. Gaps below the rounding of f* are drawn at that floor, since a log
// axis has no zero.
func writePlot(path string, c *comparison) error {
	floor := 4 * math.Abs(c.fstar) * 0x1p-52
	if floor == 0 {
		floor = 1e-30
	}
	pair := plots.NewPair(
		newLogPlot(c.problem.short+": by iteration", "iteration", "f - f*"),
		newLogPlot(c.problem.short+": by work", "gradients + Hessian-vector products", "f - f*"))
	for i, o := range c.outcomes {
		iter, work := make(plotter.XYs, len(o.trace)), make(plotter.XYs, len(o.trace))
		for k, tp := range o.trace {
			gap := math.Max(tp.f-c.fstar, floor)
			iter[k] = plotter.XY{X: float64(k), Y: gap}
			work[k] = plotter.XY{X: float64(tp.work), Y: gap}
		}
		if err := pair.Add(o.method, i, iter, work); err != nil {
			return err
		}
	}
	return pair.SavePNG(path, 14*vg.Inch, 5*vg.Inch, 2.5*vg.Inch)
}

// newLogPlot is plots.NewLogPlot with the x axis's numbers written in full.
func newLogPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plots.NewLogPlot(title, xlabel, ylabel)
	p.X.Tick.Marker = plot.TickerFunc(func(lo, hi float64) []plot.Tick {
		ticks := plot.DefaultTicks{}.Ticks(lo, hi)
		for i := range ticks {
			if ticks[i].Label != "" {
				ticks[i].Label = strconv.FormatFloat(ticks[i].Value, 'g', -1, 64)
			}
		}
		return ticks
	})
	return p
}
