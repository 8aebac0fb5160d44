package index_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/einsum"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// lookups is the loss sum(sin(T[rows]) * T[rows2]) over the rows of a table T read
// through two embedding-style lookups (index_select along axis 0, with repeats).
func lookups(rows, rows2 []int) hvp.Func {
	return func(t *hvp.Tape, p []cr.NodeID) cr.NodeID {
		a := t.Apply(ew.SinOp, t.Apply(index.IndexSelectOp(0, rows...), p[0]))
		b := t.Apply(index.IndexSelectOp(0, rows2...), p[0])
		return t.Apply(reduce.SumOp(nil, false), t.Apply(ew.MulOp, a, b))
	}
}

// oneHot returns the [len(rows), n] matrix S with S[k, rows[k]] = 1, so that S T is
// T[rows] computed with a dense product: the reference for the lookups.
func oneHot(rows []int, n int) *tensor.Dense {
	s := tensor.New(tensor.Float64, len(rows), n)
	for k, r := range rows {
		s.SetFloat64(1, k, r)
	}
	return s
}

// lookupsDense is lookups written with one-hot products instead of index_select.
func lookupsDense(rows, rows2 []int, n int) hvp.Func {
	s, s2 := oneHot(rows, n), oneHot(rows2, n)
	return func(t *hvp.Tape, p []cr.NodeID) cr.NodeID {
		a := t.Apply(ew.SinOp, t.Apply(einsum.Op("kn,nd->kd"), t.Constant(s), p[0]))
		b := t.Apply(einsum.Op("kn,nd->kd"), t.Constant(s2), p[0])
		return t.Apply(reduce.SumOp(nil, false), t.Apply(ew.MulOp, a, b))
	}
}

// A table read only through lookups keeps a row-sparse gradient: Rows gives the
// touched rows with their summed cotangents, Of the dense gradient, and both match
// the same loss written with dense one-hot products; the HVP, which runs the dense
// rules, matches too.
func TestLookupGradientsAreRowSparse(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	const n, d = 50, 3
	rows, rows2 := []int{4, 17, 4, -1}, []int{17, 2, 2, 49}
	table := tensor.RandN(rng, tensor.Float64, n, d)

	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	w := tp.Leaf(table)
	g, err := tp.Backward(lookups(rows, rows2)(tp, []cr.NodeID{w}))
	require.NoError(t, err)
	touched, vals, ok := g.Rows(w)
	require.True(t, ok, "a table read only through lookups has a row-sparse gradient")
	assert.Equal(t, []int{2, 4, 17, 49}, touched)
	assert.Equal(t, []int{4, d}, vals.Shape())

	_, want, err := hvp.Grad(lookupsDense([]int{4, 17, 4, 49}, rows2, n), []*tensor.Dense{table})
	require.NoError(t, err)
	for k, r := range touched {
		for j := range d {
			assert.InDelta(t, want[0].AtFloat64(r, j), vals.AtFloat64(k, j), 1e-14, "row %d col %d", r, j)
		}
	}
	dense, ok := g.Of(w)
	require.True(t, ok)
	assertClose(t, want[0], dense, 1e-14)
	_, _, ok = g.Rows(w)
	assert.False(t, ok, "once Of has made it dense, Rows reports no sparse form")

	// The HVP of the lookups (dense second-order rules) is exact against the
	// one-hot formulation.
	v := []*tensor.Dense{tensor.RandN(rng, tensor.Float64, n, d)}
	_, hv, err := hvp.HVP(lookups(rows, rows2), []*tensor.Dense{table}, v)
	require.NoError(t, err)
	_, hvWant, err := hvp.HVP(lookupsDense([]int{4, 17, 4, 49}, rows2, n), []*tensor.Dense{table}, v)
	require.NoError(t, err)
	assertClose(t, hvWant[0], hv[0], 1e-13)
}

