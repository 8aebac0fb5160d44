package tensor

import (
	"errors"
	"fmt"
	"math"
	"math/cmplx"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/internal/vmath"
)

// BroadcastShapes returns the shape that NumPy's broadcasting rules give the shapes:
// they are aligned at their trailing dims, missing leading dims count as 1, and along
// each axis every dim must be 1 or equal to the others (the result takes the dim that
// is not 1). With no shapes it returns the scalar shape. It returns an error wrapping
// ErrShapeMismatch, naming the shapes, if they do not broadcast, and
// ErrInvalidArgument for a negative dim or a result whose size overflows int.
func BroadcastShapes(shapes ...[]int) ([]int, error) {
	r := 0
	for _, s := range shapes {
		if err := checkDims(s); err != nil {
			return nil, err
		}
		r = max(r, len(s))
	}
	out := make([]int, r)
	for k := range out {
		out[k] = 1
	}
	for _, s := range shapes {
		lead := r - len(s)
		for j, d := range s {
			k := lead + j
			switch {
			case d == out[k] || d == 1:
			case out[k] == 1:
				out[k] = d
			default:
				return nil, cr.Errorf(cr.ErrShapeMismatch, "shapes %v do not broadcast", shapes)
			}
		}
	}
	if _, err := ShapeSize(out...); err != nil {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "broadcasting %v: %w", shapes, err)
	}
	return out, nil
}

// SumTo returns the sum of t over the axes that broadcasting shape to t's shape
// would add or stretch, so that the result has the given shape:
//
//	out[j] = sum of t[i] over all i that broadcast from j.
//
// It is the adjoint (pullback) of BroadcastTo(shape). shape must broadcast to t's
// shape: len(shape) <= t.Rank() and each dim equal to t's trailing dim or 1;
// otherwise it returns an error wrapping ErrShapeMismatch. The result is fresh and
// has t's dtype.
func SumTo(t *Dense, shape []int) (*Dense, error) {
	if t == nil {
		return nil, errNil()
	}
	if err := checkDims(shape); err != nil {
		return nil, err
	}
	// shape must broadcast to t's shape, so its size is at most t's: check that
	// before allocating it.
	if !broadcasts(shape, t.shape) {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "cannot sum shape %v to %v", t.shape, shape)
	}
	out := New(t.dtype, shape...)
	// Reading out through these strides broadcasts it to t's shape: summing t into
	// that view adds every element of t into the output element it broadcasts from.
	st := make([]int, len(t.shape))
	out.broadcastStrides(st, t.shape)
	if t.Size() == 0 {
		return out, nil
	}
	switch {
	case t.dtype == Complex128:
		sumInto(out.c128s(), t.c128s(), t.shape, st, t.strides, t.offset)
	case t.dtype == Float32:
		sumInto(out.f32s(), t.f32s(), t.shape, st, t.strides, t.offset)
	case t.dtype == Complex64:
		sumInto(out.c64s(), t.c64s(), t.shape, st, t.strides, t.offset)
	case sumsLeading(shape, t) && len(out.f64s()) >= vecMin && t.IsContiguous():
		sumRows(out.f64s(), t.f64s()[t.offset:t.offset+t.Size()])
	case sumsLeading(shape, t) && len(out.f64s()) >= 2 && t.IsContiguous():
		sumRowsShort(out.f64s(), t.f64s()[t.offset:t.offset+t.Size()])
	default:
		sumInto(out.f64s(), t.f64s(), t.shape, st, t.strides, t.offset)
	}
	return out, nil
}

// sumsLeading reports whether summing t to shape adds up leading axes only: shape,
// less its leading 1s, is a suffix of t's shape (a bias's cotangent, [n, d] summed
// to [d]).
func sumsLeading(shape []int, t *Dense) bool {
	for len(shape) > 0 && shape[0] == 1 {
		shape = shape[1:]
	}
	return slices.Equal(shape, t.shape[len(t.shape)-len(shape):])
}

// sumRows adds the rows of src, each as long as out, into out in order, with
// vmath's vectorised Add: SumTo over leading axes of a contiguous float64 tensor,
// one Add per row where the strided walk spent more time stepping than adding.
// Each element sums its terms in the order of sumInto, so the results are the
// same bit for bit.
func sumRows(out, src []float64) {
	n := len(out)
	for r := 0; r+n <= len(src); r += n {
		vmath.Add(out, out, src[r:r+n])
	}
}

