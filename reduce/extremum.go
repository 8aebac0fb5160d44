package reduce

import (
	"math"
	"sync"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/internal/vmath"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// MaxOp returns the op "amax": y[i, j] = max_k x[i, k, j] (float64 only; a NaN in the
// slice makes the maximum NaN, and +0 counts as above -0). Axes and keepdim are those of SumOp; a reduction
// over an empty axis is an error.
//
// Tie policy (that of PyTorch's amax and JAX): the cotangent is split evenly among
// the c elements equal to the maximum, xbar[i, k, j] = ybar[i, j] / c at those
// elements and 0 elsewhere, and ydot[i, j] is the mean of xdot over them. Away from
// ties this is the derivative (c = 1); at a tie it is the average of the one-sided
// derivatives' candidates. A NaN maximum is matched by the NaN elements of its
// slice. The second-order term is zero.
func MaxOp(axes []int, keepdim bool) cr.Op[*tensor.Dense] {
	o := newOp("amax", axes, keepdim, extremum{})
	o.realOnly, o.nonEmpty = true, true
	return o
}

// Max is MaxOp without a tape.
func Max(x *tensor.Dense, axes []int, keepdim bool) (*tensor.Dense, error) {
	return cr.Eval(MaxOp(axes, keepdim), x)
}

// MinOp returns the op "amin", the minimum with the rules and tie policy of MaxOp.
func MinOp(axes []int, keepdim bool) cr.Op[*tensor.Dense] {
	o := newOp("amin", axes, keepdim, extremum{min: true})
	o.realOnly, o.nonEmpty = true, true
	return o
}

// Min is MinOp without a tape.
func Min(x *tensor.Dense, axes []int, keepdim bool) (*tensor.Dense, error) {
	return cr.Eval(MinOp(axes, keepdim), x)
}

type extremum struct{ min bool }

func (e extremum) apply(p *plan, in cr.NodeID, x *tensor.Dense) (*tensor.Dense, cr.Rule[*tensor.Dense], error) {
	xs := elems[float64](p.canonical(x))
	whole := len(p.shape) == 1 && p.Count() == 1
	var y, chunks []float64
	if whole {
		chunks = chunkExtrema(xs, e.min)
		y = []float64{chunks[0]}
		for _, v := range chunks[1:] {
			y[0] = vmathPick(y[0], v, e.min)
		}
	} else {
		y = maxKernel(xs, p.Lanes, e.min)
	}
	t := &ties{p: p, x: xs, y: y, chunks: chunks}
	for _, v := range y {
		if v != v {
			t.nan = true
			break
		}
	}
	lr := freshUnaryLinear(in, t.mean, t.split)
	if whole {
		if fl, ok := lr.(freshLinear); ok {
			return output(p, y), &extremumRule{linearFull: fl.linearFull, t: t, in: in, min: e.min}, nil
		}
	}
	return output(p, y), lr, nil
}

// extremumRule is the rule of the maximum (or minimum) of a whole vector: the
// linear rule of ties, and a row-sparse pullback (chainrules.RowPullbackRule)
// whose term has the c elements (rows) of x that attain y, each g / c, rather
// than an n-vector of zeros around them. A log-sum-exp written from its parts,
// a + log sum exp(x - a) with a = max x, then adds its max term into the
// gradient at the ties instead of with a pass over n elements.
type extremumRule struct {
	linearFull
	t   *ties
	in  cr.NodeID
	min bool // amin, not amax
}

// FreshStorage: the cotangents are made for each call (chainrules.FreshStorage).
func (*extremumRule) FreshStorage() {}

// maxRowTies bounds the ties a row-sparse term takes; more (a constant vector,
// say) go to the dense pullback.
const maxRowTies = 64

// RowPullback appends the term xbar[k] = g / c at the c elements k of x that
// attain y (chainrules.RowPullbackRule).
func (r *extremumRule) RowPullback(ybar []*tensor.Dense, has []bool, dst []cr.Contribution[*tensor.Dense], rows []cr.RowContribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], []cr.RowContribution[*tensor.Dense], error) {
	t := r.t
	g, err := cotangent[float64](t.p, ybar[0])
	if err != nil {
		return dst, rows, err
	}
	idx, ok := r.tieIndices()
	if !ok {
		dst, err = r.Pullback(ybar, has, dst)
		return dst, rows, err
	}
	vals := make([]float64, len(idx))
	for k := range vals {
		vals[k] = g[0] / float64(len(idx))
	}
	v, err := tensor.FromFloat64(vals, len(idx))
	if err != nil {
		return dst, rows, err
	}
	return dst, append(rows, cr.RowContribution[*tensor.Dense]{Node: r.in, Rows: idx, Value: v}), nil
}

