package nn_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

func TestRulesPassRuletest(t *testing.T) {
	reg := cr.NewRegistry[*tensor.Dense]()
	require.NoError(t, nn.Register(reg))
	ruletest.CheckRegistry(t, tensor.Space{}, reg, ruletest.Config{MinOrder: 4})
}

func TestValues(t *testing.T) {
	x, err := tensor.FromFloat64([]float64{1, 2, 3, 1000, 1000, -1000}, 2, 3)
	require.NoError(t, err)
	s, err := nn.Softmax(x, 1)
	require.NoError(t, err)
	ls, err := nn.LogSoftmax(x, -1)
	require.NoError(t, err)
	z := math.Exp(1) + math.Exp(2) + math.Exp(3)
	want := []float64{math.Exp(1) / z, math.Exp(2) / z, math.Exp(3) / z, 0.5, 0.5, 0}
	require.InDeltaSlice(t, want, s.Float64s(), 1e-15)
	require.InDelta(t, 1-math.Log(z), ls.Float64s()[0], 1e-14)
	require.InDelta(t, -2000-math.Log(2), ls.Float64s()[5], 1e-12)

	_, err = nn.Softmax(x, 2)
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
	require.ErrorContains(t, err, "softmax")
}

// The composite shows as one node and its error names it.
func TestOneNode(t *testing.T) {
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	x := tp.Leaf(tensor.Ones(tensor.Float64, 2, 3))
	y := tp.Apply(nn.SoftmaxOp(0), x)
	require.Equal(t, 2, tp.Len())
	name, err := tp.OpName(y)
	require.NoError(t, err)
	require.Equal(t, "softmax", name)
}

func ExampleSoftmaxOp() {
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	xv, _ := tensor.FromFloat64([]float64{0, math.Log(3)}, 2)
	x := tp.Leaf(xv)
	p := tp.Apply(nn.SoftmaxOp(0), x)
	// d p_1 / d x: the seed picks the second probability.
	seed, _ := tensor.FromFloat64([]float64{0, 1}, 2)
	g, _ := tp.BackwardSeed(p, seed)
	pv, _ := tp.Value(p)
	gx, _ := g.Of(x)
	fmt.Printf("p = %.4f, dp1/dx = %.4f\n", pv.Float64s(), gx.Float64s())
	// Output: p = [0.2500 0.7500], dp1/dx = [-0.1875 0.1875]
}
