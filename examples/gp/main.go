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
// HVPs, the fitted hyperparameters and the time, and writes two plots with
// gonum/plot: gp-posterior.png, the data, the true function and the posterior mean
// of the latent function at the fitted hyperparameters with its band (mean ± 2
// posterior standard deviations), and gp-convergence.png, NLML - NLML* and the
// infinity norm of the gradient at each iteration of Newton-CG and LBFGS (on log
// scales; NLML* is the smaller final value of the two):
//
//	go run ./examples/gp                 # n = 500, plots in the current directory
//	go run ./examples/gp -n 200 -out /tmp
package main

import (
	"flag"
	"fmt"
	"image/color"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/einsum"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/examples/internal/plots"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/linalg"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

func main() {
	n := flag.Int("n", 500, "number of data points")
	out := flag.String("out", ".", "directory for the plots")
	flag.Parse()
	if _, err := run(os.Stdout, *n, *out); err != nil {
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
		y[i] = truth(x[i]) + trueNoise*rng.NormFloat64()
	}
	return x, y
}

// truth is the function the data sample.
func truth(x float64) float64 { return math.Sin(x) + 0.5*math.Sin(3*x) }

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
		return t.Apply(ew.ShiftOp(float64(n)*halfLog2Pi), t.Apply(ew.AddOp, fit, logdet))
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
	trace   []tracePoint // the start and every major iteration
}

// tracePoint is the state at a major iteration.
type tracePoint struct{ f, gnorm float64 }

// recorder is an optimize.Recorder that keeps f and |grad|_inf at every major
// iteration, starting with the initial point.
type recorder struct{ trace []tracePoint }

func (r *recorder) Init() error { r.trace = r.trace[:0]; return nil }

func (r *recorder) Record(loc *optimize.Location, op optimize.Operation, _ *optimize.Stats) error {
	if op == optimize.MajorIteration {
		r.trace = append(r.trace, tracePoint{f: loc.F, gnorm: floats.Norm(loc.Gradient, math.Inf(1))})
	}
	return nil
}

// Plot file names, written into the -out directory.
const (
	posteriorPlot   = "gp-posterior.png"
	convergencePlot = "gp-convergence.png"
)

// run fits the hyperparameters on n points with Newton-CG and LBFGS, prints a
// table to w and writes the plots into outDir.
func run(w io.Writer, n int, outDir string) ([]outcome, error) {
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, err
	}
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
		rec := &recorder{}
		settings := &optimize.Settings{
			GradientThreshold: 1e-6,
			MajorIterations:   500,
			Converger:         &optimize.FunctionConverge{Absolute: 1e-12, Iterations: 20},
			Recorder:          rec,
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
		if len(rec.trace) < res.Stats.MajorIterations {
			// gonum does not pass the major iteration that meets a stopping criterion
			// to the Recorder; it is the result.
			rec.trace = append(rec.trace, tracePoint{f: res.F, gnorm: floats.Norm(res.Gradient, math.Inf(1))})
		}
		out = append(out, outcome{method: m.name, res: res, obj: obj, elapsed: elapsed, trace: rec.trace})
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
	if err := tw.Flush(); err != nil {
		return nil, err
	}
	post := filepath.Join(outDir, posteriorPlot)
	if err := writePosterior(post, x, y, out[0].res.X); err != nil {
		return nil, err
	}
	conv := filepath.Join(outDir, convergencePlot)
	if err := writeConvergence(conv, n, out); err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "posterior plot: %s\nconvergence plot: %s\n", post, conv)
	return out, nil
}

// posterior returns the posterior mean and standard deviation of the latent
// function at the points xs, given the data (x, y) and theta:
//
//	mean = k*^T K^-1 y,   var = sf2 - ||L^-1 k*||^2,   K = L L^T,
//
// with gonum's mat (the plot needs no derivatives).
func posterior(x, y, theta, xs []float64) (mean, sd []float64, err error) {
	n, m := len(x), len(xs)
	ell2, sf2, sn2 := math.Exp(2*theta[0]), math.Exp(theta[1]), math.Exp(theta[2])
	kern := func(a, b float64) float64 { return sf2 * math.Exp(-(a-b)*(a-b)/(2*ell2)) }
	k := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			v := kern(x[i], x[j])
			if i == j {
				v += sn2
			}
			k.SetSym(i, j, v)
		}
	}
	var chol mat.Cholesky
	if !chol.Factorize(k) {
		return nil, nil, fmt.Errorf("the kernel matrix is not positive-definite")
	}
	var alpha mat.VecDense
	if err := chol.SolveVecTo(&alpha, mat.NewVecDense(n, y)); err != nil {
		return nil, nil, err
	}
	ks := mat.NewDense(n, m, nil)
	for i := range n {
		for j := range m {
			ks.Set(i, j, kern(x[i], xs[j]))
		}
	}
	var l mat.TriDense
	chol.LTo(&l)
	var v mat.Dense // L^-1 k*
	if err := v.Solve(&l, ks); err != nil {
		return nil, nil, err
	}
	mean, sd = make([]float64, m), make([]float64, m)
	for j := range m {
		mean[j] = mat.Dot(ks.ColView(j), &alpha)
		col := v.ColView(j)
		sd[j] = math.Sqrt(math.Max(sf2-mat.Dot(col, col), 0))
	}
	return mean, sd, nil
}

