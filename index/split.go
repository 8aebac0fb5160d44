package index

import (
	"fmt"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// splitOp is the "split" family: one op with an output per block.
type splitOp struct {
	axis  int
	sizes []int
}

// SplitOp returns the multi-output op that cuts x along axis into consecutive blocks
// of the given sizes, which must add up to the axis size. Output k is
//
//	y_k = x[..., o_k : o_k + sizes[k], ...],   o_k = sizes[0] + ... + sizes[k-1],
//
// a view of x that shares its storage (no copy), so NumOutputs is len(sizes); record
// it with ApplySplit, ApplyChunk or a chainrules.Recorder's ApplyMulti
// (core.Tape.ApplyMulti).
// With S_k the selection of block k, the op is linear and its rules are
//
//	pullback:  xbar    = sum_k S_k^T ybar_k      one zero tensor shaped like x, each
//	                                             present cotangent written into its
//	                                             block; absent ones stay zero and are
//	                                             never materialised
//	tangent:   ydot_k  = S_k xdot                views of xdot
//	second:    xbardot = sum_k S_k^T ybardot_k   the same from the cotangent tangents
//	                                             (S_k does not depend on x)
//
// The coefficients are 0 and 1: no conjugation for complex values. The pullback is
// also recorded with an op (the linear op split_adjoint, see
// chainrules.PullbackRecorder), so a split is differentiable to every order by
// recorded backward sweeps (core.Tape.GradGraph). A negative axis
// counts from the end. No sizes, a negative size, sizes that do not add up to the
// axis or an axis out of range is an error from Apply wrapping
// chainrules.ErrInvalidArgument.
func SplitOp(axis int, sizes []int) cr.Op[*tensor.Dense] {
	return splitOp{axis: axis, sizes: slices.Clone(sizes)}
}

// Split returns the blocks of x cut along axis into the given sizes, as views of x
// (see SplitOp).
func Split(x *tensor.Dense, axis int, sizes ...int) ([]*tensor.Dense, error) {
	ys := make([]*tensor.Dense, len(sizes))
	if _, err := SplitOp(axis, sizes).Apply([]cr.NodeID{0}, []*tensor.Dense{x}, ys); err != nil {
		return nil, err
	}
	return ys, nil
}

// ChunkSizes returns PyTorch's chunk sizes for an axis of size n split into at most
// chunks pieces: ceil(n/chunks) each, the last one smaller if need be (fewer pieces
// than chunks when n is small; one empty piece when n is 0). It returns an error
// wrapping ErrInvalidArgument for chunks < 1 or n < 0, and for more pieces than
// memory can hold the sizes of (see tensor.CheckAlloc).
func ChunkSizes(n, chunks int) ([]int, error) {
	if chunks < 1 || n < 0 {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "chunk: %d chunks of an axis of size %d", chunks, n)
	}
	if n == 0 {
		return []int{0}, nil
	}
	c := (n-1)/chunks + 1 // ceil(n/chunks), without the overflow of n+chunks-1
	pieces := (n-1)/c + 1
	if err := tensor.CheckAlloc(tensor.Float64, pieces); err != nil {
		return nil, fmt.Errorf("chunk: %d pieces of size %d: %w", pieces, c, err)
	}
	sizes := make([]int, pieces)
	for k := range sizes {
		sizes[k] = min(c, n-k*c)
	}
	return sizes, nil
}

// ApplySplit records SplitOp(axis, sizes) on r, one multi-output op, and returns the
// NodeIDs of its outputs in order. On error (recorded on r, which keeps it) it
// returns nil.
func ApplySplit(r cr.Recorder[*tensor.Dense], x cr.NodeID, axis int, sizes ...int) []cr.NodeID {
	ids := r.ApplyMulti(SplitOp(axis, sizes), x)
	if r.Err() != nil {
		return nil
	}
	return ids
}

