package einsum

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chainrules-go/chainrules/tensor"
)

// TestStridedPairBitIdentical checks that the contractions pairStrided runs on
// the operands where they are (leading dimensions and batch strides) give, bit
// for bit, the results of pair's permuted operands, in every dtype, and that the
// specs meant to take it do (no intermediate is permuted).
func TestStridedPairBitIdentical(t *testing.T) {
	cases := []struct {
		spec    string
		shapes  [][]int
		strided bool // the first contraction runs on the operands where they are
	}{
		// The gmm eval's product and its two pullbacks (n = 37, k = 5, d = 3, 10).
		{"kij,nkj->nki", [][]int{{5, 3, 3}, {37, 5, 3}}, true},
		{"nki,nkj->kij", [][]int{{37, 5, 10}, {37, 5, 10}}, true},
		{"nki,kij->nkj", [][]int{{37, 5, 10}, {5, 10, 10}}, true},
		{"kij,nkj->nki", [][]int{{5, 10, 10}, {37, 5, 10}}, true},
		// A batch dim in the middle of both operands and of the result.
		{"ibj,jbk->ibk", [][]int{{9, 4, 6}, {6, 4, 11}}, true},
		// Grouped labels: two batch, two contracted, two free dims.
		{"abijpq,abpqkl->abijkl", [][]int{{2, 3, 4, 2, 3, 5}, {2, 3, 3, 5, 2, 3}}, true},
		// Not taken: a matrix times a vector, contracted dims apart, a
		// contracted dim of size 1.
		{"ijab,ab->ji", [][]int{{7, 8, 3, 4}, {3, 4}}, false},
		{"iaj,jbi->ab", [][]int{{5, 6, 7}, {7, 4, 5}}, false},
		{"ij,jk->ik", [][]int{{5, 1}, {1, 6}}, false},
		// Transposed operands and result.
		{"ji,kj->ik", [][]int{{12, 9}, {17, 12}}, true},
		{"bji,bkj->bki", [][]int{{3, 12, 9}, {3, 17, 12}}, true},
		// Three operands: an intermediate, then the result.
		{"nki,kij,nkj->nk", [][]int{{20, 3, 4}, {3, 4, 4}, {20, 3, 4}}, true},
	}
	rng := rand.New(rand.NewPCG(3, 28))
	for _, c := range cases {
		for _, dt := range []tensor.DType{tensor.Float64, tensor.Complex128, tensor.Float32, tensor.Complex64} {
			ops := make([]*tensor.Dense, len(c.shapes))
			for k, s := range c.shapes {
				ops[k] = tensor.RandN(rng, dt, s...)
			}
			p, err := NewPlan(c.spec, c.shapes...)
			require.NoError(t, err)
			if dt == tensor.Float64 {
				require.Equal(t, c.strided, firstStrided(p, ops), "%s: pairStrided takes the first contraction", c.spec)
			}
			got, err := p.Eval(ops...)
			require.NoError(t, err)
			stridedOff = true
			want, err := p.Eval(ops...)
			stridedOff = false
			require.NoError(t, err)
			require.Equal(t, want.Shape(), got.Shape())
			if !tensor.EqualApprox(want, got, 0, 0) {
				t.Errorf("%s %v: strided and permuted products differ", c.spec, dt)
			}
		}
	}
}

// firstStrided reports whether pairStrided takes the first contraction of p's
// path on the float64 operands ops (each of p's labels distinct, no label summed
// within an operand), with the groups of labels pair gives it.
func firstStrided(p *Plan, ops []*tensor.Dense) bool {
	st := p.path[0]
	x := block[float64]{data: ops[st[0]].Float64s(), labels: p.b.dims[st[0]]}
	y := block[float64]{data: ops[st[1]].Float64s(), labels: p.b.dims[st[1]]}
	need := setOf(p.b.out)
	var want []int
	if len(ops) == 2 {
		want = p.b.out
	}
	for k := range ops {
		if k != st[0] && k != st[1] {
			need = need.or(setOf(p.b.dims[k]))
		}
	}
	xs, ys := setOf(x.labels), setOf(y.labels)
	both := xs.and(ys)
	z, ok := pairStrided(x, y, pickLabels(x.labels, both.and(need)), pickLabels(x.labels, both.andNot(need)),
		pickLabels(x.labels, xs.andNot(ys)), pickLabels(y.labels, ys.andNot(xs)), &p.b.size, want, true)
	if ok {
		release(z)
	}
	return ok
}
