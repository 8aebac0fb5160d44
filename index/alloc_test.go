package index_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/tensor"
)

// hugeView is a broadcast view of n elements over one scalar.
func hugeView(t *testing.T, n int) *tensor.Dense {
	t.Helper()
	v, err := tensor.Scalar(1).BroadcastTo(n)
	require.NoError(t, err)
	return v
}

// Concat and Stack of huge views check their shape arithmetic (an axis of
// 2^62 + 2^62 elements overflows int; 3 x 2^62 elements too) and the size of their
// result, and return errors wrapping ErrInvalidArgument: eagerly and on a tape.
func TestJoinOverflowIsAnError(t *testing.T) {
	a := hugeView(t, 1<<62)
	b := hugeView(t, 1<<46) // fits in an int, not in memory (2^49 bytes)
	cases := map[string]func() error{
		"concat overflow": func() error { _, err := index.Concat(0, a, a); return err },
		"concat large":    func() error { _, err := index.Concat(0, b, b); return err },
		"stack overflow":  func() error { _, err := index.Stack(0, a, a, a); return err },
		"stack large":     func() error { _, err := index.Stack(-1, b, b); return err },
		"pad large":       func() error { _, err := index.Pad(tensor.New(tensor.Float64, 2), [2]int{0, 1 << 60}); return err },
		"pad view":        func() error { _, err := index.Pad(b, [2]int{1, 1}); return err },
		"concat on a tape": func() error {
			tp := core.NewTape[*tensor.Dense](tensor.Space{})
			x := tp.Leaf(a)
			tp.Apply(index.ConcatOp(0), x, x)
			return tp.Err()
		},
		"stack on a tape": func() error {
			tp := core.NewTape[*tensor.Dense](tensor.Space{})
			x := tp.Leaf(a)
			tp.Apply(index.StackOp(0), x, x, x)
			return tp.Err()
		},
	}
	for name, f := range cases {
		t.Run(name, func(t *testing.T) {
			var err error
			require.NotPanics(t, func() { err = f() })
			assert.ErrorIs(t, err, cr.ErrInvalidArgument)
		})
	}
	// Small views still join.
	s := hugeView(t, 2)
	y, err := index.Concat(0, s, s)
	require.NoError(t, err)
	assert.Equal(t, []float64{1, 1, 1, 1}, y.Float64s())
	y, err = index.Stack(0, s, s)
	require.NoError(t, err)
	assert.Equal(t, []int{2, 2}, y.Shape())
}

// where's inputs broadcast together: views [2^31, 1] and [1, 2^31], which cost
// nothing, ask for an output of 2^62 elements, an error wrapping
// ErrInvalidArgument (before the broadcast mask is made), not a panic.
func TestWhereTooLargeIsAnError(t *testing.T) {
	col, err := tensor.Scalar(1).BroadcastTo(1<<31, 1)
	require.NoError(t, err)
	row, err := tensor.Scalar(2).BroadcastTo(1, 1<<31)
	require.NoError(t, err)
	op := index.WhereOp([]bool{true}, 1)
	require.NotPanics(t, func() {
		_, err = cr.Eval(op, col, row)
		assert.ErrorIs(t, err, cr.ErrInvalidArgument)
		assert.ErrorContains(t, err, "where: the result is too large")
		tp := core.NewTape[*tensor.Dense](tensor.Space{})
		tp.Apply(op, tp.Leaf(col), tp.Leaf(row))
		assert.ErrorIs(t, tp.Err(), cr.ErrInvalidArgument)
	})
}
