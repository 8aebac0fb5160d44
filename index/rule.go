package index

import (
	"fmt"
	"math"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// linear describes an op y = A(x_1, ..., x_n) that is linear in all its inputs
// (every op of this package: the integer parameters, indices and masks, are fixed at
// construction), so that chainrules.LinearRule gives its rules:
//
//	tangent:   ydot      = A(xdot_1, ..., xdot_n)
//	pullback:  xbar_k    = A_k^* ybar
//	second:    xbardot_k = A_k^* ybardot   (A does not depend on x)
//
// The coefficients of A are 0 and 1, so A^* is the plain transpose, with no
// conjugation for complex values. The output is complex if any input is; inputs of
// a real dtype that the op promoted to complex get the real part of their complex
// cotangent. linear checks the shapes and dtypes of tangents and cotangents and
// does the promotions, so that fwd and adj see only valid values of the output's
// dtype.
type linear struct {
	name     string
	inDT     []tensor.DType
	inShape  [][]int
	outDT    tensor.DType
	outShape []int
	// fwd computes A(xs) from inputs already promoted to outDT; adj computes
	// A_k^* ybar, in outDT, from a ybar of outShape and outDT. Both return fresh
	// tensors and cannot fail: the op validated its parameters against the input
	// shapes when it built them.
	fwd func(xs []*tensor.Dense) *tensor.Dense
	adj func(k int, ybar *tensor.Dense) *tensor.Dense
}

// newLinear returns the description of op name on inputs x with output shape out,
// for the caller to set fwd and adj.
func newLinear(name string, x []*tensor.Dense, out []int) *linear {
	r := &linear{name: name, outShape: slices.Clone(out), inDT: make([]tensor.DType, len(x)), inShape: make([][]int, len(x))}
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
// needed. A real view too large to copy as complex is an error.
func promote(name string, xs []*tensor.Dense, dt tensor.DType) ([]*tensor.Dense, error) {
	out := make([]*tensor.Dense, len(xs))
	for k, v := range xs {
		if dt == tensor.Complex128 && v.DType() != tensor.Complex128 {
			if err := tensor.CheckAlloc(dt, v.Shape()...); err != nil {
				return nil, fmt.Errorf("%s: input %d is too large to promote to complex128: %w", name, k, err)
			}
			v = v.AsComplex()
		}
		out[k] = v
	}
	return out, nil
}

// run writes the primal output A(x) into y[0] and returns the rule of A, recorded
// against the input NodeIDs in.
func (r *linear) run(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	for k, v := range x {
		// The kernels read a view through a contiguous copy of it, and the
		// adjoint of input k is as large: a view too large to copy is an error
		// here, once, rather than a panic in a sweep.
		if !v.IsContiguous() {
			if err := tensor.CheckAlloc(v.DType(), v.Shape()...); err != nil {
				return nil, fmt.Errorf("%s: input %d is a view too large to copy: %w", r.name, k, err)
			}
		}
	}
	xs, err := promote(r.name, x, r.outDT)
	if err != nil {
		return nil, err
	}
	y[0] = r.fwd(xs)
	return cr.LinearRule(in, nil, r.tangent, r.adjoint), nil
}

// tangent returns A(xdot), the absent tangents (ok[k] false) counting as zero.
func (r *linear) tangent(xdot []*tensor.Dense, ok []bool) (*tensor.Dense, error) {
	ts := make([]*tensor.Dense, len(xdot))
	for k, t := range xdot {
		if !ok[k] {
			z, err := tensor.Alloc(r.outDT, r.inShape[k]...)
			if err != nil {
				return nil, fmt.Errorf("%s: the zero tangent of input %d is too large: %w", r.name, k, err)
			}
			ts[k] = z
			continue
		}
		if t == nil || !slices.Equal(t.Shape(), r.inShape[k]) || (t.DType() == tensor.Complex128 && r.outDT == tensor.Float64) {
			return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: tangent of input %d is %v, input is %s%v", r.name, k, opkit.DescribeOf(t), r.inDT[k], r.inShape[k])
		}
		ts[k] = t
	}
	ps, err := promote(r.name, ts, r.outDT)
	if err != nil {
		return nil, err
	}
	return r.fwd(ps), nil
}

// adjoint returns A_k^* ybar in input k's dtype.
func (r *linear) adjoint(k int, ybar *tensor.Dense) (*tensor.Dense, error) {
	if ybar == nil {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: nil cotangent", r.name)
	}
	if !slices.Equal(ybar.Shape(), r.outShape) || (ybar.DType() == tensor.Complex128 && r.outDT == tensor.Float64) {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: cotangent is %s, output is %s%v", r.name, ybar.Describe(), r.outDT, r.outShape)
	}
	if r.outDT == tensor.Complex128 {
		ybar = ybar.AsComplex()
	}
	// The adjoint is as large as the input: run checked that it can be allocated.
	xbar := r.adj(k, ybar)
	if r.inDT[k] == tensor.Float64 && xbar.DType() == tensor.Complex128 {
		xbar = xbar.Real()
	}
	return xbar, nil
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
