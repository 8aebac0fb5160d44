package core_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
)

// A composite whose body re-enters the tape it is being applied on (the outer tape,
// captured in a closure) makes the nested call fail, and the outer Apply with it:
// the outer call returns zero NodeIDs, as after any error, and the tape's sticky
// error is the misuse. The outer call used to return a valid NodeID for the node
// it had recorded, while its own leave set the error.
func TestCompositeReenteringTheOuterTapeFails(t *testing.T) {
	for _, tc := range []struct {
		name  string
		apply func(tp *core.Tape[float64], body func(sub *core.Tape[float64], in []cr.NodeID) []cr.NodeID, x cr.NodeID) []cr.NodeID
	}{
		{"Apply", func(tp *core.Tape[float64], body func(*core.Tape[float64], []cr.NodeID) []cr.NodeID, x cr.NodeID) []cr.NodeID {
			return []cr.NodeID{tp.Apply(core.Composite("reenter", cr.Float64Space{}, 1, body), x)}
		}},
		{"ApplyMulti", func(tp *core.Tape[float64], body func(*core.Tape[float64], []cr.NodeID) []cr.NodeID, x cr.NodeID) []cr.NodeID {
			two := func(sub *core.Tape[float64], in []cr.NodeID) []cr.NodeID {
				y := body(sub, in)[0]
				return []cr.NodeID{y, sub.Apply(sinOp, y)}
			}
			return tp.ApplyMulti(core.Composite("reenter", cr.Float64Space{}, 1, two, core.Outputs(2)), x)
		}},
		{"Checkpoint", func(tp *core.Tape[float64], body func(*core.Tape[float64], []cr.NodeID) []cr.NodeID, x cr.NodeID) []cr.NodeID {
			return []cr.NodeID{tp.Checkpoint(func(sub *core.Tape[float64], in []cr.NodeID) cr.NodeID { return body(sub, in)[0] }, x)}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tp := newTape()
			x := tp.Leaf(0.5)
			var nested cr.NodeID
			body := func(sub *core.Tape[float64], in []cr.NodeID) []cr.NodeID {
				nested = tp.Apply(sinOp, x) // the outer tape, not sub
				return []cr.NodeID{sub.Apply(sinOp, in[0])}
			}
			ys := tc.apply(tp, body, x)
			assert.Zero(t, nested, "the nested call")
			require.NotEmpty(t, ys)
			for m, y := range ys {
				assert.Zero(t, y, "output %d of the outer call", m)
			}
			err := tp.Err()
			require.ErrorIs(t, err, cr.ErrInvalidArgument)
			assert.ErrorContains(t, err, "concurrent use of a tape")
			// The error is sticky.
			assert.Zero(t, tp.Apply(sinOp, x))
			_, err = tp.Backward(x)
			assert.ErrorContains(t, err, "concurrent use of a tape")
		})
	}
	// A body that records on its own tape only is fine.
	tp := newTape()
	x := tp.Leaf(0.5)
	y := tp.Apply(core.Composite("inner", cr.Float64Space{}, 1, func(sub *core.Tape[float64], in []cr.NodeID) []cr.NodeID {
		return []cr.NodeID{sub.Apply(sinOp, in[0])}
	}), x)
	require.NoError(t, tp.Err())
	assert.True(t, y.Valid())
}

// Two goroutines that use one tape at once get the misuse error, and the guard
// that detects it is race-free: run under go test -race (as CI does), the race
// detector reports nothing. The first goroutine holds the tape inside a blocking
// op while the second fails to enter it (so the misuse is certain), then both
// record in loops with no synchronisation between them: the guard lets one call in
// at a time, and once the misuse is the tape's error every call fails.
func TestMisuseFromTwoGoroutinesIsRaceFree(t *testing.T) {
	tp := newTape()
	x := tp.Leaf(0.5)
	op := blockingOp{entered: make(chan struct{}), release: make(chan struct{})}
	const rounds = 1000
	var wg sync.WaitGroup
	var held cr.NodeID
	valid := make([]int, 2)
	loop := func(g int) {
		for range rounds {
			if tp.Apply(sinOp, x).Valid() {
				valid[g]++
			}
		}
	}
	wg.Add(2)
	go func() {
		defer wg.Done()
		held = tp.Apply(op, x)
		loop(0)
	}()
	go func() {
		defer wg.Done()
		<-op.entered
		second := tp.Apply(sinOp, x) // the tape is held: this call fails at once
		close(op.release)
		if second.Valid() {
			valid[1]++
		}
		loop(1)
	}()
	wg.Wait()
	assert.Zero(t, held, "the call that held the tape fails too")
	assert.Equal(t, []int{0, 0}, valid, "calls that succeeded after the misuse")
	err := tp.Err()
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
	assert.ErrorContains(t, err, "concurrent use of a tape")
	assert.Equal(t, 2, tp.Len(), "the leaf and the node of the blocking op")
}

// A hook that re-enters the tape during a sweep makes the sweep fail, as the
// re-entry itself does, instead of returning gradients with a nil error.
func TestHookReenteringTheTapeFailsTheSweep(t *testing.T) {
	tp := newTape()
	x := tp.Leaf(0.5)
	u := tp.Apply(sinOp, x)
	y := tp.Apply(scaleOp(2), u)
	require.NoError(t, tp.AddHook(u, func(v float64) (float64, error) {
		tp.Apply(sinOp, x) // re-enters the tape the sweep holds
		return v, nil
	}))
	g, err := tp.Backward(y)
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
	assert.Nil(t, g)
	require.ErrorIs(t, tp.Err(), cr.ErrInvalidArgument)
}
