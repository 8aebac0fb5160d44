package index

import (
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// rowSelectRule is the rule of index_select along the first axis, the lookup of an
// embedding table: its pullback adds ybar[j] into row idx[j] of a zero tensor shaped
// like x, so it has a row-sparse form (chainrules.RowPullbackRule) whose term is
// ybar itself with the rows idx: a lookup of 4 rows of a 10^6-row table costs 4 rows
// in a backward sweep, not a dense table of zeros. The dense rule stays for every
// other use (forward tangents, second order, consumers that call Pullback).
type rowSelectRule struct {
	opkit.FullRule // the dense rule (chainrules.LinearRule's), with all its methods
	idx            []int
	shape          []int // the output's shape: [len(idx), the rest of x's shape]
	dt             tensor.DType
}

// RowPullback appends the term (rows idx, value ybar) for x.
func (r *rowSelectRule) RowPullback(ybars []*tensor.Dense, _ []bool, dst []cr.Contribution[*tensor.Dense], rows []cr.RowContribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], []cr.RowContribution[*tensor.Dense], error) {
	ybar := ybars[0]
	if ybar == nil || ybar.DType() != r.dt || !slices.Equal(ybar.Shape(), r.shape) {
		return dst, rows, cr.Errorf(cr.ErrShapeMismatch, "index_select: cotangent is %s, output is %s%v", opkit.DescribeOf(ybar), r.dt, r.shape)
	}
	return dst, append(rows, cr.RowContribution[*tensor.Dense]{Node: r.Inputs()[0], Rows: r.idx, Value: ybar}), nil
}

// rowSelect gives the dense rule of index_select along the first axis of x, at the
// normalized indices idx with output shape out, its row-sparse pullback.
func rowSelect(rule cr.Rule[*tensor.Dense], idx, out []int, dt tensor.DType) cr.Rule[*tensor.Dense] {
	d, ok := rule.(opkit.FullRule)
	if !ok {
		return rule
	}
	return &rowSelectRule{FullRule: d, idx: idx, shape: out, dt: dt}
}

// rowGatherRule is the rule of gather along the first axis: its pullback
// scatter-adds ybar into a zero tensor shaped like x, which touches only the rows
// the index names, so its row-sparse form holds those rows alone (compacted, in
// increasing order) instead of a tensor shaped like x. The compaction is worked out
// in RowPullback, so that a gather no backward sweep reaches pays nothing for it.
type rowGatherRule struct {
	opkit.FullRule       // the dense rule
	off            []int // for each index element, its row-major offset in x
	xShape         []int
	shape          []int // the output's shape (the index's)
	dt             tensor.DType
}

// RowPullback appends the term (rows, the scatter-add of ybar into the compacted
// rows) for x.
func (r *rowGatherRule) RowPullback(ybars []*tensor.Dense, _ []bool, dst []cr.Contribution[*tensor.Dense], rows []cr.RowContribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], []cr.RowContribution[*tensor.Dense], error) {
	ybar := ybars[0]
	if ybar == nil || ybar.DType() != r.dt || !slices.Equal(ybar.Shape(), r.shape) {
		return dst, rows, cr.Errorf(cr.ErrShapeMismatch, "gather: cotangent is %s, output is %s%v", opkit.DescribeOf(ybar), r.dt, r.shape)
	}
	inner := prod(r.xShape[1:])
	touched := make([]int, len(r.off))
	for e, o := range r.off {
		touched[e] = o / inner
	}
	slices.Sort(touched)
	touched = slices.Compact(touched)
	coff := make([]int, len(r.off)) // each element's offset in the compacted rows
	for e, o := range r.off {
		k, _ := slices.BinarySearch(touched, o/inner)
		coff[e] = k*inner + o%inner
	}
	cmp := slices.Clone(r.xShape)
	cmp[0] = len(touched)
	v := tensor.New(r.dt, cmp...)
	scatterAddAt(v, ybar, coff)
	return dst, append(rows, cr.RowContribution[*tensor.Dense]{Node: r.Inputs()[0], Rows: touched, Value: v}), nil
}

// rowGather gives the dense rule of gather along the first axis of a tensor of
// shape xShape, at the element offsets off with output shape out, its row-sparse
// pullback. It keeps the slices, which the caller does not modify.
func rowGather(rule cr.Rule[*tensor.Dense], off, xShape, out []int, dt tensor.DType) cr.Rule[*tensor.Dense] {
	d, ok := rule.(opkit.FullRule)
	if !ok || len(xShape) == 0 || prod(xShape[1:]) == 0 {
		return rule
	}
	return &rowGatherRule{FullRule: d, off: off, xShape: xShape, shape: out, dt: dt}
}
