package einsum

import "math/bits"

// PathAlgorithm selects how a Plan orders the pairwise contractions.
type PathAlgorithm int

const (
	// Auto searches for the optimal order when there are at most OptimalMaxOperands
	// operands and uses Greedy otherwise. It is the default.
	Auto PathAlgorithm = iota
	// Greedy contracts, at every step, the pair of operands that share a label and
	// whose contraction costs the fewest flops, breaking ties by the memory the step
	// frees (size of the result minus the sizes of the pair); operands that share no
	// label are multiplied (outer product) only when no pair shares one, smallest
	// result first. It takes O(n^3) time per step for n operands.
	Greedy
	// Optimal finds the order of least total flops over all contraction trees
	// (outer products included) by dynamic programming over subsets of operands, in
	// O(3^n) time. Ties go to the tree whose largest intermediate is smallest.
	Optimal
)

// OptimalMaxOperands is the largest operand count for which Auto runs the optimal
// search (3^8 = 6561 subset splits).
const OptimalMaxOperands = 8

// sizeOf returns the number of elements of a tensor carrying the labels in s.
func sizeOf(s lset, size *[maxLabels]int) float64 {
	p := 1.0
	for w := range 2 {
		for x := s[w]; x != 0; x &= x - 1 {
			p *= float64(size[w*64+bits.TrailingZeros64(x)])
		}
	}
	return p
}

// pairCost is the number of multiply-adds of contracting two tensors whose labels
// together are u: one per point of the joint index space.
func pairCost(u lset, size *[maxLabels]int) float64 { return sizeOf(u, size) }

// resultLabels returns the labels of the contraction of sets[i] and sets[j] that
// are still needed: those in out or in some other operand.
func resultLabels(sets []lset, i, j int, out lset) lset {
	need := out
	for k, s := range sets {
		if k != i && k != j {
			need = need.or(s)
		}
	}
	return sets[i].or(sets[j]).and(need)
}

// greedyPath returns a contraction order in linear form (each step names two
// positions i < j of the current operand list; both are removed and the result is
// appended) and its cost in multiply-adds.
func greedyPath(sets []lset, out lset, size *[maxLabels]int) ([][2]int, float64) {
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
				r := resultLabels(sets, i, j, out)
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
		r := resultLabels(sets, bi, bj, out)
		total += pairCost(sets[bi].or(sets[bj]), size)
		path = append(path, [2]int{bi, bj})
		sets = append(append(append([]lset{}, sets[:bi]...), sets[bi+1:bj]...), sets[bj+1:]...)
		sets = append(sets, r)
	}
	return path, total
}

// optimalPath returns the order of least cost over all contraction trees, in the
// linear form of greedyPath. len(sets) must be small (it allocates 2^n entries).
func optimalPath(sets []lset, out lset, size *[maxLabels]int) ([][2]int, float64) {
	n := len(sets)
	full := 1<<n - 1
	union := make([]lset, full+1)
	for s := 1; s <= full; s++ {
		low := bits.TrailingZeros(uint(s))
		union[s] = union[s&(s-1)].or(sets[low])
	}
	// res[s]: the labels the contraction of the operands in s must keep.
	res := make([]lset, full+1)
	cost := make([]float64, full+1)
	peak := make([]float64, full+1) // largest intermediate in the best tree
	split := make([]int, full+1)
	for s := 1; s <= full; s++ {
		res[s] = union[s].and(union[full&^s].or(out))
		if s&(s-1) == 0 {
			continue
		}
		cost[s] = -1
		low := s & -s
		// Enumerate splits {a, s^a} with a containing the lowest member, once each.
		for a := (s - 1) & s; a > 0; a = (a - 1) & s {
			if a&low == 0 {
				continue
			}
			c := s ^ a
			cc := cost[a] + cost[c] + pairCost(res[a].or(res[c]), size)
			pk := max(peak[a], peak[c], sizeOf(res[s], size))
			if cost[s] < 0 || cc < cost[s] || (cc == cost[s] && pk < peak[s]) {
				cost[s], peak[s], split[s] = cc, pk, a
			}
		}
	}
	// Emit the tree in post-order, tracking the position of every live subset.
	live := make([]int, n)
	for i := range live {
		live[i] = 1 << i
	}
	var path [][2]int
	var emit func(s int)
	emit = func(s int) {
		if s&(s-1) == 0 {
			return
		}
		a, c := split[s], s^split[s]
		emit(a)
		emit(c)
		i, j := -1, -1
		for p, v := range live {
			if v == a || v == c {
				if i < 0 {
					i = p
				} else {
					j = p
				}
			}
		}
		path = append(path, [2]int{i, j})
		live = append(append(append([]int{}, live[:i]...), live[i+1:j]...), live[j+1:]...)
		live = append(live, s)
	}
	emit(full)
	return path, cost[full]
}
