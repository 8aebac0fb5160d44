package core

import (
	"fmt"
	"sync"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

// accumulator states of a node's slot
const (
	absent   uint8 = iota
	borrowed       // the slot holds a value the engine does not own (a seed, a rule's result)
	owned          // the slot holds a sum the engine made; Accumulate may reuse it
)

// accum holds one value slot per node and adds contributions into it without ever
// writing into storage it does not own.
type accum[V any] struct {
	space cr.Space[V]
	vals  []V
	state []uint8
	// rows holds the row-sparse terms (RowPullbackRule) of the nodes that have
	// some, not yet added into vals, by node: nil until the first. nrows counts
	// the nodes that have some.
	rows  []*rowTerms[V]
	nrows int
	// sums holds, in a sweep that trades cotangent sums (sums.go), the known sum
	// of each slot's value: nil until the first, and again when the sweep ends.
	sums []cr.CotangentSum
	// spare is the storage of a small sweep's rows, sums and first row terms, in
	// the allocation of the Gradients the sweep returns (see gradientsBox), or
	// nil: each is taken at most once, when first needed.
	spare *gradientsBox[V]
}

// smallSweep is the number of nodes up to which a first-order Backward keeps its
// slots in the allocation of the Gradients it returns (gradientsBox).
const smallSweep = 16

// gradientsBox is a Gradients together with the storage of the slots of a sweep
// of at most smallSweep nodes, so that the sweep of a small graph makes one
// allocation where it made up to eight: the Gradients, the values and states of
// the slots, the sums (sums.go), the row-sparse terms by node and the first
// node's terms, and the first storage of the tape's dead and kept values (when
// the sweep is the first to collect them for Release). The slices point into
// the box, which lives as long as any of them (or the Gradients) does; the
// Recycler that Release hands dead and kept may look at them again, so they
// are not cleared.
type gradientsBox[V any] struct {
	g          Gradients[V]
	vals       [smallSweep]V
	state      [smallSweep]uint8
	sums       [smallSweep]cr.CotangentSum
	rows       [smallSweep]*rowTerms[V]
	terms      rowTerms[V]
	dead, kept [smallSweep]V
	// taken records which spares have been handed out.
	sumsTaken, rowsTaken, termsTaken bool
}

// newGradientsBox returns a box for a sweep of n nodes, or nil when n is above
// smallSweep.
func newGradientsBox[V any](n int) *gradientsBox[V] {
	if n > smallSweep {
		return nil
	}
	return new(gradientsBox[V])
}

// accum returns the slots of a sweep of n nodes, in b's storage when b is not
// nil (n at most smallSweep), or else newly made.
func (b *gradientsBox[V]) accum(space cr.Space[V], n int) accum[V] {
	if b == nil || n > smallSweep {
		return newAccum(space, n)
	}
	return accum[V]{space: space, vals: b.vals[:n:n], state: b.state[:n:n], spare: b}
}

// gradients returns the Gradients holding acc, the slots of a sweep of t: b's
// when b is not nil, or else a new one.
func (b *gradientsBox[V]) gradients(t *Tape[V], acc accum[V]) *Gradients[V] {
	if b == nil {
		return &Gradients[V]{tape: t, acc: acc}
	}
	acc.spare = nil // the spares were the sweep's
	b.g.tape, b.g.acc = t, acc
	return &b.g
}

// rowTerms are the row-sparse terms of one node's cotangent.
type rowTerms[V any] struct {
	like  V // the node's value, which shapes the dense cotangent
	terms []cr.RowContribution[V]
	first [1]cr.RowContribution[V] // terms' first storage: most nodes have one term
}

func newAccum[V any](space cr.Space[V], n int) accum[V] {
	return accum[V]{space: space, vals: make([]V, n), state: make([]uint8, n)}
}

// add adds the contribution v to node j's slot. The first contribution (the only
// one on a chain) is stored as it is.
func (a *accum[V]) add(j int, v V) error {
	a.forgetSum(j)
	if a.state[j] == absent {
		a.vals[j], a.state[j] = v, borrowed
		return nil
	}
	return a.addTo(j, v)
}

// addTo is add to a slot that holds a value already.
func (a *accum[V]) addTo(j int, v V) error {
	a.forgetSum(j)
	switch a.state[j] {
	case borrowed:
		s, err := a.space.Add(a.vals[j], v)
		if err != nil {
			return err
		}
		a.vals[j], a.state[j] = s, owned
		return nil
	default:
		s, err := a.space.Accumulate(a.vals[j], v)
		if err != nil {
			return err
		}
		a.vals[j] = s
		return nil
	}
}

func (a *accum[V]) drop(j int) {
	a.forgetSum(j)
	var zero V
	a.vals[j], a.state[j] = zero, absent
}

// addRows keeps the row-sparse term c of node j, whose value is like.
func (a *accum[V]) addRows(j int, like V, c cr.RowContribution[V]) {
	if a.rows == nil {
		if b := a.spare; b != nil && !b.rowsTaken {
			b.rowsTaken = true
			a.rows = b.rows[:len(a.vals):len(a.vals)]
		} else {
			a.rows = make([]*rowTerms[V], len(a.vals))
		}
	}
	r := a.rows[j]
	if r == nil {
		if b := a.spare; b != nil && !b.termsTaken {
			b.termsTaken = true
			r = &b.terms
			r.like = like
		} else {
			r = &rowTerms[V]{like: like}
		}
		r.terms = r.first[:0]
		a.rows[j] = r
		a.nrows++
	}
	r.terms = append(r.terms, c)
}

// rowsOf returns node j's row-sparse terms, or nil if it has none.
func (a *accum[V]) rowsOf(j int) *rowTerms[V] {
	if a.nrows == 0 {
		return nil
	}
	return a.rows[j]
}

// present reports whether node j has a cotangent, dense or row-sparse.
func (a *accum[V]) present(j int) bool {
	return a.state[j] != absent || a.rowsOf(j) != nil
}

// settle adds node j's row-sparse terms into its dense cotangent, which starts from
// zero when it had none, and never in storage the engine does not own.
func (a *accum[V]) settle(j int, rs cr.RowSpace[V]) error {
	r := a.rowsOf(j)
	if r == nil {
		return nil
	}
	a.rows[j] = nil
	a.nrows--
	a.forgetSum(j)
	v := a.vals[j]
	switch a.state[j] {
	case absent:
		v = a.space.Zero(r.like)
	case borrowed:
		v = a.space.Clone(v)
	}
	for _, c := range r.terms {
		var err error
		if v, err = rs.AddRows(v, c.Rows, c.Value); err != nil {
			return err
		}
	}
	a.vals[j], a.state[j] = v, owned
	return nil
}

// Gradients holds the result of a reverse sweep: the cotangent of each leaf the output
// depends on and, when the sweep ran with AllNodes, of every node it reached.
//
// The values may share storage with each other, with the seed and with values the
// rules captured; treat them as read-only (Clone before modifying).
//
// A leaf reached only through row-sparse pullbacks (RowPullbackRule: lookups of a
// few rows of a table) keeps its cotangent as the rows the lookups touched; Rows
// returns that compact form, and Of makes it dense on first use. The methods are
// safe for concurrent use.
type Gradients[V any] struct {
	tape *Tape[V]
	acc  accum[V]
	mu   sync.Mutex // guards acc while row-sparse terms are made dense
}

// Of returns the cotangent at id, and false if the sweep did not produce one (id is
// not on the tape, the output does not depend on it, or it was not kept).
func (g *Gradients[V]) Of(id cr.NodeID) (V, bool) {
	var zero V
	if id.Tape() != g.tape.tag || id.Index() >= len(g.acc.vals) {
		return zero, false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	i := id.Index()
	g.settle(i)
	if g.acc.state[i] == absent {
		return zero, false
	}
	return g.acc.vals[i], true
}

// Rows returns the cotangent at id in row-sparse form: the distinct rows it is
// nonzero in, in increasing order, and their values (shaped like the node's value
// with a first axis of length len(rows)), so that
//
//	Of(id)[rows[k], ...] = v[k, ...]   and Of(id) is zero in every other row.
//
// ok is false unless the cotangent came only from row-sparse terms and Of has not
// made it dense yet: a table of 10^6 rows read through a few lookups then costs
// memory for the rows read, not for the table.
func (g *Gradients[V]) Rows(id cr.NodeID) (rows []int, v V, ok bool) {
	if id.Tape() != g.tape.tag || id.Index() >= len(g.acc.vals) {
		return nil, v, false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	i := id.Index()
	r := g.acc.rowsOf(i)
	if r == nil || g.acc.state[i] != absent {
		return nil, v, false
	}
	rows, v, err := g.tape.rows.CoalesceRows(r.like, r.terms)
	if err != nil {
		return nil, v, false // the terms passed CheckRows when the sweep added them
	}
	return rows, v, true
}

// settle makes node i's cotangent dense if it has row-sparse terms. The terms passed
// the Space's CheckRows when the sweep added them, so only a Space that breaks its
// own contract makes AddRows fail.
func (g *Gradients[V]) settle(i int) {
	if g.acc.nrows == 0 {
		return
	}
	if err := g.acc.settle(i, g.tape.rows); err != nil {
		panic(fmt.Sprintf("core: the Space's AddRows failed on terms its CheckRows accepted: %v", err))
	}
}

// settleAll makes every cotangent dense.
func (g *Gradients[V]) settleAll() {
	for i := range g.acc.rows {
		g.settle(i)
	}
}

// Map returns the present cotangents keyed by NodeID.
func (g *Gradients[V]) Map() map[cr.NodeID]V {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.settleAll()
	m := make(map[cr.NodeID]V)
	for i, s := range g.acc.state {
		if s != absent {
			m[cr.NewNodeID(g.tape.tag, i)] = g.acc.vals[i]
		}
	}
	return m
}

// Len returns the number of present cotangents.
func (g *Gradients[V]) Len() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for i := range g.acc.state {
		if g.acc.present(i) {
			n++
		}
	}
	return n
}

// Dense returns the cotangents as a slice indexed by NodeID.Index(), as long as the
// graph at the time of the sweep. Absent entries hold the zero V, or with zeroFill
// the Space's zero shaped like the node's value (which needs the graph: an error
// wrapping ErrGraphFreed after Free).
func (g *Gradients[V]) Dense(zeroFill bool) ([]V, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.settleAll()
	out := make([]V, len(g.acc.vals))
	copy(out, g.acc.vals)
	if !zeroFill {
		for i, s := range g.acc.state {
			if s == absent {
				var zero V
				out[i] = zero
			}
		}
		return out, nil
	}
	if g.tape.freed {
		return nil, cr.ErrGraphFreed
	}
	for i, s := range g.acc.state {
		if s == absent {
			out[i] = g.tape.space.Zero(g.tape.at(i).value)
		}
	}
	return out, nil
}
