package hvp

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/optimize"
)

// Iteration holds the figures of a minimisation after one major iteration: gonum's
// (f, the gradient's norm, evaluation counts, runtime), the length of the step, and
// those of the Newton methods of this package (trust radius or step length, inner
// CG iterations, curvature products, rejected trial points). A Trace keeps them and a
// Printer prints them; both are optimize.Recorders.
type Iteration struct {
	// Iter is the number of steps taken: 0 at the starting point.
	Iter int
	// F is the objective's value.
	F float64
	// GradNorm is the infinity norm of the gradient (NaN if the method has none), the
	// |Gradient|∞ of gonum's Printer.
	GradNorm float64
	// Step is the Euclidean length of the step that led here (0 at the start).
	Step float64
	// Radius is the trust-region radius for the next step (NaN for a method without
	// one).
	Radius float64
	// StepSize is the line-search step length of the step that led here, 1 for a
	// full Newton step (0 at the start; NaN for a method without a line search).
	StepSize float64
	// CGIterations and HVPs count the inner conjugate-gradient iterations and the
	// curvature products (Hessian- or Gauss-Newton-vector) spent on the step that led
	// here, and Rejected the trial points evaluated and not taken on the way: steps
	// the trust region refused, or line-search trials. They are -1 for a method that
	// does not report them (gonum's own).
	CGIterations, HVPs, Rejected int
	// FuncEvaluations and GradEvaluations are gonum's counts so far.
	FuncEvaluations, GradEvaluations int
	// Runtime is the time since the minimisation started.
	Runtime time.Duration
}

// Reporter is a method that reports its own figures for its last major iteration:
// NewtonCG and LineSearchNewtonCG are. Only the fields Iter, Step, Radius,
// StepSize, CGIterations, HVPs and Rejected of the result are the method's.
type Reporter interface {
	LastIteration() Iteration
}

// tracker turns gonum's Recorder calls into Iterations.
type tracker struct {
	prevX []float64
	next  int // the Iter of the next major iteration
}

func (tk *tracker) init() { tk.prevX, tk.next = tk.prevX[:0], 0 }

// iteration returns the Iteration of a MajorIteration, or of the PostIteration when
// gonum did not pass the last major iteration to the Recorder (it does not pass the
// one that meets a stopping criterion); false for every other call.
func (tk *tracker) iteration(method optimize.Method, loc *optimize.Location, op optimize.Operation, stats *optimize.Stats) (Iteration, bool) {
	iter := stats.MajorIterations - 1 // gonum counts the starting point
	switch {
	case op == optimize.MajorIteration:
	case op == optimize.PostIteration && iter >= tk.next:
	default:
		return Iteration{}, false
	}
	it := Iteration{Iter: iter, F: loc.F, GradNorm: math.NaN(), Radius: math.NaN(), StepSize: math.NaN(),
		CGIterations: -1, HVPs: -1, Rejected: -1,
		FuncEvaluations: stats.FuncEvaluations, GradEvaluations: stats.GradEvaluations, Runtime: stats.Runtime}
	if loc.Gradient != nil {
		it.GradNorm = floats.Norm(loc.Gradient, math.Inf(1))
	}
	if len(tk.prevX) == len(loc.X) {
		it.Step = floats.Distance(loc.X, tk.prevX, 2)
	}
	if r, ok := method.(Reporter); ok {
		if m := r.LastIteration(); m.Iter == iter {
			it.Step, it.Radius, it.StepSize = m.Step, m.Radius, m.StepSize
			it.CGIterations, it.HVPs, it.Rejected = m.CGIterations, m.HVPs, m.Rejected
		}
	}
	tk.prevX = append(tk.prevX[:0], loc.X...)
	tk.next = iter + 1
	return it, true
}

// Trace is an optimize.Recorder that keeps the Iteration of every major iteration,
// the starting point first and the result last. Method is the method whose own
// figures to keep (Minimize sets it if nil).
type Trace struct {
	Method     optimize.Method
	Iterations []Iteration
	tracker
}

var _ optimize.Recorder = (*Trace)(nil)

// Init implements optimize.Recorder.
func (t *Trace) Init() error {
	t.Iterations = t.Iterations[:0]
	t.init()
	return nil
}

// Record implements optimize.Recorder.
func (t *Trace) Record(loc *optimize.Location, op optimize.Operation, stats *optimize.Stats) error {
	if it, ok := t.iteration(t.Method, loc, op, stats); ok {
		t.Iterations = append(t.Iterations, it)
	}
	return nil
}

