package hvp_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// A transform tells a nested call from a concurrent one by its goroutine's
// stack: a call from deep inside the recorded function (more frames than one
// read of the stack takes) is nested, and a call on another goroutine while the
// recording is under way is not.
func TestNestedByStack(t *testing.T) {
	x := vec(0.5, 1)
	var deep func(n int) error
	deep = func(n int) error {
		if n == 0 {
			_, _, err := hvp.Grad(cubeSum, []*tensor.Dense{x})
			return err
		}
		return deep(n - 1)
	}
	var innerErr error
	_, _, err := hvp.Grad(func(t *hvp.Tape, xs []cr.NodeID) cr.NodeID {
		innerErr = deep(300)
		return t.Apply(reduce.SumOp(nil, false), xs[0])
	}, []*tensor.Dense{x})
	require.NoError(t, err)
	assert.ErrorIs(t, innerErr, hvp.ErrNested, "300 frames deep in the recorded function")

	// Another goroutine's transform runs while this recording waits for it.
	var concurrent error
	var g []*tensor.Dense
	_, _, err = hvp.Grad(func(t *hvp.Tape, xs []cr.NodeID) cr.NodeID {
		done := make(chan struct{})
		go func() {
			_, g, concurrent = hvp.Grad(cubeSum, []*tensor.Dense{x})
			close(done)
		}()
		<-done
		return t.Apply(reduce.SumOp(nil, false), xs[0])
	}, []*tensor.Dense{x})
	require.NoError(t, err)
	require.NoError(t, concurrent, "a transform on another goroutine is not nested")
	assert.InDeltaSlice(t, []float64{0.75, 3}, g[0].Float64s(), 1e-15)

	// After the recordings, a transform runs (the depth went back to zero).
	_, _, err = hvp.Grad(cubeSum, []*tensor.Dense{x})
	require.NoError(t, err)
}
