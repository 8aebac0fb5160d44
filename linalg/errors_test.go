package linalg_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/linalg"
	"github.com/chainrules-go/chainrules/tensor"
)

// applyErr records op (or multi) on constants and returns the tape's error,
// failing the test if the op panics.
func applyErr(t *testing.T, op cr.Op[*tensor.Dense], multi cr.Op[*tensor.Dense], x ...*tensor.Dense) (err error) {
	t.Helper()
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("panic: %v", p)
		}
	}()
	tape := core.NewTape[*tensor.Dense](tensor.Space{})
	ids := make([]cr.NodeID, len(x))
	for k, v := range x {
		ids[k] = tape.Leaf(v)
	}
	if op != nil {
		tape.Apply(op, ids...)
	} else {
		tape.ApplyMulti(multi, ids...)
	}
	return tape.Err()
}

// TestInvalidInput checks that invalid input is a typed error naming the op, never
// a panic.
func TestInvalidInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	r := func(sh ...int) *tensor.Dense { return tensor.RandN(rng, tensor.Float64, sh...) }
	c := func(sh ...int) *tensor.Dense { return tensor.RandN(rng, tensor.Complex128, sh...) }
	singular := tensor.New(tensor.Float64, 3, 3)
	singular.Set(1, 0, 0)
	notPD := r(3, 3)
	for i := range 3 {
		for j := range 3 {
			notPD.Set(complex(float64(i+j+1), 0), i, j)
		}
	}
	badPiv, err := tensor.FromFloat64([]float64{4, 2, 3}, 3)
	require.NoError(t, err)
	for _, tc := range []struct {
		name     string
		op       cr.Op[*tensor.Dense]
		multi    cr.Op[*tensor.Dense]
		x        []*tensor.Dense
		sentinel error
		contains string
	}{
		{"solve non-square", linalg.SolveOp(), nil, in(r(3, 4), r(3, 2)), cr.ErrShapeMismatch, "solve:"},
		{"solve rows", linalg.SolveOp(), nil, in(r(3, 3), r(4, 2)), cr.ErrShapeMismatch, "solve:"},
		{"solve batch", linalg.SolveOp(), nil, in(r(2, 3, 3), r(3, 3, 2)), cr.ErrShapeMismatch, "solve:"},
		{"solve dtypes", linalg.SolveOp(), nil, in(r(3, 3), c(3, 2)), cr.ErrInvalidArgument, "dtypes"},
		{"solve singular", linalg.SolveOp(), nil, in(singular, r(3, 2)), cr.ErrInvalidArgument, "singular"},
		{"solve vector A", linalg.SolveOp(), nil, in(r(3), r(3)), cr.ErrShapeMismatch, "at least 2 dims"},
		{"inv singular", linalg.InvOp(), nil, in(singular), cr.ErrInvalidArgument, "inv:"},
		{"inv non-square", linalg.InvOp(), nil, in(r(2, 3)), cr.ErrShapeMismatch, "square"},
		{"det non-square", linalg.DetOp(), nil, in(r(2, 3)), cr.ErrShapeMismatch, "det:"},
		{"cholesky not PD", linalg.CholeskyOp(false), nil, in(notPD), cr.ErrInvalidArgument, "leading minor of order 2"},
		{"cholesky non-square", linalg.CholeskyOp(true), nil, in(r(3, 2)), cr.ErrShapeMismatch, "cholesky:"},
		{"solve_triangular rows", linalg.SolveTriangularOp(true, true, false), nil, in(r(3, 3), r(2, 3)), cr.ErrShapeMismatch, "solve_triangular"},
		{"solve_triangular cols", linalg.SolveTriangularOp(true, false, false), nil, in(r(3, 3), r(3, 2)), cr.ErrShapeMismatch, "solve_triangular"},
		{"cholesky_solve rows", linalg.CholeskySolveOp(false), nil, in(r(2, 1), r(3, 3)), cr.ErrShapeMismatch, "solve_triangular"},
		{"eigh non-square", nil, linalg.EighOp(), in(r(3, 2)), cr.ErrShapeMismatch, "eigh:"},
		{"svd vector", nil, linalg.SVDOp(), in(r(3)), cr.ErrShapeMismatch, "svd:"},
		{"lstsq rows", nil, linalg.LstsqOp(), in(r(4, 3), r(3, 2)), cr.ErrShapeMismatch, "lstsq:"},
		{"matrix_exp non-square", linalg.MatrixExpOp(), nil, in(r(2, 3)), cr.ErrShapeMismatch, "matrix_exp"},
		{"matrix_power non-square", linalg.MatrixPowerOp(2), nil, in(r(2, 3)), cr.ErrShapeMismatch, "matrix_power"},
		{"matrix_power singular", linalg.MatrixPowerOp(-1), nil, in(singular), cr.ErrInvalidArgument, "singular"},
		{"vector_norm axis", linalg.VectorNormOp(2, []int{2}, false), nil, in(r(3, 2)), cr.ErrInvalidArgument, "out of range"},
		{"vector_norm repeated axis", linalg.VectorNormOp(2, []int{0, -2}, false), nil, in(r(3, 2)), cr.ErrInvalidArgument, "repeated"},
		{"vector_norm inf empty", linalg.VectorNormOp(math.Inf(1), nil, false), nil, in(r(0, 2)), cr.ErrInvalidArgument, "no elements"},
		{"vector_norm NaN ord", linalg.VectorNormOp(math.NaN(), nil, false), nil, in(r(2)), cr.ErrInvalidArgument, "NaN"},
		{"matrix_norm ord", linalg.MatrixNormOp("3", -2, -1, false), nil, in(r(2, 2)), cr.ErrInvalidArgument, "unknown ord"},
		{"matrix_norm same axes", linalg.MatrixNormOp(linalg.OrdFro, 1, -1, false), nil, in(r(2, 2)), cr.ErrInvalidArgument, "repeated"},
		{"matrix_norm vector", linalg.MatrixNormOp(linalg.OrdFro, -2, -1, false), nil, in(r(2)), cr.ErrShapeMismatch, "matrix_norm"},
		{"matrix_norm 2 empty", linalg.MatrixNormOp(linalg.Ord2, -2, -1, false), nil, in(r(0, 3)), cr.ErrInvalidArgument, "not defined"},
		{"cond ord", linalg.CondOp("x"), nil, in(r(2, 2)), cr.ErrInvalidArgument, "unknown ord"},
		{"cond fro non-square", linalg.CondOp(linalg.OrdFro), nil, in(r(2, 3)), cr.ErrShapeMismatch, "cond"},
		{"trace non-square", linalg.TraceOp(), nil, in(r(2, 3)), cr.ErrShapeMismatch, "trace"},
		{"cross size", linalg.CrossOp(-1), nil, in(r(2, 4), r(2, 4)), cr.ErrShapeMismatch, "size 3"},
		{"cross broadcast", linalg.CrossOp(-1), nil, in(r(2, 3), r(4, 3)), cr.ErrShapeMismatch, "broadcast"},
		{"vecdot axis", linalg.VecdotOp(3), nil, in(r(2, 3), r(2, 3)), cr.ErrInvalidArgument, "vecdot"},
		{"vander empty", linalg.VanderOp(0), nil, in(r(0)), cr.ErrInvalidArgument, "vander"},
		{"tensorinv ind", linalg.TensorinvOp(0), nil, in(r(2, 2)), cr.ErrInvalidArgument, "tensorinv"},
		{"tensorinv not square", linalg.TensorinvOp(1), nil, in(r(2, 3)), cr.ErrShapeMismatch, "tensorinv"},
		{"tensorsolve shapes", linalg.TensorsolveOp(nil), nil, in(r(2, 3, 5), r(2, 3)), cr.ErrShapeMismatch, "tensorsolve"},
		{"householder m < n", linalg.HouseholderProductOp(), nil, in(r(3, 4), r(2)), cr.ErrShapeMismatch, "householder_product"},
		{"householder tau batch", linalg.HouseholderProductOp(), nil, in(r(2, 4, 3), r(3, 2)), cr.ErrShapeMismatch, "householder_product"},
		{"lu_factor singular", nil, linalg.LUFactorOp(), in(singular), cr.ErrInvalidArgument, "singular"},
		{"lu_factor vector", nil, linalg.LUFactorOp(), in(r(3)), cr.ErrShapeMismatch, "lu_factor"},
		{"lu_solve pivots", linalg.LUSolveOp(true, false), nil, in(r(3, 3), badPiv, r(3, 2)), cr.ErrInvalidArgument, "pivot"},
		{"lu_solve pivot shape", linalg.LUSolveOp(true, false), nil, in(r(3, 3), r(2), r(3, 2)), cr.ErrShapeMismatch, "pivots"},
		{"lu vector", nil, linalg.LUOp(), in(r(3)), cr.ErrShapeMismatch, "lu:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := applyErr(t, tc.op, tc.multi, tc.x...)
			require.Error(t, err)
			require.ErrorIs(t, err, tc.sentinel)
			require.True(t, strings.Contains(err.Error(), tc.contains), "%v does not mention %q", err, tc.contains)
		})
	}
}

