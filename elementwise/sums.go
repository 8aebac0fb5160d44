package elementwise

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/internal/vmath"
	"github.com/chainrules-go/chainrules/tensor"
)

// Cotangent sums (chainrules.SumPullbackRule). Exp's pullback,
// xbar_i = y_i ybar_i, adds the xbar_i up in the pass that makes them
// (vmath.MulSum, vmath.ScaleSum: Sum's additions in Sum's order), and a sum or a
// difference whose operand is broadcast from one element, such as the max in
// lse's x - max(x), reads that operand's cotangent sum_i ybar_i from the engine
// instead of summing ybar again.

var (
	_ cr.SumPullbackRule[*tensor.Dense] = (*unaryRule)(nil)
	_ cr.SumPullbackRule[*tensor.Dense] = (*binaryRule)(nil)
)

// PullbackSum is Pullback with the sum of the cotangent: for exp on float64
// values, xbar_i = y_i ybar_i and SumOf(xbar) = 0 + sum_i xbar_i, summed as
// tensor.SumTo sums a contiguous tensor; for the other functions, Pullback with
// no sum.
func (r *unaryRule) PullbackSum(ybar *tensor.Dense, _ cr.CotangentSum, dst []cr.Contribution[*tensor.Dense], sums []cr.CotangentSum) ([]cr.Contribution[*tensor.Dense], []cr.CotangentSum, error) {
	fn := &r.op.spec.Real
	if r.mode != modeReal || !fn.pullY {
		n := len(dst)
		yb := [1]*tensor.Dense{ybar}
		dst, err := r.Pullback(yb[:], nil, dst)
		return dst, appendUnknown(sums, len(dst)-n), err
	}
	y := r.yv.Float64s()
	var (
		xb []float64
		s  float64
	)
	if c, ok := uniform[float64](ybar); ok && checkData[float64](r.op.name, "cotangent", ybar, r.shape()) == nil {
		// pullUniform's product, vmath.Scale(xb, y, c), summed.
		xb = vmath.MakeNoZero[float64](ybar.Size())
		s = vmath.ScaleSum(xb, y[:len(xb)], c)
	} else {
		yb, err := data[float64](r.op.name, "cotangent", ybar, r.shape())
		if err != nil {
			return dst, sums, err
		}
		// pull1's product, expPull's vmath.Mul(xb, y, yb), summed.
		xb = vmath.MakeNoZero[float64](len(yb))
		s = vmath.MulSum(xb, y[:len(yb)], yb)
	}
	xbar, err := tensor.FromFloat64(xb, r.shape()...)
	if err != nil {
		return dst, sums, err
	}
	// SumTo adds the sum into a zero: 0 + s, which differs from s for s = -0.
	dst = append(dst, cr.Contribution[*tensor.Dense]{Node: r.in[0], Value: xbar})
	return dst, append(sums, cr.CotangentSum{Value: 0 + s, Known: true}), nil
}

// PullbackSum is Pullback with sums: a sum or a difference of real values given
// the sum of ybar takes an operand's cotangent SumTo(ybar, shape) from it when
// the operand has one element (broadcast to the output), and an operand that gets
// ybar itself keeps its sum.
func (r *binaryRule) PullbackSum(ybar *tensor.Dense, sum cr.CotangentSum, dst []cr.Contribution[*tensor.Dense], sums []cr.CotangentSum) ([]cr.Contribution[*tensor.Dense], []cr.CotangentSum, error) {
	n := len(dst)
	if !sum.Known || r.complex || !(r.op.spec.sum || r.op.spec.diff) {
		yb := [1]*tensor.Dense{ybar}
		dst, err := r.Pullback(yb[:], nil, dst)
		return dst, appendUnknown(sums, len(dst)-n), err
	}
	if err := checkData[float64](r.op.name, "cotangent", ybar, r.out); err != nil {
		return dst, sums, err
	}
	ab, bb, _, _, err := r.passThrough(ybar, nil, sum)
	if err != nil {
		return dst, sums, err
	}
	for k, v := range [2]*tensor.Dense{ab, bb} {
		if !r.skip[k] {
			dst = append(dst, cr.Contribution[*tensor.Dense]{Node: r.in[k], Value: v})
			sums = append(sums, cr.CotangentSum{Value: sum.Value, Known: v == ybar})
		}
	}
	return dst, sums, nil
}

// appendUnknown appends k unknown sums to sums.
func appendUnknown(sums []cr.CotangentSum, k int) []cr.CotangentSum {
	for range k {
		sums = append(sums, cr.CotangentSum{})
	}
	return sums
}

// sizeOf returns the number of elements of a tensor of the given shape.
func sizeOf(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}