// sumRowsShort is sumRows for rows of 2 to vecMin-1 elements (the cotangent of a
// [1, k] term broadcast over n rows, for a small k): the same additions in the
// same order (row after row into out), without the walk's step per row.
func sumRowsShort(out, src []float64) {
	k := len(out)
	for r := 0; r+k <= len(src); r += k {
		row := src[r : r+k : r+k]
		for j := range out {
			out[j] += row[j]
		}
	}
}

// broadcasts reports whether from broadcasts to shape by NumPy's rules.
func broadcasts(from, shape []int) bool {
	if len(from) > len(shape) {
		return false
	}
	for k, d := range from {
		if e := shape[len(shape)-len(from)+k]; d != e && d != 1 {
			return false
		}
	}
	return true
}

// sumInto adds each element of the strided view (shape, srcStrides, offset) of src
// into dst at the positions given by dstStrides (zero on summed axes).
func sumInto[T element](dst, src []T, shape, dstStrides, srcStrides []int, offset int) {
	w := newWalker(shape, [maxOperands]int{0, offset}, dstStrides, srcStrides)
	for w.next() {
		o, a, so, sa := w.off[0], w.off[1], w.inner[0], w.inner[1]
		switch {
		case so == 0:
			dst[o] += sumStrided(src, a, w.n, sa)
		case so == 1 && sa == 1:
			d, s := dst[o:o+w.n], src[a:a+w.n]
			for i := range d {
				d[i] += s[i]
			}
		default:
			for range w.n {
				dst[o] += src[a]
				o += so
				a += sa
			}
		}
	}
}

func errNil() error {
	return cr.Errorf(cr.ErrInvalidArgument, "nil tensor")
}

// binOp names an elementwise binary operation.
type binOp uint8

const (
	opAdd binOp = iota
	opSub
	opMul
	opDiv
)

var binOpNames = [...]string{opAdd: "add", opSub: "sub", opMul: "mul", opDiv: "div"}

// Add returns a + b elementwise, broadcasting a and b to BroadcastShapes(a, b) and
// promoting to complex128 if either is complex. The result is fresh and contiguous.
// It returns an error wrapping ErrShapeMismatch if the shapes do not broadcast, and
// one wrapping ErrInvalidArgument if the result is too large to allocate (broadcast
// views can have any number of elements).
func Add(a, b *Dense) (*Dense, error) { return binary(opAdd, a, b) }

// Sub returns a - b elementwise, broadcasting and promoting like Add.
func Sub(a, b *Dense) (*Dense, error) { return binary(opSub, a, b) }

// Mul returns the elementwise (Hadamard) product a * b, broadcasting and promoting
// like Add.
func Mul(a, b *Dense) (*Dense, error) { return binary(opMul, a, b) }

// Div returns a / b elementwise, broadcasting and promoting like Add. Division by
// zero follows IEEE 754 (and Go's complex division): it gives infinities or NaNs,
// not an error.
func Div(a, b *Dense) (*Dense, error) { return binary(opDiv, a, b) }

func binary(op binOp, a, b *Dense) (*Dense, error) {
	if a == nil || b == nil {
		return nil, errNil()
	}
	var shape []int
	if slices.Equal(a.shape, b.shape) {
		shape = a.shape
	} else {
		s, err := BroadcastShapes(a.shape, b.shape)
		if errors.Is(err, cr.ErrInvalidArgument) {
			return nil, fmt.Errorf("%s: %w", binOpNames[op], err)
		}
		if err != nil {
			return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: cannot broadcast %v and %v", binOpNames[op], a.shape, b.shape)
		}
		shape = s
	}
	dt := ResultDType(a.dtype, b.dtype)
	// The result is at least as large as either operand's copy (AsComplex of a view);
	// every element of it is written below.
	out, err := allocNoZero(dt, shape...)
	if err != nil {
		return nil, fmt.Errorf("%s: the result is too large: %w", binOpNames[op], err)
	}
	a, b = a.to(dt), b.to(dt)
	n := out.Size()
	if n == 0 {
		return out, nil
	}
	if slices.Equal(a.shape, b.shape) && a.IsContiguous() && b.IsContiguous() {
		switch dt {
		case Complex128:
			binContig(op, out.c128s(), a.c128s()[a.offset:a.offset+n], b.c128s()[b.offset:b.offset+n])
		case Float32:
			binContig(op, out.f32s(), a.f32s()[a.offset:a.offset+n], b.f32s()[b.offset:b.offset+n])
		case Complex64:
			binContig(op, out.c64s(), a.c64s()[a.offset:a.offset+n], b.c64s()[b.offset:b.offset+n])
		default:
			binContig(op, out.f64s(), a.f64s()[a.offset:a.offset+n], b.f64s()[b.offset:b.offset+n])
		}
		return out, nil
	}
	// out's strides are row-major; the operands' broadcast strides share a buffer.
	buf := make([]int, 2*len(shape))
	as, bs := buf[:len(shape)], buf[len(shape):]
	if !a.broadcastStrides(as, shape) || !b.broadcastStrides(bs, shape) {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: cannot broadcast %v and %v", binOpNames[op], a.shape, b.shape)
	}
	w := newWalker(shape, [maxOperands]int{0, a.offset, b.offset}, out.strides, as, bs)
	switch dt {
	case Complex128:
		binStrided(op, out.c128s(), a.c128s(), b.c128s(), &w)
	case Float32:
		binStrided(op, out.f32s(), a.f32s(), b.f32s(), &w)
	case Complex64:
		binStrided(op, out.c64s(), a.c64s(), b.c64s(), &w)
	default:
		binStrided(op, out.f64s(), a.f64s(), b.f64s(), &w)
	}
	return out, nil
}

