package nn

import (
	"math"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// SortOp returns PyTorch's sort(x, dim=axis, descending, stable=True) of a float64
// tensor: a multi-output op (record it with core.Tape.ApplyMulti) with the outputs
//
//	values   x's lanes along axis, sorted (ascending, or descending)
//	indices  the positions along axis that the values came from, as float64
//	         integers: values[..., j, ...] = x[..., indices[..., j, ...], ...]
//
// The sort is stable: equal elements keep their order, ascending and descending
// alike. NaN sorts above every number (last ascending, first descending), as in
// PyTorch. A 0-d tensor is one lane of one element (axis 0 or -1).
//
// The indices are not differentiable (chainrules.PartialOp): they are
// recorded like constants and never carry a cotangent. The values are a
// permutation P of x, a linear map at fixed indices, so
//
//	xbar = P^T vbar   (vbar scattered back to where each value came from),
//	vdot = P xdot,   xbardot = P^T vbardot.
//
// At ties the permutation is the stable one, so the derivative there is one-sided
// (the values are continuous, the choice of indices is not). The pullback is also
// recorded with a scatter_add (chainrules.PullbackRecorder), linear at fixed
// indices, so core.Tape.GradGraph differentiates through the values to every
// order. Complex input and an axis out of range are errors wrapping
// chainrules.ErrInvalidArgument.
func SortOp(axis int, descending bool) cr.Op[*tensor.Dense] {
	return &sortOp{name: "sort", axis: axis, whole: true, desc: descending}
}

// TopKOp returns PyTorch's topk(x, k, dim=axis, largest, sorted=True): the k
// largest (or, with largest false, smallest) elements of each lane of a float64
// tensor along axis, in sorted order, as the multi-output op (values, indices) of
// SortOp with the axis cut to size k. Ties are broken by position (the first
// occurrence wins), which makes topk the first k elements of the stable sort;
// PyTorch leaves the order of ties unspecified (its CPU kernel may pick later
// occurrences). Its rules are those of SortOp: xbar holds vbar at the chosen
// positions and zeros elsewhere. k outside [0, n] is an error wrapping
// chainrules.ErrInvalidArgument.
func TopKOp(k, axis int, largest bool) cr.Op[*tensor.Dense] {
	return &sortOp{name: "topk", axis: axis, k: k, desc: largest}
}

// Sort evaluates SortOp(axis, descending) at x without a tape and returns the
// sorted values and their indices.
func Sort(x *tensor.Dense, axis int, descending bool) (values, indices *tensor.Dense, err error) {
	return evalPair(SortOp(axis, descending), x)
}

// TopK evaluates TopKOp(k, axis, largest) at x without a tape.
func TopK(x *tensor.Dense, k, axis int, largest bool) (values, indices *tensor.Dense, err error) {
	return evalPair(TopKOp(k, axis, largest), x)
}

func evalPair(op cr.Op[*tensor.Dense], x *tensor.Dense) (*tensor.Dense, *tensor.Dense, error) {
	y, err := cr.EvalMulti(op, x)
	if err != nil {
		return nil, nil, err
	}
	return y[0], y[1], nil
}

type sortOp struct {
	name  string
	axis  int
	k     int
	whole bool // sort: k is the axis size
	desc  bool
}

func (o *sortOp) Name() string { return o.name }

// NumOutputs returns 2: the values and the indices.
func (o *sortOp) NumOutputs() int { return 2 }

// Differentiable reports that the input is differentiable.
func (o *sortOp) Differentiable(int) bool { return true }

// OutputDifferentiable reports that the values (output 0) carry derivatives and
// the indices (output 1) do not.
func (o *sortOp) OutputDifferentiable(m int) bool { return m == 0 }

// Apply sorts every lane and returns the values, the indices and the rule.
func (o *sortOp) Apply(in []cr.NodeID, x, out []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if opkit.HasSingle(x) {
		return applySingle(o, in, x, out, nil)
	}
	if err := checkRealApply(o.name, in, x, 1); err != nil {
		return nil, err
	}
	shape := x[0].Shape()
	lshape := shape
	if len(shape) == 0 {
		lshape = []int{1} // a 0-d tensor is one lane of one element
	}
	ax, err := normAxis(o.name, o.axis, len(lshape))
	if err != nil {
		return nil, err
	}
	l := lanesOf(lshape, ax)
	k := o.k
	switch {
	case o.whole:
		k = l.n
	case k < 0 || k > l.n:
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: k = %d for an axis of size %d", o.name, k, l.n)
	}
	oshape := slices.Clone(lshape)
	oshape[ax] = k
	if len(shape) == 0 && k == 1 {
		oshape = []int{}
	}
	xs := float64s(x[0])
	ol := lanes{outer: l.outer, n: k, inner: l.inner}
	size := l.outer * k * l.inner
	vals, idx, src := make([]float64, size), make([]float64, size), make([]int, size)
	perm := make([]int, l.n)
	cmp := ascending
	if o.desc {
		cmp = descending
	}
	for a := range l.outer {
		for b := range l.inner {
			for j := range perm {
				perm[j] = j
			}
			slices.SortStableFunc(perm, func(i, j int) int { return cmp(xs[l.at(a, i, b)], xs[l.at(a, j, b)]) })
			for j, p := range perm[:k] {
				d := ol.at(a, j, b)
				src[d] = l.at(a, p, b)
				vals[d], idx[d] = xs[src[d]], float64(p)
			}
		}
	}
	v, err := tensor.FromFloat64(vals, oshape...)
	if err != nil {
		return nil, err
	}
	ind, err := tensor.FromFloat64(idx, oshape...)
	if err != nil {
		return nil, err
	}
	r := &sortRule{gatherRule: gatherRule[int]{name: o.name, in: in[0], shape: slices.Clone(shape), oshape: oshape, src: src}, ax: ax, n: l.n, inner: l.inner}
	copy(out, []*tensor.Dense{v, ind})
	return r, nil
}

// ascending orders numbers with NaN above all of them.
func ascending(a, b float64) int {
	switch na, nb := math.IsNaN(a), math.IsNaN(b); {
	case na || nb:
		if na && !nb {
			return 1
		}
		if nb && !na {
			return -1
		}
		return 0
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// descending is the reverse order: NaN first.
func descending(a, b float64) int { return ascending(b, a) }

// sortRule differentiates the values of a sort: output element i is input element
// src[i].
type sortRule struct {
	gatherRule[int]
	ax, n, inner int // the sorted axis, its size and the elements after it
}

// RecordPullback records xbar = P^T vbar with ops (chainrules.PullbackRecorder):
// index.ScatterAddOp along the axis, at the positions the values came from, onto a
// zero constant. The permutation is fixed, so the recorded pullback is linear and
// differentiable to every order (its derivative in x is zero away from ties, as
// the second-order rule says). The indices carry no cotangent.
func (r *sortRule) RecordPullback(rec cr.Recorder[*tensor.Dense], _, _, ybar []cr.NodeID) ([]cr.NodeID, error) {
	g := ybar[0]
	switch {
	case !g.Valid():
		return []cr.NodeID{0}, nil
	case len(r.shape) == 0:
		if len(r.src) == 0 { // topk with k = 0: no value depends on x
			return []cr.NodeID{0}, nil
		}
		return []cr.NodeID{g}, nil // the one value is x
	}
	pos := make([]int, len(r.src))
	for i, s := range r.src {
		pos[i] = (s / r.inner) % r.n
	}
	zero, err := constant(rec, r.name, tensor.New(tensor.Float64, r.shape...))
	if err != nil {
		return nil, err
	}
	xbar := rec.Apply(index.ScatterAddOp(r.ax, pos, r.oshape...), zero, g)
	return []cr.NodeID{xbar}, rec.Err()
}
