package elementwise

import (
	"slices"
	"unsafe"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// Recorded pullbacks: the rules' chainrules.PullbackRecorder, through which a
// recorded backward sweep (core.Tape.GradGraph) differentiates an op to any order.
// The hand-written Pullback, Forward and PullbackWithTangents stay the fast path of
// gradients and Hessian-vector products; RecordPullback records the same pullback
// with ops from the derivative expressions of the specs (UnarySpec.Deriv and VJP,
// BinarySpec.Partials and VJP), and nothing of it runs when an op is applied.

// recorder is the tape a recorded pullback is recorded on.
type recorder = cr.Recorder[*tensor.Dense]

var (
	_ cr.PullbackRecorder[*tensor.Dense] = (*unaryRule)(nil)
	_ cr.PullbackRecorder[*tensor.Dense] = (*binaryRule)(nil)
	_ cr.PullbackRecorder[*tensor.Dense] = (*preluRule)(nil)
)

// RecordPullback records xbar = conj(f'(x)) ybar with f'(x) from the spec's
// Deriv (Real and Complex definitions), or the spec's VJP, and takes the real part
// for a float64 input computed in complex128.
func (r *unaryRule) RecordPullback(rec recorder, x, y, ybar []cr.NodeID) ([]cr.NodeID, error) {
	if len(x) != 1 || len(y) != 1 || len(ybar) != 1 {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: recorded pullback of 1 input and 1 output, got %d and %d", r.op.name, len(x), len(y))
	}
	out := make([]cr.NodeID, 1)
	if !ybar[0].Valid() {
		return out, nil
	}
	s := &r.op.spec
	var (
		xb  cr.NodeID
		err error
	)
	switch {
	case s.Deriv != nil && (r.mode == modeReal || r.mode == modeHolo):
		var d cr.NodeID
		if d, err = s.Deriv(rec, x[0], y[0]); err == nil && d.Valid() {
			xb = rec.Apply(MulOp, conjNode(rec, d), ybar[0])
		}
	case s.VJP != nil:
		xb, err = s.VJP(rec, x[0], y[0], ybar[0])
	default: // the spec has no derivative expressions for this mode
		return nil, cr.ErrOrderNotSupported
	}
	if err != nil {
		return nil, err
	}
	if r.realIn {
		xb = realNode(rec, xb)
	}
	out[0] = xb
	return out, rec.Err()
}

// RecordPullback records abar = SumTo(conj(f_a) ybar, shape(a)) and bbar likewise,
// with the partials of the spec's Partials or the products of its VJP, taking the
// real part for a float64 operand of an op computed in complex128.
func (r *binaryRule) RecordPullback(rec recorder, x, y, ybar []cr.NodeID) ([]cr.NodeID, error) {
	if len(x) != 2 || len(y) != 1 || len(ybar) != 1 {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: recorded pullback of 2 inputs and 1 output, got %d and %d", r.op.name, len(x), len(y))
	}
	out := make([]cr.NodeID, 2)
	if !ybar[0].Valid() {
		return out, nil
	}
	s := &r.op.spec
	var (
		ga, gb cr.NodeID
		err    error
	)
	switch {
	case s.VJP != nil:
		ga, gb, err = s.VJP(rec, x[0], x[1], y[0], ybar[0])
	case s.Partials != nil:
		var fa, fb cr.NodeID
		if fa, fb, err = s.Partials(rec, x[0], x[1], y[0]); err == nil {
			ga, gb = timesConj(rec, fa, ybar[0]), timesConj(rec, fb, ybar[0])
		}
	default: // the spec has no derivative expressions
		return nil, cr.ErrOrderNotSupported
	}
	if err != nil {
		return nil, err
	}
	out[0] = toOperand(rec, ga, r.aShape, r.complex && r.aReal)
	out[1] = toOperand(rec, gb, r.bShape, r.complex && r.bReal)
	return out, rec.Err()
}

// RecordPullback records PReLU's pullback with the core's partials, f_a = 1 for
// a > 0 and w otherwise, f_w = 0 for a > 0 and a otherwise, masked (maskMul) so that
// a partial that is 0 stays 0 whatever w and a are, as in the hand-written rule; w
// is reshaped to the core's view and its cotangent back to w's shape, with linear
// ops.
func (r *preluRule) RecordPullback(rec recorder, x, y, ybar []cr.NodeID) ([]cr.NodeID, error) {
	if len(x) != 2 || len(y) != 1 || len(ybar) != 1 {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "prelu: recorded pullback of 2 inputs and 1 output, got %d and %d", len(x), len(y))
	}
	out := make([]cr.NodeID, 2)
	if !ybar[0].Valid() {
		return out, nil
	}
	a, w := x[0], x[1]
	if !slices.Equal(r.view, r.wShape) {
		w = rec.Apply(reshapeOp{shape: r.view}, w)
	}
	pos, rest := rec.Apply(positiveStep, a), rec.Apply(nonPositiveStep, a)
	fa := rec.Apply(AddOp, pos, rec.Apply(maskMulOp{}, rest, w))
	out[0] = rec.Apply(MulOp, fa, ybar[0])
	gw := rec.Apply(MulOp, rec.Apply(maskMulOp{}, rest, a), ybar[0])
	gw = toOperand(rec, gw, r.view, false)
	if !slices.Equal(r.view, r.wShape) {
		gw = rec.Apply(reshapeOp{shape: r.wShape}, gw)
	}
	out[1] = gw
	return out, rec.Err()
}