// tieBlock is the length of the blocks tieIndices reduces with vmath's kernel
// before it compares their elements one by one.
const tieBlock = 256

// tieChunk is the length of the chunks whose extrema the forward pass of a whole
// vector's extremum keeps (ties.chunks): tieIndices looks for ties only in the
// chunks that attain the extremum. One call of vmath's kernel per chunk costs the
// forward pass about a percent of its time.
const tieChunk = 2048

// chunkExtrema returns the extrema of the chunks of tieChunk elements of the
// non-empty x, in order. Go's max and min are associative and commutative (NaN
// absorbs, +0 is above -0), so the extremum of the chunks' extrema is x's.
func chunkExtrema(x []float64, isMin bool) []float64 {
	out := make([]float64, 0, (len(x)+tieChunk-1)/tieChunk)
	for lo := 0; lo < len(x); lo += tieChunk {
		hi := min(lo+tieChunk, len(x))
		if isMin {
			out = append(out, vmath.Min(x[lo:hi]))
		} else {
			out = append(out, vmath.Max(x[lo:hi]))
		}
	}
	return out
}

// vmathPick returns max(a, b), or min(a, b) when isMin (Go's built-ins, as
// vmath.Max and vmath.Min combine their partial results).
func vmathPick(a, b float64, isMin bool) float64 {
	if isMin {
		return min(a, b)
	}
	return max(a, b)
}

// tieIndices returns the indices k with x[k] == y (the ties of the whole
// vector's extremum y), and false when there are more than maxRowTies. It skips
// the chunks whose extremum (kept by the forward pass) is not y, finds the blocks
// of tieBlock elements that hold a tie in the others with the vectorised kernel
// of the forward pass (the extremum of a block equals y exactly when one of its
// elements does: each element lies between the block's extremum and y), and
// compares elements only in those: about one read of a chunk (or two, at a
// tie across chunks) at the kernel's speed instead of a compare and a branch
// per element of x. A NaN extremum (matched by NaN elements) takes the element
// loop.
func (r *extremumRule) tieIndices() ([]int, bool) {
	t := r.t
	y := t.y[0]
	var idx []int
	scan := func(lo, hi int) bool {
		for k, v := range t.x[lo:hi] {
			if v == y || (t.nan && v != v && y != y) {
				if len(idx) == maxRowTies {
					return false
				}
				idx = append(idx, lo+k)
			}
		}
		return true
	}
	if t.nan {
		return idx, scan(0, len(t.x))
	}
	chunk, chunks := len(t.x), []float64{y}
	if t.chunks != nil {
		chunk, chunks = tieChunk, t.chunks
	}
	for c, ce := range chunks {
		if ce != y {
			continue
		}
		end := min((c+1)*chunk, len(t.x))
		for lo := c * chunk; lo < end; lo += tieBlock {
			hi := min(lo+tieBlock, end)
			var e float64
			if r.min {
				e = vmath.Min(t.x[lo:hi])
			} else {
				e = vmath.Max(t.x[lo:hi])
			}
			if e == y && !scan(lo, hi) {
				return idx, false
			}
		}
	}
	return idx, true
}

