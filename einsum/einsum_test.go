package einsum

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

type specCase struct {
	spec   string
	shapes [][]int
}

// chainSpec returns "ab,bc,...->a?" for n matrices of size d.
func chainSpec(n, d int) specCase {
	var terms []string
	var shapes [][]int
	for i := range n {
		terms = append(terms, string([]byte{byte('a' + i), byte('a' + i + 1)}))
		shapes = append(shapes, []int{d, d})
	}
	return specCase{strings.Join(terms, ",") + "->a" + string(byte('a'+n)), shapes}
}

var specCases = []specCase{
	{"ij,jk->ik", [][]int{{3, 4}, {4, 5}}},
	{"ij,jk", [][]int{{3, 4}, {4, 2}}},
	{"Ab,bC->CA", [][]int{{2, 3}, {3, 4}}},
	{"ii->i", [][]int{{4, 4}}},
	{"ii->", [][]int{{4, 4}}},
	{"ii", [][]int{{3, 3}}},
	{"iii->i", [][]int{{3, 3, 3}}},
	{"iji->ij", [][]int{{3, 2, 3}}},
	{"ii,ij->j", [][]int{{3, 3}, {3, 2}}},
	{"ij->i", [][]int{{3, 4}}},
	{"ij->j", [][]int{{3, 4}}},
	{"ij->", [][]int{{3, 4}}},
	{"ij->ji", [][]int{{3, 4}}},
	{"ij->ij", [][]int{{3, 4}}},
	{"ij,ij->", [][]int{{3, 4}, {3, 4}}},
	{"ij,ij->ij", [][]int{{3, 4}, {3, 4}}},
	{"ij,ji->", [][]int{{3, 4}, {4, 3}}},
	{"i,j->ij", [][]int{{3}, {4}}},
	{"bi,bj->ij", [][]int{{5, 3}, {5, 4}}},
	{"ij,j->i", [][]int{{3, 4}, {4}}},
	{"i,ij->j", [][]int{{3}, {3, 4}}},
	{"ijk,k->i", [][]int{{2, 3, 4}, {4}}},
	{"ij,kl->", [][]int{{2, 3}, {4, 2}}},
	{"...ij,...jk->...ik", [][]int{{2, 1, 2, 3}, {3, 3, 2}}},
	{"...ij,...jk", [][]int{{2, 3}, {4, 3, 2}}},
	{"...i,...i->...", [][]int{{2, 3, 4}, {3, 4}}},
	{"i...->i", [][]int{{2, 3, 2}}},
	{"...->", [][]int{{2, 3}}},
	{"...ii->...i", [][]int{{2, 3, 3}}},
	{",->", [][]int{{}, {}}},
	{",i->i", [][]int{{}, {3}}},
	{"i,i,i->i", [][]int{{4}, {4}, {4}}},
	{"i,i,i->", [][]int{{4}, {4}, {4}}},
	{"bij,bjk->bik", [][]int{{3, 2, 4}, {3, 4, 2}}},
	{"bhqd,bhkd->bhqk", [][]int{{2, 2, 3, 4}, {2, 2, 5, 4}}},
	{"ijk,jkl->il", [][]int{{2, 3, 4}, {3, 4, 2}}},
	{"ij,jk,kl,lm->im", [][]int{{2, 3}, {3, 4}, {4, 5}, {5, 2}}},
	{"abc,cde,efa,bdf->", [][]int{{2, 3, 2}, {2, 2, 3}, {3, 2, 2}, {3, 2, 2}}},
	{"ab,ab,ab,ab->b", [][]int{{2, 3}, {2, 3}, {2, 3}, {2, 3}}},
	{"ij,jk->ik", [][]int{{2, 0}, {0, 3}}},
	{"ij,jk->ik", [][]int{{0, 2}, {2, 3}}},
	{"i j , j k -> i k", [][]int{{2, 2}, {2, 2}}},
	chainSpec(12, 2), // beyond OptimalMaxOperands: greedy
}

// randOperands returns operands of the case; mode 0 is all float64, 1 all
// complex128, 2 alternating (mixed).
func randOperands(rng *rand.Rand, shapes [][]int, mode int) []*tensor.Dense {
	ops := make([]*tensor.Dense, len(shapes))
	for k, sh := range shapes {
		dt := tensor.Float64
		if mode == 1 || (mode == 2 && k%2 == 0) {
			dt = tensor.Complex128
		}
		ops[k] = tensor.RandN(rng, dt, sh...)
	}
	return ops
}