// A table that is not a leaf (here T = 2 W) gets its row-sparse terms added into a
// dense cotangent before its own pullback runs, and so does a leaf with a hook,
// which sees the dense cotangent.
func TestRowTermsBecomeDenseWhenNeeded(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	const n, d = 20, 2
	rows := []int{3, 3, 11}
	table := tensor.RandN(rng, tensor.Float64, n, d)
	_, want, err := hvp.Grad(lookupsDense(rows, rows, n), []*tensor.Dense{table})
	require.NoError(t, err)

	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	w := tp.Leaf(table)
	var seen *tensor.Dense
	require.NoError(t, tp.AddHook(w, func(g *tensor.Dense) (*tensor.Dense, error) { seen = g; return g, nil }))
	g, err := tp.Backward(lookups(rows, rows)(tp, []cr.NodeID{w}))
	require.NoError(t, err)
	require.NotNil(t, seen)
	assertClose(t, want[0], seen, 1e-14)
	_, _, ok := g.Rows(w)
	assert.False(t, ok)

	tp = core.NewTape[*tensor.Dense](tensor.Space{})
	w = tp.Leaf(table)
	half := tp.Apply(ew.MulOp, w, tp.Constant(tensor.Scalar(0.5)))
	g, err = tp.Backward(lookups(rows, rows)(tp, []cr.NodeID{half}))
	require.NoError(t, err)
	got, ok := g.Of(w)
	require.True(t, ok)
	// d/dW L(W/2) = L'(W/2) / 2.
	_, wantHalf, err := hvp.Grad(lookupsDense(rows, rows, n), []*tensor.Dense{tensor.Scale(table, 0.5)})
	require.NoError(t, err)
	assertClose(t, tensor.Scale(wantHalf[0], 0.5), got, 1e-14)
}

// A backward sweep through 4 lookups of a 100,000 x 32 table allocates memory for
// the rows it touched, not for the table (a dense cotangent would be 25.6 MB).
func TestLookupBackwardMemoryIsProportionalToRows(t *testing.T) {
	table := tensor.New(tensor.Float64, 100_000, 32)
	rows := []int{5, 99_999, 5, 123}
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	w := tp.Leaf(table)
	y := tp.Apply(reduce.SumOp(nil, false), tp.Apply(ew.SinOp, tp.Apply(index.IndexSelectOp(0, rows...), w)))
	require.NoError(t, tp.Err())
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	g, err := tp.Backward(y)
	require.NoError(t, err)
	touched, _, ok := g.Rows(w)
	runtime.ReadMemStats(&after)
	require.True(t, ok)
	assert.Equal(t, []int{5, 123, 99_999}, touched)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20), "bytes allocated by the backward sweep and Rows")
}

func assertClose(t *testing.T, want, got *tensor.Dense, tol float64) {
	t.Helper()
	require.Equal(t, want.Shape(), got.Shape())
	w, g := want.Float64s(), got.Float64s()
	for i := range w {
		assert.InDelta(t, w[i], g[i], tol, "element %d", i)
	}
}

// BenchmarkLookupBackward is the recording and backward sweep of 4 lookups of a
// 1,000,000 x 32 table (256 MB): bytes/op counts the rows touched, not the table.
func BenchmarkLookupBackward(b *testing.B) {
	table := tensor.New(tensor.Float64, 1_000_000, 32)
	rows := []int{5, 999_999, 5, 123}
	b.ReportAllocs()
	for b.Loop() {
		tp := core.NewTape[*tensor.Dense](tensor.Space{})
		w := tp.Leaf(table)
		y := tp.Apply(reduce.SumOp(nil, false), tp.Apply(ew.SinOp, tp.Apply(index.IndexSelectOp(0, rows...), w)))
		g, err := tp.Backward(y)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, ok := g.Rows(w); !ok {
			b.Fatal("no row-sparse gradient")
		}
	}
}

// outOfRange is index_select's rule with a RowPullback that names a row past the
// table's end.
type outOfRange struct{ cr.Rule[*tensor.Dense] }

func (r outOfRange) RowPullback(ybar []*tensor.Dense, _ []bool, dst []cr.Contribution[*tensor.Dense], rows []cr.RowContribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], []cr.RowContribution[*tensor.Dense], error) {
	return dst, append(rows, cr.RowContribution[*tensor.Dense]{Node: r.Inputs()[0], Rows: []int{99}, Value: ybar[0]}), nil
}

// A row-sparse term that does not fit its input is an error of the sweep that names
// the op, never a panic or a write out of bounds.
func TestBadRowTermIsAnError(t *testing.T) {
	op := cr.OpFunc[*tensor.Dense]{OpName: "bad_rows", F: func(in []cr.NodeID, x []*tensor.Dense) (*tensor.Dense, cr.Rule[*tensor.Dense], error) {
		y, r, err := apply(index.IndexSelectOp(0, 1), in, x)
		return y, outOfRange{r}, err
	}}
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	w := tp.Leaf(tensor.New(tensor.Float64, 3, 2))
	_, err := tp.Backward(tp.Apply(reduce.SumOp(nil, false), tp.Apply(op, w)))
	require.Error(t, err)
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
	assert.Contains(t, err.Error(), "bad_rows")
	assert.Contains(t, err.Error(), "row 99 out of range")
}

