package nn_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/tensor"
)

// attentionLoops is softmax(q k^T scale + mask) v for 2-D operands, with loops;
// mask(i, j) is the additive mask.
func attentionLoops(q, k, v *tensor.Dense, scale float64, mask func(i, j int) float64) []float64 {
	l, e, s, ev := q.Shape()[0], q.Shape()[1], k.Shape()[0], v.Shape()[1]
	var y []float64
	for i := 0; i < l; i++ {
		w := make([]float64, s)
		z := 0.0
		for j := range w {
			d := 0.0
			for c := 0; c < e; c++ {
				d += q.AtFloat64(i, c) * k.AtFloat64(j, c)
			}
			w[j] = math.Exp(d*scale + mask(i, j))
			z += w[j]
		}
		for c := 0; c < ev; c++ {
			o := 0.0
			for j := range w {
				o += w[j] / z * v.AtFloat64(j, c)
			}
			y = append(y, o)
		}
	}
	return y
}

func TestAttentionValues(t *testing.T) {
	q, k, v := tensor.RandN(nil, tensor.Float64, 3, 4), tensor.RandN(nil, tensor.Float64, 5, 4), tensor.RandN(nil, tensor.Float64, 5, 2)
	none := func(i, j int) float64 { return 0 }
	y, err := nn.ScaledDotProductAttention(q, k, v)
	require.NoError(t, err)
	require.InDeltaSlice(t, attentionLoops(q, k, v, 0.5, none), y.Float64s(), 1e-13)

	y, err = nn.ScaledDotProductAttention(q, k, v, nn.IsCausal())
	require.NoError(t, err)
	causal := func(i, j int) float64 {
		if j > i {
			return math.Inf(-1)
		}
		return 0
	}
	require.InDeltaSlice(t, attentionLoops(q, k, v, 0.5, causal), y.Float64s(), 1e-13)

	keep := make([]bool, 15)
	for i := range keep {
		keep[i] = i%3 != 1
	}
	y, err = nn.ScaledDotProductAttention(q, k, v, nn.AttnBoolMask(keep, 3, 5))
	require.NoError(t, err)
	boolMask := func(i, j int) float64 {
		if !keep[i*5+j] {
			return math.Inf(-1)
		}
		return 0
	}
	require.InDeltaSlice(t, attentionLoops(q, k, v, 0.5, boolMask), y.Float64s(), 1e-13)

	// A nil mask is no mask.
	y, err = nn.ScaledDotProductAttention(q, k, v, nn.AttnMask(nil))
	require.NoError(t, err)
	require.InDeltaSlice(t, attentionLoops(q, k, v, 0.5, none), y.Float64s(), 1e-13)

	m := tensor.RandN(nil, tensor.Float64, 5)
	y, err = nn.ScaledDotProductAttention(q, k, v, nn.AttnMask(m), nn.AttnScale(0.2))
	require.NoError(t, err)
	require.InDeltaSlice(t, attentionLoops(q, k, v, 0.2, func(_, j int) float64 { return m.AtFloat64(j) }), y.Float64s(), 1e-13)
}

func TestAttentionBadInputs(t *testing.T) {
	f := func(s ...int) *tensor.Dense { return tensor.New(tensor.Float64, s...) }
	for _, c := range []struct {
		name    string
		q, k, v *tensor.Dense
		opts    []nn.AttentionOption
		want    error
	}{
		{"mask shape", f(2, 3, 4), f(2, 5, 4), f(2, 5, 3), []nn.AttentionOption{nn.AttnMask(f(3, 4))}, cr.ErrShapeMismatch},
		{"mask batch", f(2, 3, 4), f(2, 5, 4), f(2, 5, 3), []nn.AttentionOption{nn.AttnMask(f(3, 3, 5))}, cr.ErrShapeMismatch},
		{"bool mask shape", f(3, 4), f(5, 4), f(5, 3), []nn.AttentionOption{nn.AttnBoolMask(make([]bool, 12), 3, 4)}, cr.ErrShapeMismatch},
		{"bool mask length", f(3, 4), f(5, 4), f(5, 3), []nn.AttentionOption{nn.AttnBoolMask(make([]bool, 12), 3, 5)}, cr.ErrShapeMismatch},
		{"complex mask", f(3, 4), f(5, 4), f(5, 3), []nn.AttentionOption{nn.AttnMask(tensor.New(tensor.Complex128, 3, 5))}, cr.ErrInvalidArgument},
		{"mask and causal", f(3, 4), f(5, 4), f(5, 3), []nn.AttentionOption{nn.AttnMask(f(3, 5)), nn.IsCausal()}, cr.ErrInvalidArgument},
		{"embedding dims", f(3, 4), f(5, 3), f(5, 3), nil, cr.ErrShapeMismatch},
		{"key and value lengths", f(3, 4), f(5, 4), f(6, 3), nil, cr.ErrShapeMismatch},
		{"batch axes", f(2, 3, 4), f(3, 5, 4), f(3, 5, 3), nil, cr.ErrShapeMismatch},
		{"rank 1", f(4), f(5, 4), f(5, 3), nil, cr.ErrInvalidArgument},
		{"dropout p", f(3, 4), f(5, 4), f(5, 3), []nn.AttentionOption{nn.AttnDropout(1.2, 1)}, cr.ErrInvalidArgument},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := nn.ScaledDotProductAttention(c.q, c.k, c.v, c.opts...)
			require.ErrorIs(t, err, c.want)
			require.ErrorContains(t, err, "scaled_dot_product_attention")
		})
	}
}