// ApplyChunk records the split of x along axis into at most chunks pieces of
// ChunkSizes, like PyTorch's chunk, as one SplitOp (its sizes depend on x's shape, so
// they are computed from x's value first), and returns the NodeIDs of the pieces. A
// bad chunk count or axis is recorded on r as an error and ApplyChunk returns nil.
func ApplyChunk(r cr.Recorder[*tensor.Dense], x cr.NodeID, axis, chunks int) []cr.NodeID {
	v, err := r.Value(x)
	if err == nil {
		var a int
		if a, err = opkit.Axis("split", axis, v.Rank()); err == nil {
			var sizes []int
			if sizes, err = ChunkSizes(v.Shape()[a], chunks); err == nil {
				return ApplySplit(r, x, axis, sizes...)
			}
		}
	}
	// Let the recorder report a bad NodeID or its sticky error itself, and record
	// any other error as the failure of a split.
	r.Apply(cr.FailOp[*tensor.Dense]("split", err), x)
	return nil
}

func (splitOp) Name() string      { return "split" }
func (o splitOp) NumOutputs() int { return len(o.sizes) }

// Apply checks the sizes against x and writes the blocks of x, as views, into y.
func (o splitOp) Apply(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if opkit.HasSingle(x) {
		return opkit.ApplyWidened(o, in, x, y)
	}
	const name = "split"
	if err := opkit.CheckApply(name, in, x, 1); err != nil {
		return nil, err
	}
	shape := x[0].Shape()
	a, err := opkit.Axis(name, o.axis, len(shape))
	if err != nil {
		return nil, err
	}
	if len(o.sizes) == 0 {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: axis %d: no sizes (a split has at least one block)", name, o.axis)
	}
	starts := make([]int, len(o.sizes))
	total := 0
	for k, s := range o.sizes {
		if s < 0 {
			return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: axis %d: negative size %d", name, o.axis, s)
		}
		if s > shape[a]-total {
			return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: axis %d: sizes %v exceed the axis size %d", name, o.axis, o.sizes, shape[a])
		}
		starts[k] = total
		total += s
	}
	if total != shape[a] {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: axis %d: sizes %v add up to %d, axis has size %d", name, o.axis, o.sizes, total, shape[a])
	}
	r := &splitRule{in: in[0], dt: x[0].DType(), shape: slices.Clone(shape), axis: a,
		starts: starts, sizes: slices.Clone(o.sizes)}
	if len(y) != len(o.sizes) {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: %d output slots for %d outputs", name, len(y), len(o.sizes))
	}
	if err := r.blocks(x[0], y); err != nil {
		return nil, err
	}
	return r, nil
}

// splitRule differentiates a split of a tensor of the given dtype and shape along
// axis into blocks [starts[k], starts[k]+sizes[k]).
type splitRule struct {
	in     cr.NodeID
	dt     tensor.DType
	shape  []int
	axis   int
	starts []int
	sizes  []int
}

// blocks writes the blocks of v (x's layout, checked by the caller), as views, into
// ys, which has one slot per block.
func (r *splitRule) blocks(v *tensor.Dense, ys []*tensor.Dense) error {
	for k, s := range r.sizes {
		y, err := v.Slice(r.axis, r.starts[k], r.starts[k]+s, 1)
		if err != nil {
			return err
		}
		ys[k] = y
	}
	return nil
}

// blockShape returns the shape of output k.
func (r *splitRule) blockShape(k int) []int {
	s := slices.Clone(r.shape)
	s[r.axis] = r.sizes[k]
	return s
}

// Inputs returns the NodeID of x.
func (r *splitRule) Inputs() []cr.NodeID { return []cr.NodeID{r.in} }

