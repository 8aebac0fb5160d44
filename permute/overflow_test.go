package permute_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/permute"
	"github.com/chainrules-go/chainrules/tensor"
)

// Shapes whose element counts overflow int are errors, not tensors of a wrapped size.
func TestShapeOverflow(t *testing.T) {
	x := tensor.New(tensor.Float64, 2, 3)
	_, err := permute.Reshape(x, 2, 3, 7, 0x6DB6DB6DB6DB6DB7)
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
	_, err = permute.Reshape(x, 2, 3, 7, 0x6DB6DB6DB6DB6DB7, -1)
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
	_, err = permute.BroadcastTo(tensor.Scalar(1), 1<<32, 1<<32)
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
	_, err = permute.BroadcastTo(tensor.Scalar(1), 2, -1)
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
}