// binContig computes dst[i] = a[i] op b[i]; the three slices have equal length.
func binContig[T element](op binOp, dst, a, b []T) {
	a, b = a[:len(dst)], b[:len(dst)]
	switch op {
	case opAdd:
		if df, ok := any(dst).([]float64); ok && len(df) >= vecMin {
			vmath.Add(df, any(a).([]float64), any(b).([]float64)) // vectorised
			return
		}
		for i := range dst {
			dst[i] = a[i] + b[i]
		}
	case opSub:
		for i := range dst {
			dst[i] = a[i] - b[i]
		}
	case opMul:
		for i := range dst {
			dst[i] = a[i] * b[i]
		}
	case opDiv:
		for i := range dst {
			dst[i] = a[i] / b[i]
		}
	}
}

// vecMin is the length from which contiguous float64 sums call vmath's vectorised
// Add: shorter ones stay in the inline loop (a scalar chain's one-element values).
const vecMin = 16

// binScalar computes dst[i] = a[i] op s (or s op a[i] when scalarFirst).
func binScalar[T element](op binOp, dst, a []T, s T, scalarFirst bool) {
	a = a[:len(dst)]
	switch {
	case op == opAdd:
		for i := range dst {
			dst[i] = a[i] + s
		}
	case op == opMul:
		for i := range dst {
			dst[i] = a[i] * s
		}
	case op == opSub && !scalarFirst:
		for i := range dst {
			dst[i] = a[i] - s
		}
	case op == opSub:
		for i := range dst {
			dst[i] = s - a[i]
		}
	case op == opDiv && !scalarFirst:
		for i := range dst {
			dst[i] = a[i] / s
		}
	default:
		for i := range dst {
			dst[i] = s / a[i]
		}
	}
}

// binStrided runs op over the walker's runs; operand 0 is the contiguous dst.
func binStrided[T element](op binOp, dst, a, b []T, w *walker) {
	for w.next() {
		o, i, j := w.off[0], w.off[1], w.off[2]
		sa, sb := w.inner[1], w.inner[2]
		d := dst[o : o+w.n]
		switch {
		case sa == 1 && sb == 1:
			binContig(op, d, a[i:i+w.n], b[j:j+w.n])
		case sa == 1 && sb == 0:
			binScalar(op, d, a[i:i+w.n], b[j], false)
		case sa == 0 && sb == 1:
			binScalar(op, d, b[j:j+w.n], a[i], true)
		default:
			binGeneral(op, d, a, b, i, j, sa, sb)
		}
	}
}

func binGeneral[T element](op binOp, d, a, b []T, i, j, sa, sb int) {
	switch op {
	case opAdd:
		for k := range d {
			d[k] = a[i] + b[j]
			i += sa
			j += sb
		}
	case opSub:
		for k := range d {
			d[k] = a[i] - b[j]
			i += sa
			j += sb
		}
	case opMul:
		for k := range d {
			d[k] = a[i] * b[j]
			i += sa
			j += sb
		}
	case opDiv:
		for k := range d {
			d[k] = a[i] / b[j]
			i += sa
			j += sb
		}
	}
}

