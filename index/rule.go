package index

import (
	"math"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// linearRule differentiates an op y = A(x_1, ..., x_n) that is linear in all its
// inputs (every op of this package: the integer parameters, indices and masks, are
// fixed at construction). Its rules are therefore
//
//	pullback:  xbar_k    = A_k^* ybar
//	tangent:   ydot      = A(xdot_1, ..., xdot_n)
//	second:    xbardot_k = A_k^* ybardot   (A does not depend on x)
//
// The coefficients of A are 0 and 1, so A^* is the plain transpose, with no
// conjugation for complex values. Inputs of a real dtype that the op promoted to
// complex get the real part of their complex cotangent.
type linearRule struct {
	name     string
	in       []cr.NodeID
	inDT     []tensor.DType
	inShape  [][]int
	outDT    tensor.DType
	outShape []int
	// fwd computes A(xs) from inputs already promoted to outDT; adj computes
	// A_k^* ybar for every input k, in outDT, from a ybar of outShape and outDT.
	// Both return fresh tensors and cannot fail: the op validated its parameters
	// against the input shapes when it built the rule.
	fwd func(xs []*tensor.Dense) *tensor.Dense
	adj func(ybar *tensor.Dense) []*tensor.Dense
}

// newLinear returns a rule skeleton for op name on inputs x with output shape out:
// the output dtype is complex if any input is.
func newLinear(name string, x []*tensor.Dense, out []int) *linearRule {
	r := &linearRule{name: name, outShape: slices.Clone(out), inDT: make([]tensor.DType, len(x)), inShape: make([][]int, len(x))}
	r.outDT = tensor.Float64
	for k, v := range x {
		r.inDT[k] = v.DType()
		r.inShape[k] = slices.Clone(v.Shape())
		if v.DType() == tensor.Complex128 {
			r.outDT = tensor.Complex128
		}
	}
	return r
}

// promote returns xs converted to dt (real tensors become complex when dt is
// Complex128); the slice is fresh, the tensors are shared when no conversion is
// needed.
func promote(xs []*tensor.Dense, dt tensor.DType) []*tensor.Dense {
	out := make([]*tensor.Dense, len(xs))
	for k, v := range xs {
		if dt == tensor.Complex128 {
			v = v.AsComplex()
		}
		out[k] = v
	}
	return out
}

// run records the rule against the input NodeIDs in and returns the primal output.
func (r *linearRule) run(in []cr.NodeID, x []*tensor.Dense) (*tensor.Dense, cr.ReverseRule[*tensor.Dense], error) {
	r.in = slices.Clone(in)
	return r.fwd(promote(x, r.outDT)), r, nil
}

// Inputs returns the NodeIDs of the inputs.
func (r *linearRule) Inputs() []cr.NodeID { return r.in }

// adjoint returns A_k^* ybar for every input, in each input's dtype.
func (r *linearRule) adjoint(ybar *tensor.Dense) ([]*tensor.Dense, error) {
	if ybar == nil {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: nil cotangent", r.name)
	}
	if !slices.Equal(ybar.Shape(), r.outShape) || (ybar.DType() == tensor.Complex128 && r.outDT == tensor.Float64) {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: cotangent is %s, output is %s%v", r.name, ybar.Describe(), r.outDT, r.outShape)
	}
	if r.outDT == tensor.Complex128 {
		ybar = ybar.AsComplex()
	}
	xs := r.adj(ybar)
	for k, v := range xs {
		if r.inDT[k] == tensor.Float64 && v.DType() == tensor.Complex128 {
			xs[k] = v.Real()
		}
	}
	return xs, nil
}

// Pullback appends xbar_k = A_k^* ybar for every input.
func (r *linearRule) Pullback(ybar *tensor.Dense, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	xs, err := r.adjoint(ybar)
	if err != nil {
		return dst, err
	}
	for k, v := range xs {
		dst = append(dst, cr.Contribution[*tensor.Dense]{Node: r.in[k], Value: v})
	}
	return dst, nil
}

// ForwardTangents returns ydot = A(xdot), absent tangents counting as zero.
func (r *linearRule) ForwardTangents(tangentOf cr.TangentOf[*tensor.Dense]) (*tensor.Dense, bool, error) {
	ts := make([]*tensor.Dense, len(r.in))
	any := false
	for k, id := range r.in {
		t, ok := tangentOf(id)
		if !ok {
			continue
		}
		if t == nil || !slices.Equal(t.Shape(), r.inShape[k]) || (t.DType() == tensor.Complex128 && r.outDT == tensor.Float64) {
			return nil, false, cr.Errorf(cr.ErrShapeMismatch, "%s: tangent of input %d is %v, input is %s%v", r.name, k, describe(t), r.inDT[k], r.inShape[k])
		}
		ts[k], any = t, true
	}
	if !any {
		return nil, false, nil
	}
	for k, t := range ts {
		if t == nil {
			ts[k] = tensor.New(r.outDT, r.inShape[k]...)
		}
	}
	return r.fwd(promote(ts, r.outDT)), true, nil
}

// PullbackWithTangents appends (A_k^* ybar, A_k^* ybardot): A is constant in x, so
// the input tangents do not enter, and the cotangent tangent is absent exactly when
// ybardot is.
func (r *linearRule) PullbackWithTangents(ct cr.Dual[*tensor.Dense], _ cr.TangentOf[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	xs, err := r.adjoint(ct.Value)
	if err != nil {
		return dst, err
	}
	var ds []*tensor.Dense
	if ct.HasTangent {
		if ds, err = r.adjoint(ct.Tangent); err != nil {
			return dst, err
		}
	}
	for k, v := range xs {
		d := cr.Dual[*tensor.Dense]{Value: v, HasTangent: ct.HasTangent}
		if ct.HasTangent {
			d.Tangent = ds[k]
		}
		dst = append(dst, cr.DualContribution[*tensor.Dense]{Node: r.in[k], Cotangent: d})
	}
	return dst, nil
}

func describe(t *tensor.Dense) string {
	if t == nil {
		return "<nil>"
	}
	return t.Describe()
}

// checkInputs returns an error unless x holds want non-nil tensors (want < 0: at
// least one).
func checkInputs(name string, x []*tensor.Dense, want int) error {
	if want >= 0 && len(x) != want {
		return cr.Errorf(cr.ErrInvalidArgument, "%s: got %d inputs, want %d", name, len(x), want)
	}
	if want < 0 && len(x) == 0 {
		return cr.Errorf(cr.ErrInvalidArgument, "%s: needs at least one input", name)
	}
	for k, v := range x {
		if v == nil {
			return cr.Errorf(cr.ErrInvalidArgument, "%s: input %d is nil", name, k)
		}
	}
	return nil
}

// normAxis maps a possibly negative axis (Python style: -1 is the last) into
// [0, rank), or returns an error naming the op.
func normAxis(name string, axis, rank int) (int, error) {
	a := axis
	if a < 0 {
		a += rank
	}
	if a < 0 || a >= rank {
		return 0, cr.Errorf(cr.ErrInvalidArgument, "%s: axis %d out of range for rank %d", name, axis, rank)
	}
	return a, nil
}

// normIndex maps a possibly negative index (Python style) into [0, n), or returns
// an error naming the op, the axis and the value.
func normIndex(name string, axis, i, n int) (int, error) {
	j := i
	if j < 0 {
		j += n
	}
	if j < 0 || j >= n {
		return 0, cr.Errorf(cr.ErrInvalidArgument, "%s: index %d out of range for axis %d of size %d", name, i, axis, n)
	}
	return j, nil
}

// rowMajor returns the row-major strides of shape.
func rowMajor(shape []int) []int { return tensor.RowMajorStrides(shape...) }

func prod(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// checkedProd returns the number of elements of shape and false if it overflows an
// int.
func checkedProd(shape []int) (int, bool) {
	n := 1
	for _, d := range shape {
		if d != 0 && n > math.MaxInt/d {
			return 0, false
		}
		n *= d
	}
	return n, true
}
