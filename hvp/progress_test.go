package hvp_test

import (
	"bytes"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/optimize"

	cr "github.com/chainrules-go/chainrules/chainrules"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/reduce"
)

// A Trace holds one Iteration per major iteration, the start first and the result
// last, with the Newton methods' own figures, which add up to their counters.
func TestTraceOfNewtonMethods(t *testing.T) {
	for _, method := range []optimize.Method{&hvp.NewtonCG{}, &hvp.LineSearchNewtonCG{}} {
		obj := hvp.NewObjective(rosenbrock, 10)
		trace := &hvp.Trace{}
		res, err := hvp.Minimize(obj, rosenbrockStart(10), &optimize.Settings{GradientThreshold: 1e-9, Recorder: trace}, method)
		require.NoError(t, err)
		its := trace.Iterations
		require.Len(t, its, res.Stats.MajorIterations, "%T", method)
		assert.Same(t, method, trace.Method, "Minimize wires the method")
		var cg, hvps, rejected int
		for i, it := range its {
			assert.Equal(t, i, it.Iter)
			assert.False(t, math.IsNaN(it.GradNorm))
			if i > 0 {
				assert.Positive(t, it.Step, "%T iteration %d", method, i)
				assert.LessOrEqual(t, it.F, its[i-1].F, "%T: f decreases", method)
				assert.Positive(t, it.CGIterations)
				assert.GreaterOrEqual(t, it.FuncEvaluations, its[i-1].FuncEvaluations)
			}
			cg += it.CGIterations
			hvps += it.HVPs
			rejected += it.Rejected
		}
		assert.Equal(t, 0.0, its[0].Step)
		assert.Equal(t, res.F, its[len(its)-1].F, "the result is last")
		assert.Less(t, its[len(its)-1].GradNorm, 1e-9)
		switch m := method.(type) {
		case *hvp.NewtonCG:
			assert.Equal(t, [3]int{m.CGIterations, m.HVPs, m.Rejected}, [3]int{cg, hvps, rejected})
			assert.False(t, math.IsNaN(its[3].Radius))
			assert.True(t, math.IsNaN(its[3].StepSize))
		case *hvp.LineSearchNewtonCG:
			assert.Equal(t, [3]int{m.CGIterations, m.HVPs, m.Rejected}, [3]int{cg, hvps, rejected})
			assert.True(t, math.IsNaN(its[3].Radius))
			assert.Positive(t, its[3].StepSize)
			assert.Equal(t, 0.0, its[0].StepSize)
		}
	}
}

// gonum's own methods get gonum's figures and the step; theirs are unknown.
func TestTraceOfGonumMethods(t *testing.T) {
	obj := hvp.NewObjective(rosenbrock, 4)
	trace := &hvp.Trace{}
	res, err := hvp.Minimize(obj, rosenbrockStart(4), &optimize.Settings{Recorder: trace}, &optimize.BFGS{})
	require.NoError(t, err)
	require.Len(t, trace.Iterations, res.Stats.MajorIterations)
	it := trace.Iterations[2]
	assert.Positive(t, it.Step)
	assert.True(t, math.IsNaN(it.Radius))
	assert.Equal(t, -1, it.CGIterations)
	assert.Equal(t, -1, it.HVPs)

	var out bytes.Buffer
	_, err = hvp.Minimize(hvp.NewObjective(rosenbrock, 4), rosenbrockStart(4), &optimize.Settings{Recorder: &hvp.Printer{Writer: &out}}, &optimize.BFGS{})
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, res.Stats.MajorIterations+1)
	assert.Contains(t, lines[3], " - ", "unknown figures are dashes")
}