// Scale returns the fresh tensor s * a, for s an int, a real or a complex number
// (Number). A real tensor stays real when s is real (imag(s) == 0) and is promoted
// to the complex dtype of its precision otherwise; s is rounded to a's precision (a
// float32 or complex64 tensor stays single precision).
func Scale[S Number](a *Dense, s S) *Dense { return scale(a, Complex128Of(s)) }

// scale is Scale for a complex128 s.
func scale(a *Dense, s complex128) *Dense {
	switch a.dtype {
	case Float32:
		src := a.Float32s()
		if imag(s) == 0 {
			out := New(Float32, a.shape...)
			dst, r := out.f32s()[:len(src)], float32(real(s))
			for i, v := range src {
				dst[i] = r * v
			}
			return out
		}
		out := New(Complex64, a.shape...)
		dst, c := out.c64s()[:len(src)], complex64(s)
		for i, v := range src {
			dst[i] = complex(v, 0) * c
		}
		return out
	case Complex64:
		src := a.Complex64s()
		out := New(Complex64, a.shape...)
		dst, c := out.c64s()[:len(src)], complex64(s)
		for i, v := range src {
			dst[i] = v * c
		}
		return out
	}
	if a.dtype == Float64 && imag(s) == 0 {
		src := a.Float64s()
		out := New(Float64, a.shape...)
		dst, r := out.f64s()[:len(src)], real(s)
		for i, v := range src {
			dst[i] = r * v
		}
		return out
	}
	if a.dtype == Float64 {
		src := a.Float64s()
		out := New(Complex128, a.shape...)
		dst := out.c128s()[:len(src)]
		for i, v := range src {
			dst[i] = complex(v, 0) * s
		}
		return out
	}
	src := a.Complex128s()
	out := New(Complex128, a.shape...)
	dst := out.c128s()[:len(src)]
	for i, v := range src {
		dst[i] = v * s
	}
	return out
}

// AddScaled returns the fresh tensor a + s*b (an axpy). a and b must have the same
// shape (no broadcasting; ErrShapeMismatch otherwise); the result is complex if
// either is.
func AddScaled(a *Dense, s float64, b *Dense) (*Dense, error) {
	if a == nil || b == nil {
		return nil, errNil()
	}
	if !slices.Equal(a.shape, b.shape) {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "add scaled: shapes %v and %v differ", a.shape, b.shape)
	}
	dt := ResultDType(a.dtype, b.dtype)
	out := New(dt, a.shape...)
	switch dt {
	case Float64:
		axpyInto(out.f64s(), a.Float64s(), s, b.Float64s())
	case Complex128:
		axpyInto(out.c128s(), a.to(dt).Complex128s(), complex(s, 0), b.to(dt).Complex128s())
	case Float32:
		axpyInto(out.f32s(), a.Float32s(), float32(s), b.Float32s())
	case Complex64:
		axpyInto(out.c64s(), a.to(dt).Complex64s(), complex(float32(s), 0), b.to(dt).Complex64s())
	}
	return out, nil
}

// axpyInto sets dst[i] = x[i] + s*y[i].
func axpyInto[T element](dst, x []T, s T, y []T) {
	x, y = x[:len(dst)], y[:len(dst)]
	for i := range dst {
		dst[i] = x[i] + s*y[i]
	}
}

// Sum returns sum_i t_i over all elements of t (0 for an empty tensor), as a
// complex128 whatever t's dtype. The elements of a single-precision tensor are
// summed in double precision along each contiguous run (see sumWide) and the run
// sums rounded to single precision once each.
func Sum(t *Dense) complex128 {
	if t.Size() == 0 {
		return 0
	}
	switch t.dtype {
	case Complex128:
		return sumView(t.c128s(), t.shape, t.strides, t.offset)
	case Float32:
		return complex(float64(sumView(t.f32s(), t.shape, t.strides, t.offset)), 0)
	case Complex64:
		return complex128(sumView(t.c64s(), t.shape, t.strides, t.offset))
	}
	return complex(sumView(t.f64s(), t.shape, t.strides, t.offset), 0)
}

// SumFloat64 returns sum_i t_i over all elements of a float64 tensor as a float64 (0
// for an empty tensor); for a complex128 tensor, the real part of Sum(t).
func SumFloat64(t *Dense) float64 {
	if t.Size() == 0 {
		return 0
	}
	if t.dtype != Float64 {
		return real(Sum(t))
	}
	return sumView(t.f64s(), t.shape, t.strides, t.offset)
}

