package main

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/optimize"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/hvp"
)

// A short fit with each method and curvature: the parameter set has the network's
// 413 parameters, the loss falls by an order of magnitude, every iteration is
// printed, and the fitted tensors are the result's point.
func TestFit(t *testing.T) {
	for _, c := range []struct{ method, curvature string }{
		{"trust-region", "gauss-newton"}, {"trust-region", "hessian"}, {"line-search", "gauss-newton"},
	} {
		cfg := defaultConfig
		cfg.Method, cfg.Curvature, cfg.Iterations, cfg.Every = c.method, c.curvature, 25, 0
		var out bytes.Buffer
		o, err := run(&out, cfg)
		require.NoError(t, err, "%v", c)
		assert.Equal(t, 413, o.Layout.Dim())
		assert.Equal(t, 6, o.Layout.Len())
		assert.Equal(t, optimize.IterationLimit, o.Result.Status)
		assert.Less(t, o.Result.F, o.InitialLoss/10, "%v", c)
		require.Len(t, o.Trace, cfg.Iterations+1)
		for i := 1; i < len(o.Trace); i++ {
			assert.LessOrEqual(t, o.Trace[i].F, o.Trace[i-1].F, "%v: iteration %d", c, i)
		}
		if c.curvature == "gauss-newton" {
			assert.Zero(t, o.Objective.HVPs)
			assert.Positive(t, o.Objective.GaussNewtonProducts)
		} else {
			assert.Zero(t, o.Objective.GaussNewtonProducts)
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		progress := 0
		for _, l := range lines {
			if f := strings.Fields(l); len(f) == 11 && f[10] != "runtime" {
				progress++
			}
		}
		assert.Equal(t, cfg.Iterations+1, progress, "%v: a line per iteration", c)

		// The fitted tensors are the result's point, and the objective's gradient
		// there is that of the tensors' loss.
		flat, err := o.Layout.Flatten(o.Params)
		require.NoError(t, err)
		assert.Equal(t, o.Result.X, flat)
		composed := func(tp *hvp.Tape, p []cr.NodeID) cr.NodeID { return hvp.MSELoss(o.Y)(tp, model(o.X)(tp, p)) }
		val, grad, err := hvp.Grad(composed, o.Params)
		require.NoError(t, err)
		assert.InDelta(t, o.Result.F, val.AtFloat64(), 1e-15)
		g, err := o.Layout.Flatten(grad)
		require.NoError(t, err)
		for i := range g {
			require.InDelta(t, o.Result.Gradient[i], g[i], 1e-13*math.Max(1, math.Abs(g[i])))
		}
	}
}

func TestBadFlags(t *testing.T) {
	for _, cfg := range []config{
		{Method: "newton", Curvature: "hessian", Samples: 8, Widths: []int{2, 2, 1}},
		{Method: "trust-region", Curvature: "bfgs", Samples: 8, Widths: []int{2, 2, 1}},
	} {
		_, err := run(&bytes.Buffer{}, cfg)
		assert.Error(t, err)
	}
}