// cotangent returns the cotangent of x, sum_k S_k^T v[k] over the k with has[k]:
// one fresh tensor of zeros with each present v[k] written into its block. A real
// v[k] of a complex split is promoted; a complex one of a real split, or one of
// another shape, is an error wrapping ErrShapeMismatch.
func (r *splitRule) cotangent(v []*tensor.Dense, has []bool, what string) (*tensor.Dense, error) {
	if len(v) != len(r.sizes) || len(has) != len(r.sizes) {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "split: %d %ss and %d flags for %d outputs", len(v), what, len(has), len(r.sizes))
	}
	out := tensor.New(r.dt, r.shape...)
	// With x viewed as [Outer, Len, Inner] around the axis, block k is, for each
	// outer index, the contiguous run of sizes[k] rows from row starts[k].
	l, err := opkit.LanesOf(r.shape, r.axis)
	if err != nil {
		return nil, err
	}
	for k, ok := range has {
		if !ok {
			continue
		}
		y := v[k]
		if y == nil || !slices.Equal(y.Shape(), r.blockShape(k)) || (y.DType() == tensor.Complex128 && r.dt == tensor.Float64) {
			return nil, cr.Errorf(cr.ErrShapeMismatch, "split: %s of output %d is %s, the output is %s%v", what, k, opkit.DescribeOf(y), r.dt, r.blockShape(k))
		}
		if r.dt == tensor.Complex128 {
			placeBlock(out.Complex128s(), y.AsComplex().Complex128s(), l, r.starts[k], r.sizes[k])
		} else {
			placeBlock(out.Float64s(), y.Float64s(), l, r.starts[k], r.sizes[k])
		}
	}
	return out, nil
}

// placeBlock writes the row-major elements src of the block of rows [start,
// start+size) along the axis of a contiguous dst with lanes l.
func placeBlock[T tensor.Element](dst, src []T, l opkit.Lanes, start, size int) {
	run := size * l.Inner
	if run == 0 {
		return
	}
	for o := range l.Outer {
		copy(dst[l.Offset(o, start, 0):][:run], src[o*run:][:run])
	}
}

// Pullback appends xbar = sum_k S_k^T ybar_k over the present cotangents.
func (r *splitRule) Pullback(ybar []*tensor.Dense, has []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	xbar, err := r.cotangent(ybar, has, "cotangent")
	if err != nil {
		return dst, err
	}
	return append(dst, cr.Contribution[*tensor.Dense]{Node: r.in, Value: xbar}), nil
}

// Forward sets ydot_k = S_k xdot, views of xdot, for every output.
func (r *splitRule) Forward(tangentOf cr.TangentOf[*tensor.Dense], ydot []*tensor.Dense, has []bool) error {
	t, ok := tangentOf(r.in)
	if !ok {
		return nil
	}
	if len(ydot) != len(r.sizes) || len(has) != len(r.sizes) {
		return cr.Errorf(cr.ErrInvalidArgument, "split: %d tangent slots and %d flags for %d outputs", len(ydot), len(has), len(r.sizes))
	}
	if t == nil || !slices.Equal(t.Shape(), r.shape) || (t.DType() == tensor.Complex128 && r.dt == tensor.Float64) {
		return cr.Errorf(cr.ErrShapeMismatch, "split: tangent of the input is %s, the input is %s%v", opkit.DescribeOf(t), r.dt, r.shape)
	}
	if r.dt == tensor.Complex128 {
		t = t.AsComplex()
	}
	if err := r.blocks(t, ydot); err != nil {
		return err
	}
	for k := range has {
		has[k] = true
	}
	return nil
}

