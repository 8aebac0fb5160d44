package core_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

// inputsOp is a two-input op whose rule names the inputs that pick chooses from
// the op's (after the op has had the chance to overwrite its slice of them, as
// scribble does).
func inputsOp(pick func(in []cr.NodeID) []cr.NodeID, scribble bool) cr.Op[float64] {
	return cr.OpFunc[float64]{OpName: "pick", F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
		if scribble {
			for j := range in {
				in[j] = cr.NodeID(1<<40 + j) // a NodeID of no tape
			}
		}
		return x[0] + x[1], &sumRule{in: pick(in)}, nil
	}}
}

type sumRule struct{ in []cr.NodeID }

func (r *sumRule) Inputs() []cr.NodeID { return r.in }

func (r *sumRule) Pullback(ybar []float64, _ []bool, dst []cr.Contribution[float64]) ([]cr.Contribution[float64], error) {
	for _, id := range r.in {
		dst = append(dst, cr.Contribution[float64]{Node: id, Value: ybar[0]})
	}
	return dst, nil
}

// Apply takes the flags of the op's inputs when the rule names exactly them, and
// otherwise looks up the rule's own inputs: whether the output needs a gradient
// follows the rule, and a rule that names a node of no tape is an error.
func TestApplyFlagsFollowTheRule(t *testing.T) {
	for _, tc := range []struct {
		name     string
		pick     func(in []cr.NodeID) []cr.NodeID
		scribble bool
		requires bool   // of the output
		err      string // a part of the tape's error, or ""
	}{
		{"the op's inputs", func(in []cr.NodeID) []cr.NodeID { return append([]cr.NodeID(nil), in...) }, false, true, ""},
		{"the constant only", func(in []cr.NodeID) []cr.NodeID { return []cr.NodeID{in[1]} }, false, false, ""},
		{"the leaf only", func(in []cr.NodeID) []cr.NodeID { return []cr.NodeID{in[0]} }, false, true, ""},
		{"reversed", func(in []cr.NodeID) []cr.NodeID { return []cr.NodeID{in[1], in[0]} }, false, true, ""},
		{"none", func([]cr.NodeID) []cr.NodeID { return nil }, false, false, ""},
		{"the op's slice, overwritten", func(in []cr.NodeID) []cr.NodeID { return in }, true, false, "the rule's input"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tp := newTape()
			x, c := tp.Leaf(1), tp.Constant(2)
			y := tp.Apply(inputsOp(tc.pick, tc.scribble), x, c)
			if tc.err != "" {
				require.Error(t, tp.Err())
				assert.ErrorIs(t, tp.Err(), cr.ErrMissingNode)
				assert.Contains(t, tp.Err().Error(), tc.err)
				assert.Zero(t, y)
				return
			}
			require.NoError(t, tp.Err())
			assert.Equal(t, tc.requires, tp.RequiresGrad(y))
		})
	}
}

// Op names are interned through a cache keyed by the name's data: names built at
// run time (equal content, different data) and more distinct names than the cache
// holds must still map to one index per name.
func TestOpNamesInterned(t *testing.T) {
	tp := newTape()
	y := tp.Leaf(1)
	var ids []cr.NodeID
	var names []string
	for i := range 40 {
		name := fmt.Sprintf("op%d", i%13)
		if i%2 == 0 {
			name = strings.Clone(name) // same content, other data
		}
		y = tp.Apply(scaleNamed(name), y)
		ids, names = append(ids, y), append(names, name)
	}
	require.NoError(t, tp.Err())
	for k, id := range ids {
		got, err := tp.OpName(id)
		require.NoError(t, err)
		assert.Equal(t, names[k], got)
	}
}

func scaleNamed(name string) cr.Op[float64] {
	return cr.OpFunc[float64]{OpName: name, F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
		return 2 * x[0], &unaryRule{in: [1]cr.NodeID{in[0]}, d1: 2}, nil
	}}
}
