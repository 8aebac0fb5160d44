package hvp_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/einsum"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/permute"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// Error-returning paths whose result would be too large to allocate return an error
// wrapping ErrInvalidArgument, as einsum does, and never panic. big is a valid
// tensor: a broadcast view of 2^62 elements over one scalar. (Every registered
// family refuses such inputs: see TestEveryFamilyRefusesHugeViews in package ops.)
func TestTooLargeResultsAreErrors(t *testing.T) {
	big, err := tensor.Scalar(1).BroadcastTo(1<<31, 1<<31)
	require.NoError(t, err)
	bigC, err := tensor.ScalarComplex(1).BroadcastTo(1<<31, 1<<31)
	require.NoError(t, err)
	onTape := func(op cr.Op[*tensor.Dense], xs ...*tensor.Dense) func() error {
		return func() error {
			tp := core.NewTape[*tensor.Dense](tensor.Space{})
			ids := make([]cr.NodeID, len(xs))
			for i, x := range xs {
				ids[i] = tp.Leaf(x)
			}
			tp.Apply(op, ids...)
			return tp.Err()
		}
	}
	cases := map[string]func() error{
		"einsum":          func() error { _, err := einsum.Eval("ij->ij", big); return err },
		"tensor.Add":      func() error { _, err := tensor.Add(big, big); return err },
		"tensor.Mul cplx": func() error { _, err := tensor.Mul(big, bigC); return err },
		"exp":             func() error { _, err := ew.Exp(big); return err },
		"exp complex":     func() error { _, err := ew.Exp(bigC); return err },
		"exp on a tape":   onTape(ew.ExpOp, big),
		"abs complex":     onTape(ew.AbsOp, bigC),
		"add on a tape":   onTape(ew.AddOp, big, tensor.Scalar(2)),
		"materialize":     func() error { _, err := permute.Materialize(big); return err },
		"pad":             func() error { _, err := index.Pad(tensor.New(tensor.Float64, 2), [2]int{0, 1 << 60}); return err },
		"pad view":        onTape(index.PadOp([2]int{0, 1}, [2]int{0, 0}), big),
		"concat":          onTape(index.ConcatOp(0), big, big),
		"stack":           onTape(index.StackOp(0), big, big, big),
		"indices":         func() error { _, err := nn.Indices(big); return err },
		"one_hot": func() error {
			labels, err := tensor.FromFloat64([]float64{1 << 52}, 1)
			require.NoError(t, err)
			_, err = nn.OneHot(labels, -1)
			return err
		},
	}
	for name, f := range cases {
		t.Run(name, func(t *testing.T) {
			var err error
			require.NotPanics(t, func() { err = f() })
			assert.ErrorIs(t, err, cr.ErrInvalidArgument)
			assert.ErrorContains(t, err, "too large")
		})
	}
}

// An index op on a huge broadcast view: its kernels read the view through a copy,
// and its input's cotangent is as large as the view, so recording it is an error
// rather than a panic in an allocation; on a contiguous input of the same
// (allocatable) size the op runs.
func TestTooLargeViewsInIndexOpsAreErrors(t *testing.T) {
	big, err := tensor.Scalar(1).BroadcastTo(1<<31, 1<<31)
	require.NoError(t, err)
	ops := map[string]cr.Op[*tensor.Dense]{
		"select":       index.SelectOp(0, 3),
		"narrow":       index.NarrowOp(1, 0, 2),
		"index_select": index.IndexSelectOp(0, 1, 2),
	}
	for name, op := range ops {
		t.Run(name, func(t *testing.T) {
			require.NotPanics(t, func() {
				tp := core.NewTape[*tensor.Dense](tensor.Space{})
				x := tp.Leaf(big)
				tp.Apply(reduce.SumOp(nil, false), tp.Apply(op, x))
				assert.ErrorIs(t, tp.Err(), cr.ErrInvalidArgument)
				assert.ErrorContains(t, tp.Err(), "too large")
			})
		})
	}
}
