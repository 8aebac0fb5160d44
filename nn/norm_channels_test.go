package nn_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/internal/recordtest"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

// The normalisations with per-channel parameters on inputs without spatial
// axes ([N, C], where a channel's run is a single element) take each channel's
// own weight and bias (PyTorch 1.13's values below; the weight of channel 0
// was once used for every channel), and their fused rules pass ruletest, in
// float64 and, for batch_norm in training, natively in float32.
func TestNormChannelsWithoutSpatialAxes(t *testing.T) {
	f64 := func(shape []int, v ...float64) *tensor.Dense {
		d, err := tensor.FromFloat64(v, shape...)
		require.NoError(t, err)
		return d
	}
	x := f64([]int{3, 3}, 1, 2, 3, 4, 5, 7, 2, 0, 1)
	w, b := f64([]int{3}, 1, 10, 100), f64([]int{3}, 0.5, -1, 2)
	x2 := f64([]int{2, 6}, 1, 2, 3, 4, 5, 7, 2, 0, 1, 3, 3, 4)
	w2, b2 := f64([]int{6}, 1, 10, 100, 2, 3, 4), f64([]int{6}, 0, 0, 0, 1, 1, 1)
	for _, c := range []struct {
		name string
		op   cr.Op[*tensor.Dense]
		in   []*tensor.Dense
		want []float64
	}{
		{"batch_norm train", nn.BatchNormOp(nn.Training(true), nn.Affine(true, true)), []*tensor.Dense{x, w, b},
			[]float64{-0.5690415314502977, -2.6222122902678944, -24.72610271491851, 1.8363019143128716, 11.97769832214314, 135.63051357459267, 0.23273961713742541, -12.355486031875252, -104.9044108596741}},
		{"batch_norm eval", nn.BatchNormOp(nn.Affine(true, true), nn.RunningStats(f64([]int{3}, 0.5, 1, -1), f64([]int{3}, 1, 2, 0.5))), []*tensor.Dense{x, w, b},
			[]float64{0.9999975000187499, 6.0710501342622365, 567.67976817984, 3.999982500131249, 27.284200537048946, 1133.35953635968, 1.9999925000562495, -8.071050134262236, 284.83988408992}},
		{"group_norm 2 groups", nn.GroupNormOp(2, nn.Affine(true, true)), []*tensor.Dense{x2, w2, b2},
			[]float64{-1.2247356859083902, 0, 122.47356859083902, -1.1380830629005931, 0.19821885141227824, 6.345207657251488, 1.2247356859083902, -12.247356859083903, 0, -0.41418174364182114, -1.1212726154627317, 6.6567269745672775}},
	} {
		t.Run(c.name, func(t *testing.T) {
			y, err := cr.Eval(c.op, c.in...)
			require.NoError(t, err)
			require.InDeltaSlice(t, c.want, y.Float64s(), 1e-9)
			ruletest.Check(t, tensor.Space{}, c.op, c.in, ruletest.Config{})
		})
	}
	rng := rand.New(rand.NewPCG(41, 42))
	op := nn.BatchNormOp(nn.Training(true), nn.Affine(true, true))
	in := []*tensor.Dense{tensor.RandN(rng, tensor.Float64, 8, 4), tensor.RandN(rng, tensor.Float64, 4), tensor.RandN(rng, tensor.Float64, 4)}
	recordtest.CheckCase(t, rng, recordtest.Case{Op: op, Inputs: in})
	single := make([]*tensor.Dense, len(in))
	for k, v := range in {
		single[k] = recordtest.SingleOf(t, v)
	}
	ruletest.CheckSingle(t, tensor.Space{}, op, single, ruletest.SingleConfig{})
}

// batch_norm in training, group_norm and instance_norm on float32 input run
// natively (channelForward32, channelPullback32), with and without running
// statistics: every rule agrees with the float64 op's at the same values to
// float32's precision (ruletest.CheckSingle), the updated running statistics
// included.
func TestChannelNormsSingleNative(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	f32 := func(shape ...int) *tensor.Dense { return tensor.RandN(rng, tensor.Float32, shape...) }
	rm, rv := tensor.RandN(rng, tensor.Float64, 4), tensor.Ones(tensor.Float64, 4)
	for _, c := range []struct {
		name string
		op   cr.Op[*tensor.Dense]
		in   []*tensor.Dense
	}{
		{"batch_norm running stats", nn.BatchNormOp(nn.Training(true), nn.Affine(true, true), nn.RunningStats(rm, rv)), []*tensor.Dense{f32(3, 4, 5), f32(4), f32(4)}},
		{"group_norm 2 groups", nn.GroupNormOp(2, nn.Affine(true, true)), []*tensor.Dense{f32(3, 4, 3, 3), f32(4), f32(4)}},
		{"instance_norm weight", nn.InstanceNormOp(nn.Affine(true, false)), []*tensor.Dense{f32(2, 4, 7), f32(4)}},
		{"instance_norm running stats", nn.InstanceNormOp(nn.RunningStats(rm, rv), nn.Momentum(0.2)), []*tensor.Dense{f32(2, 4, 6)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ys, err := cr.EvalMulti(c.op, c.in...)
			require.NoError(t, err)
			for _, y := range ys {
				require.Equal(t, tensor.Float32, y.DType())
			}
			ruletest.CheckSingle(t, tensor.Space{}, c.op, c.in, ruletest.SingleConfig{})
		})
	}
}
