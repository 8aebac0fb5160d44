package nn_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

func TestScanRules(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	withZeros := func(dt tensor.DType) *tensor.Dense {
		x := tensor.RandN(rng, dt, 3, 4)
		x.Set(0, 0, 1)
		x.Set(0, 2, 0)
		x.Set(0, 2, 2)
		return x
	}
	for _, dt := range []tensor.DType{tensor.Float64, tensor.Complex128} {
		for _, c := range []struct {
			name string
			op   cr.Op[*tensor.Dense]
			in   []*tensor.Dense
		}{
			{"cumsum", nn.CumsumOp(1), []*tensor.Dense{tensor.RandN(rng, dt, 3, 4)}},
			{"cumsum reverse", nn.ReverseCumsumOp(0), []*tensor.Dense{tensor.RandN(rng, dt, 3, 4)}},
			{"scan", nn.LinearScanOp(1), []*tensor.Dense{tensor.RandN(rng, dt, 2, 4, 3), tensor.RandN(rng, dt, 2, 4, 3)}},
			{"scan reverse", nn.ReverseLinearScanOp(-2), []*tensor.Dense{tensor.RandN(rng, dt, 2, 4, 3), tensor.RandN(rng, dt, 2, 4, 3)}},
			{"scan mixed", nn.LinearScanOp(0), []*tensor.Dense{tensor.RandN(rng, tensor.Float64, 4, 2), tensor.RandN(rng, dt, 4, 2)}},
			{"cumprod", nn.CumprodOp(1), []*tensor.Dense{tensor.RandN(rng, dt, 3, 4)}},
			{"cumprod zeros", nn.CumprodOp(1), []*tensor.Dense{withZeros(dt)}},
			{"cumprod axis0", nn.CumprodOp(0), []*tensor.Dense{tensor.RandN(rng, dt, 4, 3)}},
		} {
			t.Run(c.name+"/"+dt.String(), func(t *testing.T) {
				ruletest.Check(t, tensor.Space{}, c.op, c.in, ruletest.Config{FullJacobianMaxSize: 80})
			})
		}
	}
	x := tensor.RandN(rng, tensor.Float64, 3, 5)
	x.Set(900, 1, 2)
	ruletest.Check(t, tensor.Space{}, nn.LogCumsumExpOp(1), []*tensor.Dense{x}, ruletest.Config{FullJacobianMaxSize: 80})
	ruletest.Check(t, tensor.Space{}, nn.LogCumsumExpOp(0), []*tensor.Dense{tensor.RandN(rng, tensor.Float64, 4, 2)}, ruletest.Config{})
}

func TestCumprodZeros(t *testing.T) {
	x, _ := tensor.FromFloat64([]float64{2, 0, 3, 0, 5}, 5)
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	xi := tp.Leaf(x)
	y := tp.Apply(nn.CumprodOp(0), xi)
	g, err := tp.BackwardSeed(y, tensor.Ones(tensor.Float64, 5))
	require.NoError(t, err)
	gx, _ := g.Of(xi)
	// y = [2 0 0 0 0]; dy0/dx0 = 1, dy1/dx0 = 0, dy1/dx1 = 2, dy2/dx1 = 2*3 = 6 -> xbar1 = 8
	assert.InDeltaSlice(t, []float64{1, 8, 0, 0, 0}, gx.Float64s(), 1e-15)
	_ = math.Pi
}

// A lane that starts with several -Inf stays -Inf there, as in torch, and is
// finite from its first finite entry: never NaN.
func TestLogCumsumExpLeadingNegativeInfinities(t *testing.T) {
	inf := math.Inf(-1)
	x, err := tensor.FromFloat64([]float64{inf, inf, inf, 0, 1, inf, inf, 2}, 2, 4)
	require.NoError(t, err)
	y, err := nn.LogCumsumExp(x, 1)
	require.NoError(t, err)
	got := y.Float64s()
	want := []float64{inf, inf, inf, 0, 1, 1, 1, 2 + math.Log1p(math.Exp(1-2))}
	for i := range want {
		if math.IsInf(want[i], -1) {
			assert.True(t, math.IsInf(got[i], -1), "element %d is %v, want -Inf", i, got[i])
			continue
		}
		assert.InDelta(t, want[i], got[i], 1e-15, "element %d", i)
	}
}
