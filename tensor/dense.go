package tensor

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"unsafe"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/internal/vmath"
)

// DType is the element type of a tensor.
type DType uint8

// The element types a Dense can hold.
const (
	// Float64 tensors hold float64 elements.
	Float64 DType = 1
	// Complex128 tensors hold complex128 elements.
	Complex128 DType = 2
	// Float32 tensors hold float32 elements.
	Float32 DType = 3
	// Complex64 tensors hold complex64 elements (two float32 parts).
	Complex64 DType = 4
)

// AllDTypes returns the valid dtypes, in the order of their values: Float64,
// Complex128, Float32, Complex64 (a fresh slice).
func AllDTypes() []DType { return []DType{Float64, Complex128, Float32, Complex64} }

// String returns "float64", "complex128", "float32" or "complex64" (or "DType(n)"
// for an invalid value).
func (d DType) String() string {
	switch d {
	case Float64:
		return "float64"
	case Complex128:
		return "complex128"
	case Float32:
		return "float32"
	case Complex64:
		return "complex64"
	}
	return "DType(" + strconv.Itoa(int(d)) + ")"
}

// Valid reports whether d is one of the four dtypes a Dense can hold.
func (d DType) Valid() bool { return d >= Float64 && d <= Complex64 }

// IsComplex reports whether d is Complex128 or Complex64.
func (d DType) IsComplex() bool { return d == Complex128 || d == Complex64 }

// IsSingle reports whether d is a single-precision dtype, Float32 or Complex64.
func (d DType) IsSingle() bool { return d == Float32 || d == Complex64 }

// Complex returns the complex dtype of d's precision: Complex128 for Float64 and
// Complex128, Complex64 for Float32 and Complex64 (and d itself if d is invalid).
func (d DType) Complex() DType {
	switch d {
	case Float64:
		return Complex128
	case Float32:
		return Complex64
	}
	return d
}

// RealType returns the real dtype of d's precision: Float64 for Float64 and
// Complex128, Float32 for Float32 and Complex64 (and d itself if d is invalid).
func (d DType) RealType() DType {
	switch d {
	case Complex128:
		return Float64
	case Complex64:
		return Float32
	}
	return d
}

// PromoteTypes returns the dtype of an arithmetic result on tensors of dtypes a and
// b, by PyTorch's promotion table (torch.promote_types): the result is complex if
// either is complex, and double precision if either is:
//
//	           float32    float64     complex64   complex128
//	float32    float32    float64     complex64   complex128
//	float64    float64    float64     complex128  complex128
//	complex64  complex64  complex128  complex64   complex128
//	complex128 complex128 complex128  complex128  complex128
//
// It returns the zero DType if a or b is not a valid dtype. (Python scalars do not
// promote a tensor in PyTorch; this package's scalar parameters never do either.)
func PromoteTypes(a, b DType) DType {
	if !a.Valid() || !b.Valid() {
		return 0
	}
	cplx := a.IsComplex() || b.IsComplex()
	single := a.IsSingle() && b.IsSingle()
	switch {
	case cplx && single:
		return Complex64
	case cplx:
		return Complex128
	case single:
		return Float32
	}
	return Float64
}

// ResultDType returns the dtype of an arithmetic result on operands of dtypes ds,
// PromoteTypes folded over ds: Complex128 if any of them is complex128 (or if one is
// complex64 and another float64), and so on; Float64 for no operands. It returns the
// zero DType (which Alloc refuses) if one of ds is invalid.
func ResultDType(ds ...DType) DType {
	if len(ds) == 0 {
		return Float64
	}
	r := ds[0]
	if !r.Valid() {
		return 0
	}
	for _, d := range ds[1:] {
		r = PromoteTypes(r, d)
	}
	return r
}

// Dense is a dense N-dimensional array of float64, complex128, float32 or complex64
// elements: a strided
// view of a backing slice. Element (i_0, ..., i_{n-1}) lives at index
//
//	offset + sum_k i_k * strides[k]
//
// of the backing slice. Strides are in elements and never negative; a stride of 0
// repeats an element along a broadcast axis. The backing slice is a []float64,
// []complex128, []float32 or []complex64 as dtype says.
//
// Several Dense values may share storage (views). Functions documented as returning
// fresh results never return storage that aliases their inputs. The zero Dense is
// not a valid tensor; make tensors with New, FromFloat64, FromComplex128, Scalar and
// the other constructors.
type Dense struct {
	dtype   DType
	shape   []int
	strides []int
	offset  int
	// data is the backing slice, of dtype's element type; read it through f64s,
	// c128s, f32s, c64s or storage, and set it with setData.
	data rawSlice
	// lay holds the shape and strides of a new tensor of rank 2 or less (most of
	// them), so that they cost no allocation of their own (setContiguous).
	lay [4]int
}

