package nn_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/tensor"
)

func TestDropoutStatistics(t *testing.T) {
	const n = 200000
	x := tensor.Ones(tensor.Float64, n)
	for _, p := range []float64{0.1, 0.5, 0.8} {
		y, err := nn.Dropout(x, p, true, 42)
		require.NoError(t, err)
		kept, sum := 0, 0.0
		for _, v := range y.Float64s() {
			if v != 0 {
				kept++
				require.InDelta(t, 1/(1-p), v, 1e-15)
			}
			sum += v
		}
		// The fraction kept is 1 - p within 5 standard deviations, and E[y] = x.
		sd := math.Sqrt(p * (1 - p) / n)
		require.InDelta(t, 1-p, float64(kept)/n, 5*sd, "p = %v", p)
		require.InDelta(t, 1, sum/n, 5*sd/(1-p), "p = %v", p)
	}
	// Determinism: the same seed gives the same mask, another seed another one.
	a, _ := nn.Dropout(x, 0.5, true, 7)
	b, _ := nn.Dropout(x, 0.5, true, 7)
	c, _ := nn.Dropout(x, 0.5, true, 8)
	require.Equal(t, a.Float64s(), b.Float64s())
	require.NotEqual(t, a.Float64s(), c.Float64s())
	// p = 0 and evaluation are the identity, p = 1 gives zeros.
	r := tensor.RandN(nil, tensor.Float64, 3, 4)
	for _, id := range []cr.Op[*tensor.Dense]{nn.DropoutOp(0, true, 1), nn.DropoutOp(0.5, false, 1)} {
		y, err := cr.Eval(id, r)
		require.NoError(t, err)
		require.Equal(t, r.Float64s(), y.Float64s())
	}
	y, err := nn.Dropout(r, 1, true, 1)
	require.NoError(t, err)
	require.Equal(t, make([]float64, 12), y.Float64s())
}

// The mask is drawn once per application: the pullback and the forward tangent
// use the mask of the output.
func TestDropoutSweepsShareMask(t *testing.T) {
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	xv := tensor.RandN(nil, tensor.Float64, 50)
	x := tp.Leaf(xv)
	y := tp.Apply(nn.DropoutOp(0.4, true, 3), x)
	yv, err := tp.Value(y)
	require.NoError(t, err)
	g, err := tp.BackwardSeed(y, tensor.Ones(tensor.Float64, 50))
	require.NoError(t, err)
	gx, _ := g.Of(x)
	tan, err := tp.ForwardTangents(map[cr.NodeID]*tensor.Dense{x: tensor.Ones(tensor.Float64, 50)})
	require.NoError(t, err)
	yd, _ := tan.Of(y)
	for i, v := range yv.Float64s() {
		m := v / xv.Float64s()[i]
		require.InDelta(t, m, gx.Float64s()[i], 1e-12)
		require.InDelta(t, m, yd.Float64s()[i], 1e-12)
	}
}

func TestDropoutBadInputs(t *testing.T) {
	x := tensor.Ones(tensor.Float64, 3)
	for _, p := range []float64{-0.1, 1.5, math.NaN()} {
		_, err := nn.Dropout(x, p, true, 1)
		require.ErrorIs(t, err, cr.ErrInvalidArgument)
		require.ErrorContains(t, err, "dropout")
	}
	_, err := nn.Dropout(tensor.New(tensor.Complex128, 3), 0.5, true, 1)
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
}