// writePosterior draws the data, the true function and the posterior mean with its
// band of ± 2 standard deviations at theta.
func writePosterior(path string, x, y, theta []float64) error {
	const m = 400
	lo, hi := -0.5, 10.5
	xs := make([]float64, m)
	for j := range m {
		xs[j] = lo + (hi-lo)*float64(j)/(m-1)
	}
	mean, sd, err := posterior(x, y, theta, xs)
	if err != nil {
		return err
	}
	band := make(plotter.XYs, 0, 2*m)
	meanXY, truthXY := make(plotter.XYs, m), make(plotter.XYs, m)
	for j := range m {
		band = append(band, plotter.XY{X: xs[j], Y: mean[j] + 2*sd[j]})
		meanXY[j] = plotter.XY{X: xs[j], Y: mean[j]}
		truthXY[j] = plotter.XY{X: xs[j], Y: truth(xs[j])}
	}
	for j := m - 1; j >= 0; j-- {
		band = append(band, plotter.XY{X: xs[j], Y: mean[j] - 2*sd[j]})
	}
	pts := make(plotter.XYs, len(x))
	for i := range x {
		pts[i] = plotter.XY{X: x[i], Y: y[i]}
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("GP posterior, n = %d: ell = %.3g, sf2 = %.3g, sn2 = %.3g", len(x), math.Exp(theta[0]), math.Exp(theta[1]), math.Exp(theta[2]))
	p.X.Label.Text = "x"
	p.Y.Label.Text = "y"
	p.Add(plotter.NewGrid())
	poly, err := plotter.NewPolygon(band)
	if err != nil {
		return err
	}
	poly.Color = color.NRGBA{R: 120, G: 160, B: 230, A: 110}
	poly.LineStyle.Width = 0
	scatter, err := plotter.NewScatter(pts)
	if err != nil {
		return err
	}
	scatter.GlyphStyle.Radius = vg.Points(1.5)
	scatter.GlyphStyle.Shape = draw.CircleGlyph{}
	scatter.GlyphStyle.Color = color.Gray{Y: 90}
	meanLine, err := plotter.NewLine(meanXY)
	if err != nil {
		return err
	}
	meanLine.Color = color.RGBA{B: 200, A: 255}
	meanLine.Width = vg.Points(1.5)
	truthLine, err := plotter.NewLine(truthXY)
	if err != nil {
		return err
	}
	truthLine.Color = color.RGBA{R: 200, A: 255}
	truthLine.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	truthLine.Width = vg.Points(1)
	p.Add(poly, scatter, truthLine, meanLine)
	p.Legend.Add("data", scatter)
	p.Legend.Add("true function", truthLine)
	p.Legend.Add("posterior mean", meanLine)
	p.Legend.Add("mean ± 2 sd", poly)
	p.Legend.Top = true
	return plots.SavePNG(path, 10*vg.Inch, 5*vg.Inch, func(dc draw.Canvas) { p.Draw(dc) })
}

// writeConvergence draws NLML - NLML* and |grad|_inf against the iteration for each
// method, side by side. Gaps below the rounding of NLML* are drawn at that floor,
// since a log axis has no zero.
func writeConvergence(path string, n int, out []outcome) error {
	fstar := math.Inf(1)
	for _, o := range out {
		fstar = math.Min(fstar, o.res.F)
	}
	floor := 4 * math.Abs(fstar) * 0x1p-52
	pair := plots.NewPair(
		plots.NewLogPlot(fmt.Sprintf("GP, n = %d: NLML - NLML*", n), "iteration", "NLML - NLML*"),
		plots.NewLogPlot(fmt.Sprintf("GP, n = %d: gradient", n), "iteration", "|grad|_inf"))
	for i, o := range out {
		fs, gs := make(plotter.XYs, len(o.trace)), make(plotter.XYs, len(o.trace))
		for k, tp := range o.trace {
			fs[k] = plotter.XY{X: float64(k), Y: math.Max(tp.f-fstar, floor)}
			gs[k] = plotter.XY{X: float64(k), Y: math.Max(tp.gnorm, 1e-300)}
		}
		if err := pair.Add(o.method, i, fs, gs); err != nil {
			return err
		}
	}
	return pair.SavePNG(path, 12*vg.Inch, 4.5*vg.Inch, 1.6*vg.Inch)
}