// ties holds what the rule of amax and amin needs: the input in the canonical
// layout and the output, whose elements mark the c_o elements of lane o that attain
// the extremum y_o. Given those marks the rule is linear: with m_k = 1 at the marked
// elements and 0 elsewhere,
//
//	ydot_o = sum_k m_k xdot_k / c_o   (mean),   xbar_k = m_k ybar_o / c_o   (split),
//
// and split is the adjoint of mean. Both visit the input and compare every element
// with its output; nan says whether some output is NaN, so that the loops test for
// NaN only then.
type ties struct {
	p   *plan
	x   []float64 // input in canonical layout
	y   []float64 // output
	nan bool

	// chunks are the extrema of x's chunks of tieChunk elements when the
	// extremum is that of a whole vector (extremumRule's tie search), else nil.
	chunks []float64

	posOnce sync.Once
	pos     []int // lanePositions
}

// split returns the input-shaped xbar with xbar_k = g_o / c_o at the c_o elements of
// lane o that attain y_o, and 0 elsewhere. The first pass writes g at the ties and
// counts them; a second pass, only if some lane has several, divides.
func (t *ties) split(gt *tensor.Dense) (*tensor.Dense, error) {
	g, err := cotangent[float64](t.p, gt)
	if err != nil {
		return nil, err
	}
	p := t.p
	// Every element of buf is written by the goroutine that marks its lane
	// (splitLane writes the zeros as well) or clears its column range.
	buf := vmath.MakeNoZero[float64](p.Size())
	if p.Inner == 1 {
		k, pos := p.Len, t.lanePositions()
		forLanes(p.Lanes, func(lo, hi int) {
			for o := lo; o < hi; o++ {
				row := buf[o*k : (o+1)*k]
				if at := pos[o]; at >= 0 {
					clear(row)
					row[at] = g[o]
					continue
				}
				splitLane(row, t.x[o*k:(o+1)*k], t.y[o], g[o], t.nan)
			}
		})
		return restore(p, buf), nil
	}
	cnt := make([]int, p.Count())
	forColumns(p.Lanes, func(lo, hi int) {
		several := false
		for o, off := range p.Rows() {
			row := buf[off+lo : off+hi]
			clear(row)
			several = markRow(row, t.x[off+lo:off+hi], t.y[o+lo:o+hi], g[o+lo:o+hi], cnt[o+lo:o+hi], t.nan) || several
		}
		if several {
			for o, off := range p.Rows() {
				divideRow(buf[off+lo:off+hi], g[o+lo:o+hi], cnt[o+lo:o+hi])
			}
		}
	})
	return restore(p, buf), nil
}

// mean returns ydot_o = the mean of xdot over the elements of lane o that attain
// y_o.
func (t *ties) mean(xdot *tensor.Dense) (*tensor.Dense, error) {
	xd, err := inputElems[float64](t.p, xdot)
	if err != nil {
		return nil, err
	}
	p, n := t.p, t.p.Inner
	out := make([]float64, p.Count())
	if n == 1 {
		pos := t.lanePositions()
		for o, l := range p.All() {
			if at := pos[o]; at >= 0 {
				out[o] = xd[l.Off+at]
				continue
			}
			out[o] = meanLane(t.x[l.Off:l.Off+l.Len], xd[l.Off:l.Off+l.Len], t.y[o], t.nan)
		}
		return output(p, out), nil
	}
	cnt := make([]int, p.Count())
	for o, off := range p.Rows() {
		meanRow(out[o:o+n], cnt[o:o+n], t.x[off:off+n], xd[off:off+n], t.y[o:o+n], t.nan)
	}
	for o, c := range cnt {
		if c > 1 {
			out[o] /= float64(c)
		}
	}
	return output(p, out), nil
}

// The kernels of ties work on one contiguous lane or row at a time. They are kept
// out of line (go:noinline) on purpose: inlined into the range-over-func loop of
// Lanes.All or Lanes.Rows, their counters spill to the stack, which costs about a
// third of the pullback of amax over 1024 elements a lane. An element v attains y
// when v == y, or when both are NaN and nan (some output is NaN) is set.