// timesConj records conj(f) ybar (the zero NodeID for a zero f).
func timesConj(rec recorder, f, ybar cr.NodeID) cr.NodeID {
	if !f.Valid() {
		return 0
	}
	return rec.Apply(MulOp, conjNode(rec, f), ybar)
}

// toOperand records the cotangent g of an operand of the given shape: its real part
// if realPart, summed over the axes the operand was broadcast along. The zero NodeID
// stays zero.
func toOperand(rec recorder, g cr.NodeID, shape []int, realPart bool) cr.NodeID {
	if !g.Valid() {
		return 0
	}
	if realPart {
		g = realNode(rec, g)
	}
	v, err := rec.Value(g)
	if err != nil || slices.Equal(v.Shape(), shape) {
		return g // an error is the recorder's sticky error
	}
	return rec.Apply(sumToOp{shape: slices.Clone(shape)}, g)
}

// conjNode records conj(v) for a complex128 value and returns v itself for a
// float64 one.
func conjNode(rec recorder, v cr.NodeID) cr.NodeID {
	if isComplex(rec, v) {
		return rec.Apply(ConjOp, v)
	}
	return v
}

// realNode records Re v for a complex128 value and returns v itself for a float64
// one (or the zero NodeID).
func realNode(rec recorder, v cr.NodeID) cr.NodeID {
	if v.Valid() && isComplex(rec, v) {
		return rec.Apply(RealOp, v)
	}
	return v
}

// isComplex reports whether the value of node v is complex, complex128 or complex64
// (false if it cannot be read: the recorder's sticky error reports that).
func isComplex(rec recorder, v cr.NodeID) bool {
	t, err := rec.Value(v)
	return err == nil && t != nil && t.DType().IsComplex()
}

// sumToOp is y = SumTo(x, shape) (tensor.SumTo): x summed over the axes along which
// shape broadcasts to x's shape, the cotangent of a broadcast operand. It is
// linear, with the broadcast back to x's shape as its adjoint, so it has
// derivatives of every order (cr.UnaryLinearRule).
type sumToOp struct{ shape []int }

func (sumToOp) Name() string    { return "sum_to" }
func (sumToOp) NumOutputs() int { return 1 }

func (o sumToOp) Apply(in []cr.NodeID, xs, ys []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	sum := func(t *tensor.Dense) (*tensor.Dense, error) { return tensor.SumTo(t, o.shape) }
	return applyShapeLinear("sum_to", in, xs, ys, sum, func(from []int, g *tensor.Dense) (*tensor.Dense, error) {
		b, err := g.BroadcastTo(from...)
		if err != nil {
			return nil, err
		}
		return b.Contiguous(), nil
	})
}

// reshapeOp is y = x reshaped to shape, a fresh copy; linear, with the reshape back
// as its adjoint.
type reshapeOp struct{ shape []int }

func (reshapeOp) Name() string    { return "reshape" }
func (reshapeOp) NumOutputs() int { return 1 }

func (o reshapeOp) Apply(in []cr.NodeID, xs, ys []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	return applyShapeLinear("reshape", in, xs, ys, func(t *tensor.Dense) (*tensor.Dense, error) { return reshapeCopy(o.shape, t) }, reshapeCopy)
}

// reshapeCopy returns a fresh copy of t reshaped to shape.
func reshapeCopy(shape []int, t *tensor.Dense) (*tensor.Dense, error) {
	v, err := t.Reshape(shape...)
	if err != nil {
		return nil, err
	}
	return v.Clone(), nil
}

