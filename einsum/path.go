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
	// result first; ties go to the pair that comes first in the operand list. The
	// choice is made incrementally (each operand's best partner in a heap), in about
	// n^2 pair scores for n operands: tens of milliseconds for a thousand.
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

// greedyPath returns a contraction order in linear form (each step names two
// positions i < j of the current operand list; both are removed and the result is
// appended) and its cost in multiply-adds. The rule is Greedy's: the connected pair
// of least (cost, memory change), ties to the pair that comes first in the list;
// without connected pairs, the pair with the smallest result.
//
// The choice is made incrementally, in the manner of opt_einsum's greedy. Number the
// operands in order of creation (the inputs, then each step's result): that is their
// order in the list. A step keeps the labels of its pair that the output or a third
// live operand carries, so, with count[l] the number of live operands carrying l, a
// pair (a, b) keeps
//
//	(s_a ∪ s_b) ∩ out  ∪  (s_a ∩ s_b ∩ {count ≥ 3})  ∪  ((s_a △ s_b) ∩ {count ≥ 2}),
//
// a few word operations. A step changes count only on the labels of its pair: a
// label of both that it keeps loses one carrier and keeps at least two, one that it
// drops had no other carrier, and a label of one of them keeps its count. So the key
// of a pair of two other operands does not change while both live. Each operand a
// keeps its best partner b > a in a heap: found by one scan, replaced when a new
// result scores strictly better, and found again only when b has been consumed and
// a's entry reaches the top. Once no live pair is connected, none will be again (a
// result carries labels of its pair only), and the same search runs over all pairs
// ordered by result size. Each step scores the new result against the live
// operands, O(n^2) scores in all for n operands, and a rescan costs O(n); the heap
// holds one entry per operand.
func greedyPath(sets []lset, out lset, size *[maxLabels]int) ([][2]int, float64) {
	n := len(sets)
	g := &greedy{
		out:   out,
		size:  size,
		sets:  append(make([]lset, 0, 2*n-1), sets...),
		alive: newFenwick(2*n - 1),
		live:  make([]int32, n),
		sz:    make([]float64, n, 2*n-1),
		best:  make([]pairEntry, 2*n-1),
	}
	for k, s := range sets {
		g.sz[k] = sizeOf(s, size)
		g.alive.add(k, 1)
		g.live[k] = int32(k)
		for w := range 2 {
			for x := s[w]; x != 0; x &= x - 1 {
				g.count[w*64+bits.TrailingZeros64(x)]++
			}
		}
	}
	g.thresholds(g.sets...)
	// The connected pairs, then, when they run out, all pairs.
	for _, connected := range []bool{true, false} {
		g.connected = connected
		g.heap = g.heap[:0]
		for _, a := range g.live {
			if g.rescan(a) {
				g.heap = append(g.heap, g.best[a])
			}
		}
		g.heap.init()
		for len(g.live) > 1 && len(g.heap) > 0 {
			e := g.heap.pop()
			switch {
			case !g.isLive(e.a) || e.b != g.best[e.a].b:
				// a was consumed, or has a better entry.
			case !g.isLive(e.b):
				if g.rescan(e.a) {
					g.heap.push(g.best[e.a])
				}
			default:
				z := g.contract(e.a, e.b)
				for _, x := range g.live {
					if x == z {
						continue
					}
					if f, ok := g.key(x, z); ok && (g.best[x].b < 0 || f.less(g.best[x])) {
						g.best[x] = f
						g.heap.push(f)
					}
				}
			}
		}
	}
	return g.path, g.total
}

// greedy is the state of greedyPath, operands named by number.
type greedy struct {
	out       lset
	size      *[maxLabels]int
	connected bool      // only pairs that share a label are candidates
	sets      []lset    // labels of every operand, live or not
	sz        []float64 // sizeOf of every operand
	alive     fenwick   // 1 at each live operand: its position is a prefix sum
	live      []int32   // the live operands, in no particular order
	best      []pairEntry
	count     [maxLabels]int32
	two       lset // labels with count >= 2
	three     lset // labels with count >= 3
	heap      pairHeap
	path      [][2]int
	total     float64
}

// thresholds updates two and three for the labels of ss.
func (g *greedy) thresholds(ss ...lset) {
	var u lset
	for _, s := range ss {
		u = u.or(s)
	}
	for w := range 2 {
		for x := u[w]; x != 0; x &= x - 1 {
			l := w*64 + bits.TrailingZeros64(x)
			bit := uint64(1) << (l & 63)
			g.two[w] &^= bit
			g.three[w] &^= bit
			if g.count[l] >= 2 {
				g.two[w] |= bit
			}
			if g.count[l] >= 3 {
				g.three[w] |= bit
			}
		}
	}
}

