package elementwise

import (
	"math/cmplx"
	"slices"
	"unsafe"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/internal/vmath"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// unaryMode is how a rule treats its input and output.
type unaryMode uint8

const (
	modeReal   unaryMode = iota // float64 -> float64 (spec.Real)
	modeHolo                    // complex128 -> complex128, holomorphic (spec.Complex; input maybe promoted)
	modeToReal                  // complex128 -> float64, through (Re z, Im z) (spec.ComplexToReal)
	modeWirt                    // complex128 -> complex128, not holomorphic (spec.Wirtinger)
)

// unaryOp is the op that Unary returns.
type unaryOp struct {
	name string
	spec UnarySpec
}

func (o *unaryOp) Name() string { return o.name }

func (o *unaryOp) NumOutputs() int { return 1 }

func (o *unaryOp) Apply(in []cr.NodeID, xs, ys []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	s := &o.spec
	if len(xs) != 1 || len(in) != 1 {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: want 1 input, got %d", o.name, len(xs))
	}
	x := xs[0]
	if x == nil {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: nil input", o.name)
	}
	if hasSingle(xs) {
		if x.DType() == tensor.Float32 && !s.Promote {
			if s.Real.single != nil {
				return o.applyFloat32(in, x, ys)
			}
			return o.applyFloat32Widened(in, x, ys)
		}
		return applySingle(o, in, xs, ys)
	}
	if err := opkit.CheckDTypes(o.name, xs); err != nil {
		return nil, err
	}
	r := &unaryRule{op: o, in: [1]cr.NodeID{in[0]}, realIn: x.DType() == tensor.Float64}
	shape := x.Shape()
	wide := tensor.Float64 // the dtype of the widest copy: of x, or the result
	if !r.realIn || s.Promote {
		wide = tensor.Complex128
	}
	if err := checkResult(o.name, wide, shape); err != nil {
		return nil, err
	}
	var err error
	switch {
	case r.realIn && !s.Promote && s.Real.F != nil:
		r.mode = modeReal
		r.xv = x.Contiguous()
		r.yv, err = tensor.FromFloat64(applyFunc1(&s.Real, r.xv.Float64s()), shape...)
	case r.realIn && !s.Promote:
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: input must be complex128, got %s", o.name, x.Describe())
	case s.Wirtinger.F != nil:
		r.mode = modeWirt
		r.xv = x.Contiguous()
		r.yv, err = tensor.FromComplex128(mapComplex(r.xv.Complex128s(), s.Wirtinger.F), shape...)
	case s.ComplexToReal.F != nil:
		r.mode = modeToReal
		r.xv = x.Contiguous()
		r.yv, err = tensor.FromFloat64(mapComplex(r.xv.Complex128s(), s.ComplexToReal.F), shape...)
	case s.Complex.F != nil:
		r.mode = modeHolo
		r.xv = x.AsComplex().Contiguous()
		r.yv, err = tensor.FromComplex128(applyFunc1(&s.Complex, r.xv.Complex128s()), shape...)
	default:
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: input must be real, got %s", o.name, x.Describe())
	}
	return setOutput(ys, r.yv, r, err)
}

// mapComplex returns f(x_i) for each element of x: the forward pass of the
// non-holomorphic and complex-to-real functions, which have no slice kernels.
func mapComplex[T tensor.Element](x []complex128, f func(complex128) T) []T {
	y := vmath.MakeNoZero[T](len(x))
	for i, v := range x {
		y[i] = f(v)
	}
	return y
}

// applyFunc1 returns f(x) elementwise, through the slice kernel if there is one, on
// up to GOMAXPROCS goroutines for large x.
func applyFunc1[T tensor.Element](fn *Func1[T], x []T) []T {
	y := vmath.MakeNoZero[T](len(x))  // apply writes every element
	if parallelWorkers(len(x)) <= 1 { // no closure to allocate
		fn.apply(y, x)
		return y
	}
	parallelFor(len(x), func(lo, hi int) { fn.apply(y[lo:hi], x[lo:hi]) })
	return y
}

// apply sets dst[i] = F(x[i]), through Slice if it is set.
func (fn *Func1[T]) apply(dst, x []T) {
	if fn.Slice != nil {
		fn.Slice(dst, x)
		return
	}
	dst = dst[:len(x)]
	for i, v := range x {
		dst[i] = fn.F(v)
	}
}

// unaryRule differentiates a unary op at the recorded point. It keeps the input and
// output elements in row-major order and evaluates the derivatives on demand.
type unaryRule struct {
	op     *unaryOp
	in     [1]cr.NodeID
	mode   unaryMode
	realIn bool // a float64 input (promoted in modeHolo: its cotangent is the real part)
	// xv and yv are the contiguous input (complex128 unless modeReal) and the output,
	// the values the tape holds anyway: keeping the tensors rather than slices and a
	// shape keeps the rule at 48 bytes a node.
	xv, yv *tensor.Dense
}

// shape is the shape of the input and output.
func (r *unaryRule) shape() []int { return r.yv.Shape() }

func (r *unaryRule) Inputs() []cr.NodeID { return r.in[:] }

func (r *unaryRule) Pullback(ybar []*tensor.Dense, _ []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	xbar, _, err := r.pullback(ybar[0], nil, nil)
	if err != nil {
		return dst, err
	}
	return append(dst, cr.Contribution[*tensor.Dense]{Node: r.in[0], Value: xbar}), nil
}

func (r *unaryRule) PullbackWithTangents(a cr.SecondOrderArgs[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	ct, tangentOf := a.Cotangents[0], a.TangentOf
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

// Forward sets ydot = f'(x) xdot (modes: see Unary).
func (r *unaryRule) Forward(tangentOf cr.TangentOf[*tensor.Dense], ydot []*tensor.Dense, has []bool) error {
	xdot, ok := tangentOf(r.in[0])
	if !ok {
		return nil
	}
	var (
		y   *tensor.Dense
		err error
	)
	switch r.mode {
	case modeReal:
		y, err = forwardUnary(r, &r.op.spec.Real, r.xv.Float64s(), r.yv.Float64s(), xdot)
	case modeHolo:
		y, err = forwardUnary(r, &r.op.spec.Complex, r.xv.Complex128s(), r.yv.Complex128s(), xdot)
	default:
		y, err = r.forwardNonHolo(xdot)
	}
	if err != nil {
		return err
	}
	ydot[0], has[0] = y, true
	return nil
}

// forwardNonHolo returns ydot for the non-holomorphic and complex-to-real modes.
func (r *unaryRule) forwardNonHolo(xdot *tensor.Dense) (*tensor.Dense, error) {
	xd, err := data[complex128](r.op.name, "input tangent", xdot, r.shape())
	if err != nil {
		return nil, err
	}
	if r.mode == modeWirt {
		yd := make([]complex128, len(xd))
		d1 := r.op.spec.Wirtinger.D1
		xc, yc := r.xv.Complex128s(), r.yv.Complex128s()
		for i, v := range xd {
			fz, fzbar := d1(xc[i], yc[i])
			yd[i] = fz*v + fzbar*cmplx.Conj(v)
		}
		return tensor.FromComplex128(yd, r.shape()...)
	}
	yd := make([]float64, len(xd))
	grad := r.op.spec.ComplexToReal.Grad
	xc := r.xv.Complex128s()
	for i, v := range xd {
		ga, gb := grad(xc[i])
		yd[i] = ga*real(v) + gb*imag(v)
	}
	return tensor.FromFloat64(yd, r.shape()...)
}

// forwardUnary returns Forward's ydot for a holomorphic (or real) f with elements x, y.
func forwardUnary[T tensor.Element](r *unaryRule, fn *Func1[T], x, y []T, xdot *tensor.Dense) (*tensor.Dense, error) {
	xd, err := data[T](r.op.name, "input tangent", xdot, r.shape())
	if err != nil {
		return nil, err
	}
	return result(jvp1(fn, x, y, xd), r.shape(), false)
}

// pullback returns xbar and, when ybardot or xdot is given (nil means zero), xbardot;
// xbardot is nil when both are (the formulas are Unary's).
func (r *unaryRule) pullback(ybar, ybardot, xdot *tensor.Dense) (xbar, xbardot *tensor.Dense, err error) {
	switch r.mode {
	case modeReal:
		return pullbackUnary(r, &r.op.spec.Real, r.xv.Float64s(), r.yv.Float64s(), ybar, ybardot, xdot)
	case modeHolo:
		return pullbackUnary(r, &r.op.spec.Complex, r.xv.Complex128s(), r.yv.Complex128s(), ybar, ybardot, xdot)
	case modeWirt:
		return r.pullbackWirtinger(ybar, ybardot, xdot)
	}
	return r.pullbackToReal(ybar, ybardot, xdot)
}

// pullbackUnary is the pullback of a holomorphic (or real) f with elements x, y.
func pullbackUnary[T tensor.Element](r *unaryRule, fn *Func1[T], x, y []T, ybar, ybardot, xdot *tensor.Dense) (xbar, xbardot *tensor.Dense, err error) {
	if ybardot == nil && xdot == nil {
		if c, ok := uniform[T](ybar); ok && checkData[T](r.op.name, "cotangent", ybar, r.shape()) == nil {
			return pullResults(r, pullUniform(fn, x, y, ybar.Size(), c), nil, false)
		}
		if g, row, ok := broadcastRows(ybar); ok && fn.Pull != nil && checkData[T](r.op.name, "cotangent", ybar, r.shape()) == nil {
			if xf, isReal := any(x).([]float64); isReal {
				xb := pullRows(any(fn.Pull).(func(dst, x, y, yb []float64)), xf, any(y).([]float64), g, row)
				return pullResults(r, any(xb).([]T), nil, false)
			}
		}
	}
	yb, ybd, xd, err := pullArgs[T, T](r, ybar, ybardot, xdot)
	if err != nil {
		return nil, nil, err
	}
	second := ybardot != nil || xdot != nil
	xb, xbd := pull1(fn, x, y, yb, ybd, xd, second)
	return pullResults(r, xb, xbd, second)
}

// pullArgs returns the elements of the cotangent ybar and of the optional ybardot
// and xdot (nil stays nil), checked against the rule's shape: Y is the element type
// of the output, X that of the input.
func pullArgs[Y, X tensor.Element](r *unaryRule, ybar, ybardot, xdot *tensor.Dense) (yb, ybd []Y, xd []X, err error) {
	if yb, ybd, err = cotangents[Y](r.op.name, r.shape(), ybar, ybardot); err != nil {
		return nil, nil, nil, err
	}
	if xd, err = optData[X](r.op.name, "input tangent", xdot, r.shape()); err != nil {
		return nil, nil, nil, err
	}
	return yb, ybd, xd, nil
}

// cotangents returns the elements of the cotangent ybar and of its optional tangent
// ybardot (nil stays nil), both of the output's shape.
func cotangents[T tensor.Element](op string, shape []int, ybar, ybardot *tensor.Dense) (yb, ybd []T, err error) {
	if yb, err = data[T](op, "cotangent", ybar, shape); err != nil {
		return nil, nil, err
	}
	if ybd, err = optData[T](op, "cotangent tangent", ybardot, shape); err != nil {
		return nil, nil, err
	}
	return yb, ybd, nil
}

// pullResults returns xbar from xb and, if second, xbardot from xbd, as tensors of
// the rule's shape (the real parts for a promoted float64 input).
func pullResults[T tensor.Element](r *unaryRule, xb, xbd []T, second bool) (xbar, xbardot *tensor.Dense, err error) {
	if xbar, err = result(xb, r.shape(), r.realIn); err != nil || !second {
		return xbar, nil, err
	}
	xbardot, err = result(xbd, r.shape(), r.realIn)
	return xbar, xbardot, err
}

// jvp1 returns ydot_i = f'(x_i) xdot_i.
func jvp1[T tensor.Element](fn *Func1[T], x, y, xd []T) []T {
	yd := vmath.MakeNoZero[T](len(xd))
	x, y = x[:len(xd)], y[:len(xd)]
	if _, isReal := any(yd).([]float64); isReal && fn.Pull != nil {
		fn.Pull(yd, x, y, xd) // f'(x_i) xdot_i: conj is the identity on float64
		return yd
	}
	for i, v := range xd {
		yd[i] = fn.D1(x[i], y[i]) * v
	}
	return yd
}

// pull1 returns xbar_i = conj(f'(x_i)) ybar_i and, if second, xbardot_i =
// conj(f'(x_i)) ybardot_i + conj(f"(x_i) xdot_i) ybar_i, where a nil ybd or xd is
// zero.
func pull1[T tensor.Element](fn *Func1[T], x, y, yb, ybd, xd []T, second bool) (xb, xbd []T) {
	n := len(yb)
	x, y, xb = x[:n], y[:n], vmath.MakeNoZero[T](n)
	if !second && fn.Pull != nil {
		fn.Pull(xb, x, y, yb)
		return xb, nil
	}
	if !second {
		for i, v := range yb {
			xb[i] = conj(fn.D1(x[i], y[i])) * v
		}
		return xb, nil
	}
	xbd = vmath.MakeNoZero[T](n)
	if ybd != nil {
		ybd = ybd[:n]
	}
	if xd != nil {
		xd = xd[:n]
	}
	if fn.Pull != nil {
		// The same sums as the loop below, in the same order, with the fast path
		// for the conj(f') terms: xbar = Pull(ybar), xbardot = Pull(ybardot) +
		// conj(f" xdot) ybar.
		fn.Pull(xb, x, y, yb)
		switch {
		case ybd != nil:
			fn.Pull(xbd, x, y, ybd)
			switch {
			case xd != nil && fn.affine:
				var zero T
				for i, v := range yb {
					xbd[i] += conj(zero*xd[i]) * v // D2 is zero[T]
				}
			case xd != nil:
				for i, v := range yb {
					xbd[i] += conj(fn.D2(x[i], y[i])*xd[i]) * v
				}
			}
		case xd != nil && fn.affine:
			var zero T
			for i, v := range yb {
				xbd[i] = zero + conj(zero*xd[i])*v // D2 is zero[T]
			}
		case xd != nil:
			var zero T
			for i, v := range yb {
				xbd[i] = zero + conj(fn.D2(x[i], y[i])*xd[i])*v
			}
		default:
			clear(xbd)
		}
		return xb, xbd
	}
	for i, v := range yb {
		d1 := conj(fn.D1(x[i], y[i]))
		xb[i] = d1 * v
		var s T
		if ybd != nil {
			s = d1 * ybd[i]
		}
		if xd != nil {
			s += conj(fn.D2(x[i], y[i])*xd[i]) * v
		}
		xbd[i] = s
	}
	return xb, xbd
}

// uniform reports whether t, of T's dtype, is one element repeated (all strides
// 0, as the pullback of a sum hands on its cotangent broadcast back to the
// summand's shape), and returns that element.
func uniform[T tensor.Element](t *tensor.Dense) (T, bool) {
	var zero T
	dt := tensor.Complex128
	if _, isReal := any(zero).(float64); isReal {
		dt = tensor.Float64
	}
	if t == nil || t.Size() < 2 || t.DType() != dt {
		return zero, false
	}
	for _, s := range t.Strides() {
		if s != 0 {
			return zero, false
		}
	}
	v := t.At(make([]int, t.Rank())...)
	switch p := any(&zero).(type) {
	case *float64:
		*p = real(v)
	case *complex128:
		*p = v
	}
	return zero, true
}

// broadcastRows returns, for a float64 tensor t that is a contiguous tensor
// broadcast along its trailing axes (a sum's cotangent over its summed last axes:
// strides 0 there, rows of at least two equal elements), the values of its rows
// in order (aliasing t's storage) and the length of a row; ok is false otherwise
// (and for a contiguous t, or one broadcast along every axis: uniform's case).
func broadcastRows(t *tensor.Dense) (g []float64, row int, ok bool) {
	if t == nil || t.DType() != tensor.Float64 || t.IsContiguous() {
		return nil, 0, false
	}
	sh, st := t.Shape(), t.Strides()
	a, row := len(sh), 1
	for a > 0 && (st[a-1] == 0 || sh[a-1] == 1) {
		row *= sh[a-1]
		a--
	}
	if a == len(sh) || a == 0 || row < 2 {
		return nil, 0, false
	}
	v := t
	for ax := a; ax < len(sh); ax++ {
		var err error
		if v, err = v.Slice(ax, 0, 1, 1); err != nil {
			return nil, 0, false
		}
	}
	if !v.IsContiguous() {
		return nil, 0, false
	}
	return v.Float64s(), row, true
}

// pullRows is pull1's first-order float64 pullback with fn.Pull = pull of the
// cotangent ybar_i = g[i / row]: xbar_i = f'(x_i) g[i / row], computed by pull on
// blocks of the cotangent expanded into a short buffer instead of a copy of its
// len(g) row elements (fn.Pull computes each element on its own, so the result
// is that of the expanded cotangent).
func pullRows(pull func(dst, x, y, yb []float64), x, y, g []float64, row int) []float64 {
	n := len(g) * row
	x, y = x[:n], y[:n]
	xb := vmath.MakeNoZero[float64](n)
	var block [512]float64
	q, rem := 0, 0 // the row of element o, and the position in it
	for o := 0; o < n; o += len(block) {
		m := min(len(block), n-o)
		for j := 0; j < m; {
			w, c := min(row-rem, m-j), g[q]
			for i := j; i < j+w; i++ {
				block[i] = c
			}
			j += w
			if rem += w; rem == row {
				q, rem = q+1, 0
			}
		}
		pull(xb[o:o+m], x[o:o+m], y[o:o+m], block[:m])
	}
	return xb
}

// pullUniform is pull1's first-order pullback of the cotangent ybar_i = c for
// i < n: xbar_i = conj(f'(x_i)) c, without making the n copies of c (fn.Pull
// reads them from a short block repeated).
func pullUniform[T tensor.Element](fn *Func1[T], x, y []T, n int, c T) []T {
	x, y = x[:n], y[:n]
	xb := vmath.MakeNoZero[T](n)
	if fn.pullY {
		if yf, ok := any(y).([]float64); ok {
			// xbar_i = y_i c, the product expPull computes.
			vmath.Scale(any(xb).([]float64), yf, any(c).(float64))
			return xb
		}
	}
	if fn.Pull == nil {
		for i := range xb {
			xb[i] = conj(fn.D1(x[i], y[i])) * c
		}
		return xb
	}
	var block [512]T
	for i := range block {
		block[i] = c
	}
	for o := 0; o < n; o += len(block) {
		m := min(len(block), n-o)
		fn.Pull(xb[o:o+m], x[o:o+m], y[o:o+m], block[:m])
	}
	return xb
}

// pullbackWirtinger is the pullback of a non-holomorphic f (the formulas are
// Unary's).
func (r *unaryRule) pullbackWirtinger(ybar, ybardot, xdot *tensor.Dense) (xbar, xbardot *tensor.Dense, err error) {
	w := &r.op.spec.Wirtinger
	yb, ybd, xd, err := pullArgs[complex128, complex128](r, ybar, ybardot, xdot)
	if err != nil {
		return nil, nil, err
	}
	second := ybardot != nil || xdot != nil
	xb := make([]complex128, len(yb))
	var xbd []complex128
	if second {
		xbd = make([]complex128, len(yb))
	}
	xc, yc := r.xv.Complex128s(), r.yv.Complex128s()
	for i, v := range yb {
		z, y := xc[i], yc[i]
		fz, fzbar := w.D1(z, y)
		xb[i] = cmplx.Conj(fz)*v + fzbar*cmplx.Conj(v)
		if !second {
			continue
		}
		var s complex128
		if ybd != nil {
			s = cmplx.Conj(fz)*ybd[i] + fzbar*cmplx.Conj(ybd[i])
		}
		if xd != nil {
			fzz, fzzbar, fzbarzbar := w.D2(z, y)
			d, dc := xd[i], cmplx.Conj(xd[i])
			s += cmplx.Conj(fzz*d+fzzbar*dc)*v + (fzzbar*d+fzbarzbar*dc)*cmplx.Conj(v)
		}
		xbd[i] = s
	}
	return pullResults(r, xb, xbd, second)
}

// pullbackToReal is the pullback of a real-valued g(a, b) of z = a + ib:
// xbar = ybar (g_a + i g_b) and
// xbardot = ybardot (g_a + i g_b) + ybar ((g_aa adot + g_ab bdot) + i (g_ab adot + g_bb bdot)).
func (r *unaryRule) pullbackToReal(ybar, ybardot, xdot *tensor.Dense) (xbar, xbardot *tensor.Dense, err error) {
	g := &r.op.spec.ComplexToReal
	yb, ybd, xd, err := pullArgs[float64, complex128](r, ybar, ybardot, xdot)
	if err != nil {
		return nil, nil, err
	}
	xc := r.xv.Complex128s()
	xb := make([]complex128, len(yb))
	for i, v := range yb {
		ga, gb := g.Grad(xc[i])
		xb[i] = complex(v*ga, v*gb)
	}
	second := ybardot != nil || xdot != nil
	if !second {
		return pullResults(r, xb, nil, false)
	}
	xbd := make([]complex128, len(yb))
	for i := range xbd {
		var s complex128
		if ybd != nil {
			ga, gb := g.Grad(xc[i])
			s = complex(ybd[i]*ga, ybd[i]*gb)
		}
		if xd != nil {
			gaa, gab, gbb := g.Hess(xc[i])
			ad, bd := real(xd[i]), imag(xd[i])
			s += complex(yb[i]*(gaa*ad+gab*bd), yb[i]*(gab*ad+gbb*bd))
		}
		xbd[i] = s
	}
	return pullResults(r, xb, xbd, true)
}

// conj returns the complex conjugate of v, and v itself for float64. The test on
// the size is decided when the function is instantiated, so that each instance
// compiles to straight-line code (a type switch on any(v) is not resolved at compile
// time in generic code and costs about 15% in the pullback loops).
func conj[T tensor.Element](v T) T {
	if unsafe.Sizeof(v) == unsafe.Sizeof(complex128(0)) {
		c := cmplx.Conj(*(*complex128)(unsafe.Pointer(&v)))
		return *(*T)(unsafe.Pointer(&c))
	}
	return v
}

// realPart returns the real part of v, and v itself for float64, decided when the
// function is instantiated (as in conj).
func realPart[T tensor.Element](v T) float64 {
	if unsafe.Sizeof(v) == unsafe.Sizeof(complex128(0)) {
		return real(*(*complex128)(unsafe.Pointer(&v)))
	}
	return *(*float64)(unsafe.Pointer(&v))
}

// result returns v as a tensor of shape, taking the real parts of complex v when
// realOut is set (the cotangent of a float64 input promoted to complex128).
func result[T tensor.Element](v []T, shape []int, realOut bool) (*tensor.Dense, error) {
	switch v := any(v).(type) {
	case []float64:
		return tensor.FromFloat64(v, shape...)
	case []complex128:
		if realOut {
			re := make([]float64, len(v))
			for i, z := range v {
				re[i] = real(z)
			}
			return tensor.FromFloat64(re, shape...)
		}
		return tensor.FromComplex128(v, shape...)
	}
	return nil, cr.Errorf(cr.ErrInvalidArgument, "elementwise: element type %T", v)
}

// data returns the row-major elements of a value shaped like shape: a float64 value
// for T = float64, and any value widened to complex128 for T = complex128 (such as
// the float64 tangent of a promoted input).
func data[T tensor.Element](op, what string, t *tensor.Dense, shape []int) ([]T, error) {
	if err := checkData[T](op, what, t, shape); err != nil {
		return nil, err
	}
	var zero T
	if _, isReal := any(zero).(float64); isReal {
		return any(t.Float64s()).([]T), nil
	}
	return any(t.AsComplex().Complex128s()).([]T), nil
}

// checkData returns data's error for t, if any, without reading the elements.
func checkData[T tensor.Element](op, what string, t *tensor.Dense, shape []int) error {
	if t == nil {
		return cr.Errorf(cr.ErrInvalidArgument, "%s: nil %s", op, what)
	}
	var zero T
	if _, isReal := any(zero).(float64); isReal {
		if !slices.Equal(t.Shape(), shape) || t.DType() != tensor.Float64 {
			return cr.Errorf(cr.ErrShapeMismatch, "%s: %s is %s, want float64%v", op, what, t.Describe(), shape)
		}
		return nil
	}
	if !slices.Equal(t.Shape(), shape) {
		return cr.Errorf(cr.ErrShapeMismatch, "%s: %s is %s, want shape %v", op, what, t.Describe(), shape)
	}
	return nil
}

// optData is data for an optional value: nil stays nil (a zero tangent).
func optData[T tensor.Element](op, what string, t *tensor.Dense, shape []int) ([]T, error) {
	if t == nil {
		return nil, nil
	}
	return data[T](op, what, t, shape)
}

// FreshStorage marks the rule's output and cotangents as storage of their own or
// views of its arguments (chainrules.FreshStorage), so that a released tape reuses it.
func (*unaryRule) FreshStorage() {}