// sumView returns the sum of the elements of the strided view (shape, strides,
// offset) of data.
func sumView[T element](data []T, shape, strides []int, offset int) T {
	var s T
	w := newWalker(shape, [maxOperands]int{offset}, strides)
	for w.next() {
		s += sumStrided(data, w.off[0], w.n, w.inner[0])
	}
	return s
}

// Dot returns the inner product sum_i conj(a_i) b_i of two tensors of the same shape
// (ErrShapeMismatch otherwise). Mixed dtypes are allowed; conj is the identity on
// float64.
func Dot(a, b *Dense) (complex128, error) {
	if a == nil || b == nil {
		return 0, errNil()
	}
	if !slices.Equal(a.shape, b.shape) {
		return 0, cr.Errorf(cr.ErrShapeMismatch, "dot: shapes %v and %v differ", a.shape, b.shape)
	}
	if a.Size() == 0 {
		return 0, nil
	}
	if a.dtype == Float64 && b.dtype == Float64 {
		w := newWalker(a.shape, [maxOperands]int{a.offset, b.offset}, a.strides, b.strides)
		var s float64
		for w.next() {
			s = addDotRun(s, a.f64s(), b.f64s(), &w)
		}
		return complex(s, 0), nil
	}
	x, y := a.to(Complex128), b.to(Complex128)
	xs, ys := x.c128s(), y.c128s()
	w := newWalker(a.shape, [maxOperands]int{x.offset, y.offset}, x.strides, y.strides)
	var s complex128
	for w.next() {
		i, j, si, sj := w.off[0], w.off[1], w.inner[0], w.inner[1]
		for range w.n {
			u, v := xs[i], ys[j]
			s += complex(real(u)*real(v)+imag(u)*imag(v), real(u)*imag(v)-imag(u)*real(v))
			i += si
			j += sj
		}
	}
	return s, nil
}

// EqualApprox reports whether a and b have the same shape and, elementwise,
//
//	|a_i - b_i| <= atol + rtol * max(|a_i|, |b_i|)
//
// (equal infinities count as equal; a NaN never does). Dtypes may differ: elements
// are compared in double precision, a real element as complex(x, 0).
func EqualApprox(a, b *Dense, atol, rtol float64) bool {
	if a == nil || b == nil || !slices.Equal(a.shape, b.shape) {
		return false
	}
	if !a.dtype.IsComplex() && !b.dtype.IsComplex() {
		x, y := a.to(Float64).Float64s(), b.to(Float64).Float64s()
		y = y[:len(x)]
		for i, u := range x {
			v := y[i]
			if u == v {
				continue
			}
			if !(math.Abs(u-v) <= atol+rtol*max(math.Abs(u), math.Abs(v))) {
				return false
			}
		}
		return true
	}
	x, y := a.to(Complex128).Complex128s(), b.to(Complex128).Complex128s()
	y = y[:len(x)]
	for i, u := range x {
		v := y[i]
		if u == v {
			continue
		}
		if !(cmplx.Abs(u-v) <= atol+rtol*max(cmplx.Abs(u), cmplx.Abs(v))) {
			return false
		}
	}
	return true
}

// MaxDiff returns the element where |a_i - b_i| is largest (the first such, with a
// NaN difference counting as largest): its index and the two values. It is meant for
// failure messages. For empty tensors it returns a nil index. It returns an error
// wrapping ErrShapeMismatch if the shapes differ.
func MaxDiff(a, b *Dense) (index []int, av, bv complex128, err error) {
	if a == nil || b == nil {
		return nil, 0, 0, errNil()
	}
	if !slices.Equal(a.shape, b.shape) {
		return nil, 0, 0, cr.Errorf(cr.ErrShapeMismatch, "max diff: shapes %v and %v differ", a.shape, b.shape)
	}
	x, y := a.to(Complex128).Complex128s(), b.to(Complex128).Complex128s()
	if len(x) == 0 {
		return nil, 0, 0, nil
	}
	best, worst := 0, -1.0
	for i, u := range x {
		v := y[i]
		var d float64
		if u != v {
			d = cmplx.Abs(u - v)
			if math.IsNaN(d) {
				d = math.Inf(1)
			}
		}
		if d > worst {
			best, worst = i, d
		}
	}
	index = make([]int, len(a.shape))
	rem := best
	for k := len(a.shape) - 1; k >= 0; k-- {
		index[k] = rem % a.shape[k]
		rem /= a.shape[k]
	}
	return index, x[best], y[best], nil
}
