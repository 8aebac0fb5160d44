package index

import (
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// axisIndex is the parameter of gather and scatter_add: an integer index tensor,
// given by its row-major elements and its shape, along axis.
type axisIndex struct {
	axis  int
	index []int
	shape []int
}

// newAxisIndex returns the axisIndex of copies of index and shape.
func newAxisIndex(axis int, index, shape []int) axisIndex {
	return axisIndex{axis: axis, index: slices.Clone(index), shape: slices.Clone(shape)}
}

// gatherOp is the "gather" family.
type gatherOp struct{ axisIndex }

// GatherOp returns PyTorch's gather along axis with the integer index tensor given
// by its row-major elements and its shape: the output has the index's shape and
//
//	y[i_0, ..., i_{r-1}] = x[i_0, ..., index[i_0, ..., i_{r-1}] on axis, ..., i_{r-1}].
//
// The index has x's rank and, off axis, dims no larger than x's; its values lie in
// [-n, n) for an axis of size n, negative ones counting from the end. The indices are
// parameters of the op, not inputs, so they receive no cotangent. Pullback: the
// scatter-add of ybar into zeros shaped like x, xbar[..., index[i], ...] += ybar[i],
// which accumulates repeated indices; tangent: the same gather of xdot. A bad shape
// or an index out of range is an error wrapping ErrInvalidArgument that names the
// axis and the value. Along axis 0 the pullback also has a row-sparse form
// (chainrules.RowPullbackRule) holding only the rows the index names; see
// IndexSelectOp.
func GatherOp(axis int, index []int, shape ...int) cr.Op[*tensor.Dense] {
	return gatherOp{newAxisIndex(axis, index, shape)}
}

// Gather gathers x along axis at the index of the given shape (see GatherOp).
func Gather(x *tensor.Dense, axis int, index []int, shape ...int) (*tensor.Dense, error) {
	return cr.Eval(GatherOp(axis, index, shape...), x)
}

func (gatherOp) Name() string    { return "gather" }
func (gatherOp) NumOutputs() int { return 1 }

func (o gatherOp) Apply(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if opkit.HasSingle(x) {
		return opkit.ApplyWidened(o, in, x, y)
	}
	const name = "gather"
	if err := opkit.CheckInputs(name, x, 1); err != nil {
		return nil, err
	}
	off, err := o.offsets(name, x[0].Shape())
	if err != nil {
		return nil, err
	}
	r := newLinear(name, x, o.shape)
	r.fwd = func(xs []*tensor.Dense) *tensor.Dense { return gatherAt(r.outDT, o.shape, xs[0], off) }
	r.adj = func(_ int, ybar *tensor.Dense) *tensor.Dense {
		xbar := tensor.New(r.outDT, r.inShape[0]...)
		scatterAddAt(xbar, ybar, off)
		return xbar
	}
	rule, err := r.run(in, x, y)
	if err != nil {
		return rule, err
	}
	if a, _ := opkit.Axis(name, o.axis, x[0].Rank()); a != 0 {
		return rule, nil
	}
	return rowGather(rule, off, r.inShape[0], r.outShape, r.outDT), nil
}

// offsets validates the index against a tensor of shape xShape for op name, and
// returns for every index element (in row-major order) the row-major offset of the
// element of x it names.
func (ix axisIndex) offsets(name string, xShape []int) ([]int, error) {
	a, err := opkit.Axis(name, ix.axis, len(xShape))
	if err != nil {
		return nil, err
	}
	if len(ix.shape) != len(xShape) {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: index of shape %v for a tensor of rank %d: ranks must match", name, ix.shape, len(xShape))
	}
	for d, s := range ix.shape {
		if s < 0 || (d != a && s > xShape[d]) {
			return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: index shape %v does not fit tensor shape %v on axis %d", name, ix.shape, xShape, d)
		}
	}
	if n, ok := checkedProd(ix.shape); !ok || len(ix.index) != n {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: %d indices do not fill index shape %v", name, len(ix.index), ix.shape)
	}
	rs := rowMajor(xShape)
	off := make([]int, len(ix.index))
	if len(ix.index) == 0 {
		return off, nil
	}
	n := xShape[a]
	p := make([]int, len(ix.shape))
	base := 0 // sum over d != a of p_d * rs_d
	for e, i := range ix.index {
		j, err := normIndex(name, ix.axis, i, n)
		if err != nil {
			return nil, err
		}
		off[e] = base + j*rs[a]
		for d := len(ix.shape) - 1; d >= 0; d-- {
			p[d]++
			if d != a {
				base += rs[d]
			}
			if p[d] < ix.shape[d] {
				break
			}
			if d != a {
				base -= rs[d] * ix.shape[d]
			}
			p[d] = 0
		}
	}
	return off, nil
}

// gatherAt returns the tensor of the given shape and dtype with element e equal to
// the row-major element off[e] of x.
func gatherAt(dt tensor.DType, shape []int, x *tensor.Dense, off []int) *tensor.Dense {
	out := tensor.New(dt, shape...)
	ob, xb := bufOf(out), bufOf(x)
	if ob.c {
		gatherKernel(ob.cx, xb.cx, off)
	} else {
		gatherKernel(ob.f, xb.f, off)
	}
	return out
}

func gatherKernel[T tensor.Element](dst, src []T, off []int) {
	for e, o := range off {
		dst[e] = src[o]
	}
}

// scatterAddAt adds the row-major element e of src into the row-major element
// off[e] of dst, which must be freshly allocated (it is written through its
// storage).
func scatterAddAt(dst, src *tensor.Dense, off []int) {
	db, sb := bufOf(dst), bufOf(src)
	if db.c {
		scatterKernel(db.cx, sb.cx, off)
	} else {
		scatterKernel(db.f, sb.f, off)
	}
}

func scatterKernel[T tensor.Element](dst, src []T, off []int) {
	for e, o := range off {
		dst[o] += src[e]
	}
}

// scatterAddOp is the "scatter_add" family.
type scatterAddOp struct{ axisIndex }

// ScatterAddOp returns PyTorch's scatter_add along axis with the integer index of
// the given shape. Its inputs are base and src, src shaped like the index; the index
// must fit base as in GatherOp. The output is base plus src scattered by the index,
//
//	y = base;  y[..., index[i], ...] += src[i]  for every index position i,
//
// so repeated indices accumulate. It is linear in (base, src): pullback
// basebar = ybar, srcbar = gather(ybar, axis, index); tangent
// basedot + scatter(srcdot). The indices are parameters and receive no cotangent.
// Mixed dtypes promote to complex128. Bad shapes or an index out of range is an error
// wrapping ErrInvalidArgument or ErrShapeMismatch.
func ScatterAddOp(axis int, index []int, shape ...int) cr.Op[*tensor.Dense] {
	return scatterAddOp{newAxisIndex(axis, index, shape)}
}

// ScatterAdd returns base with src added at the index (see ScatterAddOp).
func ScatterAdd(base *tensor.Dense, axis int, index []int, shape []int, src *tensor.Dense) (*tensor.Dense, error) {
	return cr.Eval(ScatterAddOp(axis, index, shape...), base, src)
}

func (scatterAddOp) Name() string    { return "scatter_add" }
func (scatterAddOp) NumOutputs() int { return 1 }

func (o scatterAddOp) Apply(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if opkit.HasSingle(x) {
		return opkit.ApplyWidened(o, in, x, y)
	}
	const name = "scatter_add"
	if err := opkit.CheckInputs(name, x, 2); err != nil {
		return nil, err
	}
	if !slices.Equal(x[1].Shape(), o.shape) {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: src is %v, index is %v: they must match", name, x[1].Shape(), o.shape)
	}
	off, err := o.offsets(name, x[0].Shape())
	if err != nil {
		return nil, err
	}
	r := newLinear(name, x, x[0].Shape())
	r.fwd = func(xs []*tensor.Dense) *tensor.Dense {
		out := xs[0].Clone()
		scatterAddAt(out, xs[1], off)
		return out
	}
	r.adj = func(k int, ybar *tensor.Dense) *tensor.Dense {
		if k == 0 {
			return ybar.Clone()
		}
		return gatherAt(r.outDT, o.shape, ybar, off)
	}
	return r.run(in, x, y)
}

// indexSelectOp is the "index_select" family.
type indexSelectOp struct {
	axis  int
	index []int
}

// IndexSelectOp returns PyTorch's index_select: the slabs of x at the given indices
// along axis, in order (NumPy's take along an axis),
//
//	y[..., j, ...] = x[..., index[j], ...],
//
// with the axis of size len(index). Indices lie in [-n, n), negative ones counting
// from the end, and may repeat. They are parameters and receive no cotangent.
// Pullback: index_add of ybar into zeros shaped like x, xbar[..., index[j], ...] +=
// ybar[..., j, ...], which accumulates repeated indices; tangent: the same selection
// of xdot. An index out of range is an error wrapping ErrInvalidArgument.
//
// Along axis 0 (an embedding lookup) the rule also has the row-sparse form of that
// pullback (chainrules.RowPullbackRule): a backward sweep keeps the rows it touched,
// and a table read only through lookups gets its gradient as those rows
// (core.Gradients.Rows), in memory proportional to them.
func IndexSelectOp(axis int, index ...int) cr.Op[*tensor.Dense] {
	return indexSelectOp{axis: axis, index: slices.Clone(index)}
}

// IndexSelect returns the slabs of x at index along axis (see IndexSelectOp).
func IndexSelect(x *tensor.Dense, axis int, index ...int) (*tensor.Dense, error) {
	return cr.Eval(IndexSelectOp(axis, index...), x)
}

func (indexSelectOp) Name() string    { return "index_select" }
func (indexSelectOp) NumOutputs() int { return 1 }

func (o indexSelectOp) Apply(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if opkit.HasSingle(x) {
		return opkit.ApplyWidened(o, in, x, y)
	}
	const name = "index_select"
	a, err := opkit.CheckUnary(name, x, o.axis)
	if err != nil {
		return nil, err
	}
	shape := x[0].Shape()
	idx := make([]int, len(o.index))
	for j, i := range o.index {
		if idx[j], err = normIndex(name, o.axis, i, shape[a]); err != nil {
			return nil, err
		}
	}
	out := slices.Clone(shape)
	out[a] = len(idx)
	l, err := opkit.LanesOf(shape, a)
	if err != nil {
		return nil, err
	}
	g := slabs{Lanes: l, idx: idx}
	r := newLinear(name, x, out)
	r.fwd = func(xs []*tensor.Dense) *tensor.Dense {
		y := tensor.New(r.outDT, out...)
		if x := xs[0]; x.DType() == tensor.Float64 && r.outDT == tensor.Float64 && !x.IsContiguous() && 4*y.Size() <= x.Size() {
			gatherStrided(y.Float64s(), x, a, idx, out)
			return y
		}
		yb, xb := bufOf(y), bufOf(xs[0])
		if yb.c {
			takeSlabs(g, yb.cx, xb.cx)
		} else {
			takeSlabs(g, yb.f, xb.f)
		}
		return y
	}
	r.adj = func(_ int, ybar *tensor.Dense) *tensor.Dense {
		xbar := tensor.New(r.outDT, shape...)
		xb, yb := bufOf(xbar), bufOf(ybar)
		if xb.c {
			addSlabs(g, xb.cx, yb.cx)
		} else {
			addSlabs(g, xb.f, yb.f)
		}
		return xbar
	}
	rule, err := r.run(in, x, y)
	if err != nil || a != 0 {
		return rule, err
	}
	return rowSelect(rule, idx, out, x[0].DType()), nil
}

// gatherStrided sets y (row-major, of shape out) to the slabs idx of x along
// axis a, reading x element by element through its strides: for a view of x (a
// transpose, say) much larger than the selection, cheaper than the row-major
// copy of the whole of x that bufOf makes (a few hundred rows of the 10 000
// vertices of a transposed mesh, once per forward sweep of a Jacobian).
func gatherStrided(y []float64, x *tensor.Dense, a int, idx, out []int) {
	pos := make([]int, len(out)) // the output index of y[o]
	src := make([]int, len(out))
	for o := range y {
		copy(src, pos)
		src[a] = idx[pos[a]]
		y[o] = x.AtFloat64(src...)
		for d := len(out) - 1; d >= 0; d-- {
			if pos[d]++; pos[d] < out[d] {
				break
			}
			pos[d] = 0
		}
	}
}

// slabs is x viewed around the axis as [Outer, Len, Inner] (a opkit.Lanes) with
// the indices selected along it; the output is the same view with Len = len(idx).
type slabs struct {
	opkit.Lanes
	idx []int
}

// takeSlabs copies the selected slabs of x into y, viewed as [outer, len(idx), inner].
func takeSlabs[T tensor.Element](g slabs, y, x []T) {
	out, in := opkit.Lanes{Outer: g.Outer, Len: len(g.idx), Inner: g.Inner}, g.Inner
	for o := range g.Outer {
		for j, i := range g.idx {
			d, s := out.Offset(o, j, 0), g.Offset(o, i, 0)
			copy(y[d:d+in], x[s:s+in])
		}
	}
}

// addSlabs is the adjoint of takeSlabs: it adds the slabs of y into the selected
// slabs of x.
func addSlabs[T tensor.Element](g slabs, x, y []T) {
	out, in := opkit.Lanes{Outer: g.Outer, Len: len(g.idx), Inner: g.Inner}, g.Inner
	for o := range g.Outer {
		for j, i := range g.idx {
			d, s := g.Offset(o, i, 0), out.Offset(o, j, 0)
			dst, src := x[d:d+in], y[s:s+in]
			for k := range dst {
				dst[k] += src[k]
			}
		}
	}
}