var modeNames = []string{"float64", "complex128", "mixed"}

func TestEvalMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range specCases {
		for mode := range 3 {
			t.Run(c.spec+"/"+modeNames[mode], func(t *testing.T) {
				ops := randOperands(rng, c.shapes, mode)
				want, err := refEinsum(c.spec, ops...)
				require.NoError(t, err)
				got, err := Eval(c.spec, ops...)
				require.NoError(t, err)
				assert.Equal(t, want.DType(), got.DType())
				assert.True(t, tensor.EqualApprox(want, got, 1e-12, 1e-12), "got %v\nwant %v", got, want)
			})
		}
	}
}

func TestPathAlgorithmsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range specCases {
		ops := randOperands(rng, c.shapes, 0)
		want, err := refEinsum(c.spec, ops...)
		require.NoError(t, err)
		for _, algo := range []PathAlgorithm{Greedy, Optimal} {
			if algo == Optimal && len(c.shapes) > 10 {
				continue
			}
			p, err := NewPlanWith(c.spec, algo, c.shapes...)
			require.NoError(t, err)
			assert.Len(t, p.Path(), max(len(c.shapes)-1, 0))
			got, err := p.Eval(ops...)
			require.NoError(t, err)
			assert.True(t, tensor.EqualApprox(want, got, 1e-12, 1e-12), "%s algo %d", c.spec, algo)
		}
	}
}

func TestOptimalPathBeatsLeftToRight(t *testing.T) {
	// (A B) v costs n^3 + n^2; A (B v) costs 2 n^2.
	p, err := NewPlan("ij,jk,k->i", []int{100, 100}, []int{100, 100}, []int{100})
	require.NoError(t, err)
	assert.Equal(t, [][2]int{{1, 2}, {0, 1}}, p.Path())
	assert.Equal(t, 2*(100.0*100+100*100), p.Flops())
	g, err := NewPlanWith("ij,jk,k->i", Greedy, []int{100, 100}, []int{100, 100}, []int{100})
	require.NoError(t, err)
	assert.Equal(t, p.Flops(), g.Flops())
	// The tensor network of the benchmarks: no step larger than 16^5.
	d := 16
	tn, err := NewPlan("abc,cde,efa,bdf->", []int{d, d, d}, []int{d, d, d}, []int{d, d, d}, []int{d, d, d})
	require.NoError(t, err)
	assert.LessOrEqual(t, tn.Flops(), 3*2*float64(d*d*d*d*d))
}

func TestNonContiguousOperands(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	a := tensor.RandN(rng, tensor.Float64, 4, 3)
	at, err := a.Transpose(0, 1)
	require.NoError(t, err)
	b := tensor.RandN(rng, tensor.Complex128, 4, 5)
	got, err := Eval("ij,ik->jk", a, b)
	require.NoError(t, err)
	got2, err := Eval("ji,ik->jk", at, b)
	require.NoError(t, err)
	assert.True(t, tensor.EqualApprox(got, got2, 1e-13, 1e-13))
}

func TestResultIsFresh(t *testing.T) {
	a := tensor.RandN(rand.New(rand.NewPCG(7, 8)), tensor.Float64, 2, 3)
	before := a.Clone()
	y, err := Eval("ij->ij", a)
	require.NoError(t, err)
	y.Set(100, 0, 0)
	assert.True(t, tensor.EqualApprox(a, before, 0, 0), "writing the result changed the operand")
}

