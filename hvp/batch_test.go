package hvp_test

import (
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/einsum"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// batchDirs returns k random directions shaped like p.
func batchDirs(seed uint64, k int, p []*tensor.Dense) [][]*tensor.Dense {
	rng := rand.New(rand.NewPCG(seed, 7))
	vs := make([][]*tensor.Dense, k)
	for i := range vs {
		vs[i] = make([]*tensor.Dense, len(p))
		for j, pj := range p {
			vs[i][j] = tensor.RandN(rng, tensor.Float64, pj.Shape()...)
		}
	}
	return vs
}

// sequential returns H v_i by Apply, one after another, on a fresh operator.
func sequential(t *testing.T, f hvp.Func, p []*tensor.Dense, vs [][]*tensor.Dense) [][]*tensor.Dense {
	op, err := hvp.NewOperator(f, p)
	require.NoError(t, err)
	out := make([][]*tensor.Dense, len(vs))
	for i, v := range vs {
		out[i], err = op.Apply(v)
		require.NoError(t, err)
	}
	return out
}

func requireBitIdentical(t *testing.T, want, got [][]*tensor.Dense) {
	t.Helper()
	require.Len(t, got, len(want))
	for i := range want {
		require.Len(t, got[i], len(want[i]))
		for j := range want[i] {
			require.Equal(t, want[i][j].Shape(), got[i][j].Shape(), "direction %d input %d", i, j)
			require.Equal(t, floats(want[i][j]), floats(got[i][j]), "direction %d input %d", i, j)
		}
	}
}

func TestApplyBatchBitIdentical(t *testing.T) {
	X, Y, p := mlpProblem(1, 7, []int{5, 4, 3, 3})
	f := mlpLoss(X, Y)
	for _, k := range []int{0, 1, 3, 8} {
		vs := batchDirs(uint64(k), k, p)
		want := sequential(t, f, p, vs)
		for _, workers := range []int{0, 1, 2, 4, 16} {
			t.Run(fmt.Sprintf("k=%d/workers=%d", k, workers), func(t *testing.T) {
				op, err := hvp.NewOperator(f, p)
				require.NoError(t, err)
				op.Workers = workers
				got, err := op.ApplyBatch(vs)
				require.NoError(t, err)
				requireBitIdentical(t, want, got)
				// A second batch reuses the workers' recordings.
				got, err = op.ApplyBatch(vs)
				require.NoError(t, err)
				requireBitIdentical(t, want, got)
				if k > 0 {
					g, err := op.Grad()
					require.NoError(t, err)
					_, wantGrad, err := hvp.Grad(f, p)
					require.NoError(t, err)
					requireBitIdentical(t, [][]*tensor.Dense{wantGrad}, [][]*tensor.Dense{g})
				}
			})
		}
	}
}

func TestApplyBatchNilDirections(t *testing.T) {
	X, Y, p := mlpProblem(2, 5, []int{3, 4, 2, 2})
	f := mlpLoss(X, Y)
	vs := batchDirs(3, 4, p)
	vs[1][0], vs[2] = nil, make([]*tensor.Dense, len(p))
	want := sequential(t, f, p, vs)
	op, err := hvp.NewOperator(f, p)
	require.NoError(t, err)
	op.Workers = 3
	got, err := op.ApplyBatch(vs)
	require.NoError(t, err)
	requireBitIdentical(t, want, got)
}

func TestApplyBatchFlatBitIdentical(t *testing.T) {
	X, Y, p := mlpProblem(4, 6, []int{4, 3, 3, 2})
	f := mlpLoss(X, Y)
	op, err := hvp.NewOperator(f, p)
	require.NoError(t, err)
	l, err := op.Layout()
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(5, 5))
	const k = 5
	v, want, got := make([][]float64, k), make([][]float64, k), make([][]float64, k)
	for i := range k {
		v[i], want[i], got[i] = make([]float64, l.Dim()), make([]float64, l.Dim()), make([]float64, l.Dim())
		for j := range v[i] {
			v[i][j] = rng.NormFloat64()
		}
		require.NoError(t, op.ApplyFlat(want[i], v[i]))
	}
	for _, workers := range []int{1, 2, 8} {
		op, err := hvp.NewOperator(f, p)
		require.NoError(t, err)
		op.Workers = workers
		require.NoError(t, op.ApplyBatchFlat(got, v))
		require.Equal(t, want, got, "workers=%d", workers)
	}
	err = op.ApplyBatchFlat(got[:2], v)
	require.ErrorIs(t, err, cr.ErrShapeMismatch)
	short := [][]float64{v[0], v[1][:3]}
	err = op.ApplyBatchFlat(got[:2], short)
	require.ErrorIs(t, err, cr.ErrShapeMismatch)
	require.ErrorContains(t, err, "direction 1")
	require.NoError(t, op.ApplyBatchFlat(nil, nil))
}

