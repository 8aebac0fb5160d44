package hvp_test

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/tensor"
)

// mlp32Ref is hvp/testdata/mlp32_ref.json (gen_mlp32_ref.py, torch 1.13).
type mlp32Ref struct {
	Torch  string      `json:"torch"`
	Shapes [][]int     `json:"shapes"`
	X      []float64   `json:"X"`
	XShape []int       `json:"X_shape"`
	Y      []float64   `json:"Y"`
	Params [][]float64 `json:"params"`
	V      [][]float64 `json:"v"`
	F32    mlpDerivs   `json:"float32"`
	F64    mlpDerivs   `json:"float64"`
}

type mlpDerivs struct {
	Loss float64     `json:"loss"`
	Grad [][]float64 `json:"grad"`
	HVP  [][]float64 `json:"hvp"`
}

// float32Of makes a float32 tensor of shape from values that are float32s.
func float32Of(t *testing.T, data []float64, shape ...int) *tensor.Dense {
	t.Helper()
	x32 := make([]float32, len(data))
	for i, v := range data {
		x32[i] = float32(v)
		require.Equal(t, v, float64(x32[i]), "reference value %d is not a float32", i)
	}
	x, err := tensor.FromFloat32(x32, shape...)
	require.NoError(t, err)
	return x
}

// TestTorchMLP32 checks the float32 loss, gradient and HVP of the MLP against
// torch's float32 ones: both are float32 computations of the same function, so
// they differ by float32 rounding, which the float64 reference (the exact value,
// to float32 eyes) bounds: ours is within twice torch's own distance from it,
// plus a few ulps.
func TestTorchMLP32(t *testing.T) {
	b, err := os.ReadFile("testdata/mlp32_ref.json")
	require.NoError(t, err)
	var ref mlp32Ref
	require.NoError(t, json.Unmarshal(b, &ref))
	X := float32Of(t, ref.X, ref.XShape...)
	Y := float32Of(t, ref.Y, ref.XShape[0], ref.Shapes[len(ref.Shapes)-1][0])
	p := make([]*tensor.Dense, len(ref.Shapes))
	v := make([]*tensor.Dense, len(ref.Shapes))
	for k, sh := range ref.Shapes {
		p[k], v[k] = float32Of(t, ref.Params[k], sh...), float32Of(t, ref.V[k], sh...)
	}
	f := mlpLoss(X, Y)
	val, g, err := hvp.Grad(f, p)
	require.NoError(t, err)
	require.Equal(t, tensor.Float32, val.DType())
	assert.InDelta(t, ref.F32.Loss, float64(val.Float32s()[0]), 4e-7*math.Abs(ref.F32.Loss))
	_, hv, err := hvp.HVP(f, p, v)
	require.NoError(t, err)
	for _, c := range []struct {
		name        string
		got         []*tensor.Dense
		torch, want [][]float64
	}{{"gradient", g, ref.F32.Grad, ref.F64.Grad}, {"HVP", hv, ref.F32.HVP, ref.F64.HVP}} {
		worstTorch, worstOurs := 0.0, 0.0
		for k := range c.got {
			require.Equal(t, tensor.Float32, c.got[k].DType())
			scale := 0.0
			for _, w := range c.want[k] {
				scale = max(scale, math.Abs(w))
			}
			for i, v := range c.got[k].Float32s() {
				worstTorch = max(worstTorch, math.Abs(c.torch[k][i]-c.want[k][i])/scale)
				worstOurs = max(worstOurs, math.Abs(float64(v)-c.want[k][i])/scale)
				assert.InDelta(t, c.torch[k][i], float64(v), 1e-5*scale, "%s %d[%d]", c.name, k, i)
			}
		}
		t.Logf("%s: largest error relative to the tensor's scale: torch float32 %.3g, ours %.3g", c.name, worstTorch, worstOurs)
		assert.LessOrEqual(t, worstOurs, 2*worstTorch+4*0x1p-24, "%s: ours is further from the exact value than float32 rounding explains", c.name)
	}
}