// rawSlice is a slice header without an element type: the backing slice of a Dense,
// which is a []float64, []complex128, []float32 or []complex64 as the Dense's dtype
// says. Its fields are those of the runtime's slice header, in its order, so a
// *rawSlice converts to a *[]T (unsafe.Pointer rule 1: same size and layout), and
// reading it as a typed slice costs what reading a slice field does. ptr always comes
// from a Go slice (of the element type through setData; of words of the size of its
// real parts in LoadNPY), so it points into that slice's allocation and the garbage
// collector keeps it alive: Go never makes a slice whose data pointer is one past
// the end of its array, even when its capacity is 0.
//
// One header for the four element types keeps a Dense at 120 bytes, allocated in
// the runtime's 128-byte size class (with four typed slices it was 192), which
// matters when a recorded graph holds a value per node.
type rawSlice struct {
	ptr      unsafe.Pointer // the first element
	len, cap int            // in elements
}

// rawOf returns the header of s.
func rawOf[T Numeric](s []T) rawSlice {
	return rawSlice{ptr: unsafe.Pointer(unsafe.SliceData(s)), len: len(s), cap: cap(s)}
}

// setData makes s the backing slice of t, and T's dtype t's dtype.
func setData[T Numeric](t *Dense, s []T) {
	t.dtype, t.data = dtypeOf[T](), rawOf(s)
}

// f64s returns the backing slice of a float64 tensor, and nil for another dtype (so
// that a wrong read fails as indexing a nil slice, never as a read of memory the
// slice does not hold).
func (t *Dense) f64s() []float64 {
	if t.dtype != Float64 {
		return nil
	}
	return dataOf[float64](t)
}

// c128s is f64s for a complex128 tensor.
func (t *Dense) c128s() []complex128 {
	if t.dtype != Complex128 {
		return nil
	}
	return dataOf[complex128](t)
}

// f32s is f64s for a float32 tensor.
func (t *Dense) f32s() []float32 {
	if t.dtype != Float32 {
		return nil
	}
	return dataOf[float32](t)
}

// c64s is f64s for a complex64 tensor.
func (t *Dense) c64s() []complex64 {
	if t.dtype != Complex64 {
		return nil
	}
	return dataOf[complex64](t)
}

// dataOf returns t's backing slice as a []T without checking that T is the element
// type of t's dtype: for the callers that have just switched on the dtype and must
// stay small enough to inline (Float64s, at, set); the others use f64s, c128s, f32s,
// c64s or storage.
func dataOf[T Numeric](t *Dense) []T { return *(*[]T)(unsafe.Pointer(&t.data)) }

// setContiguous sets t's shape to a copy of shape, with row-major strides: in t.lay
// when they fit, else in an allocation of their own. t is a tensor being made.
func (t *Dense) setContiguous(shape []int) {
	r := len(shape)
	if 2*r > len(t.lay) {
		t.shape, t.strides = contiguousLayout(shape)
		return
	}
	t.shape, t.strides = t.lay[:r:r], t.lay[r:2*r:2*r]
	copy(t.shape, shape)
	fillRowMajor(t.strides, t.shape)
}

// rowMajorStrides returns the contiguous row-major strides of shape.
func rowMajorStrides(shape []int) []int {
	st := make([]int, len(shape))
	fillRowMajor(st, shape)
	return st
}

// fillRowMajor writes the row-major strides of shape into st.
func fillRowMajor(st, shape []int) {
	s := 1
	for k := len(shape) - 1; k >= 0; k-- {
		st[k] = s
		s *= max(shape[k], 1)
	}
}

// contiguousLayout returns a copy of shape and its row-major strides, carved out of
// one allocation (tensors are made often; the pair is never appended to, and Shape
// and Strides clip the capacities they hand out).
func contiguousLayout(shape []int) (sh, st []int) {
	sh, st = copyLayout(shape, nil)
	fillRowMajor(st, sh)
	return sh, st
}

// copyLayout returns copies of shape and strides in one allocation (zero strides
// for nil strides).
func copyLayout(shape, strides []int) (sh, st []int) {
	r := len(shape)
	buf := make([]int, 2*r)
	sh, st = buf[:r:r], buf[r:]
	copy(sh, shape)
	copy(st, strides)
	return sh, st
}

// RowMajorStrides returns the strides, in elements, of a contiguous row-major tensor
// of the given shape: strides[k] = prod_{j>k} shape[j] (dims of size 0 count as 1 so
// that the strides stay valid).
func RowMajorStrides(shape ...int) []int { return rowMajorStrides(shape) }

