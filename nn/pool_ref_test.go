package nn_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/tensor"
)

// The PyTorch reference of the pooling and interpolation ops:
// testdata/pool_ref.json, written by testdata/gen_pool_ref.py, replayed with the
// helpers of torch_ref_test.go.

// poolInts is a Python int or tuple of ints; null leaves it empty.
type poolInts []int

func (v *poolInts) UnmarshalJSON(b []byte) error {
	var n *int
	if json.Unmarshal(b, &n) == nil {
		if n != nil {
			*v = []int{*n}
		}
		return nil
	}
	return json.Unmarshal(b, (*[]int)(v))
}

// poolFloats is a Python float or tuple of floats; null leaves it empty.
type poolFloats []float64

func (v *poolFloats) UnmarshalJSON(b []byte) error {
	var f *float64
	if json.Unmarshal(b, &f) == nil {
		if f != nil {
			*v = []float64{*f}
		}
		return nil
	}
	return json.Unmarshal(b, (*[]float64)(v))
}

type poolParams struct {
	ND              int        `json:"nd"`
	Kernel          poolInts   `json:"kernel_size"`
	Stride          poolInts   `json:"stride"`
	Padding         poolInts   `json:"padding"`
	Dilation        poolInts   `json:"dilation"`
	CeilMode        bool       `json:"ceil_mode"`
	CountIncludePad bool       `json:"count_include_pad"`
	DivisorOverride *int       `json:"divisor_override"`
	OutputSize      poolInts   `json:"output_size"`
	Mode            string     `json:"mode"`
	Size            poolInts   `json:"size"`
	ScaleFactor     poolFloats `json:"scale_factor"`
	AlignCorners    *bool      `json:"align_corners"`
}

// poolRefOp returns our op for a case: a single-output op, or a multi-output one.
func poolRefOp(t *testing.T, c refCase) (single, multi cr.Op[*tensor.Dense]) {
	var p poolParams
	require.NoError(t, json.Unmarshal(c.Params, &p))
	opts := []nn.PoolOption{nn.PoolStride(p.Stride...), nn.CeilMode(p.CeilMode)}
	if p.Padding != nil {
		opts = append(opts, nn.PoolPadding(p.Padding...))
	}
	switch c.Op {
	case "max_pool":
		if p.Dilation != nil {
			opts = append(opts, nn.PoolDilation(p.Dilation...))
		}
		return nil, []func([]int, ...nn.PoolOption) cr.Op[*tensor.Dense]{nil, nn.MaxPool1dOp, nn.MaxPool2dOp, nn.MaxPool3dOp}[p.ND](p.Kernel, opts...)
	case "avg_pool":
		opts = append(opts, nn.CountIncludePad(p.CountIncludePad))
		if p.DivisorOverride != nil {
			opts = append(opts, nn.DivisorOverride(*p.DivisorOverride))
		}
		return []func([]int, ...nn.PoolOption) cr.Op[*tensor.Dense]{nil, nn.AvgPool1dOp, nn.AvgPool2dOp, nn.AvgPool3dOp}[p.ND](p.Kernel, opts...), nil
	case "adaptive_max_pool":
		return nil, []func(...int) cr.Op[*tensor.Dense]{nil, nn.AdaptiveMaxPool1dOp, nn.AdaptiveMaxPool2dOp}[p.ND](p.OutputSize...)
	case "adaptive_avg_pool":
		return []func(...int) cr.Op[*tensor.Dense]{nil, nn.AdaptiveAvgPool1dOp, nn.AdaptiveAvgPool2dOp}[p.ND](p.OutputSize...), nil
	case "interpolate":
		var io []nn.InterpOption
		if p.Size != nil {
			io = append(io, nn.InterpSize(p.Size...))
		}
		if p.ScaleFactor != nil {
			io = append(io, nn.InterpScaleFactor(p.ScaleFactor...))
		}
		if p.AlignCorners != nil {
			io = append(io, nn.AlignCorners(*p.AlignCorners))
		}
		return nn.InterpolateOp(p.Mode, io...), nil
	}
	t.Fatalf("no op for %q", c.Op)
	return nil, nil
}

// TestPoolTorchReference replays every case: outputs (and the max pools'
// indices, exactly, ties included), vjp, jvp and hvp.
func TestPoolTorchReference(t *testing.T) {
	ref := loadTorchRef(t, "testdata/pool_ref.json")
	require.NotEmpty(t, ref.Cases)
	ties := 0
	for _, c := range ref.Cases {
		if strings.Contains(c.Name, "ties") {
			ties++
		}
		t.Run(strings.ReplaceAll(c.Name, " ", "_"), func(t *testing.T) {
			single, multi := poolRefOp(t, c)
			replayTorchOp(t, c, single, multi)
		})
	}
	require.Positive(t, ties, "cases with ties")
	t.Logf("%d cases (%d with ties) from torch %s", len(ref.Cases), ties, ref.Torch)
}

// In a window with repeated maxima PyTorch's CPU kernel picks the first one in
// row-major order, and so does the op: on the reference case "max_pool2d/ties k2"
// (small integers, 2x2 windows, stride 2) torch's indices are the first maximum
// of each window, some windows hold a tie, and the op's indices equal torch's.
func TestMaxPoolTiesGoToFirstMaximum(t *testing.T) {
	ref := loadTorchRef(t, "testdata/pool_ref.json")
	var c *refCase
	for i := range ref.Cases {
		if ref.Cases[i].Name == "max_pool2d/ties k2" {
			c = &ref.Cases[i]
		}
	}
	require.NotNil(t, c)
	x := c.Inputs[0].dense(t)
	shape := x.Shape()
	h, w := shape[2], shape[3]
	xs, torchIdx := x.Float64s(), c.Outputs[1].dense(t).Float64s()
	tied := 0
	q := 0
	for p := range shape[0] * shape[1] {
		plane := xs[p*h*w : (p+1)*h*w]
		for i := 0; i < h; i += 2 {
			for j := 0; j < w; j += 2 {
				win := []int{i*w + j, i*w + j + 1, (i+1)*w + j, (i+1)*w + j + 1}
				first, count := win[0], 0
				for _, k := range win {
					if plane[k] > plane[first] {
						first = k
					}
				}
				for _, k := range win {
					if plane[k] == plane[first] {
						count++
					}
				}
				if count > 1 {
					tied++
				}
				require.Equal(t, float64(first), torchIdx[q], "torch picks the first maximum of window %d", q)
				q++
			}
		}
	}
	require.Greater(t, tied, 3, "windows with ties")
	_, idx, err := nn.MaxPool2d(x, []int{2})
	require.NoError(t, err)
	require.Equal(t, torchIdx, idx.Float64s())
}
