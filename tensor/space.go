package tensor

import (
	"math"
	"math/rand/v2"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/internal/vmath"
)

// Space is the chainrules.Space of *Dense: tangents and cotangents of a tensor are
// tensors of the same shape and dtype, with the real inner product
//
//	<a, b> = Re sum_i conj(a_i) b_i.
//
// Add, Accumulate and Inner require equal shapes and equal dtypes and return an error
// wrapping chainrules.ErrShapeMismatch otherwise: a cotangent of the wrong dtype is a
// bug in a rule, and promoting silently would hide it. The zero Space is ready to use.
type Space struct{}

var _ cr.Space[*Dense] = Space{}

// Zero returns a fresh zero tensor with like's shape and dtype.
func (Space) Zero(like *Dense) *Dense { return New(like.dtype, like.shape...) }

// One returns a fresh tensor of ones with like's shape and dtype. like must have
// exactly one element (a scalar, or any shape of size 1 such as [1 1]); otherwise it
// returns an error wrapping chainrules.ErrNonScalarLoss, since One is the seed of a
// backward pass.
func (Space) One(like *Dense) (*Dense, error) {
	if like == nil {
		return nil, errNil()
	}
	if like.Size() != 1 {
		return nil, cr.Errorf(cr.ErrNonScalarLoss, "cannot seed %s with one", like.Describe())
	}
	return Ones(like.dtype, like.shape...), nil
}

// sameLayout returns an ErrShapeMismatch error unless a and b have equal shapes and
// dtypes.
func sameLayout(what string, a, b *Dense) error {
	if a == nil || b == nil {
		return errNil()
	}
	if a.dtype != b.dtype || !slices.Equal(a.shape, b.shape) {
		return cr.Errorf(cr.ErrShapeMismatch, "%s: %s and %s", what, a.Describe(), b.Describe())
	}
	return nil
}

// Add returns the fresh tensor a + b. a and b must have the same shape and dtype.
func (Space) Add(a, b *Dense) (*Dense, error) {
	if err := sameLayout("add", a, b); err != nil {
		return nil, err
	}
	return binary(opAdd, a, b)
}

// Accumulate returns acc + b. When acc owns its storage exactly (contiguous, offset
// 0, backing slice of length Size, no broadcast axes) and b's elements are acc's own
// in the same places or lie apart from acc's in memory, it adds b into acc in place
// and returns acc; otherwise (b a shifted or transposed view of acc's storage, say)
// it returns a fresh tensor and leaves acc alone. b is never modified. acc and b
// must have the same shape and dtype.
func (Space) Accumulate(acc, b *Dense) (*Dense, error) {
	if err := sameLayout("accumulate", acc, b); err != nil {
		return nil, err
	}
	if !acc.ownsStorage() || (mayOverlap(acc, b) && !sameElements(acc, b)) {
		return binary(opAdd, acc, b)
	}
	n := acc.Size()
	if n == 0 {
		return acc, nil
	}
	switch acc.dtype {
	case Complex128:
		accumulate(acc.c128s(), b.c128s(), b.shape, b.strides, b.offset)
	case Float32:
		accumulate(acc.f32s(), b.f32s(), b.shape, b.strides, b.offset)
	case Complex64:
		accumulate(acc.c64s(), b.c64s(), b.shape, b.strides, b.offset)
	default:
		accumulate(acc.f64s(), b.f64s(), b.shape, b.strides, b.offset)
	}
	return acc, nil
}

// accumulate adds the strided view (shape, strides, offset) of src into the
// contiguous dst.
func accumulate[T element](dst, src []T, shape, strides []int, offset int) {
	w := newWalker(shape, [maxOperands]int{0, offset}, rowMajorStrides(shape), strides)
	for w.next() {
		o, a, sa := w.off[0], w.off[1], w.inner[1]
		d := dst[o : o+w.n]
		if sa == 1 {
			s := src[a : a+w.n]
			if df, ok := any(d).([]float64); ok && len(df) >= vecMin {
				vmath.Add(df, df, any(s).([]float64)) // vectorised
				continue
			}
			for i := range d {
				d[i] += s[i]
			}
			continue
		}
		for i := range d {
			d[i] += src[a]
			a += sa
		}
	}
}