func TestErrors(t *testing.T) {
	m := func(sh ...int) *tensor.Dense { return tensor.New(tensor.Float64, sh...) }
	cases := []struct {
		spec     string
		ops      []*tensor.Dense
		sentinel error
		words    []string
	}{
		{"ij,j1->i", []*tensor.Dense{m(2, 3), m(3, 3)}, cr.ErrInvalidArgument, []string{"operand 1", "'1'"}},
		{"ij->i$", []*tensor.Dense{m(2, 3)}, cr.ErrInvalidArgument, []string{"output", "'$'"}},
		{"ij,jk->ik", []*tensor.Dense{m(2, 3)}, cr.ErrInvalidArgument, []string{"2 operand terms", "1 operands"}},
		{"ij,jk->ik", []*tensor.Dense{m(2, 3), m(4, 5)}, cr.ErrShapeMismatch, []string{"'j'", "size 3 in operand 0", "size 4 in operand 1"}},
		{"ii->i", []*tensor.Dense{m(2, 3)}, cr.ErrShapeMismatch, []string{"'i'", "operand 0"}},
		{"ij->ik", []*tensor.Dense{m(2, 3)}, cr.ErrInvalidArgument, []string{"output label 'k'"}},
		{"ij->ii", []*tensor.Dense{m(2, 3)}, cr.ErrInvalidArgument, []string{"output label 'i' is repeated"}},
		{"ij->i->j", []*tensor.Dense{m(2, 3)}, cr.ErrInvalidArgument, []string{"->"}},
		{"i..j->ij", []*tensor.Dense{m(2, 3)}, cr.ErrInvalidArgument, []string{"operand 0", "..."}},
		{"...i...->i", []*tensor.Dense{m(2, 3)}, cr.ErrInvalidArgument, []string{"operand 0", "more than one"}},
		{"ijk->i", []*tensor.Dense{m(2, 3)}, cr.ErrShapeMismatch, []string{"operand 0", "rank 2"}},
		{"...i,...i->...", []*tensor.Dense{m(2, 3), m(4, 3)}, cr.ErrShapeMismatch, []string{"'...' dim 0", "operand 1"}},
		{"", []*tensor.Dense{}, cr.ErrInvalidArgument, []string{"1 operand terms", "0 operands"}},
		{"ij", []*tensor.Dense{nil}, cr.ErrInvalidArgument, []string{"operand 0 is nil"}},
	}
	for _, c := range cases {
		t.Run(c.spec, func(t *testing.T) {
			_, err := Eval(c.spec, c.ops...)
			require.Error(t, err)
			assert.True(t, errors.Is(err, c.sentinel), "%v", err)
			for _, w := range c.words {
				assert.Contains(t, err.Error(), w)
			}
			// The op reports the same error from Apply.
			ids := make([]cr.NodeID, len(c.ops))
			_, err2 := Op(c.spec).Apply(ids, c.ops, make([]*tensor.Dense, 1))
			assert.True(t, errors.Is(err2, c.sentinel), "%v", err2)
		})
	}
}

func TestPlanChecksShapes(t *testing.T) {
	p, err := NewPlan("ij,jk->ik", []int{2, 3}, []int{3, 4})
	require.NoError(t, err)
	assert.Equal(t, []int{2, 4}, p.OutShape())
	_, err = p.Eval(tensor.New(tensor.Float64, 2, 3), tensor.New(tensor.Float64, 3, 5))
	assert.ErrorIs(t, err, cr.ErrShapeMismatch)
	_, err = p.Eval(tensor.New(tensor.Float64, 2, 3))
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
	assert.Contains(t, p.String(), "ij,jk->ik")
}

func TestCacheConcurrent(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	type job struct {
		c    specCase
		ops  []*tensor.Dense
		want *tensor.Dense
	}
	var jobs []job
	for _, c := range specCases[:20] {
		ops := randOperands(rng, c.shapes, 0)
		want, err := refEinsum(c.spec, ops...)
		require.NoError(t, err)
		jobs = append(jobs, job{c, ops, want})
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8*len(jobs))
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				j := jobs[(i+g)%len(jobs)]
				got, err := Eval(j.c.spec, j.ops...)
				if err != nil {
					errs <- err
					continue
				}
				if !tensor.EqualApprox(got, j.want, 1e-12, 1e-12) {
					errs <- fmt.Errorf("%s: wrong result", j.c.spec)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestManyOperands contracts a chain of 25 matrices (greedy path) and compares it
// with the product taken left to right.
func TestManyOperands(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	c := chainSpec(25, 3)
	ops := randOperands(rng, c.shapes, 0)
	got, err := Eval(c.spec, ops...)
	require.NoError(t, err)
	want := ops[0]
	for _, x := range ops[1:] {
		want, err = Eval("ij,jk->ik", want, x)
		require.NoError(t, err)
	}
	assert.True(t, tensor.EqualApprox(want, got, 1e-12, 1e-10), "got %v\nwant %v", got, want)
	p, err := NewPlan(c.spec, c.shapes...)
	require.NoError(t, err)
	assert.Len(t, p.Path(), 24)
}