// prod returns the number of elements of shape (1 for the empty shape). Every shape
// a Dense holds passed ShapeSize, so the product cannot overflow.
func prod(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// checkDims returns an ErrInvalidArgument error if a dim is negative.
func checkDims(shape []int) error {
	for _, d := range shape {
		if d < 0 {
			return cr.Errorf(cr.ErrInvalidArgument, "negative dimension in shape %v", shape)
		}
	}
	return nil
}

// MulSize returns a*b for sizes a, b >= 0, and false if the product overflows int.
// It is the one checked product of sizes: ShapeSize and every size computation of
// the project that multiplies dims (einsum's label sizes, a point's dimension) use it.
func MulSize(a, b int) (int, bool) {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > math.MaxInt {
		return 0, false
	}
	return int(lo), true
}

// ShapeSize returns the number of elements of a tensor of the given shape, the
// product of its dims (1 for the empty shape). It returns an error wrapping
// chainrules.ErrInvalidArgument if a dim is negative or if the product of the
// non-zero dims overflows int: such a shape has no valid strides even when a zero dim
// makes it empty, so no tensor has it. Every constructor and view of this package
// checks its shape with it, so a Dense never has a size that wrapped around.
func ShapeSize(shape ...int) (int, error) {
	if err := checkDims(shape); err != nil {
		return 0, err
	}
	n, zero := 1, false
	for _, d := range shape {
		if d == 0 {
			zero = true
			continue
		}
		var ok bool
		if n, ok = MulSize(n, d); !ok {
			return 0, cr.Errorf(cr.ErrInvalidArgument, "shape %v has more elements than an int can count", shape)
		}
	}
	if zero {
		return 0, nil
	}
	return n, nil
}

// MaxAllocBytes bounds the storage Alloc makes: Go's heap cannot address more (the
// runtime's maxAlloc on 64-bit platforms), and make panics beyond it.
const MaxAllocBytes = 1<<48 - 1

// elemSize returns the size in bytes of an element of dt, or 0 for an invalid dtype.
func elemSize(dt DType) int {
	switch dt {
	case Float64:
		return 8
	case Complex128:
		return 16
	case Float32:
		return 4
	case Complex64:
		return 8
	}
	return 0
}

// Alloc returns a zero tensor of dtype dt and the given shape, as New does, but
// reports a bad request as an error instead of panicking: an error wrapping
// chainrules.ErrInvalidArgument for a negative dim, a shape whose size overflows int
// (see ShapeSize), storage larger than the Go heap can address, or an invalid dtype
// (one not in AllDTypes). Ops that allocate a shape computed from their inputs or
// parameters use it.
func Alloc(dt DType, shape ...int) (*Dense, error) {
	return alloc(dt, shape, false)
}

// allocNoZero is Alloc for a result the caller writes whole: its elements are
// unspecified, and large ones come from the module's buffer pool (vmath.MakeNoZero).
func allocNoZero(dt DType, shape ...int) (*Dense, error) {
	return alloc(dt, shape, true)
}

// alloc makes a contiguous tensor of dtype dt and the given shape, its storage
// zeroed, or for noZero of unspecified contents (large storage of every dtype then
// comes from the module's buffer pool).
func alloc(dt DType, shape []int, noZero bool) (*Dense, error) {
	n, err := allocSize(dt, shape)
	if err != nil {
		return nil, err
	}
	t := new(Dense)
	t.setContiguous(shape)
	switch dt {
	case Float64:
		if noZero {
			setData(t, vmath.MakeNoZero[float64](n))
		} else {
			setData(t, make([]float64, n))
		}
	case Complex128:
		if noZero {
			setData(t, vmath.MakeNoZero[complex128](n))
		} else {
			setData(t, make([]complex128, n))
		}
	case Float32:
		if noZero {
			setData(t, vmath.MakeNoZero[float32](n))
		} else {
			setData(t, make([]float32, n))
		}
	case Complex64:
		if noZero {
			setData(t, vmath.MakeNoZero[complex64](n))
		} else {
			setData(t, make([]complex64, n))
		}
	}
	return t, nil
}

// CheckAlloc returns the error Alloc(dt, shape...) would return, without allocating:
// nil if the tensor can be allocated. An op whose result, or a copy it makes through
// a method that cannot fail (Clone, Contiguous, Float64s, AsComplex of a broadcast
// or strided view), may be too large checks it first, so that a huge view gives an
// error wrapping chainrules.ErrInvalidArgument, not a panic.
func CheckAlloc(dt DType, shape ...int) error {
	_, err := allocSize(dt, shape)
	return err
}

// allocSize returns the number of elements of a tensor of dtype dt and the given
// shape, or the error of Alloc.
func allocSize(dt DType, shape []int) (int, error) {
	n, err := ShapeSize(shape...)
	if err != nil {
		return 0, err
	}
	es := elemSize(dt)
	if es == 0 {
		return 0, cr.Errorf(cr.ErrInvalidArgument, "invalid dtype %v", dt)
	}
	if b, ok := MulSize(n, es); !ok || uint64(b) > MaxAllocBytes {
		return 0, cr.Errorf(cr.ErrInvalidArgument, "a %v tensor of shape %v (%d elements) is larger than memory can hold", dt, shape, n)
	}
	return n, nil
}

// cloneShape copies shape into a non-nil slice, so that scalars report an empty (not
// nil) shape and callers' variadic slices are never retained.
func cloneShape(shape []int) []int {
	s := make([]int, len(shape))
	copy(s, shape)
	return s
}

// New returns a zero tensor of dtype dt and the given shape, contiguous row-major.
// With no dims it returns a 0-d scalar. Like make, it panics if a dim is negative; it
// also panics for a shape whose size overflows int, for storage larger than the Go
// heap can address and for an invalid dtype — never does it
// return a tensor of another size. Alloc reports the same conditions as errors; use
// it for shapes that come from data.
func New(dt DType, shape ...int) *Dense {
	t, err := Alloc(dt, shape...)
	if err != nil {
		panic("tensor.New: " + err.Error())
	}
	return t
}

// FromFloat64 returns a contiguous row-major float64 tensor of the given shape over
// data, taking ownership of data (it is not copied). With no dims the tensor is a
// scalar and data must hold one element. It returns an error wrapping
// ErrShapeMismatch if len(data) != prod(shape), or ErrInvalidArgument for a negative
// dim or a shape whose size overflows int.
func FromFloat64(data []float64, shape ...int) (*Dense, error) {
	return FromSlice(data, shape...)
}

// FromComplex128 is FromFloat64 for complex128 data.
func FromComplex128(data []complex128, shape ...int) (*Dense, error) {
	return FromSlice(data, shape...)
}

// FromFloat32 is FromFloat64 for float32 data: a Float32 tensor.
func FromFloat32(data []float32, shape ...int) (*Dense, error) {
	return FromSlice(data, shape...)
}

// FromComplex64 is FromFloat64 for complex64 data: a Complex64 tensor.
func FromComplex64(data []complex64, shape ...int) (*Dense, error) {
	return FromSlice(data, shape...)
}

// ScalarFloat32 returns the 0-d float32 tensor holding v.
func ScalarFloat32(v float32) *Dense {
	return scalarOf([]float32{v})
}

// ScalarComplex64 returns the 0-d complex64 tensor holding v.
func ScalarComplex64(v complex64) *Dense {
	return scalarOf([]complex64{v})
}

// ScalarOf returns the 0-d tensor of dtype dt holding v, a Number, rounded to dt (a
// real dtype keeps real(v)). An invalid dtype is an error wrapping
// chainrules.ErrInvalidArgument.
func ScalarOf[S Number](dt DType, v S) (*Dense, error) {
	t, err := Alloc(dt)
	if err != nil {
		return nil, err
	}
	t.Set(Complex128Of(v))
	return t, nil
}

// Scalar returns the 0-d float64 tensor holding v.
func Scalar(v float64) *Dense {
	return scalarOf([]float64{v})
}

// ScalarComplex returns the 0-d complex128 tensor holding v.
func ScalarComplex(v complex128) *Dense {
	return scalarOf([]complex128{v})
}

// scalarOf returns the 0-d tensor over the one-element slice s.
func scalarOf[T Numeric](s []T) *Dense {
	// A literal, not setData: a tensor that does not escape keeps s on the stack.
	return &Dense{dtype: dtypeOf[T](), shape: []int{}, strides: []int{}, data: rawOf(s)}
}

// view returns a header sharing t's storage with the given layout.
func (t *Dense) view(shape, strides []int, offset int) *Dense {
	if prod(shape) == 0 {
		// An empty view reads nothing; a zero offset keeps every slicing of the
		// storage in range.
		offset = 0
	}
	return &Dense{dtype: t.dtype, shape: shape, strides: strides, offset: offset, data: t.data}
}

// DType returns the element type of t (the zero DType, which is not a valid dtype,
// for a nil *Dense).
func (t *Dense) DType() DType {
	if t == nil {
		return 0
	}
	return t.dtype
}

// Shape returns the dims of t (empty, not nil, for a scalar). The slice is t's own:
// callers must not modify it. Its capacity is clipped, so appending to it copies.
// A nil *Dense has the nil shape, so that printing the shape of a value read after
// an error (core.Tape.Value returns nil and the tape's error) does not panic before
// the error is seen.
func (t *Dense) Shape() []int {
	if t == nil {
		return nil
	}
	return t.shape[:len(t.shape):len(t.shape)]
}

// Strides returns the strides of t in elements. Like Shape, the slice is t's own and
// must not be modified.
func (t *Dense) Strides() []int { return t.strides[:len(t.strides):len(t.strides)] }

// Offset returns the index of element (0, ..., 0) in the backing slice.
func (t *Dense) Offset() int { return t.offset }

// Rank returns the number of dims of t (0 for a scalar, and for a nil *Dense).
func (t *Dense) Rank() int {
	if t == nil {
		return 0
	}
	return len(t.shape)
}

// Size returns the number of elements of t, prod(shape) (1 for a scalar, 0 for a
// nil *Dense).
func (t *Dense) Size() int {
	if t == nil {
		return 0
	}
	return prod(t.shape)
}

// storageLen returns the length of the backing slice.
func (t *Dense) storageLen() int { return t.data.len }

// IsContiguous reports whether the elements of t lie in row-major order at
// consecutive positions of the backing slice, starting at Offset. Dims of size 1 may
// have any stride; empty tensors are contiguous.
func (t *Dense) IsContiguous() bool {
	s := 1
	for k := len(t.shape) - 1; k >= 0; k-- {
		d := t.shape[k]
		if d == 0 {
			return true
		}
		if d != 1 && t.strides[k] != s {
			return false
		}
		s *= d
	}
	return true
}

// hasCanonicalStrides reports whether t's strides are exactly the row-major strides
// of its shape.
func (t *Dense) hasCanonicalStrides() bool {
	s := 1
	for k := len(t.shape) - 1; k >= 0; k-- {
		if t.strides[k] != s {
			return false
		}
		s *= max(t.shape[k], 1)
	}
	return true
}

// ownsStorage reports whether t is contiguous, starts at the beginning of its
// backing slice and uses all of it: then writing through t's elements touches
// nothing that t does not show. (It cannot tell whether another view shares the
// slice.)
func (t *Dense) ownsStorage() bool {
	if t.offset != 0 || t.storageLen() != t.Size() || !t.IsContiguous() {
		return false
	}
	for k, d := range t.shape {
		if d > 1 && t.strides[k] == 0 {
			return false
		}
	}
	return true
}

// Float64s returns the elements of a float64 tensor in row-major order. If t is
// contiguous the result aliases t's storage (writes through it change t); otherwise
// it is a fresh copy. It returns nil for a tensor of another dtype (see AsType).
func (t *Dense) Float64s() []float64 {
	if t.dtype != Float64 {
		return nil
	}
	return rowMajor[float64](t)
}

// Complex128s returns the elements of a complex128 tensor in row-major order,
// aliasing t's storage if t is contiguous and copying otherwise. It returns nil for a
// float64 tensor (use AsComplex first).
func (t *Dense) Complex128s() []complex128 {
	if t.dtype != Complex128 {
		return nil
	}
	return rowMajor[complex128](t)
}

// Float32s is Float64s for a float32 tensor: its elements in row-major order,
// aliasing t's storage if t is contiguous; nil for a tensor of another dtype.
func (t *Dense) Float32s() []float32 {
	if t.dtype != Float32 {
		return nil
	}
	return rowMajor[float32](t)
}

// Complex64s is Complex128s for a complex64 tensor: its elements in row-major
// order, aliasing t's storage if t is contiguous; nil for a tensor of another dtype.
func (t *Dense) Complex64s() []complex64 {
	if t.dtype != Complex64 {
		return nil
	}
	return rowMajor[complex64](t)
}

// rowMajor returns the elements of t, whose elements have type T, in row-major
// order: a slice of t's backing slice (capacity clipped) if t is contiguous, a fresh
// copy otherwise, and an empty, non-nil slice for an empty t.
func rowMajor[T element](t *Dense) []T {
	data := dataOf[T](t)
	n := t.Size()
	if n == 0 {
		return []T{}
	}
	if t.IsContiguous() {
		return data[t.offset : t.offset+n : t.offset+n]
	}
	dst := make([]T, n)
	gather(dst, data, t.shape, t.strides, t.offset)
	return dst
}

// index returns the storage index of the element at idx. Like slice indexing it
// panics on a wrong number of indices or an index out of range: those are
// programming errors.
func (t *Dense) index(idx []int) int {
	if len(idx) != len(t.shape) {
		panic(fmt.Sprintf("tensor: %d indices for a tensor of rank %d", len(idx), len(t.shape)))
	}
	p := t.offset
	for k, i := range idx {
		if i < 0 || i >= t.shape[k] {
			panic(fmt.Sprintf("tensor: index %v out of range for shape %v", idx, t.shape))
		}
		p += i * t.strides[k]
	}
	return p
}

// At returns the element at idx as a complex128 (a float64 element has imaginary part
// 0). It panics, like slice indexing, if len(idx) != Rank() or an index is out of
// range.
func (t *Dense) At(idx ...int) complex128 {
	return t.at(t.index(idx))
}

// at returns the element at storage index p as a complex128.
func (t *Dense) at(p int) complex128 {
	switch t.dtype {
	case Complex128:
		return dataOf[complex128](t)[p]
	case Float32:
		return complex(float64(dataOf[float32](t)[p]), 0)
	case Complex64:
		return complex128(dataOf[complex64](t)[p])
	}
	return complex(dataOf[float64](t)[p], 0)
}

// AtFloat64 returns the real part of the element at idx. It panics like At.
func (t *Dense) AtFloat64(idx ...int) float64 {
	p := t.index(idx)
	if t.dtype == Float64 {
		return t.f64s()[p]
	}
	return real(t.at(p))
}

// Set stores v at idx; a real tensor stores real(v), a single-precision one v
// rounded to float32 parts. Through a view, Set writes
// the shared storage (and through a broadcast view, every position that shows the
// element). It panics like At.
func (t *Dense) Set(v complex128, idx ...int) {
	t.set(t.index(idx), v)
}

// set stores v at storage index p, converted to t's dtype.
func (t *Dense) set(p int, v complex128) {
	switch t.dtype {
	case Complex128:
		dataOf[complex128](t)[p] = v
	case Float32:
		dataOf[float32](t)[p] = float32(real(v))
	case Complex64:
		dataOf[complex64](t)[p] = complex64(v)
	default:
		dataOf[float64](t)[p] = real(v)
	}
}

// SetFloat64 stores the real number v at idx (complex(v, 0) in a complex128 tensor),
// like Set without the conversion. It panics like At.
func (t *Dense) SetFloat64(v float64, idx ...int) {
	p := t.index(idx)
	if t.dtype == Float64 {
		t.f64s()[p] = v
		return
	}
	t.set(p, complex(v, 0))
}

// Contiguous returns a contiguous row-major tensor equal to t. If t is already
// contiguous, starts at offset 0 and uses its whole backing slice, the result shares
// t's storage: it is t itself when t's strides are the canonical row-major ones, and
// otherwise a header over the same storage with canonical strides (t's strides can
// differ only on dims of size 1). In every other case it is a fresh copy.
func (t *Dense) Contiguous() *Dense {
	if t.offset == 0 && t.storageLen() == t.Size() && t.IsContiguous() {
		if t.hasCanonicalStrides() {
			return t
		}
		sh, st := contiguousLayout(t.shape)
		return t.view(sh, st, 0)
	}
	return t.Clone()
}

// Clone returns a fresh contiguous row-major copy of t. Like New, it panics if the
// copy is larger than memory can hold (a broadcast view can have any number of
// elements): check CheckAlloc(t.DType(), t.Shape()...) first where that can happen.
func (t *Dense) Clone() *Dense {
	out, err := allocNoZero(t.dtype, t.shape...) // gather writes every element
	if err != nil {
		panic("tensor.Clone: " + err.Error())
	}
	gatherInto(out, t)
	return out
}

// gatherInto copies the elements of the view src in row-major order into the
// contiguous storage of dst, from dst's offset; both have src's dtype.
func gatherInto(dst, src *Dense) {
	n, o := src.Size(), dst.offset
	switch src.dtype {
	case Complex128:
		gather(dst.c128s()[o:o+n], src.c128s(), src.shape, src.strides, src.offset)
	case Float32:
		gather(dst.f32s()[o:o+n], src.f32s(), src.shape, src.strides, src.offset)
	case Complex64:
		gather(dst.c64s()[o:o+n], src.c64s(), src.shape, src.strides, src.offset)
	default:
		gather(dst.f64s()[o:o+n], src.f64s(), src.shape, src.strides, src.offset)
	}
}

// checkAxis returns an ErrInvalidArgument error unless 0 <= axis < rank.
func checkAxis(axis, rank int) error {
	if axis < 0 || axis >= rank {
		return cr.Errorf(cr.ErrInvalidArgument, "axis %d out of range for rank %d", axis, rank)
	}
	return nil
}

// Permute returns the view of t whose axis k is t's axis axes[k]: the result has
// shape[k] = t.shape[axes[k]], and element idx of the result is element idx' of t
// with idx'[axes[k]] = idx[k]. It returns an error wrapping ErrInvalidArgument if
// axes is not a permutation of 0, ..., Rank()-1.
func (t *Dense) Permute(axes ...int) (*Dense, error) {
	r := len(t.shape)
	if len(axes) != r {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "permutation %v has %d axes, tensor has rank %d", axes, len(axes), r)
	}
	seen := make([]bool, r)
	shape := make([]int, r)
	strides := make([]int, r)
	for k, a := range axes {
		if a < 0 || a >= r || seen[a] {
			return nil, cr.Errorf(cr.ErrInvalidArgument, "%v is not a permutation of the axes of a rank-%d tensor", axes, r)
		}
		seen[a] = true
		shape[k] = t.shape[a]
		strides[k] = t.strides[a]
	}
	return t.view(shape, strides, t.offset), nil
}

