package main

import (
	"bytes"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/tensor"
)

// nllGrad is the negative log marginal likelihood and its gradient in closed form,
// with gonum's mat (independent of the library's derivatives):
//
//	d NLML / d theta_j = 1/2 tr((K^-1 - alpha alpha^T) dK/dtheta_j),  alpha = K^-1 y.
func nllGrad(t *testing.T, x, y, theta []float64) (float64, []float64) {
	n := len(x)
	ell2, sf2, sn2 := math.Exp(2*theta[0]), math.Exp(theta[1]), math.Exp(theta[2])
	k := mat.NewSymDense(n, nil)
	dl := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			d2 := (x[i] - x[j]) * (x[i] - x[j])
			e := sf2 * math.Exp(-d2/(2*ell2))
			v := e
			if i == j {
				v += sn2
			}
			k.SetSym(i, j, v)
			dl.Set(i, j, e*d2/ell2) // dK/dlog ell
		}
	}
	var chol mat.Cholesky
	require.True(t, chol.Factorize(k))
	var kinv mat.SymDense
	require.NoError(t, chol.InverseTo(&kinv))
	alpha := mat.NewVecDense(n, nil)
	require.NoError(t, chol.SolveVecTo(alpha, mat.NewVecDense(n, y)))
	f := 0.5*mat.Dot(mat.NewVecDense(n, y), alpha) + 0.5*chol.LogDet() + float64(n)/2*math.Log(2*math.Pi)
	w := mat.NewDense(n, n, nil) // K^-1 - alpha alpha^T
	for i := range n {
		for j := range n {
			w.Set(i, j, kinv.At(i, j)-alpha.AtVec(i)*alpha.AtVec(j))
		}
	}
	trace := func(dk func(i, j int) float64) float64 {
		s := 0.0
		for i := range n {
			for j := range n {
				s += w.At(i, j) * dk(j, i)
			}
		}
		return s / 2
	}
	g := []float64{
		trace(dl.At),
		trace(func(i, j int) float64 {
			v := k.At(i, j)
			if i == j {
				v -= sn2
			}
			return v
		}),
		trace(func(i, j int) float64 {
			if i == j {
				return sn2
			}
			return 0
		}),
	}
	return f, g
}

// TestGradientClosedForm compares the recorded loss and its gradient with the
// closed form.
func TestGradientClosedForm(t *testing.T) {
	x, y := data(40)
	f, err := nll(x, y)
	require.NoError(t, err)
	for _, theta := range [][]float64{start, {0.1, -0.3, -2}} {
		th, err := tensor.FromFloat64(theta, 3)
		require.NoError(t, err)
		val, g, err := hvp.Grad(f, []*tensor.Dense{th})
		require.NoError(t, err)
		wantF, wantG := nllGrad(t, x, y, theta)
		assert.InDelta(t, wantF, val.Float64s()[0], 1e-9)
		assert.InDeltaSlice(t, wantG, g[0].Float64s(), 1e-8)
	}
}

// TestRun fits a small problem with both methods: they converge to the same
// hyperparameters, where the closed-form gradient vanishes; the plots are written.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	res, err := run(&out, 60, dir)
	require.NoError(t, err)
	require.Len(t, res, 2)
	x, y := data(60)
	for _, o := range res {
		assert.Equal(t, optimize.GradientThreshold, o.res.Status, o.method)
		_, g := nllGrad(t, x, y, o.res.X)
		for _, v := range g {
			assert.Less(t, math.Abs(v), 1e-5, "%s: closed-form gradient %v at the optimum", o.method, g)
		}
		assert.Contains(t, out.String(), o.method)
	}
	assert.InDeltaSlice(t, res[0].res.X, res[1].res.X, 1e-4, "Newton-CG and LBFGS agree")
	assert.Positive(t, res[0].obj.HVPs, "Newton-CG used HVPs")
	assert.Contains(t, out.String(), "grad evals")
	for _, o := range res {
		assert.Len(t, o.trace, o.res.Stats.MajorIterations, "%s: the start and every iteration traced", o.method)
		assert.Equal(t, o.res.F, o.trace[len(o.trace)-1].f, "%s: the trace ends at the result", o.method)
	}
	for _, name := range []string{posteriorPlot, convergencePlot} {
		path := filepath.Join(dir, name)
		assert.Contains(t, out.String(), path)
		f, err := os.Open(path)
		require.NoError(t, err, name)
		cfg, err := png.DecodeConfig(f)
		f.Close()
		require.NoError(t, err, name)
		assert.Greater(t, cfg.Width, 500, name)
	}
}

// TestPosterior checks the posterior at the data points of a noise-free fit: with a
// tiny noise variance the mean interpolates the data and the standard deviation
// vanishes there.
func TestPosterior(t *testing.T) {
	x := []float64{0, 1, 2.5, 4}
	y := []float64{0.3, -0.2, 1, 0.5}
	theta := []float64{0, 0, math.Log(1e-10)}
	mean, sd, err := posterior(x, y, theta, x)
	require.NoError(t, err)
	assert.InDeltaSlice(t, y, mean, 1e-6)
	for _, s := range sd {
		assert.Less(t, s, 1e-4)
	}
	_, sd, err = posterior(x, y, theta, []float64{100})
	require.NoError(t, err)
	assert.InDelta(t, 1, sd[0], 1e-12, "far from the data the prior sd sqrt(sf2)")
}
