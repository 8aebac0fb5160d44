package optim_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chainrules-go/chainrules/optim"
	"github.com/chainrules-go/chainrules/tensor"
)

// tensors32 makes float32 tensors of the given shapes from data, float32 values
// written as float64 (exactly) by the reference generator.
func tensors32(t *testing.T, shapes [][]int, data [][]float64) []*tensor.Dense {
	t.Helper()
	out := tensors(t, shapes, data)
	for k, x := range out {
		var err error
		out[k], err = tensor.AsType(x, tensor.Float32)
		require.NoError(t, err)
		for i, v := range out[k].Float32s() {
			require.Equal(t, data[k][i], float64(v), "the reference value %d[%d] is not a float32", k, i)
		}
	}
	return out
}

// TestTorchTrajectories32 replays torch's float32 gradients through each optimiser
// on float32 parameters (optim/testdata/optim_ref32.json: torch's parameters and
// state in float32) and checks the parameters after every step against torch's.
// Both update in float32 in the same order of operations; they differ only where
// torch's vectorised kernels fuse or reorder a multiply-add (measured: 1 ulp at
// most over the 20 steps; the tolerance, 4e-7 relative, is about 3 ulps).
func TestTorchTrajectories32(t *testing.T) {
	const tol = 4e-7
	ref := loadRefFile(t, "testdata/optim_ref32.json")
	worst := 0.0
	for _, run := range ref.Runs {
		t.Run(run.Name, func(t *testing.T) {
			params := tensors32(t, run.Shapes, run.Init)
			opt, err := newOptimizer(params, run.Kind, run.Config)
			require.NoError(t, err)
			require.Len(t, run.Grads, ref.Steps)
			for step := range run.Grads {
				require.NoError(t, opt.Step(tensors32(t, run.Shapes, run.Grads[step])))
				for k, p := range params {
					require.Equal(t, tensor.Float32, p.DType())
					for i, v := range p.Float32s() {
						got, want := float64(v), run.Params[step][k][i]
						if d := math.Abs(got-want) / math.Max(1, math.Abs(want)); d > worst {
							worst = d
						}
						if !near(got, want, tol) {
							t.Fatalf("step %d: param %d[%d] = %.9g, torch %.9g (diff %.3g)", step+1, k, i, got, want, got-want)
						}
					}
				}
			}
		})
	}
	t.Logf("largest relative difference from torch float32: %.3g", worst)
}

// TestTorchClipGradNorm32 checks ClipGradNorm on float32 gradients against
// torch.nn.utils.clip_grad_norm_ in float32, which sums the norm in float32 where
// ClipGradNorm sums in float64: the norms and the clipped gradients agree to
// float32 rounding.
func TestTorchClipGradNorm32(t *testing.T) {
	const tol = 1e-6
	for _, c := range loadRefFile(t, "testdata/optim_ref32.json").Clip {
		p := math.Inf(1)
		if f, ok := c.NormType.(float64); ok {
			p = f
		}
		t.Run(fmt.Sprintf("max%v-p%v", c.MaxNorm, p), func(t *testing.T) {
			grads := tensors32(t, c.Shapes, c.Grads)
			total, err := optim.ClipGradNorm(grads, c.MaxNorm, p)
			require.NoError(t, err)
			require.True(t, near(total, c.Total, tol), "total norm %.9g, torch %.9g", total, c.Total)
			for k, g := range grads {
				for i, v := range g.Float32s() {
					require.True(t, near(float64(v), c.Clipped[k][i], tol), "grad %d[%d] = %.9g, torch %.9g", k, i, v, c.Clipped[k][i])
				}
			}
		})
	}
}