// Transpose returns the view of t with axes i and j swapped. It returns an error
// wrapping ErrInvalidArgument for an axis out of range.
func (t *Dense) Transpose(i, j int) (*Dense, error) {
	r := len(t.shape)
	if err := checkAxis(i, r); err != nil {
		return nil, err
	}
	if err := checkAxis(j, r); err != nil {
		return nil, err
	}
	shape, strides := copyLayout(t.shape, t.strides)
	shape[i], shape[j] = shape[j], shape[i]
	strides[i], strides[j] = strides[j], strides[i]
	return t.view(shape, strides, t.offset), nil
}

// InferShape returns the shape a tensor of shape from takes when reshaped to shape:
// shape itself, with its one -1 (if any) replaced by the size that makes the element
// counts equal. It returns an error wrapping ErrShapeMismatch if the counts differ,
// and ErrInvalidArgument for a dimension below -1, more than one -1, or a -1 next to
// a zero dimension (any size would fit), or a shape whose size overflows int.
func InferShape(from []int, shape ...int) ([]int, error) {
	newShape := cloneShape(shape)
	size, err := ShapeSize(from...)
	if err != nil {
		return nil, err
	}
	infer := -1
	known := make([]int, 0, len(newShape))
	for k, d := range newShape {
		switch {
		case d == -1:
			if infer >= 0 {
				return nil, cr.Errorf(cr.ErrInvalidArgument, "reshape to %v: more than one -1", shape)
			}
			infer = k
		case d < 0:
			return nil, cr.Errorf(cr.ErrInvalidArgument, "reshape to %v: negative dimension", shape)
		default:
			known = append(known, d)
		}
	}
	n, err := ShapeSize(known...)
	if err != nil {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "reshape to %v: %w", shape, err)
	}
	if infer >= 0 {
		if n == 0 {
			return nil, cr.Errorf(cr.ErrInvalidArgument, "reshape %v to %v: cannot infer -1 next to a zero dimension", from, shape)
		}
		if size%n != 0 {
			return nil, cr.Errorf(cr.ErrShapeMismatch, "cannot reshape %v (%d elements) to %v", from, size, shape)
		}
		newShape[infer] = size / n
		n = size
	}
	if n != size {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "cannot reshape %v (%d elements) to %v", from, size, shape)
	}
	return newShape, nil
}