// PullbackWithTangents appends (xbar, xbardot) = (sum_k S_k^T ybar_k, sum_k
// S_k^T ybardot_k): S_k does not depend on x, so the input tangent does not enter,
// and xbardot is absent when no present cotangent has a tangent.
func (r *splitRule) PullbackWithTangents(a cr.SecondOrderArgs[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	ct, has := a.Cotangents, a.Has
	if len(ct) != len(has) {
		return dst, cr.Errorf(cr.ErrInvalidArgument, "split: %d cotangents and %d flags", len(ct), len(has))
	}
	vals, tans := make([]*tensor.Dense, len(ct)), make([]*tensor.Dense, len(ct))
	thas := make([]bool, len(ct))
	anyTan := false
	for k, c := range ct {
		if !has[k] {
			continue
		}
		vals[k] = c.Value
		if c.HasTangent {
			tans[k], thas[k], anyTan = c.Tangent, true, true
		}
	}
	xbar, err := r.cotangent(vals, has, "cotangent")
	if err != nil {
		return dst, err
	}
	d := cr.Dual[*tensor.Dense]{Value: xbar}
	if anyTan {
		if d.Tangent, err = r.cotangent(tans, thas, "cotangent tangent"); err != nil {
			return dst, err
		}
		d.HasTangent = true
	}
	return append(dst, cr.DualContribution[*tensor.Dense]{Node: r.in, Cotangent: d}), nil
}

// RecordPullback records xbar = sum_k S_k^T ybar_k over the present cotangents as
// one op, split_adjoint, applied to them: linear (chainrules.LinearRule), with
// the blocks S_k as its adjoint, so a split is differentiable to every order.
func (r *splitRule) RecordPullback(rec cr.Recorder[*tensor.Dense], _, _, ybar []cr.NodeID) ([]cr.NodeID, error) {
	if len(ybar) != len(r.sizes) {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "split: %d cotangents for %d outputs", len(ybar), len(r.sizes))
	}
	has := make([]bool, len(ybar))
	var ins []cr.NodeID
	for k, id := range ybar {
		if id.Valid() {
			has[k] = true
			ins = append(ins, id)
		}
	}
	out := make([]cr.NodeID, 1)
	if len(ins) == 0 {
		return out, nil
	}
	out[0] = rec.Apply(splitAdjointOp{r: r, has: has}, ins...)
	if err := rec.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// splitAdjointOp is the adjoint of a split: its inputs are the cotangents of the
// outputs k with has[k], in order, and its output x's cotangent, zeros with each
// of them written into its block.
type splitAdjointOp struct {
	r   *splitRule
	has []bool
}

func (splitAdjointOp) Name() string    { return "split_adjoint" }
func (splitAdjointOp) NumOutputs() int { return 1 }

func (o splitAdjointOp) Apply(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if opkit.HasSingle(x) {
		return opkit.ApplyWidened(o, in, x, y)
	}
	r := o.r
	// block[j] is the output of the split whose cotangent input j is.
	var block []int
	for k, h := range o.has {
		if h {
			block = append(block, k)
		}
	}
	if len(x) != len(block) || len(in) != len(block) {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "split_adjoint: takes %d inputs, got %d", len(block), len(x))
	}
	dts := make([]tensor.DType, len(x))
	for j, v := range x {
		if v == nil {
			return nil, cr.Errorf(cr.ErrInvalidArgument, "split_adjoint: input %d is nil", j)
		}
		dts[j] = v.DType()
	}
	// place returns sum_j S_{block[j]}^T v[j] over the j with ok[j] (nil: all).
	place := func(v []*tensor.Dense, ok []bool, what string) (*tensor.Dense, error) {
		vals, has := make([]*tensor.Dense, len(r.sizes)), make([]bool, len(r.sizes))
		for j, k := range block {
			if ok == nil || ok[j] {
				vals[k], has[k] = v[j], true
			}
		}
		return r.cotangent(vals, has, what)
	}
	v, err := place(x, nil, "cotangent")
	if err != nil {
		return nil, err
	}
	y[0] = v
	apply := func(xdot []*tensor.Dense, ok []bool) (*tensor.Dense, error) { return place(xdot, ok, "tangent") }
	adjoint := func(j int, g *tensor.Dense) (*tensor.Dense, error) {
		if g == nil || !slices.Equal(g.Shape(), r.shape) || (g.DType() == tensor.Complex128 && r.dt == tensor.Float64) {
			return nil, cr.Errorf(cr.ErrShapeMismatch, "split_adjoint: cotangent is %s, the output is %s%v", opkit.DescribeOf(g), r.dt, r.shape)
		}
		k := block[j]
		b, err := g.Slice(r.axis, r.starts[k], r.starts[k]+r.sizes[k], 1)
		if err != nil {
			return nil, err
		}
		switch {
		case dts[j] == tensor.Float64 && b.DType() == tensor.Complex128:
			b = b.Real()
		case dts[j] == tensor.Complex128:
			b = b.AsComplex()
		}
		return b, nil
	}
	return cr.LinearRule(in, nil, apply, adjoint), nil
}
