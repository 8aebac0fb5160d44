package permute_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chainrules-go/chainrules/permute"
	"github.com/chainrules-go/chainrules/tensor"
)

// MoveAxis and Unsqueeze without a tape, on a tensor whose values name their
// positions (x[i,j,k] = 100i + 10j + k).
func TestMoveAxisAndUnsqueeze(t *testing.T) {
	vals := make([]float64, 0, 24)
	for i := range 2 {
		for j := range 3 {
			for k := range 4 {
				vals = append(vals, float64(100*i+10*j+k))
			}
		}
	}
	x, err := tensor.FromFloat64(vals, 2, 3, 4)
	require.NoError(t, err)

	y, err := permute.MoveAxis(x, []int{0}, []int{2}) // y[j,k,i] = x[i,j,k]
	require.NoError(t, err)
	assert.Equal(t, []int{3, 4, 2}, y.Shape())
	yc := y.Contiguous().Float64s()
	assert.Equal(t, 123.0, yc[(2*4+3)*2+1]) // y[2,3,1]
	assert.Equal(t, 10.0, yc[(1*4+0)*2+0])  // y[1,0,0]

	u, err := permute.Unsqueeze(x, -2)
	require.NoError(t, err)
	assert.Equal(t, []int{2, 3, 1, 4}, u.Shape())
	assert.Equal(t, vals, u.Contiguous().Float64s())

	_, err = permute.MoveAxis(x, []int{0}, []int{3})
	assert.Error(t, err, "an axis past the rank")
}