// Scale returns the fresh tensor s * a.
func (Space) Scale(a *Dense, s float64) *Dense { return Scale(a, s) }

// Inner returns Re sum_i conj(a_i) b_i. a and b must have the same shape and dtype.
// Single-precision tensors are multiplied and summed in double precision.
func (Space) Inner(a, b *Dense) (float64, error) {
	if err := sameLayout("inner", a, b); err != nil {
		return 0, err
	}
	if a.dtype.IsSingle() {
		wide := Float64
		if a.dtype.IsComplex() {
			wide = Complex128
		}
		a, b = a.to(wide), b.to(wide)
	}
	if a.dtype == Float64 {
		d, err := Dot(a, b)
		return real(d), err
	}
	// Re conj(u) v = Re u Re v + Im u Im v: the imaginary part is never needed.
	var s float64
	w := newWalker(a.shape, [maxOperands]int{a.offset, b.offset}, a.strides, b.strides)
	for w.next() {
		s = addRealInnerRun(s, a.c128s(), b.c128s(), &w)
	}
	return s, nil
}

// addRealInnerRun returns s + Re sum_k conj(x_{i + k si}) y_{j + k sj} over the
// current run of w, whose operands 0 and 1 are x and y: through realInnerContig when
// both are contiguous, and otherwise adding the terms to s one by one.
func addRealInnerRun(s float64, x, y []complex128, w *walker) float64 {
	i, j, si, sj := w.off[0], w.off[1], w.inner[0], w.inner[1]
	if si == 1 && sj == 1 {
		return s + realInnerContig(x[i:i+w.n], y[j:j+w.n])
	}
	for range w.n {
		u, v := x[i], y[j]
		s += real(u)*real(v) + imag(u)*imag(v)
		i += si
		j += sj
	}
	return s
}

// realInnerContig returns Re sum_i conj(x_i) y_i for slices of equal length, with
// independent accumulators for the real and imaginary products.
func realInnerContig(x, y []complex128) float64 {
	y = y[:len(x)]
	var s0, s1 float64
	for i, u := range x {
		v := y[i]
		s0 += real(u) * real(v)
		s1 += imag(u) * imag(v)
	}
	return s0 + s1
}

// Widen returns v in double precision: a fresh float64 (complex128) tensor holding
// the elements of a float32 (complex64) v exactly, and v itself when it already is
// float64 or complex128. It is testing/ruletest's Widener, through which the rules
// of single-precision ops are checked against their double-precision twins. A nil
// v is an error wrapping chainrules.ErrInvalidArgument.
func (Space) Widen(v *Dense) (*Dense, error) {
	if v == nil {
		return nil, errNil()
	}
	switch v.dtype {
	case Float32:
		return AsType(v, Float64)
	case Complex64:
		return AsType(v, Complex128)
	}
	return v, nil
}

// Clone returns a fresh contiguous copy of v.
func (Space) Clone(v *Dense) *Dense { return v.Clone() }

// Rand returns RandN(rng, like's dtype, like's shape): standard normal entries, with
// real and imaginary parts each N(0, 1/2) for complex128.
func (Space) Rand(like *Dense, rng *rand.Rand) *Dense {
	return RandN(rng, like.dtype, like.shape...)
}

// Shape returns v's shape (empty for a scalar); the slice must not be modified.
func (Space) Shape(v *Dense) []int { return v.Shape() }

// Size returns the number of elements of v.
func (Space) Size(v *Dense) int { return v.Size() }

// DType returns "float64", "complex128", "float32" or "complex64".
func (Space) DType(v *Dense) string { return v.dtype.String() }

// DTypeNames returns the names of the package's dtypes, "float64" and
// "complex128" (DType.String of Float64 and Complex128): the DTypes of a
// chainrules.Entry whose op supports both. Each call returns a fresh slice.
func DTypeNames() []string { return []string{Float64.String(), Complex128.String()} }

