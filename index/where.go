package index

import (
	"fmt"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// whereOp is the "where" family.
type whereOp struct {
	mask  []bool
	shape []int
}

// WhereOp returns the op choosing between its inputs a and b elementwise by a
// boolean mask given as row-major elements with their shape:
//
//	y = where(mask, a, b):  y_i = a_i if mask_i, else b_i.
//
// mask, a and b broadcast together (NumPy's rules) to the output shape. The mask is a
// parameter of the op, not an input, and is not differentiable; the op is linear in
// (a, b). Pullback: abar = SumTo(mask * ybar, shape of a), bbar = SumTo((1 - mask) *
// ybar, shape of b) (the sums undo broadcasting; real parts for a real input when a
// and b were promoted to complex128); tangent: where(mask, adot, bdot). A mask whose
// length does not fill its shape is an error wrapping ErrInvalidArgument, as is an
// output too large for memory to hold (broadcast views [n, 1] and [1, n] of a huge
// n); shapes that do not broadcast, one wrapping ErrShapeMismatch.
func WhereOp(mask []bool, shape ...int) cr.Op[*tensor.Dense] {
	return whereOp{mask: slices.Clone(mask), shape: slices.Clone(shape)}
}

// Where returns where(mask, a, b) (see WhereOp).
func Where(mask []bool, shape []int, a, b *tensor.Dense) (*tensor.Dense, error) {
	return cr.Eval(WhereOp(mask, shape...), a, b)
}

func (whereOp) Name() string    { return "where" }
func (whereOp) NumOutputs() int { return 1 }

func (o whereOp) Apply(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if opkit.HasSingle(x) {
		return opkit.ApplyWidened(o, in, x, y)
	}
	const name = "where"
	if err := opkit.CheckInputs(name, x, 2); err != nil {
		return nil, err
	}
	for _, d := range o.shape {
		if d < 0 {
			return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: negative dim in mask shape %v", name, o.shape)
		}
	}
	if n, ok := checkedProd(o.shape); !ok || len(o.mask) != n {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: %d mask elements do not fill mask shape %v", name, len(o.mask), o.shape)
	}
	out, err := tensor.BroadcastShapes(o.shape, x[0].Shape(), x[1].Shape())
	if err != nil {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: mask %v, a %v and b %v do not broadcast", name, o.shape, x[0].Shape(), x[1].Shape())
	}
	if err := tensor.CheckAlloc(tensor.ResultDType(x[0].DType(), x[1].DType()), out...); err != nil {
		return nil, fmt.Errorf("%s: the result is too large: %w", name, err)
	}
	mask, err := broadcastMask(o.mask, o.shape, out)
	if err != nil {
		return nil, err
	}
	r := newLinear(name, x, out)
	r.fwd = func(xs []*tensor.Dense) *tensor.Dense {
		a, _ := xs[0].BroadcastTo(out...)
		b, _ := xs[1].BroadcastTo(out...)
		y := tensor.New(r.outDT, out...)
		yb, ab, bb := bufOf(y), bufOf(a), bufOf(b)
		if yb.c {
			selectKernel(yb.cx, ab.cx, bb.cx, mask)
		} else {
			selectKernel(yb.f, ab.f, bb.f, mask)
		}
		return y
	}
	r.adj = func(k int, ybar *tensor.Dense) *tensor.Dense {
		// Input 0 (a) takes ybar where the mask is set, input 1 (b) where it is not.
		g := tensor.New(r.outDT, out...)
		yb, gb := bufOf(ybar), bufOf(g)
		if yb.c {
			maskKernel(gb.cx, yb.cx, mask, k == 0)
		} else {
			maskKernel(gb.f, yb.f, mask, k == 0)
		}
		if slices.Equal(r.inShape[k], out) {
			return g // not broadcast: nothing to sum
		}
		// The shapes were checked to broadcast to out, so SumTo cannot fail.
		s, _ := tensor.SumTo(g, r.inShape[k])
		return s
	}
	return r.run(in, x, y)
}

// broadcastMask returns mask (of the given shape) broadcast to out, row-major.
func broadcastMask(mask []bool, shape, out []int) ([]bool, error) {
	if slices.Equal(shape, out) {
		return mask, nil
	}
	// Broadcast the positions 0..len-1 through a float64 tensor view.
	pos := make([]float64, len(mask))
	for i := range pos {
		pos[i] = float64(i)
	}
	t, err := tensor.FromFloat64(pos, shape...)
	if err != nil {
		return nil, err
	}
	v, err := t.BroadcastTo(out...)
	if err != nil {
		return nil, err
	}
	idx := v.Float64s()
	m := make([]bool, len(idx))
	for i, p := range idx {
		m[i] = mask[int(p)]
	}
	return m, nil
}

func selectKernel[T tensor.Element](y, a, b []T, mask []bool) {
	for i, m := range mask {
		if m {
			y[i] = a[i]
		} else {
			y[i] = b[i]
		}
	}
}

// maskKernel sets g[i] = y[i] where mask[i] == want (g is zero elsewhere).
func maskKernel[T tensor.Element](g, y []T, mask []bool, want bool) {
	y = y[:len(mask)]
	g = g[:len(mask)]
	for i, m := range mask {
		if m == want {
			g[i] = y[i]
		}
	}
}