// An embedding lookup: the gradient of a 1000-row table read at rows 7, 2 and 7
// keeps the two rows it touched (Gradients.Rows); Of would give the dense table.
func Example_embeddingGradient() {
	table := tensor.New(tensor.Float64, 1000, 2)
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	w := tp.Leaf(table)
	y := tp.Apply(reduce.SumOp(nil, false), tp.Apply(index.IndexSelectOp(0, 7, 2, 7), w))
	g, err := tp.Backward(y)
	if err != nil {
		fmt.Println(err)
		return
	}
	rows, vals, ok := g.Rows(w)
	fmt.Println(ok, rows, vals.Float64s())
	// Output: true [2 7] [1 1 2 2]
}

// A table read both through a lookup and densely (L = sum(sin(T[rows])) + sum(T*T))
// gets the dense part and the rows added up; Rows reports no sparse form. The same
// holds with anomaly mode on, and after ReleaseGraph freed the tape.
func TestRowTermsMeetDenseTerms(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	const n, d = 30, 2
	rows := []int{7, 7, 29}
	table := tensor.RandN(rng, tensor.Float64, n, d)
	loss := func(t *hvp.Tape, p []cr.NodeID) cr.NodeID {
		a := t.Apply(reduce.SumOp(nil, false), t.Apply(ew.SinOp, t.Apply(index.IndexSelectOp(0, rows...), p[0])))
		b := t.Apply(reduce.SumOp(nil, false), t.Apply(ew.MulOp, p[0], p[0]))
		return t.Apply(ew.AddOp, a, b)
	}
	lossDense := func(t *hvp.Tape, p []cr.NodeID) cr.NodeID {
		s := t.Constant(oneHot(rows, n))
		a := t.Apply(reduce.SumOp(nil, false), t.Apply(ew.SinOp, t.Apply(einsum.Op("kn,nd->kd"), s, p[0])))
		b := t.Apply(reduce.SumOp(nil, false), t.Apply(ew.MulOp, p[0], p[0]))
		return t.Apply(ew.AddOp, a, b)
	}
	_, want, err := hvp.Grad(lossDense, []*tensor.Dense{table})
	require.NoError(t, err)
	for _, c := range []struct {
		name    string
		anomaly bool
		opts    []core.BackwardOption
	}{{"plain", false, nil}, {"anomaly", true, nil}, {"release", false, []core.BackwardOption{core.ReleaseGraph()}}} {
		t.Run(c.name, func(t *testing.T) {
			tp := core.NewTape[*tensor.Dense](tensor.Space{})
			require.NoError(t, tp.DetectAnomaly(c.anomaly))
			w := tp.Leaf(table)
			y := loss(tp, []cr.NodeID{w})
			ybar := tensor.Scalar(1)
			g, err := tp.BackwardSeed(y, ybar, c.opts...)
			require.NoError(t, err)
			_, _, ok := g.Rows(w)
			assert.False(t, ok, "a dense term is present")
			got, ok := g.Of(w)
			require.True(t, ok)
			assertClose(t, want[0], got, 1e-13)
			assert.Equal(t, 1, g.Len())
		})
	}
}

// The dense term may be a value the engine does not own (sum's pullback is a
// broadcast view of the seed): the rows are added into a copy, and the seed is left
// alone.
func TestRowTermsIntoBorrowedDenseTerm(t *testing.T) {
	const n, d = 6, 3
	rows := []int{1, 1, 4}
	table := tensor.New(tensor.Float64, n, d)
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	w := tp.Leaf(table)
	a := tp.Apply(reduce.SumOp(nil, false), tp.Apply(index.IndexSelectOp(0, rows...), w))
	y := tp.Apply(ew.AddOp, a, tp.Apply(reduce.SumOp(nil, false), w))
	seed := tensor.Scalar(2)
	g, err := tp.BackwardSeed(y, seed)
	require.NoError(t, err)
	got, ok := g.Of(w)
	require.True(t, ok)
	want := []float64{2, 2, 2, 6, 6, 6, 2, 2, 2, 2, 2, 2, 4, 4, 4, 2, 2, 2}
	assert.Equal(t, want, got.Float64s())
	assert.Equal(t, 2.0, seed.AtFloat64(), "the seed is unchanged")
}