func in(x ...*tensor.Dense) []*tensor.Dense { return x }

// TestSizeParametersCheckedFirst checks that a size parameter is validated, with the
// size of the result it asks for, before the op does any work: vander with more
// columns than memory holds recorded a product per column first, and matrix_power
// with k = math.MinInt, whose -k overflows, failed with an error about a missing
// node. The cases stop at the first failure: on a tree without the checks, a
// vander case records columns until memory runs out (-timeout guards it alone).
func TestSizeParametersCheckedFirst(t *testing.T) {
	spd, err := tensor.FromFloat64([]float64{2, 1, 1, 2}, 2, 2)
	require.NoError(t, err)
	one, err := tensor.FromFloat64([]float64{0.5}, 1)
	require.NoError(t, err)
	wide, err := one.BroadcastTo(1 << 40) // x of 2^40 elements: 2^80 by default
	require.NoError(t, err)
	for _, tc := range []struct {
		name     string
		op       cr.Op[*tensor.Dense]
		x        *tensor.Dense
		contains []string
	}{
		{"matrix_power MinInt", linalg.MatrixPowerOp(math.MinInt), spd, []string{"matrix_power:", "k = -9223372036854775808", "overflows"}},
		{"vander 2^62 columns", linalg.VanderOp(1 << 62), tensor.Ones(tensor.Float64, 3), []string{"vander:", "4611686018427387904 columns", "too large"}},
		{"vander MaxInt columns", linalg.VanderOp(math.MaxInt), tensor.Ones(tensor.Complex128, 2, 3), []string{"vander:", "too large"}},
		{"vander default columns of a broadcast", linalg.VanderOp(0), wide, []string{"vander:", "1099511627776 columns"}},
	} {
		ok := t.Run(tc.name, func(t *testing.T) {
			err := applyErr(t, tc.op, nil, tc.x)
			require.ErrorIs(t, err, cr.ErrInvalidArgument)
			var oe *cr.OpError
			require.ErrorAs(t, err, &oe)
			assert.Equal(t, tc.op.Name(), oe.Op)
			for _, s := range tc.contains {
				assert.Contains(t, err.Error(), s)
			}
			_, err = cr.Eval(tc.op, tc.x) // without a tape: the same error
			require.ErrorIs(t, err, cr.ErrInvalidArgument)
		})
		if !ok {
			return // a case after a failure may run until memory runs out
		}
	}
	// An empty x makes no column, however many are asked for.
	y, err := linalg.Vander(tensor.New(tensor.Float64, 2, 0), 1<<40)
	require.NoError(t, err)
	assert.Equal(t, []int{2, 0, 1 << 40}, y.Shape())
	// The largest power that does not overflow still works.
	y, err = linalg.MatrixPower(spd, math.MinInt+1)
	require.NoError(t, err)
	assert.Equal(t, []int{2, 2}, y.Shape())
}

