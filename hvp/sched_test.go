package hvp_test

import (
	"errors"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/tensor"
)

// lateWorkers makes every worker goroutine of a batch or an objective start only
// once release is closed (as on a core busy with another process), and returns the
// function that restores the default after checking that every late worker, once
// released, has ended: it finds nothing left and touches nothing.
func lateWorkers(t *testing.T) (release func(), restore func()) {
	ch := make(chan struct{})
	var late sync.WaitGroup
	undo := hvp.SetSpawn(func(f func()) {
		late.Add(1)
		go func() {
			defer late.Done()
			<-ch
			f()
		}()
	})
	var once sync.Once
	release = func() { once.Do(func() { close(ch) }) }
	return release, func() {
		release()
		ended := make(chan struct{})
		go func() { late.Wait(); close(ended) }()
		select {
		case <-ended:
		case <-time.After(10 * time.Second):
			t.Error("a late worker goroutine is stuck")
		}
		undo()
	}
}

// within runs f on a goroutine of its own and fails the test if it does not return
// within 10 seconds: the caller waited for a worker that had not started.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s waited for a worker goroutine that had not started", what)
	}
}

func requireSameBits(t *testing.T, want, got []float64, what string) {
	t.Helper()
	require.Len(t, got, len(want), what)
	for i := range want {
		require.Equal(t, math.Float64bits(want[i]), math.Float64bits(got[i]), "%s[%d]: %v, want %v", what, i, got[i], want[i])
	}
}

// The value, gradient and Hessian-vector product of a sharded objective are the
// shards' added in shard order, bit for bit, whichever goroutine evaluated which
// shard: all on the calling goroutine (the workers start late, and the objective
// returns without waiting for them), all on the first worker (it starts first and
// takes every shard), or as the scheduler deals them.
func TestShardedObjectiveLateAndEagerWorkers(t *testing.T) {
	const n, d, k, lambda = 600, 7, 4, 1e-3
	xs, negY := logisticData(3, n, d)
	l, _ := hvp.NewLayout([]int{d})
	x, v := make([]float64, d), make([]float64, d)
	for i := range x {
		x[i], v[i] = 0.1*float64(i)-0.3, 1/float64(i+1)
	}
	// The sums in shard order, by hand.
	wantF, wantG, wantHv := 0.0, make([]float64, d), make([]float64, d)
	for s, sh := range logisticShards(xs, negY, n, d, k, lambda) {
		g, hv := make([]float64, d), make([]float64, d)
		f, err := sh.Eval(x, g)
		require.NoError(t, err)
		require.NoError(t, sh.HessVec(hv, x, v))
		wantF += f
		if s == 0 {
			copy(wantG, g)
			copy(wantHv, hv)
			continue
		}
		for i := range d {
			wantG[i] += g[i]
			wantHv[i] += hv[i]
		}
	}
	check := func(t *testing.T) {
		obj := hvp.NewShardedObjective(l, logisticShards(xs, negY, n, d, k, lambda)...)
		g, hv := make([]float64, d), make([]float64, d)
		var f float64
		var err error
		within(t, "the sharded objective", func() {
			f = obj.Func(x)
			obj.Grad(g, x)
			err = obj.HessVec(hv, x, v)
		})
		require.NoError(t, err)
		require.NoError(t, obj.Err())
		requireSameBits(t, []float64{wantF}, []float64{f}, "f")
		requireSameBits(t, wantG, g, "grad")
		requireSameBits(t, wantHv, hv, "hv")
	}
	t.Run("late", func(t *testing.T) {
		_, restore := lateWorkers(t)
		defer restore()
		check(t)
	})
	t.Run("eager", func(t *testing.T) {
		defer eagerWorkers()()
		check(t)
	})
	t.Run("default", check)
}

// panicShard panics in Eval.
type panicShard struct{ hvp.Shard }

func (panicShard) Eval(x, grad []float64) (float64, error) { panic("shard broken") }