func (g *greedy) isLive(a int32) bool { return g.alive.at(int(a)) != 0 }

// result returns the labels that contracting live operands with labels sa and sb
// keeps.
func (g *greedy) result(sa, sb lset) (r lset) {
	for w := range r {
		both, one := sa[w]&sb[w], sa[w]^sb[w]
		r[w] = (both|one)&g.out[w] | both&g.three[w] | one&g.two[w]
	}
	return r
}

// key returns the heap entry of the live pair a < b, or false if it is not a
// candidate: for a connected pair its cost and the change in memory (result minus
// the pair), for another the result's size twice.
func (g *greedy) key(a, b int32) (pairEntry, bool) {
	sa, sb := g.sets[a], g.sets[b]
	if g.connected && sa.and(sb).empty() {
		return pairEntry{}, false
	}
	rs := sizeOf(g.result(sa, sb), g.size)
	if !g.connected {
		return pairEntry{cost: rs, mem: rs, a: a, b: b}, true
	}
	return pairEntry{cost: pairCost(sa.or(sb), g.size), mem: rs - g.sz[a] - g.sz[b], a: a, b: b}, true
}

// rescan sets the best entry of live operand a over its live partners b > a and
// reports whether it has one.
func (g *greedy) rescan(a int32) bool {
	g.best[a] = pairEntry{a: a, b: -1}
	for _, b := range g.live {
		if b <= a {
			continue
		}
		if f, ok := g.key(a, b); ok && (g.best[a].b < 0 || f.less(g.best[a])) {
			g.best[a] = f
		}
	}
	return g.best[a].b >= 0
}

// contract records the step that contracts live operands a < b and returns the
// number of its result.
func (g *greedy) contract(a, b int32) int32 {
	sa, sb := g.sets[a], g.sets[b]
	r := g.result(sa, sb)
	g.path = append(g.path, [2]int{g.alive.prefix(int(a)), g.alive.prefix(int(b))})
	g.total += pairCost(sa.or(sb), g.size)
	z := int32(len(g.sets))
	g.sets = append(g.sets, r)
	g.sz = append(g.sz, sizeOf(r, g.size))
	g.best[z] = pairEntry{a: z, b: -1}
	g.alive.add(int(a), -1)
	g.alive.add(int(b), -1)
	g.alive.add(int(z), 1)
	for w := range 2 {
		for x := sa[w]; x != 0; x &= x - 1 {
			g.count[w*64+bits.TrailingZeros64(x)]--
		}
		for x := sb[w]; x != 0; x &= x - 1 {
			g.count[w*64+bits.TrailingZeros64(x)]--
		}
		for x := r[w]; x != 0; x &= x - 1 {
			g.count[w*64+bits.TrailingZeros64(x)]++
		}
	}
	g.thresholds(sa, sb)
	for x := 0; x < len(g.live); {
		if v := g.live[x]; v == a || v == b {
			g.live[x] = g.live[len(g.live)-1]
			g.live = g.live[:len(g.live)-1]
			continue
		}
		x++
	}
	g.live = append(g.live, z)
	return z
}

// pairEntry is a candidate pair a < b of greedyPath with its key.
type pairEntry struct {
	cost, mem float64
	a, b      int32
}

// less orders entries by cost, then memory, then position in the operand list.
func (e pairEntry) less(f pairEntry) bool {
	switch {
	case e.cost != f.cost:
		return e.cost < f.cost
	case e.mem != f.mem:
		return e.mem < f.mem
	case e.a != f.a:
		return e.a < f.a
	}
	return e.b < f.b
}

// pairHeap is a binary min-heap of pair entries.
type pairHeap []pairEntry

func (h pairHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *pairHeap) push(e pairEntry) {
	*h = append(*h, e)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !s[i].less(s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *pairHeap) pop() pairEntry {
	s := *h
	e := s[0]
	s[0] = s[len(s)-1]
	*h = s[:len(s)-1]
	h.down(0)
	return e
}

func (h pairHeap) down(i int) {
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && h[c+1].less(h[c]) {
			c++
		}
		if !h[c].less(h[i]) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// fenwick is a binary indexed tree of counts: add and prefix sums in O(log n).
type fenwick struct{ t, v []int }

func newFenwick(n int) fenwick { return fenwick{t: make([]int, n+1), v: make([]int, n)} }

// add adds d at index i.
func (f fenwick) add(i, d int) {
	f.v[i] += d
	for j := i + 1; j < len(f.t); j += j & -j {
		f.t[j] += d
	}
}

// at returns the value at index i.
func (f fenwick) at(i int) int { return f.v[i] }

// prefix returns the sum of the values at the indices below i.
func (f fenwick) prefix(i int) int {
	s := 0
	for j := i; j > 0; j -= j & -j {
		s += f.t[j]
	}
	return s
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
