package core_test

import (
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
)

// TestParallelTapes runs separate tapes in parallel goroutines, all resolving ops
// through one registry while other goroutines register entries and install
// overrides in it. Run with go test -race.
func TestParallelTapes(t *testing.T) {
	const workers, rounds = 8, 20
	reg := cr.NewRegistry[float64]()
	require.NoError(t, reg.Register(cr.Entry[float64]{Name: "sin", Arity: 1}))
	require.NoError(t, reg.Register(cr.Entry[float64]{Name: "cube", Arity: 1}))
	// A custom gradient for cube: the pullback is doubled.
	require.NoError(t, reg.SetOverride("cube", func(op cr.Op[float64]) cr.Op[float64] {
		return unary("cube", func(x float64) (float64, float64, float64) { return x * x * x, 6 * x * x, 12 * x })
	}))

	var wg sync.WaitGroup
	errs := make(chan error, workers*rounds)
	for w := range workers {
		wg.Add(2)
		go func() { // a tape per goroutine, with every feature in use
			defer wg.Done()
			for r := range rounds {
				x0 := 0.1 + 0.01*float64(w*rounds+r)
				tp := newTape().UseRegistry(reg)
				if err := tp.DetectAnomaly(true); err != nil {
					errs <- err
					return
				}
				x := tp.Leaf(x0)
				y := tp.Checkpoint(func(sub *core.Tape[float64], in []cr.NodeID) cr.NodeID {
					return sub.Apply(cubeOp, sub.Apply(sinOp, in[0]))
				}, x)
				if err := tp.AddHook(x, func(v float64) (float64, error) { return v / 2, nil }); err != nil {
					errs <- err
					return
				}
				g, err := tp.Backward(y)
				if err != nil {
					errs <- err
					return
				}
				got, _ := g.Of(x)
				// d/dx sin(x)^3 = 3 sin^2 cos, doubled by the override, halved by the hook.
				if want := 3 * math.Pow(math.Sin(x0), 2) * math.Cos(x0); math.Abs(got-want) > 1e-15 {
					errs <- fmt.Errorf("worker %d round %d: got %v, want %v", w, r, got, want)
				}
			}
		}()
		go func() { // the registry under concurrent writes and reads
			defer wg.Done()
			for r := range rounds {
				name := fmt.Sprintf("op%d_%d", w, r)
				if err := reg.Register(cr.Entry[float64]{Name: name, Arity: 1}); err != nil {
					errs <- err
					return
				}
				if err := reg.SetOverride(name, func(op cr.Op[float64]) cr.Op[float64] { return op }); err != nil {
					errs <- err
					return
				}
				if _, ok := reg.Lookup(name); !ok {
					errs <- fmt.Errorf("%s not found", name)
				}
				_ = reg.Names()
				_ = reg.Resolve(sinOp)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	assert.Len(t, reg.Names(), 2+workers*rounds)
}
