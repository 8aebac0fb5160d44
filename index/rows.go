package index

import (
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// denseRule is the rule of a linear op: its pullback, forward tangent and
// second-order pullback (chainrules.LinearRule gives all three).
type denseRule interface {
	cr.ReverseRule[*tensor.Dense]
	cr.ForwardRule[*tensor.Dense]
	cr.SecondOrderRule[*tensor.Dense]
}

// rowSelectRule is the rule of index_select along the first axis, the lookup of an
// embedding table: its pullback adds ybar[j] into row idx[j] of a zero tensor shaped
// like x, so it has a row-sparse form (chainrules.RowPullbackRule) whose term is
// ybar itself with the rows idx: a lookup of 4 rows of a 10^6-row table costs 4 rows
// in a backward sweep, not a dense table of zeros. The dense rule stays for every
// other use (forward tangents, second order, consumers that call Pullback).
type rowSelectRule struct {
	denseRule
	idx   []int
	shape []int // the output's shape: [len(idx), the rest of x's shape]
	dt    tensor.DType
}

// RowPullback appends the term (rows idx, value ybar) for x.
func (r *rowSelectRule) RowPullback(ybar *tensor.Dense, dst []cr.Contribution[*tensor.Dense], rows []cr.RowContribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], []cr.RowContribution[*tensor.Dense], error) {
	if ybar == nil || ybar.DType() != r.dt || !slices.Equal(ybar.Shape(), r.shape) {
		return dst, rows, cr.Errorf(cr.ErrShapeMismatch, "index_select: cotangent is %s, output is %s%v", tensor.DescribeOf(ybar), r.dt, r.shape)
	}
	return dst, append(rows, cr.RowContribution[*tensor.Dense]{Node: r.Inputs()[0], Rows: r.idx, Value: ybar}), nil
}

// rowSelect gives the dense rule of index_select along the first axis of x, at the
// normalized indices idx with output shape out, its row-sparse pullback.
func rowSelect(rule cr.ReverseRule[*tensor.Dense], idx, out []int, dt tensor.DType) cr.ReverseRule[*tensor.Dense] {
	d, ok := rule.(denseRule)
	if !ok {
		return rule
	}
	return &rowSelectRule{denseRule: d, idx: idx, shape: out, dt: dt}
}