// Reshape returns a tensor with the given shape and the elements of t in the same
// row-major order. One dim may be -1; it is inferred from the others. The result is a
// view of t when its strides can express the new shape (as NumPy's no-copy reshape:
// always for contiguous t, and for many strided views), and a fresh contiguous copy
// otherwise. It returns an error wrapping ErrShapeMismatch if the sizes differ, and
// ErrInvalidArgument for a dim below -1, more than one -1, or a -1 that cannot be
// inferred.
func (t *Dense) Reshape(shape ...int) (*Dense, error) {
	newShape, err := InferShape(t.shape, shape...)
	if err != nil {
		return nil, err
	}
	size := t.Size()
	if size == 0 {
		sh, st := contiguousLayout(newShape)
		return t.view(sh, st, 0), nil
	}
	if st, ok := nocopyStrides(t.shape, t.strides, newShape); ok {
		return t.view(newShape, st, t.offset), nil
	}
	c := t.Clone()
	c.setContiguous(newShape)
	return c, nil
}

// nocopyStrides returns strides under which the storage of a tensor of shape
// oldShape and strides oldStrides reads as newShape in row-major order, if there are
// any. It is NumPy's _attempt_nocopy_reshape for C order: runs of old axes that
// multiply to runs of new axes must be mutually contiguous. Both shapes have the same
// positive size.
func nocopyStrides(oldShape, oldStrides, newShape []int) ([]int, bool) {
	// Axes of size 1 carry no layout information.
	var od, os []int
	for k, d := range oldShape {
		if d != 1 {
			od = append(od, d)
			os = append(os, oldStrides[k])
		}
	}
	ns := make([]int, len(newShape))
	oi, oj, ni, nj := 0, 1, 0, 1
	for ni < len(newShape) && oi < len(od) {
		np, op := newShape[ni], od[oi]
		for np != op {
			if np < op {
				np *= newShape[nj]
				nj++
			} else {
				op *= od[oj]
				oj++
			}
		}
		for ok := oi; ok < oj-1; ok++ {
			if os[ok] != od[ok+1]*os[ok+1] {
				return nil, false
			}
		}
		ns[nj-1] = os[oj-1]
		for nk := nj - 1; nk > ni; nk-- {
			ns[nk-1] = ns[nk] * newShape[nk]
		}
		ni = nj
		nj++
		oi = oj
		oj++
	}
	last := 1
	if ni >= 1 {
		last = ns[ni-1]
	}
	for nk := ni; nk < len(newShape); nk++ {
		ns[nk] = last
	}
	return ns, true
}