// applyShapeLinear is the Apply of the op name of one input that changes its
// shape linearly: y = f(x), and the rule cr.UnaryLinearRule with f as the
// tangent map and adjoint(from, ybar) as the cotangent map, from the input's
// shape. Such an op (sum_to, reshape) is dtype-agnostic: every dtype computes
// natively, in its own precision.
func applyShapeLinear(name string, in []cr.NodeID, xs, ys []*tensor.Dense,
	f func(*tensor.Dense) (*tensor.Dense, error), adjoint func(from []int, g *tensor.Dense) (*tensor.Dense, error),
) (cr.Rule[*tensor.Dense], error) {
	if len(xs) != 1 || len(in) != 1 || xs[0] == nil {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: want 1 input", name)
	}
	if err := opkit.CheckValidDTypes(name, xs); err != nil {
		return nil, err
	}
	from := slices.Clone(xs[0].Shape())
	y, err := f(xs[0])
	if err != nil {
		return nil, err
	}
	ys[0] = y
	return cr.UnaryLinearRule(in[0], f, func(g *tensor.Dense) (*tensor.Dense, error) { return adjoint(from, g) }), nil
}

// stepOp is a piecewise-constant function of one or two operands (broadcast like
// Binary's), with float64 values: the derivative of a piecewise-linear op
// (relu' = 1 for x > 0 and 0 otherwise) and the masks of recorded pullbacks. Its
// derivative is taken as 0 everywhere, also at its jumps, as for floor: its rule
// (zeroRule) passes on no cotangent and no tangent, and records a zero pullback.
// Operands of either dtype reach f as complex128 (float64 ones with a zero
// imaginary part); a unary f gets 0 as b.
type stepOp struct {
	name  string
	arity int
	f     func(a, b complex128) float64
}

func (o stepOp) Name() string    { return o.name }
func (o stepOp) NumOutputs() int { return 1 }

func (o stepOp) Apply(in []cr.NodeID, xs, ys []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if len(xs) != o.arity || len(in) != o.arity || slices.Contains(xs, nil) {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: want %d inputs", o.name, o.arity)
	}
	if hasSingle(xs) {
		return applySingle(o, in, xs, ys)
	}
	if err := opkit.CheckDTypes(o.name, xs); err != nil {
		return nil, err
	}
	a := xs[0].AsComplex().Contiguous().Complex128s()
	if o.arity == 1 {
		v := make([]float64, len(a))
		for i, z := range a {
			v[i] = o.f(z, 0)
		}
		y, err := tensor.FromFloat64(v, xs[0].Shape()...)
		return setOutput(ys, y, &zeroRule{in: slices.Clone(in)}, err)
	}
	out, err := tensor.BroadcastShapes(xs[0].Shape(), xs[1].Shape())
	if err != nil {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: shapes %v and %v do not broadcast", o.name, xs[0].Shape(), xs[1].Shape())
	}
	b := xs[1].AsComplex().Contiguous().Complex128s()
	lay := newLayout(out, xs[0].Shape(), xs[1].Shape())
	v := make([]float64, lay.size)
	lay.runs(func(o0, ia, ib, n, sa, sb int) {
		for i := range n {
			v[o0+i] = o.f(a[ia+i*sa], b[ib+i*sb])
		}
	})
	y, err := tensor.FromFloat64(v, out...)
	return setOutput(ys, y, &zeroRule{in: slices.Clone(in)}, err)
}

// zeroRule is the rule of an op whose derivative is 0 (stepOp): no cotangent, no
// tangent, and a zero recorded pullback.
type zeroRule struct{ in []cr.NodeID }

var (
	_ cr.SecondOrderRule[*tensor.Dense]  = (*zeroRule)(nil)
	_ cr.PullbackRecorder[*tensor.Dense] = (*zeroRule)(nil)
)

func (r *zeroRule) Inputs() []cr.NodeID { return r.in }

func (r *zeroRule) Pullback(_ []*tensor.Dense, _ []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	return dst, nil
}

func (r *zeroRule) Forward(cr.TangentOf[*tensor.Dense], []*tensor.Dense, []bool) error { return nil }

