package elementwise

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// A float32 application of a function without a float32 kernel keeps no
// double-precision copies until a sweep asks for the widened rule, and that rule
// then gives the widened computation's cotangent.
func TestFloat32RuleWidensOnFirstUse(t *testing.T) {
	x, err := tensor.FromFloat32([]float32{0.25, -1.5, 3}, 3)
	require.NoError(t, err)
	in := []cr.NodeID{cr.NewNodeID(1, 0)}
	ys := make([]*tensor.Dense, 1)
	rule, err := SinOp.Apply(in, []*tensor.Dense{x}, ys)
	require.NoError(t, err)
	r, ok := rule.(*float32Rule)
	require.True(t, ok, "a float32 sin's rule is %T", rule)
	assert.Nil(t, r.wide.rule, "the widened rule is made before any sweep")
	assert.Equal(t, tensor.Float32, ys[0].DType())

	g, err := tensor.FromFloat32([]float32{1, 2, -1}, 3)
	require.NoError(t, err)
	got, err := r.Pullback([]*tensor.Dense{g}, []bool{true}, nil)
	require.NoError(t, err)
	require.NotNil(t, r.wide.rule)
	require.Len(t, got, 1)
	assert.Equal(t, tensor.Float32, got[0].Value.DType())
	want := make([]float32, 3)
	for i, v := range x.Float32s() {
		want[i] = float32(math.Cos(float64(v)) * float64(g.Float32s()[i]))
	}
	assert.Equal(t, want, got[0].Value.Float32s())
}