// The Printer prints a heading and one line per iteration, or with a ValueInterval
// the start, a line at most that often, and the result.
func TestPrinter(t *testing.T) {
	run := func(p *hvp.Printer) (*optimize.Result, []string) {
		var out bytes.Buffer
		p.Writer = &out
		res, err := hvp.Minimize(hvp.NewObjective(rosenbrock, 10), rosenbrockStart(10), &optimize.Settings{GradientThreshold: 1e-9, Recorder: p}, &hvp.NewtonCG{})
		require.NoError(t, err)
		return res, strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	}

	res, lines := run(&hvp.Printer{})
	n := res.Stats.MajorIterations
	require.Len(t, lines, n+1)
	assert.Equal(t, []string{"iter", "f", "|g|∞", "step", "radius", "CG", "HVPs", "rej", "f", "evals", "g", "evals"}, strings.Fields(lines[0]))
	assert.Equal(t, "0", strings.Fields(lines[1])[0])
	last := strings.Fields(lines[n])
	assert.Equal(t, n-1, atoi(t, last[0]), "the result's line")

	_, lines = run(&hvp.Printer{HeadingInterval: 10})
	headings := 0
	for _, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "iter") {
			headings++
		}
	}
	assert.Equal(t, (n+9)/10, headings)

	_, lines = run(&hvp.Printer{ValueInterval: time.Hour, Runtime: true})
	require.Len(t, lines, 3, "heading, start and result")
	assert.Equal(t, "runtime", strings.Fields(lines[0])[len(strings.Fields(lines[0]))-1])
	assert.Equal(t, n-1, atoi(t, strings.Fields(lines[2])[0]))

	p := hvp.NewPrinter()
	assert.Equal(t, os.Stdout, p.Writer)
	assert.True(t, p.Runtime)
}

// The line-search method's second column is its step size.
func TestPrinterLineSearch(t *testing.T) {
	var out bytes.Buffer
	_, err := hvp.Minimize(hvp.NewObjective(rosenbrock, 2), rosenbrockStart(2), &optimize.Settings{Recorder: &hvp.Printer{Writer: &out, HeadingInterval: 5}}, &hvp.LineSearchNewtonCG{})
	require.NoError(t, err)
	headings := 0
	for _, l := range strings.Split(out.String(), "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == "iter" {
			assert.Equal(t, "alpha", f[4], "every heading")
			headings++
		}
	}
	assert.Greater(t, headings, 2)
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n := 0
	for _, c := range s {
		require.True(t, c >= '0' && c <= '9', s)
		n = 10*n + int(c-'0')
	}
	return n
}

// Recorders passes every call to each recorder; Minimize wires the method into both.
func TestRecorders(t *testing.T) {
	var out bytes.Buffer
	trace, printer := &hvp.Trace{}, &hvp.Printer{Writer: &out}
	m := &hvp.NewtonCG{}
	res, err := hvp.Minimize(hvp.NewObjective(rosenbrock, 3), rosenbrockStart(3), &optimize.Settings{Recorder: hvp.Recorders{trace, printer}}, m)
	require.NoError(t, err)
	assert.Same(t, m, trace.Method)
	assert.Same(t, m, printer.Method)
	assert.Len(t, trace.Iterations, res.Stats.MajorIterations)
	assert.Len(t, strings.Split(strings.TrimSpace(out.String()), "\n"), res.Stats.MajorIterations+1)
}

// Progress of Newton-CG on f(x) = sum(exp(x) - 2x), whose minimum is at x = log 2:
// full Newton steps inside the trust region, with one CG iteration each (the Hessian
// is a multiple of the identity), and the gradient squared at every step. For a long
// run, NewPrinter adds the runtime, and ValueInterval makes it a progress line.
func ExamplePrinter() {
	f := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		terms := t.Apply(ew.SubOp, t.Apply(ew.ExpOp, x[0]), t.Apply(ew.ScaleOp(2), x[0]))
		return t.Apply(reduce.SumOp(nil, false), terms)
	}
	obj := hvp.NewObjective(f, 4)
	settings := &optimize.Settings{GradientThreshold: 1e-12, Recorder: &hvp.Printer{}}
	if _, err := hvp.Minimize(obj, []float64{1, 1, 1, 1}, settings, &hvp.NewtonCG{}); err != nil {
		panic(err)
	}
	// Output:
	//  iter                       f       |g|∞       step     radius    CG   HVPs   rej  f evals  g evals
	//     0        2.87312731383618  7.183e-01  0.000e+00  1.000e+00     0      0     0        1        1
	//     1        2.46218985579505  8.707e-02  5.285e-01  1.000e+00     1      1     0        2        2
	//     2        2.45482576143159  1.791e-03  8.343e-02  1.000e+00     1      1     0        3        3
	//     3        2.45482255552108  8.010e-07  1.789e-03  1.000e+00     1      1     0        4        4
	//     4        2.45482255552044  1.603e-13  8.010e-07  1.000e+00     1      1     0        5        5
}
