package elementwise_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/tensor"
)

// A penalty lambda/2 ||w||^2 with lambda a float64 variable: ScaleFloat64Op takes it
// as it is, as ScaleOp(lambda/2) does (both take a real factor).
func ExampleScaleFloat64Op() {
	lambda := 0.1
	wv, _ := tensor.FromFloat64([]float64{1, -2}, 2)
	tape := core.NewTape[*tensor.Dense](tensor.Space{})
	w := tape.Leaf(wv)
	penalty := tape.Apply(elementwise.ScaleFloat64Op(lambda/2), tape.Apply(elementwise.SquareOp, w))
	g, err := tape.BackwardSeed(penalty, tensor.Ones(tensor.Float64, 2))
	if err != nil {
		panic(err)
	}
	v, _ := tape.Value(penalty)
	gw, _ := g.Of(w)
	fmt.Printf("%v %.2f %.2f\n", v.DType(), v.Float64s(), gw.Float64s())
	// Output:
	// float64 [0.05 0.20] [0.10 -0.20]
}

func TestScaleFloat64MatchesScale(t *testing.T) {
	x, err := tensor.FromFloat64([]float64{1, -2, 3.5}, 3)
	require.NoError(t, err)
	a := 0.37
	got, err := elementwise.ScaleFloat64(x, a)
	require.NoError(t, err)
	want, err := elementwise.Scale(x, complex(a, 0))
	require.NoError(t, err)
	assert.Equal(t, want.Float64s(), got.Float64s())
	assert.Equal(t, tensor.Float64, got.DType())
	assert.Equal(t, "scale", elementwise.ScaleFloat64Op(a).Name())

	z, err := tensor.FromComplex128([]complex128{1 + 2i}, 1)
	require.NoError(t, err)
	zs, err := elementwise.ScaleFloat64(z, 2)
	require.NoError(t, err)
	assert.Equal(t, []complex128{2 + 4i}, zs.Complex128s())
}
