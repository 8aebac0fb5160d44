package permute_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/permute"
	"github.com/chainrules-go/chainrules/tensor"
)

func must(t *tensor.Dense, err error) *tensor.Dense {
	if err != nil {
		panic(err)
	}
	return t
}

// Materializing a view too large to copy (2^62 elements over one scalar) is an
// error, not a panic; so is a nil tensor.
func TestMaterializeTooLarge(t *testing.T) {
	big, err := tensor.Scalar(1).BroadcastTo(1<<31, 1<<31)
	require.NoError(t, err)
	require.NotPanics(t, func() {
		y, err := permute.Materialize(big)
		assert.Nil(t, y)
		assert.ErrorIs(t, err, cr.ErrInvalidArgument)
		assert.ErrorContains(t, err, "materialize: the copy is too large")
	})
	_, err = permute.Materialize(nil)
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
}
