package main

import (
	"bytes"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/optimize"

	"github.com/chainrules-go/chainrules/examples/internal/plots"
)

// TestCompare runs the example at full size and checks every method's answer against
// closed-form optimality conditions, not against the library's own derivatives.
func TestCompare(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	comps, err := compare(&out, dir, fullSizes, 0)
	require.NoError(t, err)
	require.Len(t, comps, 2)
	logistic, rosen := comps[0], comps[1]
	require.Equal(t, "logistic", logistic.problem.name)
	require.Equal(t, "rosenbrock", rosen.problem.name)

	for _, c := range comps {
		require.Len(t, c.outcomes, len(methods))
		for _, o := range c.outcomes {
			assert.Equal(t, optimize.GradientThreshold, o.res.Status, "%s on %s", o.method, c.problem.name)
			assert.Less(t, floats.Norm(o.res.Gradient, math.Inf(1)), 1e-6, "%s on %s", o.method, c.problem.name)
			assert.Len(t, o.trace, o.iterations()+1, "one traced point per iteration and the start")
			assert.Equal(t, o.res.F, o.trace[len(o.trace)-1].f, "the trace ends at the result")
		}
		assert.Contains(t, out.String(), c.problem.title)
		assert.Contains(t, out.String(), c.plotPath)
	}
	// The output explains its terms: the status, the tapes, f*.
	for _, term := range []string{"GradientThreshold means converged: |grad|_inf < 1e-09", "tapes        recordings of the loss", "f - f*, the distance to the minimum value f*", "f* = 0 (the known minimum)"} {
		assert.Contains(t, out.String(), term)
	}

	// Logistic regression: every method's w satisfies the optimality condition
	// 1/n sum_i sigmoid(-y_i x_i.w) (-y_i x_i) + lambda w = 0, with the gradient written
	// out in loops; Newton-CG and BFGS agree on w.
	n, d := fullSizes.Samples, fullSizes.Features
	xs, negY := logisticData(n, d)
	for _, o := range logistic.outcomes {
		w := o.res.X
		g := make([]float64, d)
		for i := range n {
			row := xs[i*d : (i+1)*d]
			s := 1 / (1 + math.Exp(-negY[i]*floats.Dot(row, w)))
			floats.AddScaled(g, s*negY[i]/float64(n), row)
		}
		floats.AddScaled(g, fullSizes.Lambda, w)
		assert.Less(t, floats.Norm(g, math.Inf(1)), 1e-8, "%s: reference gradient at its w", o.method)
	}
	newton, bfgs := logistic.outcomes[0], logistic.outcomes[2]
	require.Equal(t, "Newton-CG", newton.method)
	require.Equal(t, "BFGS", bfgs.method)
	for j := range d {
		assert.InDelta(t, newton.res.X[j], bfgs.res.X[j], 1e-5, "w[%d]", j)
	}
	assert.Positive(t, newton.obj.HVPs)

	// Rosenbrock: the minimiser is (1, ..., 1); both Newton methods need fewer
	// iterations than the quasi-Newton methods, the line search fewer than the trust
	// region, and the table says how to read it.
	for _, o := range rosen.outcomes {
		for i, xi := range o.res.X {
			require.InDelta(t, 1, xi, 1e-5, "%s: x[%d]", o.method, i)
		}
	}
	tr, ls := rosen.outcomes[0], rosen.outcomes[1]
	require.Equal(t, "Newton-CG (line search)", ls.method)
	for _, o := range rosen.outcomes[2:] {
		assert.Less(t, tr.iterations(), o.iterations(), "Newton-CG vs %s", o.method)
		assert.Less(t, ls.iterations(), o.iterations(), "line search vs %s", o.method)
	}
	assert.Less(t, ls.iterations(), tr.iterations())
	assert.Less(t, ls.obj.HVPs, tr.obj.HVPs)
	assert.Contains(t, out.String(), "not a verdict on them")

	for _, name := range []string{"newtoncg-logistic.png", "newtoncg-rosenbrock.png"} {
		f, err := os.Open(filepath.Join(dir, name))
		require.NoError(t, err)
		img, err := png.Decode(f)
		f.Close()
		require.NoError(t, err, name)
		assert.Positive(t, img.Bounds().Dx(), name)
		assert.Positive(t, img.Bounds().Dy(), name)
	}
}

func TestRunMakesOutDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "plots")
	var out bytes.Buffer
	require.NoError(t, run(&out, dir, time.Hour))
	_, err := os.Stat(filepath.Join(dir, "newtoncg-rosenbrock.png"))
	assert.NoError(t, err)
	// With -progress, each run prints its start and its result under a heading.
	assert.Equal(t, 2*len(methods), strings.Count(out.String(), "\n iter  "))
	assert.Contains(t, out.String(), "Rosenbrock (n = 100), Newton-CG (line search):")
}

func TestDecadeTicks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		lo, hi float64
		labels int
	}{
		{"few decades: every one labelled", 1e-3, 5e1, 6},      // 1e-3 ... 1e2
		{"many decades: every fourth labelled", 3e-24, 2e4, 8}, // 1e-24, 1e-20, ..., 1e4
	} {
		t.Run(tc.name, func(t *testing.T) {
			ticks := plots.DecadeTicks{}.Ticks(tc.lo, tc.hi)
			labelled := 0
			for _, tk := range ticks {
				e := math.Log10(tk.Value)
				assert.InDelta(t, math.Round(e), e, 1e-12, "ticks sit on powers of ten")
				if tk.Label != "" {
					labelled++
				}
			}
			assert.Equal(t, tc.labels, labelled)
			assert.LessOrEqual(t, ticks[0].Value, tc.lo)
			assert.GreaterOrEqual(t, ticks[len(ticks)-1].Value, tc.hi)
		})
	}
}