// A shard that panics fails the evaluation with a *PanicError naming it, whether it
// ran on the calling goroutine (late workers) or on a worker (eager workers), and no
// worker is left running: the objective evaluates again afterwards.
func TestShardedObjectivePanicAnyGoroutine(t *testing.T) {
	const n, d = 90, 3
	xs, negY := logisticData(4, n, d)
	l, _ := hvp.NewLayout([]int{d})
	x := []float64{0.5, -0.25, 1}
	check := func(t *testing.T) {
		shards := logisticShards(xs, negY, n, d, 3, 0)
		shards[2] = panicShard{shards[2]}
		obj := hvp.NewShardedObjective(l, shards...)
		var f float64
		within(t, "the sharded objective", func() { f = obj.Func(x) })
		require.True(t, math.IsNaN(f))
		err := obj.Err()
		var pe *hvp.PanicError
		require.ErrorAs(t, err, &pe)
		require.Equal(t, 2, pe.Shard)
		require.Equal(t, "shard broken", pe.Value)
		require.ErrorIs(t, err, cr.ErrInvalidArgument)
		require.ErrorContains(t, err, "shard 2 panicked")
		// Again, after the panic: the same error, no stuck goroutine.
		obj.ClearErr()
		within(t, "the sharded objective", func() { f = obj.Func(x) })
		require.True(t, math.IsNaN(f))
		require.True(t, errors.As(obj.Err(), &pe) && pe.Shard == 2)
	}
	t.Run("late", func(t *testing.T) {
		_, restore := lateWorkers(t)
		defer restore()
		check(t)
	})
	t.Run("eager", func(t *testing.T) {
		defer eagerWorkers()()
		check(t)
	})
}

// A batch whose workers start late is done by the calling goroutine, bit-identical
// to the sequential loop, without waiting for them; released, the late workers find
// no direction left and end without recording f (f ran once, for the Operator's own
// tape). Workers that start first take every direction, each recording f once.
func TestApplyBatchLateAndEagerWorkers(t *testing.T) {
	X, Y, p := mlpProblem(5, 6, []int{4, 3, 3, 2})
	f := mlpLoss(X, Y)
	vs := batchDirs(6, 7, p)
	want := sequential(t, f, p, vs)
	var calls atomic.Int32
	counted := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		calls.Add(1)
		return f(t, x)
	}
	newOp := func(t *testing.T) *hvp.Operator {
		calls.Store(0)
		op, err := hvp.NewOperator(counted, p)
		require.NoError(t, err)
		require.EqualValues(t, 1, calls.Load())
		op.Workers = 3
		return op
	}
	t.Run("late", func(t *testing.T) {
		release, restore := lateWorkers(t)
		defer restore()
		op := newOp(t)
		var got [][]*tensor.Dense
		var err error
		within(t, "ApplyBatch", func() { got, err = op.ApplyBatch(vs) })
		require.NoError(t, err)
		requireBitIdentical(t, want, got)
		release()
		restore()
		require.EqualValues(t, 1, calls.Load(), "a late worker recorded f")
	})
	t.Run("eager", func(t *testing.T) {
		defer eagerWorkers()()
		op := newOp(t)
		got, err := op.ApplyBatch(vs)
		require.NoError(t, err)
		requireBitIdentical(t, want, got)
		// Worker 1 took every direction: one recording of its own.
		require.EqualValues(t, 2, calls.Load())
		got, err = op.ApplyBatch(vs) // its recording is kept
		require.NoError(t, err)
		requireBitIdentical(t, want, got)
		require.EqualValues(t, 2, calls.Load())
	})
}

// With Workers = 0 a batch starts min(k, GOMAXPROCS) - 1 workers, GOMAXPROCS read
// at each call.
func TestApplyBatchReadsGOMAXPROCS(t *testing.T) {
	X, Y, p := mlpProblem(7, 5, []int{3, 2, 2, 2})
	f := mlpLoss(X, Y)
	vs := batchDirs(8, 6, p)
	want := sequential(t, f, p, vs)
	var spawned atomic.Int32
	defer hvp.SetSpawn(func(f func()) {
		spawned.Add(1)
		go f()
	})()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	op, err := hvp.NewOperator(f, p)
	require.NoError(t, err)
	for _, procs := range []int{1, 3, 2} {
		runtime.GOMAXPROCS(procs)
		spawned.Store(0)
		got, err := op.ApplyBatch(vs)
		require.NoError(t, err)
		requireBitIdentical(t, want, got)
		require.EqualValues(t, procs-1, spawned.Load(), "GOMAXPROCS %d", procs)
	}
}