func (r *zeroRule) PullbackWithTangents(_ cr.SecondOrderArgs[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	return dst, nil
}

func (r *zeroRule) RecordPullback(_ recorder, x, _, _ []cr.NodeID) ([]cr.NodeID, error) {
	return make([]cr.NodeID, len(x)), nil
}

// maskMulOp is y = m u with y = 0 wherever m = 0, also where u is infinite or NaN
// (PyTorch's masked_fill): the masked partials of recorded pullbacks (pow's
// f_a = b a^(b-1), taken as 0 where b = 0 even at a = 0). m, a float64 mask from a
// stepOp, is not differentiated (its derivative is 0); y is linear in u, with the
// same masked product, summed over the axes u was broadcast along, as its adjoint.
// m and u broadcast; y has the broadcast shape and u's dtype.
type maskMulOp struct{}

func (maskMulOp) Name() string    { return "mask_mul" }
func (maskMulOp) NumOutputs() int { return 1 }

func (o maskMulOp) Apply(in []cr.NodeID, xs, ys []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if len(xs) != 2 || len(in) != 2 || xs[0] == nil || xs[1] == nil {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "mask_mul: want 2 inputs")
	}
	// Every dtype computes natively (a single-precision operand in double
	// precision, rounded back once: see maskMul), so that the linear rule's
	// recorded adjoint keeps each value's dtype.
	if err := opkit.CheckValidDTypes("mask_mul", xs); err != nil {
		return nil, err
	}
	m, u := xs[0], xs[1]
	if m.DType() == tensor.Float32 {
		// A mask of a single-precision computation (a step op's output): its
		// values are exact in float64.
		m, _ = tensor.AsType(m, tensor.Float64)
	}
	if m.DType() != tensor.Float64 {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "mask_mul: the mask must be float64, got %s", m.Describe())
	}
	mShape, uShape := slices.Clone(m.Shape()), slices.Clone(u.Shape())
	out, err := tensor.BroadcastShapes(mShape, uShape)
	if err != nil {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "mask_mul: shapes %v and %v do not broadcast", mShape, uShape)
	}
	mv := m.Contiguous().Float64s()
	apply := func(v *tensor.Dense) (*tensor.Dense, error) {
		if v == nil || !slices.Equal(v.Shape(), uShape) {
			return nil, cr.Errorf(cr.ErrShapeMismatch, "mask_mul: operand is not of shape %v", uShape)
		}
		return maskMul(mv, mShape, v, out)
	}
	adjoint := func(_ int, g *tensor.Dense) (*tensor.Dense, error) {
		if g == nil || !slices.Equal(g.Shape(), out) {
			return nil, cr.Errorf(cr.ErrShapeMismatch, "mask_mul: cotangent is not of shape %v", out)
		}
		p, err := maskMul(mv, mShape, g, out)
		if err != nil || slices.Equal(out, uShape) {
			return p, err
		}
		return tensor.SumTo(p, uShape)
	}
	y, err := apply(u)
	rule := cr.LinearRule(in, []bool{false, true}, func(xdot []*tensor.Dense, _ []bool) (*tensor.Dense, error) {
		return apply(xdot[1])
	}, adjoint)
	return setOutput(ys, y, rule, err)
}

// maskMul returns m u broadcast to out (0 where m is 0), with u's dtype.
func maskMul(m []float64, mShape []int, u *tensor.Dense, out []int) (*tensor.Dense, error) {
	if dt := u.DType(); dt.IsSingle() {
		w, err := (tensor.Space{}).Widen(u)
		if err != nil {
			return nil, err
		}
		y, err := maskMul(m, mShape, w, out)
		if err != nil {
			return nil, err
		}
		return tensor.AsType(y, dt)
	}
	lay := newLayout(out, mShape, u.Shape())
	if u.DType() == tensor.Complex128 {
		return tensor.FromComplex128(maskMulData(&lay, m, u.Contiguous().Complex128s()), out...)
	}
	return tensor.FromFloat64(maskMulData(&lay, m, u.Contiguous().Float64s()), out...)
}

func maskMulData[T tensor.Element](lay *layout, m []float64, u []T) []T {
	y := make([]T, lay.size)
	lay.runs(func(o, ia, ib, n, sa, sb int) {
		for i := range n {
			if w := m[ia+i*sa]; w != 0 {
				y[o+i] = ofReal[T](w) * u[ib+i*sb]
			}
		}
	})
	return y
}

// ofReal returns w as a T (complex(w, 0) for complex128), decided when the function
// is instantiated (as in conj).
func ofReal[T tensor.Element](w float64) T {
	var z T
	if unsafe.Sizeof(z) == unsafe.Sizeof(complex128(0)) {
		c := complex(w, 0)
		return *(*T)(unsafe.Pointer(&c))
	}
	return *(*T)(unsafe.Pointer(&w))
}