// RealDTypeNames returns the names of the real dtypes, "float64" alone: the
// DTypes of a chainrules.Entry whose op is real only. Each call returns a fresh
// slice.
func RealDTypeNames() []string { return []string{Float64.String()} }

// Describe returns v's dtype and shape, e.g. "float64[2 3]".
func (Space) Describe(v *Dense) string {
	if v == nil {
		return "<nil>"
	}
	return v.Describe()
}

// Elements returns a fresh row-major copy of v's elements as complex numbers,
// e_i = complex(x_i, 0) for a real tensor and e_i = z_i for a complex one (nil
// for a nil v). With FromElements it is the element access of
// testing/ruletest.ElementSpace, through which the rule checker names the worst
// element of a failed check, builds full Jacobians and turns real directions into
// imaginary ones.
func (Space) Elements(v *Dense) []complex128 {
	if v == nil {
		return nil
	}
	switch v.dtype {
	case Complex128:
		return slices.Clone(v.Complex128s())
	case Float32, Complex64:
		return v.convert(Complex128).c128s()
	}
	xs := v.Float64s()
	out := make([]complex128, len(xs))
	for i, x := range xs {
		out[i] = complex(x, 0)
	}
	return out
}

// FromElements returns a fresh contiguous tensor with like's shape and dtype holding
// e in row-major order: x_i = Re e_i for a real dtype (imaginary parts are
// dropped), z_i = e_i for a complex one, rounded to single precision for float32 and
// complex64. It returns an error wrapping
// chainrules.ErrShapeMismatch unless len(e) is like's size, and one wrapping
// chainrules.ErrInvalidArgument for a nil like.
func (Space) FromElements(like *Dense, e []complex128) (*Dense, error) {
	if like == nil {
		return nil, errNil()
	}
	if len(e) != like.Size() {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "%d elements for %s", len(e), like.Describe())
	}
	out, err := Alloc(like.dtype, like.shape...)
	if err != nil {
		return nil, err
	}
	switch like.dtype {
	case Complex128:
		copy(out.c128s(), e)
	case Float64:
		dst := out.f64s()
		for i, z := range e {
			dst[i] = real(z)
		}
	default:
		for i, z := range e {
			out.set(i, z)
		}
	}
	return out, nil
}

// MulI returns the fresh complex tensor i*v (a real v is promoted to the complex
// dtype of its precision).
func (Space) MulI(v *Dense) *Dense {
	if v.dtype.IsSingle() {
		out := New(Complex64, v.shape...)
		dst := out.c64s()
		for k, z := range v.to(Complex64).Complex64s() {
			dst[k] = complex(-imag(z), real(z))
		}
		return out
	}
	out := New(Complex128, v.shape...)
	if v.dtype == Float64 {
		dst := out.c128s()
		for k, x := range v.Float64s() {
			dst[k] = complex(0, x)
		}
		return out
	}
	dst := out.c128s()
	for k, z := range v.Complex128s() {
		dst[k] = complex(-imag(z), real(z))
	}
	return out
}

// IsFinite reports whether every element of v is finite (for complex128, both the
// real and the imaginary part). It is what core's anomaly mode calls.
func (Space) IsFinite(v *Dense) bool {
	switch v.dtype {
	case Float32:
		v = v.convert(Float64)
	case Complex64:
		v = v.convert(Complex128)
	}
	if v.dtype == Complex128 {
		for _, z := range v.Complex128s() {
			if math.IsNaN(real(z)) || math.IsInf(real(z), 0) || math.IsNaN(imag(z)) || math.IsInf(imag(z), 0) {
				return false
			}
		}
		return true
	}
	for _, x := range v.Float64s() {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// SameLayout reports whether a and b have the same dtype and shape (strides may
// differ). It is chainrules.LayoutSpace, which the engine uses to check cotangents.
func (Space) SameLayout(a, b *Dense) bool {
	return a != nil && b != nil && a.dtype == b.dtype && slices.Equal(a.shape, b.shape)
}
