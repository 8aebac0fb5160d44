package main

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/tensor"
)

// refTensor is a tensor of pinn_ref.json.
type refTensor struct {
	Shape []int     `json:"shape"`
	Data  []float64 `json:"data"`
}

func (r refTensor) dense(t *testing.T) *tensor.Dense {
	d, err := tensor.FromFloat64(r.Data, r.Shape...)
	require.NoError(t, err)
	return d
}

// The PINN loss and its gradient in the weights (the network's third derivative,
// through tanh_backward, mul3 and the thin GEMMs) match PyTorch's create_graph
// computation (testdata/gen_pinn_ref.py) at random points and weights.
func TestLossGradientMatchesTorch(t *testing.T) {
	raw, err := os.ReadFile("testdata/pinn_ref.json")
	require.NoError(t, err)
	var ref struct {
		P, Q          refTensor
		Params, Grads []refTensor
		Loss          float64
	}
	require.NoError(t, json.Unmarshal(raw, &ref))
	params := make([]*tensor.Dense, len(ref.Params))
	for k, p := range ref.Params {
		params[k] = p.dense(t)
	}
	value, grads, err := hvp.Grad(loss(ref.P.dense(t), ref.Q.dense(t)), params)
	require.NoError(t, err)
	require.InDelta(t, ref.Loss, value.Float64s()[0], 1e-10*ref.Loss)
	for k, g := range grads {
		require.Equal(t, ref.Grads[k].Shape, g.Shape(), "gradient %d", k)
		for i, want := range ref.Grads[k].Data {
			require.InDelta(t, want, g.Float64s()[i], 1e-9*(1+math.Abs(want)), "gradient %d [%d]", k, i)
		}
	}
}