// Slice returns the view of t holding elements start, start+step, ... (below stop)
// along axis; the other axes are kept whole. It returns an error wrapping
// ErrInvalidArgument unless 0 <= axis < Rank(), 0 <= start <= stop <= Shape()[axis]
// and step > 0.
func (t *Dense) Slice(axis, start, stop, step int) (*Dense, error) {
	if err := checkAxis(axis, len(t.shape)); err != nil {
		return nil, err
	}
	d := t.shape[axis]
	if start < 0 || start > stop || stop > d || step <= 0 {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "slice [%d:%d:%d] of axis %d (size %d)", start, stop, step, axis, d)
	}
	shape, strides := copyLayout(t.shape, t.strides)
	shape[axis] = (stop - start + step - 1) / step
	strides[axis] = t.strides[axis] * step
	return t.view(shape, strides, t.offset+start*t.strides[axis]), nil
}

// BroadcastTo returns the view of t with the given shape under NumPy's rules: t's
// shape is aligned with the trailing dims of shape, and each of t's dims must equal
// the target dim or be 1 (then it repeats, with stride 0). It returns an error
// wrapping ErrShapeMismatch if t cannot be broadcast to shape, and
// ErrInvalidArgument for a negative dim or a shape whose size overflows int.
func (t *Dense) BroadcastTo(shape ...int) (*Dense, error) {
	if _, err := ShapeSize(shape...); err != nil {
		return nil, err
	}
	sh, st := copyLayout(shape, nil)
	if !t.broadcastStrides(st, sh) {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "cannot broadcast shape %v to %v", t.shape, shape)
	}
	return t.view(sh, st, t.offset), nil
}

