package reduce

import (
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/internal/vmath"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// Native float32 sum and mean. SumOp and MeanOp applied to a float32 input read
// its float32 storage and accumulate in float64, in the order of the float64
// kernel (sumKernel), then scale by c (1, or 1/n for the mean) and round once:
//
//	y_o = round32(c * sum_k float64(x_k))
//
// which is bit for bit what the widened op (opkit.ApplyWidened) returns. The
// float64 sum of n float32 values is within (n-1) u64 sum_k |x_k| of the exact
// sum (u64 = 2^-53), far below the final rounding's half ulp of float32 for
// any n < 2^29, so the result is the correctly rounded float32 value of the
// float64 result, and within |y| 2^-24 + (n-1) 2^-53 c sum_k |x_k| of c times the
// exact sum. The rule is linear and stays in float32:
//
//	ydot = round32(c Sum(xdot)),   xbar = round32(c ybar) broadcast back,
//
// the broadcast a stride-0 view, and its second-order and recorded forms are
// chainrules.UnaryLinearRule's. Tangents and cotangents of another dtype (float64,
// or complex, whose real part counts) are reduced in float64 and rounded once,
// as the widened rule does.

// sumSingle applies sum (c = 1) or mean (c = 1/n) to the float32 input x.
func sumSingle(p *plan, in cr.NodeID, x *tensor.Dense, c float64) (*tensor.Dense, cr.Rule[*tensor.Dense]) {
	y := wrap32(sum32(p.canonical(x).Float32s(), p.Lanes, c), p.outShape)
	jvp := func(xdot *tensor.Dense) (*tensor.Dense, error) {
		if xdot == nil || xdot.DType() != tensor.Float32 {
			xd, err := inputElems[float64](p, xdot)
			if err != nil {
				return nil, err
			}
			return round32(output(p, scaledSum(p, xd, c)))
		}
		if xdot.Size() != p.Size() || !slices.Equal(xdot.Shape(), p.shape) {
			return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: tangent %s for input shape %v", p.name, opkit.DescribeOf(xdot), p.shape)
		}
		return wrap32(sum32(p.canonical(xdot).Float32s(), p.Lanes, c), p.outShape), nil
	}
	adjoint := func(g *tensor.Dense) (*tensor.Dense, error) {
		if g == nil {
			return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: nil cotangent", p.name)
		}
		if g.Size() != p.Count() {
			return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: cotangent %s for output shape %v", p.name, g.Describe(), p.outShape)
		}
		switch g.DType() {
		case tensor.Float32:
			if c != 1 {
				gs := g.Float32s()
				buf := make([]float32, len(gs))
				for i, v := range gs {
					buf[i] = float32(float64(v) * c)
				}
				g = wrap32(buf, g.Shape())
			}
		default:
			if g.DType() == tensor.Complex128 || g.DType() == tensor.Complex64 {
				g = g.Real()
			}
			g64, err := tensor.AsType(g, tensor.Float64)
			if err != nil {
				return nil, err
			}
			if c != 1 {
				g64 = tensor.Scale(g64, c)
			}
			if g, err = round32(g64); err != nil {
				return nil, err
			}
		}
		return p.broadcastBack(g)
	}
	return y, freshUnaryLinear(in, jvp, adjoint)
}

// sum32 returns round32(c Sum(x)) of the float32 x in the canonical layout l,
// accumulated in float64 in sumKernel's order (so bit for bit the widened result).
func sum32(x []float32, l opkit.Lanes, c float64) []float32 {
	acc := make([]float64, l.Count())
	if l.Inner == 1 {
		for o, lane := range l.All() {
			acc[o] = vmath.Sum32(x[lane.Off : lane.Off+lane.Len])
		}
	} else {
		for o, off := range l.Rows() {
			a := acc[o : o+l.Inner]
			for j, v := range x[off : off+l.Inner] {
				a[j] += float64(v)
			}
		}
	}
	out := make([]float32, len(acc))
	for o, s := range acc {
		if c != 1 {
			s *= c
		}
		out[o] = float32(s)
	}
	return out
}

// round32 rounds the float64 t to float32.
func round32(t *tensor.Dense) (*tensor.Dense, error) { return tensor.AsType(t, tensor.Float32) }

// wrap32 makes a float32 tensor that owns buf.
func wrap32(buf []float32, shape []int) *tensor.Dense {
	t, err := tensor.FromFloat32(buf, shape...)
	if err != nil {
		panic(err) // sizes match by construction
	}
	return t
}