// Two-input ops whose batch dims broadcast check the size of the broadcast batch
// before they expand their operands to it or work through either batch: batch dims
// [2^23, 1] against [1, 2^23] ask for 2^46 matrices, too many for memory, though
// each operand is a broadcast view that costs nothing. The result is an error
// wrapping ErrInvalidArgument that names the op, without a tape and on one.
func TestBroadcastBatchTooLarge(t *testing.T) {
	const b = 1 << 23
	view := func(m *tensor.Dense, lead ...int) *tensor.Dense {
		t.Helper()
		sh := append([]int{1, 1}, m.Shape()...)
		v, err := m.Reshape(sh...)
		require.NoError(t, err)
		v, err = v.BroadcastTo(append(lead, m.Shape()...)...)
		require.NoError(t, err)
		return v
	}
	spd, err := tensor.FromFloat64([]float64{4, 1, 0, 1, 3, 1, 0, 1, 2}, 3, 3)
	require.NoError(t, err)
	l, err := linalg.Cholesky(spd, false)
	require.NoError(t, err)
	lu, piv, err := linalg.LUFactor(spd)
	require.NoError(t, err)
	rhs := tensor.Ones(tensor.Float64, 3, 2)
	for _, tc := range []struct {
		name string
		op   cr.Op[*tensor.Dense]
		x    []*tensor.Dense
	}{
		{"solve", linalg.SolveOp(), []*tensor.Dense{view(spd, b, 1), view(rhs, 1, b)}},
		{"solve_triangular", linalg.SolveTriangularOp(false, true, false), []*tensor.Dense{view(l, b, 1), view(rhs, 1, b)}},
		{"cholesky_solve", linalg.CholeskySolveOp(false), []*tensor.Dense{view(rhs, 1, b), view(l, b, 1)}},
		{"lu_solve", linalg.LUSolveOp(true, false), []*tensor.Dense{view(lu, b, 1), view(piv, b, 1), view(rhs, 1, b)}},
		{"lstsq", linalg.LstsqOp(), []*tensor.Dense{view(spd, b, 1), view(rhs, 1, b)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			require.NotPanics(t, func() { _, err = cr.EvalMulti(tc.op, tc.x...) })
			require.ErrorIs(t, err, cr.ErrInvalidArgument)
			assert.Contains(t, err.Error(), tc.name)
			assert.Contains(t, err.Error(), "too large")
			err = applyErr(t, nil, tc.op, tc.x...)
			require.ErrorIs(t, err, cr.ErrInvalidArgument)
			var oe *cr.OpError
			require.ErrorAs(t, err, &oe)
			assert.Equal(t, tc.op.Name(), oe.Op)
		})
	}
}