// Printer is an optimize.Recorder that prints progress in columns, following gonum's
// Printer: a heading, then a line per major iteration, or at most one line per
// ValueInterval for long runs (a progress line), always with the starting point and
// the result. Besides gonum's columns (iteration, f, |g|∞, evaluations) it prints the
// step length and, for the methods of this package (a Reporter given as Method, which
// Minimize sets if nil), the trust radius or step size, CG iterations, curvature
// products and rejected trial points of each step.
type Printer struct {
	// Writer receives the lines (os.Stdout if nil).
	Writer io.Writer
	// HeadingInterval repeats the heading every that many lines (0: once).
	HeadingInterval int
	// ValueInterval is the least time between two lines (0: a line per iteration).
	ValueInterval time.Duration
	// Runtime adds the time since the start as the last column.
	Runtime bool
	// Method is the method whose own figures to print.
	Method optimize.Method

	tracker
	lines      int
	lastLine   time.Time
	printed    int  // Iter of the last line printed, -1 if none
	lineSearch bool // the second column is the step size, not the radius
	pending    Iteration
	hasPending bool
}

var _ optimize.Recorder = (*Printer)(nil)

// NewPrinter returns a Printer to os.Stdout that prints every iteration with the
// runtime and repeats the heading every 30 lines. For a long run, set ValueInterval
// (say 10 * time.Second) to print a progress line that often.
func NewPrinter() *Printer {
	return &Printer{Writer: os.Stdout, HeadingInterval: 30, Runtime: true}
}

// Init implements optimize.Recorder.
func (p *Printer) Init() error {
	p.init()
	p.lines, p.printed, p.lastLine, p.hasPending = 0, -1, time.Time{}, false
	return nil
}

// Record implements optimize.Recorder.
func (p *Printer) Record(loc *optimize.Location, op optimize.Operation, stats *optimize.Stats) error {
	it, ok := p.iteration(p.Method, loc, op, stats)
	if ok {
		p.pending, p.hasPending = it, true
	}
	if op == optimize.PostIteration {
		// The result: the last iteration, unless it was printed already.
		if p.hasPending && p.pending.Iter != p.printed {
			return p.print(p.pending)
		}
		return nil
	}
	if ok && (it.Iter == 0 || p.ValueInterval <= 0 || time.Since(p.lastLine) >= p.ValueInterval) {
		return p.print(it)
	}
	return nil
}

func (p *Printer) print(it Iteration) error {
	w := p.Writer
	if w == nil {
		w = os.Stdout
	}
	var b strings.Builder
	if p.lines == 0 || (p.HeadingInterval > 0 && p.lines%p.HeadingInterval == 0) {
		p.lineSearch = math.IsNaN(it.Radius) && !math.IsNaN(it.StepSize)
		second := "radius"
		if p.lineSearch {
			second = "alpha"
		}
		fmt.Fprintf(&b, "%5s  %22s  %9s  %9s  %9s  %4s  %5s  %4s  %7s  %7s", "iter", "f", "|g|∞", "step", second,
			"CG", "HVPs", "rej", "f evals", "g evals")
		if p.Runtime {
			fmt.Fprintf(&b, "  %12s", "runtime")
		}
		b.WriteByte('\n')
	}
	second := it.Radius
	if p.lineSearch {
		second = it.StepSize
	}
	fmt.Fprintf(&b, "%5d  %22.15g  %9s  %9s  %9s  %4s  %5s  %4s  %7d  %7d", it.Iter, it.F, sci(it.GradNorm), sci(it.Step), sci(second),
		count(it.CGIterations), count(it.HVPs), count(it.Rejected), it.FuncEvaluations, it.GradEvaluations)
	if p.Runtime {
		fmt.Fprintf(&b, "  %12v", it.Runtime.Round(time.Microsecond))
	}
	b.WriteByte('\n')
	p.lines++
	p.printed = it.Iter
	p.lastLine = time.Now()
	_, err := io.WriteString(w, b.String())
	return err
}

// sci formats a figure in 9 columns, "-" if unknown.
func sci(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.3e", v)
}

func count(n int) string {
	if n < 0 {
		return "-"
	}
	return fmt.Sprint(n)
}

// Recorders is an optimize.Recorder that passes every call to each of its recorders
// in turn (a Trace and a Printer, say), stopping at the first error.
type Recorders []optimize.Recorder

// Init implements optimize.Recorder.
func (rs Recorders) Init() error {
	for _, r := range rs {
		if err := r.Init(); err != nil {
			return err
		}
	}
	return nil
}

// Record implements optimize.Recorder.
func (rs Recorders) Record(loc *optimize.Location, op optimize.Operation, stats *optimize.Stats) error {
	for _, r := range rs {
		if err := r.Record(loc, op, stats); err != nil {
			return err
		}
	}
	return nil
}