// broadcastStrides writes into st the strides under which t's storage reads as
// shape by NumPy's broadcasting, and reports whether t broadcasts to shape.
func (t *Dense) broadcastStrides(st, shape []int) bool {
	r, tr := len(shape), len(t.shape)
	if tr > r {
		return false
	}
	for k := range r {
		j := k - (r - tr)
		if j < 0 {
			st[k] = 0
			continue
		}
		switch td := t.shape[j]; {
		case td == shape[k]:
			st[k] = t.strides[j]
		case td == 1:
			st[k] = 0
		default:
			return false
		}
	}
	return true
}

// AsComplex returns t if it is complex (complex128 or complex64), and otherwise a
// fresh complex tensor of t's precision (complex128 for float64, complex64 for
// float32) with elements complex(t_i, 0). Like Clone, it panics on a view too large
// to copy (see CheckAlloc).
func (t *Dense) AsComplex() *Dense {
	if t.dtype.IsComplex() {
		return t
	}
	if t.dtype == Float64 {
		src := t.Float64s()
		out := New(Complex128, t.shape...)
		dst := out.c128s()
		for i, v := range src {
			dst[i] = complex(v, 0)
		}
		return out
	}
	return t.convert(t.dtype.Complex())
}

// Real returns a fresh real tensor of t's precision holding the real parts Re t_i
// (a copy of t if t is real). Like Clone, it panics on a view too large to copy (see
// CheckAlloc).
func (t *Dense) Real() *Dense {
	switch t.dtype {
	case Float64, Float32:
		return t.Clone()
	case Complex128:
		src := t.Complex128s()
		out := New(Float64, t.shape...)
		dst := out.f64s()
		for i, v := range src {
			dst[i] = real(v)
		}
		return out
	}
	return t.convert(Float32)
}