func TestApplyBatchModelOperator(t *testing.T) {
	X, Y, p := mlpProblem(6, 6, []int{4, 3, 3})
	model := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		return t.Apply(ew.TanhOp, t.Apply(ew.AddOp, t.Apply(einsumBI, t.Constant(X), x[0]), x[1]))
	}
	loss := hvp.MSELoss(Y)
	vs := batchDirs(7, 5, p[:2])
	seqOp, err := hvp.NewModelOperator(model, loss, p[:2])
	require.NoError(t, err)
	want := make([][]*tensor.Dense, len(vs))
	for i, v := range vs {
		want[i], err = seqOp.Apply(v)
		require.NoError(t, err)
	}
	op, err := hvp.NewModelOperator(model, loss, p[:2])
	require.NoError(t, err)
	op.Workers = 2
	got, err := op.ApplyBatch(vs)
	require.NoError(t, err)
	requireBitIdentical(t, want, got)
	gv, err := op.GaussNewton(vs[0])
	require.NoError(t, err)
	wantGV, err := seqOp.GaussNewton(vs[0])
	require.NoError(t, err)
	requireBitIdentical(t, [][]*tensor.Dense{wantGV}, [][]*tensor.Dense{gv})
}

func TestApplyBatchErrors(t *testing.T) {
	X, Y, p := mlpProblem(1, 7, []int{5, 4, 3, 3})
	f := mlpLoss(X, Y)
	for _, workers := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			op, err := hvp.NewOperator(f, p)
			require.NoError(t, err)
			op.Workers = workers

			vs := batchDirs(8, 8, p)
			vs[5][2] = tensor.New(tensor.Float64, 9, 9)
			_, err = op.ApplyBatch(vs)
			require.ErrorIs(t, err, cr.ErrShapeMismatch)
			require.ErrorContains(t, err, "direction 5:")

			vs[3] = vs[3][:2] // two bad directions: the first is named
			_, err = op.ApplyBatch(vs)
			require.ErrorIs(t, err, cr.ErrInvalidArgument)
			require.ErrorContains(t, err, "direction 3:")

			// The operator still works after the failed batches.
			good := batchDirs(9, 3, p)
			got, err := op.ApplyBatch(good)
			require.NoError(t, err)
			requireBitIdentical(t, sequential(t, f, p, good), got)
		})
	}
}

// eagerWorkers makes each worker goroutine of a batch or an objective run to its end
// before the calling goroutine goes on, so that the first worker takes every
// direction or shard (as when the caller's core is busy with another process), and
// returns the function that restores the default.
func eagerWorkers() (restore func()) {
	return hvp.SetSpawn(func(f func()) {
		done := make(chan struct{})
		go func() {
			defer close(done)
			f()
		}()
		<-done
	})
}

func TestApplyBatchRecordingErrorAndPanic(t *testing.T) {
	// A worker records f only once it has taken a direction, and the calling
	// goroutine may take them all first: make worker 1 take them.
	defer eagerWorkers()()
	x := []*tensor.Dense{tensor.Ones(tensor.Float64, 3)}
	vs := [][]*tensor.Dense{x, x, x, x}
	var calls atomic.Int32
	broken := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		y := t.Apply(ew.SinOp, x[0])
		if calls.Add(1) > 1 { // a different function the second time
			y = t.Apply(ew.AddOp, y, t.Constant(tensor.Ones(tensor.Float64, 4)))
		}
		return t.Apply(reduce.SumOp(nil, false), y)
	}
	op, err := hvp.NewOperator(broken, x)
	require.NoError(t, err)
	op.Workers = 2
	_, err = op.ApplyBatch(vs)
	require.ErrorContains(t, err, "recording f again for batch worker 1")
	require.ErrorIs(t, err, cr.ErrShapeMismatch)

	calls.Store(0)
	panicky := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		if calls.Add(1) > 1 {
			panic("f called twice")
		}
		return t.Apply(reduce.SumOp(nil, false), t.Apply(ew.SinOp, x[0]))
	}
	op, err = hvp.NewOperator(panicky, x)
	require.NoError(t, err)
	op.Workers = 2
	require.PanicsWithValue(t, "f called twice", func() { _, _ = op.ApplyBatch(vs) })

	op.Workers = 1 // the sequential loop never records again
	_, err = op.ApplyBatch(vs)
	require.NoError(t, err)
}

func TestHessianBatchBitIdentical(t *testing.T) {
	X, Y, p := mlpProblem(3, 6, []int{3, 3, 2, 2})
	f := mlpLoss(X, Y)
	want, err := hvp.WithWorkers(1).Hessian(f, p)
	require.NoError(t, err)
	for _, workers := range []int{0, 2, 5} {
		got, err := hvp.WithWorkers(workers).Hessian(f, p)
		require.NoError(t, err)
		require.True(t, mat.Equal(want, got), "workers=%d", workers)
	}
	got, err := hvp.Hessian(f, p)
	require.NoError(t, err)
	require.True(t, mat.Equal(want, got))

	// An error in a column names it: an op with a first-order rule only.
	bad := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID { return t.Apply(firstOrderOp{}, x[0]) }
	_, err = hvp.WithWorkers(2).Hessian(bad, []*tensor.Dense{tensor.Ones(tensor.Float64, 2)})
	require.ErrorContains(t, err, "hvp.Hessian: direction 0:")
}

// firstOrderOp is doubleWellOp with its rule's forward and second-order methods
// hidden.
type firstOrderOp struct{}

func (firstOrderOp) Name() string { return "first_order_double_well" }

// NumOutputs returns 1.
func (firstOrderOp) NumOutputs() int { return 1 }

func (firstOrderOp) Apply(in []cr.NodeID, x, out []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	r, err := doubleWellOp{}.Apply(in, x, out)
	return struct{ cr.Rule[*tensor.Dense] }{r}, err
}

var einsumBI = einsum.Op("bi,ij->bj")
