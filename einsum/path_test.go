package einsum

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chainrules-go/chainrules/tensor"
)

// greedyPathReference is the direct form of Greedy that greedyPath computes
// incrementally: at every step it scores every pair of live operands, in O(n^3)
// time per step.
func greedyPathReference(sets []lset, out lset, size *[maxLabels]int) ([][2]int, float64) {
	resultLabels := func(sets []lset, i, j int) lset {
		need := out
		for k, s := range sets {
			if k != i && k != j {
				need = need.or(s)
			}
		}
		return sets[i].or(sets[j]).and(need)
	}
	sets = append([]lset(nil), sets...)
	var path [][2]int
	total := 0.0
	for len(sets) > 1 {
		bi, bj := -1, -1
		var bestCost, bestMem float64
		connected := false
		for i := range sets {
			for j := i + 1; j < len(sets); j++ {
				conn := !sets[i].and(sets[j]).empty()
				if connected && !conn {
					continue
				}
				r := resultLabels(sets, i, j)
				var cost, mem float64
				if conn {
					cost = pairCost(sets[i].or(sets[j]), size)
					mem = sizeOf(r, size) - sizeOf(sets[i], size) - sizeOf(sets[j], size)
				} else {
					cost = sizeOf(r, size)
					mem = cost
				}
				better := bi < 0 || (conn && !connected) || cost < bestCost || (cost == bestCost && mem < bestMem)
				if better {
					bi, bj, bestCost, bestMem, connected = i, j, cost, mem, conn
				}
			}
		}
		r := resultLabels(sets, bi, bj)
		total += pairCost(sets[bi].or(sets[bj]), size)
		path = append(path, [2]int{bi, bj})
		sets = append(append(append([]lset{}, sets[:bi]...), sets[bi+1:bj]...), sets[bj+1:]...)
		sets = append(sets, r)
	}
	return path, total
}

// TestGreedyMatchesReference checks that the incremental greedy picks the same
// steps as the direct one, ties included, on random label sets: few labels (many
// ties and shared labels), many labels (sparse networks), empty sets (scalars,
// outer products), sizes 0 to 4 and random outputs.
func TestGreedyMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for it := range 400 {
		n := 2 + rng.IntN(30)
		nl := 1 + rng.IntN(12)
		if it%4 == 0 {
			nl = 1 + rng.IntN(maxLabels)
		}
		var size [maxLabels]int
		for l := range nl {
			size[l] = 1 + rng.IntN(4)
			if rng.IntN(25) == 0 {
				size[l] = 0
			}
		}
		sets := make([]lset, n)
		for k := range sets {
			for range rng.IntN(4) {
				sets[k].add(rng.IntN(nl))
			}
		}
		var out lset
		for l := range nl {
			if rng.IntN(4) == 0 {
				out.add(l)
			}
		}
		wantPath, wantCost := greedyPathReference(sets, out, &size)
		gotPath, gotCost := greedyPath(sets, out, &size)
		require.Equal(t, wantPath, gotPath, "case %d: %d operands %v, out %v", it, n, sets, out)
		require.Equal(t, wantCost, gotCost, "case %d", it)
	}
}

// TestGreedyManySpecsMatchReference checks plans made through NewPlanWith (labels
// summed by one operand removed, diagonals, the output) against the direct greedy.
func TestGreedyManySpecsMatchReference(t *testing.T) {
	for _, c := range []specCase{chainSpec(12, 2), chainSpec(25, 3), specCases[len(specCases)-2]} {
		p, err := NewPlanWith(c.spec, Greedy, c.shapes...)
		require.NoError(t, err)
		sets := make([]lset, len(p.kept))
		for k, kept := range p.kept {
			sets[k] = setOf(kept)
		}
		want, _ := greedyPathReference(sets, setOf(p.b.out), &p.b.size)
		assert.Equal(t, want, p.Path(), c.spec)
	}
}

// TestGreedyPlansThousandOperands plans and evaluates "i,i,...,i->i" with 1000
// operands, the product of 1000 vectors, elementwise. The direct greedy takes
// O(n^4) time here (minutes); the incremental one milliseconds.
func TestGreedyPlansThousandOperands(t *testing.T) {
	const n, d = 1000, 3
	spec, shapes := repeatedVectorSpec(n, d)
	p, err := NewPlan(spec, shapes...)
	require.NoError(t, err)
	path := p.Path()
	require.Len(t, path, n-1)
	live := n
	for s, st := range path {
		require.True(t, 0 <= st[0] && st[0] < st[1] && st[1] < live, "step %d: %v with %d live operands", s, st, live)
		live--
	}
	// Every step multiplies two vectors: d multiply-adds.
	assert.Equal(t, 2*float64((n-1)*d), p.Flops())

	rng := rand.New(rand.NewPCG(23, 24))
	ops := make([]*tensor.Dense, n)
	want := []float64{1, 1, 1}
	for k := range ops {
		v := make([]float64, d)
		for i := range v {
			v[i] = 1 + (rng.Float64()-0.5)/100 // products of 1000 factors stay near 1
			want[i] *= v[i]
		}
		ops[k], err = tensor.FromFloat64(v, d)
		require.NoError(t, err)
	}
	got, err := p.Eval(ops...)
	require.NoError(t, err)
	w, err := tensor.FromFloat64(want, d)
	require.NoError(t, err)
	assert.True(t, tensor.EqualApprox(w, got, 1e-12, 0), "got %v, want %v", got, w)
}
