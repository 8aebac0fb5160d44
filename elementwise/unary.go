package elementwise

import (
	"math/cmplx"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// unaryFunc is one row of the unary table: a function's value and its first and
// second derivatives, for float64 and, where the op is defined there, complex128.
//
// On float64 input y = f(x), d1(x, y) = f'(x) and d2(x, y) = f"(x) (y is passed so
// that derivatives such as exp' = exp or tanh' = 1 - tanh² cost no new evaluation).
// The complex behaviour is one of:
//   - holomorphic (fc, d1c, d2c set): the same three in complex arithmetic;
//   - real-valued (g, gd1, gd2 set): y = g(a, b) for z = a + ib, with gradient
//     (g_a, g_b) and Hessian (g_aa, g_ab, g_bb), for abs, abs2, real, imag, angle;
//   - conj: y = conj(z);
//   - none: complex input is an error.
type unaryFunc struct {
	name string
	// noReal: float64 input is an error (imag, like PyTorch).
	noReal bool
	f      func(x float64) float64
	slice  func(dst, x []float64) // optional fast path for f
	d1, d2 func(x, y float64) float64

	fc       func(z complex128) complex128
	d1c, d2c func(z, w complex128) complex128

	g   func(z complex128) float64
	gd1 func(z complex128) (ga, gb float64)
	gd2 func(z complex128) (gaa, gab, gbb float64)

	conj bool
}

// unaryMode is how a rule treats its input and output.
type unaryMode uint8

const (
	modeReal   unaryMode = iota // float64 -> float64
	modeHolo                    // complex128 -> complex128, holomorphic (input maybe promoted)
	modeToReal                  // complex128 -> float64, through (Re z, Im z)
	modeConj                    // complex128 -> complex128, y = conj(z)
)

// unaryOp applies a unaryFunc. promote computes in complex128 even for float64 input
// (a complex parameter of scale, shift or pow_scalar).
type unaryOp struct {
	fn      *unaryFunc
	promote bool
}

func (o unaryOp) Name() string { return o.fn.name }

func (o unaryOp) Apply(in []cr.NodeID, xs []*tensor.Dense) (*tensor.Dense, cr.ReverseRule[*tensor.Dense], error) {
	fn := o.fn
	if len(xs) != 1 || len(in) != 1 {
		return nil, nil, cr.Errorf(cr.ErrInvalidArgument, "%s: want 1 input, got %d", fn.name, len(xs))
	}
	x := xs[0]
	if x == nil {
		return nil, nil, cr.Errorf(cr.ErrInvalidArgument, "%s: nil input", fn.name)
	}
	r := &unaryRule{fn: fn, in: [1]cr.NodeID{in[0]}, shape: slices.Clone(x.Shape()), realIn: x.DType() == tensor.Float64}
	switch {
	case r.realIn && fn.noReal:
		return nil, nil, cr.Errorf(cr.ErrInvalidArgument, "%s: input must be complex128, got %s", fn.name, x.Describe())
	case r.realIn && !o.promote:
		r.mode = modeReal
		r.x = x.Contiguous().Float64s()
		r.y = make([]float64, len(r.x))
		parallelFor(len(r.x), func(lo, hi int) {
			if fn.slice != nil {
				fn.slice(r.y[lo:hi], r.x[lo:hi])
				return
			}
			for i, v := range r.x[lo:hi] {
				r.y[lo+i] = fn.f(v)
			}
		})
		y, err := tensor.FromFloat64(r.y, r.shape...)
		return y, r, err
	case fn.conj:
		r.mode = modeConj
		r.xc = x.Complex128s()
		r.yc = make([]complex128, len(r.xc))
		for i, v := range r.xc {
			r.yc[i] = cmplx.Conj(v)
		}
		y, err := tensor.FromComplex128(r.yc, r.shape...)
		return y, r, err
	case fn.g != nil:
		r.mode = modeToReal
		r.xc = x.Complex128s()
		r.y = make([]float64, len(r.xc))
		for i, v := range r.xc {
			r.y[i] = fn.g(v)
		}
		y, err := tensor.FromFloat64(r.y, r.shape...)
		return y, r, err
	case fn.fc != nil:
		r.mode = modeHolo
		r.xc = x.AsComplex().Complex128s()
		r.yc = make([]complex128, len(r.xc))
		for i, v := range r.xc {
			r.yc[i] = fn.fc(v)
		}
		y, err := tensor.FromComplex128(r.yc, r.shape...)
		return y, r, err
	}
	return nil, nil, cr.Errorf(cr.ErrInvalidArgument, "%s: input must be real, got %s", fn.name, x.Describe())
}

// unaryRule differentiates a unaryFunc at the recorded point. It keeps the input and
// output elements in row-major order and evaluates the derivatives on demand.
type unaryRule struct {
	fn     *unaryFunc
	in     [1]cr.NodeID
	mode   unaryMode
	shape  []int
	realIn bool // a float64 input (promoted in modeHolo: its cotangent is the real part)
	x, y   []float64
	xc, yc []complex128
}

func (r *unaryRule) Inputs() []cr.NodeID { return r.in[:] }

// outReal reports whether the output is float64.
func (r *unaryRule) outReal() bool { return r.mode == modeReal || r.mode == modeToReal }

func (r *unaryRule) Pullback(ybar *tensor.Dense, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	xbar, _, err := r.pullback(ybar, nil, nil)
	if err != nil {
		return dst, err
	}
	return append(dst, cr.Contribution[*tensor.Dense]{Node: r.in[0], Value: xbar}), nil
}

func (r *unaryRule) ForwardTangents(tangentOf cr.TangentOf[*tensor.Dense]) (*tensor.Dense, bool, error) {
	xdot, ok := tangentOf(r.in[0])
	if !ok {
		return nil, false, nil
	}
	name := r.fn.name
	switch r.mode {
	case modeReal:
		xd, err := realData(name, "input tangent", xdot, r.shape)
		if err != nil {
			return nil, false, err
		}
		yd := make([]float64, len(xd))
		for i := range yd {
			yd[i] = r.fn.d1(r.x[i], r.y[i]) * xd[i]
		}
		y, err := tensor.FromFloat64(yd, r.shape...)
		return y, true, err
	case modeToReal:
		xd, err := complexData(name, "input tangent", xdot, r.shape)
		if err != nil {
			return nil, false, err
		}
		yd := make([]float64, len(xd))
		for i := range yd {
			ga, gb := r.fn.gd1(r.xc[i])
			yd[i] = ga*real(xd[i]) + gb*imag(xd[i])
		}
		y, err := tensor.FromFloat64(yd, r.shape...)
		return y, true, err
	}
	xd, err := complexData(name, "input tangent", xdot, r.shape)
	if err != nil {
		return nil, false, err
	}
	yd := make([]complex128, len(xd))
	if r.mode == modeConj {
		for i := range yd {
			yd[i] = cmplx.Conj(xd[i])
		}
	} else {
		for i := range yd {
			yd[i] = r.fn.d1c(r.xc[i], r.yc[i]) * xd[i]
		}
	}
	y, err := tensor.FromComplex128(yd, r.shape...)
	return y, true, err
}

func (r *unaryRule) PullbackWithTangents(ct cr.Dual[*tensor.Dense], tangentOf cr.TangentOf[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	var ybardot, xdot *tensor.Dense
	if ct.HasTangent {
		ybardot = ct.Tangent
	}
	if t, ok := tangentOf(r.in[0]); ok {
		xdot = t
	}
	xbar, xbardot, err := r.pullback(ct.Value, ybardot, xdot)
	if err != nil {
		return dst, err
	}
	d := cr.Dual[*tensor.Dense]{Value: xbar, Tangent: xbardot, HasTangent: xbardot != nil}
	return append(dst, cr.DualContribution[*tensor.Dense]{Node: r.in[0], Cotangent: d}), nil
}

// pullback returns xbar = J^* ybar and, when ybardot or xdot is given (nil means
// zero), xbardot = J^* ybardot + (d/dx J^* ybar)[xdot]; xbardot is nil when both are.
//
// Holomorphic f: xbar = conj(f') ybar, xbardot = conj(f') ybardot + conj(f" xdot) ybar.
// Real-valued g(a, b) of z = a + ib: xbar = ybar (g_a + i g_b) and
// xbardot = ybardot (g_a + i g_b) + ybar ((g_aa adot + g_ab bdot) + i (g_ab adot + g_bb bdot)).
// conj: xbar = conj(ybar), xbardot = conj(ybardot).
func (r *unaryRule) pullback(ybar, ybardot, xdot *tensor.Dense) (xbar, xbardot *tensor.Dense, err error) {
	name := r.fn.name
	second := ybardot != nil || xdot != nil
	if r.outReal() {
		yb, err := realData(name, "cotangent", ybar, r.shape)
		if err != nil {
			return nil, nil, err
		}
		ybd, err := optReal(name, "cotangent tangent", ybardot, r.shape)
		if err != nil {
			return nil, nil, err
		}
		if r.mode == modeReal {
			xd, err := optReal(name, "input tangent", xdot, r.shape)
			if err != nil {
				return nil, nil, err
			}
			return r.pullbackReal(yb, ybd, xd, second)
		}
		xd, err := optComplex(name, "input tangent", xdot, r.shape)
		if err != nil {
			return nil, nil, err
		}
		return r.pullbackToReal(yb, ybd, xd, second)
	}
	yb, err := complexData(name, "cotangent", ybar, r.shape)
	if err != nil {
		return nil, nil, err
	}
	ybd, err := optComplex(name, "cotangent tangent", ybardot, r.shape)
	if err != nil {
		return nil, nil, err
	}
	xd, err := optComplex(name, "input tangent", xdot, r.shape)
	if err != nil {
		return nil, nil, err
	}
	xb := make([]complex128, len(yb))
	var xbd []complex128
	if second {
		xbd = make([]complex128, len(yb))
	}
	if r.mode == modeConj {
		for i, v := range yb {
			xb[i] = cmplx.Conj(v)
		}
		for i, v := range ybd {
			xbd[i] = cmplx.Conj(v)
		}
	} else {
		for i, v := range yb {
			xb[i] = cmplx.Conj(r.fn.d1c(r.xc[i], r.yc[i])) * v
		}
		if second {
			for i := range xbd {
				var s complex128
				if ybd != nil {
					s = cmplx.Conj(r.fn.d1c(r.xc[i], r.yc[i])) * ybd[i]
				}
				if xd != nil {
					s += cmplx.Conj(r.fn.d2c(r.xc[i], r.yc[i])*xd[i]) * yb[i]
				}
				xbd[i] = s
			}
		}
	}
	if r.realIn { // a promoted real input receives the real part
		xbar = realPart(xb, r.shape)
		if second {
			xbardot = realPart(xbd, r.shape)
		}
		return xbar, xbardot, nil
	}
	xbar, err = tensor.FromComplex128(xb, r.shape...)
	if err == nil && second {
		xbardot, err = tensor.FromComplex128(xbd, r.shape...)
	}
	return xbar, xbardot, err
}

func (r *unaryRule) pullbackReal(yb, ybd, xd []float64, second bool) (xbar, xbardot *tensor.Dense, err error) {
	fn := r.fn
	xb := make([]float64, len(yb))
	for i, v := range yb {
		xb[i] = fn.d1(r.x[i], r.y[i]) * v
	}
	if xbar, err = tensor.FromFloat64(xb, r.shape...); err != nil || !second {
		return xbar, nil, err
	}
	xbd := make([]float64, len(yb))
	for i := range xbd {
		var s float64
		if ybd != nil {
			s = fn.d1(r.x[i], r.y[i]) * ybd[i]
		}
		if xd != nil {
			s += fn.d2(r.x[i], r.y[i]) * xd[i] * yb[i]
		}
		xbd[i] = s
	}
	xbardot, err = tensor.FromFloat64(xbd, r.shape...)
	return xbar, xbardot, err
}

func (r *unaryRule) pullbackToReal(yb, ybd []float64, xd []complex128, second bool) (xbar, xbardot *tensor.Dense, err error) {
	fn := r.fn
	xb := make([]complex128, len(yb))
	for i, v := range yb {
		ga, gb := fn.gd1(r.xc[i])
		xb[i] = complex(v*ga, v*gb)
	}
	if xbar, err = tensor.FromComplex128(xb, r.shape...); err != nil || !second {
		return xbar, nil, err
	}
	xbd := make([]complex128, len(yb))
	for i := range xbd {
		var s complex128
		if ybd != nil {
			ga, gb := fn.gd1(r.xc[i])
			s = complex(ybd[i]*ga, ybd[i]*gb)
		}
		if xd != nil {
			gaa, gab, gbb := fn.gd2(r.xc[i])
			ad, bd := real(xd[i]), imag(xd[i])
			s += complex(yb[i]*(gaa*ad+gab*bd), yb[i]*(gab*ad+gbb*bd))
		}
		xbd[i] = s
	}
	xbardot, err = tensor.FromComplex128(xbd, r.shape...)
	return xbar, xbardot, err
}

// realPart returns the float64 tensor of the real parts of v.
func realPart(v []complex128, shape []int) *tensor.Dense {
	out := make([]float64, len(v))
	for i, z := range v {
		out[i] = real(z)
	}
	t, _ := tensor.FromFloat64(out, shape...) // len(out) fills shape by construction
	return t
}

// realData returns the row-major elements of a float64 value shaped like shape.
func realData(op, what string, t *tensor.Dense, shape []int) ([]float64, error) {
	if t == nil {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: nil %s", op, what)
	}
	if !slices.Equal(t.Shape(), shape) || t.DType() != tensor.Float64 {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: %s is %s, want float64%v", op, what, t.Describe(), shape)
	}
	return t.Float64s(), nil
}

// complexData returns the row-major elements of a value shaped like shape as
// complex128 (a float64 value, such as the tangent of a promoted input, is widened).
func complexData(op, what string, t *tensor.Dense, shape []int) ([]complex128, error) {
	if t == nil {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: nil %s", op, what)
	}
	if !slices.Equal(t.Shape(), shape) {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: %s is %s, want shape %v", op, what, t.Describe(), shape)
	}
	return t.AsComplex().Complex128s(), nil
}

// optReal is realData for an optional value: nil stays nil (a zero tangent).
func optReal(op, what string, t *tensor.Dense, shape []int) ([]float64, error) {
	if t == nil {
		return nil, nil
	}
	return realData(op, what, t, shape)
}

// optComplex is complexData for an optional value.
func optComplex(op, what string, t *tensor.Dense, shape []int) ([]complex128, error) {
	if t == nil {
		return nil, nil
	}
	return complexData(op, what, t, shape)
}

// apply1 evaluates op at x without recording a rule's use.
func apply1(op cr.Op[*tensor.Dense], x *tensor.Dense) (*tensor.Dense, error) {
	y, _, err := op.Apply([]cr.NodeID{0}, []*tensor.Dense{x})
	return y, err
}