// splitLane sets row[k] = g / c at the c elements of the lane xs that attain y,
// and row[k] = 0 at the others (row need not be cleared).
//
//go:noinline
func splitLane(row, xs []float64, y, g float64, nan bool) {
	xs = xs[:len(row)]
	c := 0
	for k, v := range xs {
		if v == y || (nan && v != v && y != y) {
			row[k] = g
			c++
		} else {
			row[k] = 0
		}
	}
	if c > 1 {
		s := g / float64(c)
		for k, v := range xs {
			if v == y || (nan && v != v && y != y) {
				row[k] = s
			}
		}
	}
}

// meanLane returns the mean of xd over the elements of the lane xs that attain y.
//
//go:noinline
func meanLane(xs, xd []float64, y float64, nan bool) float64 {
	xd = xd[:len(xs)]
	s, c := 0.0, 0
	for k, v := range xs {
		if v == y || (nan && v != v && y != y) {
			s += xd[k]
			c++
		}
	}
	if c > 1 {
		s /= float64(c)
	}
	return s
}

// markRow sets row[j] = g[j] where xs[j] attains y[j] and counts those matches in
// cnt[j]; it reports whether some count exceeds 1.
//
//go:noinline
func markRow(row, xs, y, g []float64, cnt []int, nan bool) bool {
	xs, y, g, cnt = xs[:len(row)], y[:len(row)], g[:len(row)], cnt[:len(row)]
	several := false
	for j, v := range xs {
		if v == y[j] || (nan && v != v && y[j] != y[j]) {
			row[j] = g[j]
			cnt[j]++
			several = several || cnt[j] > 1
		}
	}
	return several
}

// divideRow sets row[j] = g[j] / cnt[j] at the marked elements of the lanes with
// several ties.
//
//go:noinline
func divideRow(row, g []float64, cnt []int) {
	g, cnt = g[:len(row)], cnt[:len(row)]
	for j := range row {
		if c := cnt[j]; c > 1 && row[j] != 0 {
			row[j] = g[j] / float64(c)
		}
	}
}

// meanRow adds xd[j] to s[j] and counts in c[j] where xs[j] attains y[j].
//
//go:noinline
func meanRow(s []float64, c []int, xs, xd, y []float64, nan bool) {
	xd, y, s, c = xd[:len(xs)], y[:len(xs)], s[:len(xs)], c[:len(xs)]
	for j, v := range xs {
		if v == y[j] || (nan && v != v && y[j] != y[j]) {
			s[j] += xd[j]
			c[j]++
		}
	}
}

// maxKernel returns out_o = the maximum of lane o of x (the minimum if isMin is
// set) with the vector kernels of package vmath and the rules of Go's built-in max
// and min: a NaN in a lane makes its result NaN (as in PyTorch's amax), and +0 is
// above -0, so the result does not depend on the order of the elements. An empty
// lane gives 0.
func maxKernel(x []float64, l opkit.Lanes, isMin bool) []float64 {
	out := make([]float64, l.Count())
	if l.Len == 0 {
		return out
	}
	if l.Inner == 1 {
		k := l.Len
		forLanes(l, func(lo, hi int) {
			for o := lo; o < hi; o++ {
				if isMin {
					out[o] = vmath.Min(x[o*k : (o+1)*k])
				} else {
					out[o] = vmath.Max(x[o*k : (o+1)*k])
				}
			}
		})
		return out
	}
	// Reduce the rows of each [Len, Inner] block into the output vector one after
	// the other, starting from the identity of max (min): a pass over two
	// contiguous slices per row.
	start := math.Inf(-1)
	if isMin {
		start = math.Inf(1)
	}
	for o := range out {
		out[o] = start
	}
	forColumns(l, func(lo, hi int) {
		for o, off := range l.Rows() {
			if isMin {
				vmath.MinInto(out[o+lo:o+hi], x[off+lo:off+hi])
			} else {
				vmath.MaxInto(out[o+lo:o+hi], x[off+lo:off+hi])
			}
		}
	})
	return out
}