// Imag returns a fresh real tensor of t's precision holding the imaginary parts
// Im t_i (zeros if t is real). Like Clone, it panics on a view too large to copy
// (see CheckAlloc).
func (t *Dense) Imag() *Dense {
	out := New(t.dtype.RealType(), t.shape...)
	switch t.dtype {
	case Complex128:
		dst := out.f64s()
		for i, v := range t.Complex128s() {
			dst[i] = imag(v)
		}
	case Complex64:
		dst := out.f32s()
		for i, v := range t.Complex64s() {
			dst[i] = imag(v)
		}
	}
	return out
}

// Conj returns a fresh tensor of the complex conjugates conj(t_i), of t's dtype; for
// a real tensor that is a copy of t.
func (t *Dense) Conj() *Dense {
	switch t.dtype {
	case Complex128:
		out := New(Complex128, t.shape...)
		dst := out.c128s()
		for i, v := range t.Complex128s() {
			dst[i] = complex(real(v), -imag(v))
		}
		return out
	case Complex64:
		out := New(Complex64, t.shape...)
		dst := out.c64s()
		for i, v := range t.Complex64s() {
			dst[i] = complex(real(v), -imag(v))
		}
		return out
	}
	return t.Clone()
}

// maxStringElems is the largest size for which String prints the elements.
const maxStringElems = 64

// Describe returns the dtype and shape of t, e.g. "float64[2 3]" ("float64[]" for a
// scalar, "<nil>" for a nil *Dense).
func (t *Dense) Describe() string {
	if t == nil {
		return "<nil>"
	}
	var b strings.Builder
	t.describe(&b)
	return b.String()
}

func (t *Dense) describe(b *strings.Builder) {
	b.WriteString(t.dtype.String())
	b.WriteByte('[')
	for k, d := range t.shape {
		if k > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Itoa(d))
	}
	b.WriteByte(']')
}

// String returns the dtype and shape of t, followed for tensors of at most 64
// elements by the elements nested by rows, e.g. "float64[2 2] [[1 2] [3 4]]"
// ("<nil>" for a nil *Dense).
func (t *Dense) String() string {
	if t == nil {
		return "<nil>"
	}
	var b strings.Builder
	t.describe(&b)
	if t.Size() > maxStringElems {
		return b.String()
	}
	b.WriteByte(' ')
	idx := make([]int, len(t.shape))
	t.format(&b, 0, idx)
	return b.String()
}

func (t *Dense) format(b *strings.Builder, axis int, idx []int) {
	if axis == len(t.shape) {
		v := t.At(idx...)
		switch t.dtype {
		case Complex128:
			b.WriteString(strconv.FormatComplex(v, 'g', -1, 128))
		case Complex64:
			b.WriteString(strconv.FormatComplex(v, 'g', -1, 64))
		case Float32:
			b.WriteString(strconv.FormatFloat(real(v), 'g', -1, 32))
		default:
			b.WriteString(strconv.FormatFloat(real(v), 'g', -1, 64))
		}
		return
	}
	b.WriteByte('[')
	for i := range t.shape[axis] {
		if i > 0 {
			b.WriteByte(' ')
		}
		idx[axis] = i
		t.format(b, axis+1, idx)
	}
	b.WriteByte(']')
}
