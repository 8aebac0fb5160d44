package ops_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/ops"
	"github.com/chainrules-go/chainrules/tensor"
)

// hugeElems is about the element count of the views hugeLike makes: 2^50, past what
// memory can hold (tensor.MaxAllocBytes is 2^48 bytes, 2^45 float64 elements).
const hugeLog2 = 50

// hugeLike returns a view of x's dtype and rank that is too large to copy: one
// element (x's first, so that inputs holding indices or labels stay in range)
// broadcast with zero strides to 2^ceil(50/rank) along every axis, which allocates
// nothing. A 0-d x cannot be made large: ok is false.
func hugeLike(t *testing.T, x *tensor.Dense) (v *tensor.Dense, ok bool) {
	r := x.Rank()
	if r == 0 {
		return x, false
	}
	var first complex128
	if x.Size() > 0 {
		first = x.Contiguous().At(make([]int, r)...)
	}
	ones, shape := make([]int, r), make([]int, r)
	for k := range ones {
		ones[k], shape[k] = 1, 1<<((hugeLog2+r-1)/r)
	}
	v, err := tensor.Full(x.DType(), first, ones...).BroadcastTo(shape...)
	require.NoError(t, err)
	require.Error(t, tensor.CheckAlloc(v.DType(), v.Shape()...), "the view must be too large to copy")
	return v, true
}

// emptyLike returns a tensor of x's dtype and rank with no elements (every axis of
// size 0); a 0-d x is returned as it is.
func emptyLike(x *tensor.Dense) *tensor.Dense {
	if x.Rank() == 0 {
		return x
	}
	return tensor.New(x.DType(), make([]int, x.Rank())...)
}

// nanLike returns a tensor of x's dtype and shape whose every element is NaN (NaN
// real and imaginary parts for complex128).
func nanLike(x *tensor.Dense) *tensor.Dense {
	return tensor.Full(x.DType(), complex(math.NaN(), math.NaN()), x.Shape()...)
}

// catch runs f and returns the value of a panic in it, or nil.
func catch(f func()) (p any) {
	defer func() { p = recover() }()
	f()
	return nil
}

// applyOnTape records op on a fresh tape at leaves holding x and returns the
// outputs' nodes and the tape.
func applyOnTape(op cr.Op[*tensor.Dense], x []*tensor.Dense) ([]cr.NodeID, *core.Tape[*tensor.Dense]) {
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	ids := make([]cr.NodeID, len(x))
	for k, v := range x {
		ids[k] = tp.Leaf(v)
	}
	return tp.ApplyMulti(op, ids...), tp
}

// Every registered family, at every sample, with each input replaced by a view of
// the same dtype and rank that is too large to copy (a broadcast of one element to
// about 2^50 elements, which costs nothing to make), returns an error naming the op,
// evaluated without a tape (chainrules.EvalMulti) and recorded on one, and never
// panics in an allocation; the tape's outputs are then zero NodeIDs. The same
// samples with empty inputs (every axis of size 0) and with NaN inputs may give
// an error or a value, but no panic, and neither does the backward pass from a
// value. Samples whose inputs are all 0-d have no huge variant.
func TestEveryFamilyRefusesHugeViews(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	huge := 0
	for _, e := range ops.Default().Entries() {
		if e.Samples == nil {
			continue
		}
		t.Run(e.Name, func(t *testing.T) {
			for _, s := range e.Samples(rng) {
				in := make([]*tensor.Dense, len(s.Inputs))
				anyHuge := false
				for k, x := range s.Inputs {
					var ok bool
					in[k], ok = hugeLike(t, x)
					anyHuge = anyHuge || ok
				}
				if anyHuge {
					huge++
					checkRefused(t, e.Name, s, in)
				}
				for variant, f := range map[string]func(*tensor.Dense) *tensor.Dense{"empty": emptyLike, "NaN": nanLike} {
					in := make([]*tensor.Dense, len(s.Inputs))
					for k, x := range s.Inputs {
						in[k] = f(x)
					}
					checkNoPanic(t, fmt.Sprintf("%s (%s inputs)", s.Name, variant), s.Op, in)
				}
			}
		})
	}
	assert.Greater(t, huge, 500, "samples swept with huge views")
}

// checkRefused requires op to refuse the huge inputs in, without a tape and on one.
func checkRefused(t *testing.T, family string, s cr.Sample[*tensor.Dense], in []*tensor.Dense) {
	t.Helper()
	refused := func(how string, err error) {
		t.Helper()
		if assert.Error(t, err, "%s on huge views, %s: no error", s.Name, how) {
			assert.True(t, errors.Is(err, cr.ErrInvalidArgument) || errors.Is(err, cr.ErrShapeMismatch),
				"%s on huge views, %s: %v", s.Name, how, err)
			assert.True(t, strings.Contains(err.Error(), family), "%s on huge views, %s: the error does not name %s: %v", s.Name, how, family, err)
		}
	}
	var err error
	if p := catch(func() { _, err = cr.EvalMulti(s.Op, in...) }); p != nil {
		t.Errorf("%s on huge views, without a tape: panic: %v", s.Name, p)
	} else {
		refused("without a tape", err)
	}
	var ys []cr.NodeID
	var tp *core.Tape[*tensor.Dense]
	if p := catch(func() { ys, tp = applyOnTape(s.Op, in) }); p != nil {
		t.Errorf("%s on huge views, on a tape: panic: %v", s.Name, p)
		return
	}
	refused("on a tape", tp.Err())
	for m, y := range ys {
		assert.Zero(t, y, "%s on huge views: output %d of a failed Apply", s.Name, m)
	}
}

// checkNoPanic applies op to in without a tape and on one and, if that gives a
// value, runs the backward pass from the first differentiable output; none of it
// may panic.
func checkNoPanic(t *testing.T, name string, op cr.Op[*tensor.Dense], in []*tensor.Dense) {
	t.Helper()
	if p := catch(func() { _, _ = cr.EvalMulti(op, in...) }); p != nil {
		t.Errorf("%s, without a tape: panic: %v", name, p)
	}
	p := catch(func() {
		ys, tp := applyOnTape(op, in)
		if tp.Err() != nil {
			return
		}
		for m, y := range ys {
			if !cr.IsOutputDifferentiable(op, m) {
				continue
			}
			v, err := tp.Value(y)
			if err != nil || v == nil {
				return
			}
			_, _ = tp.BackwardSeed(y, tensor.Ones(v.DType(), v.Shape()...))
			return
		}
	})
	if p != nil {
		t.Errorf("%s, on a tape: panic: %v", name, p)
	}
}
