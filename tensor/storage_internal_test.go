package tensor

import (
	"runtime"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDenseHeaderSize keeps the Dense header small: a recorded graph holds one
// value per node, and for small tensors the header is most of it (a recorded chain
// of 4-element tensors holds about 300 bytes per node with a 192-byte header). One
// untyped backing slice for the four dtypes makes it 120 bytes; a field that grows
// it past 128 should be a decision, not an accident.
func TestDenseHeaderSize(t *testing.T) {
	assert.LessOrEqual(t, unsafe.Sizeof(Dense{}), uintptr(128))
}

// TestRawSliceLayout checks that rawSlice is a slice header: what setData stores
// from a []T, the accessor of T's dtype gives back as the same slice (pointer,
// length and capacity), for each dtype.
func TestRawSliceLayout(t *testing.T) {
	var s []float64
	require.Equal(t, unsafe.Sizeof(s), unsafe.Sizeof(rawSlice{}))
	require.Equal(t, unsafe.Alignof(s), unsafe.Alignof(rawSlice{}))
	t.Run("float64", func(t *testing.T) { checkRoundTrip(t, make([]float64, 3, 5), (*Dense).f64s) })
	t.Run("complex128", func(t *testing.T) { checkRoundTrip(t, make([]complex128, 3, 5), (*Dense).c128s) })
	t.Run("float32", func(t *testing.T) { checkRoundTrip(t, make([]float32, 3, 5), (*Dense).f32s) })
	t.Run("complex64", func(t *testing.T) { checkRoundTrip(t, make([]complex64, 3, 5), (*Dense).c64s) })
}

func checkRoundTrip[T Numeric](t *testing.T, s []T, get func(*Dense) []T) {
	d := new(Dense)
	setData(d, s)
	require.Equal(t, dtypeOf[T](), d.dtype)
	got := get(d)
	assert.Equal(t, unsafe.SliceData(s), unsafe.SliceData(got))
	assert.Equal(t, len(s), len(got))
	assert.Equal(t, cap(s), cap(got))
	assert.Equal(t, unsafe.SliceData(s), unsafe.SliceData(storage[T](d)))
	assert.Equal(t, uintptr(unsafe.Pointer(unsafe.SliceData(s))), d.addr())
	assert.Equal(t, cap(s), d.storageCap())
	assert.Equal(t, len(s), d.storageLen())
}

// TestAccessorsOfAnotherDType checks that reading the backing slice as another
// element type gives nil, never a reinterpretation of the storage (a float32
// tensor's four bytes an element read as complex128 would run past its array).
func TestAccessorsOfAnotherDType(t *testing.T) {
	for _, dt := range AllDTypes() {
		d := New(dt, 4)
		assert.Equal(t, dt == Float64, d.f64s() != nil, "f64s of %v", dt)
		assert.Equal(t, dt == Complex128, d.c128s() != nil, "c128s of %v", dt)
		assert.Equal(t, dt == Float32, d.f32s() != nil, "f32s of %v", dt)
		assert.Equal(t, dt == Complex64, d.c64s() != nil, "c64s of %v", dt)
		assert.Equal(t, dt == Float64, storage[float64](d) != nil, "storage[float64] of %v", dt)
		assert.Equal(t, dt == Complex64, storage[complex64](d) != nil, "storage[complex64] of %v", dt)
		assert.Len(t, d.words(), 4*elemSize(dt)/8, "words of %v", dt) // the pool's view: 8-byte words
	}
	// The words of a complex128 tensor are its real and imaginary parts.
	z, err := FromComplex128([]complex128{1 + 2i, 3 + 4i}, 2)
	require.NoError(t, err)
	assert.Equal(t, []float64{1, 2, 3, 4}, z.words())
}

// TestStorageKeepsArrayAlive checks that the untyped pointer of a tensor keeps its
// array alive and in place: tensors over the interior and the (empty) end of
// slices whose other references are dropped still read their elements after
// collections that reuse the freed memory.
func TestStorageKeepsArrayAlive(t *testing.T) {
	const n = 64
	var tensors []*Dense
	var empties []*Dense
	for k := range 50 {
		s := make([]float64, 4*n)
		for i := range s {
			s[i] = float64(k*1000 + i)
		}
		v, err := FromFloat64(s[n:2*n], n)
		require.NoError(t, err)
		tensors = append(tensors, v)
		e, err := FromFloat64(s[4*n:], 0) // capacity 0: its pointer stays at the array's start
		require.NoError(t, err)
		require.Equal(t, unsafe.Pointer(unsafe.SliceData(s)), e.data.ptr)
		empties = append(empties, e)
		c := make([]complex64, 2*n)
		for i := range c {
			c[i] = complex(float32(k), float32(i))
		}
		w, err := FromComplex64(c[1:n+1], n)
		require.NoError(t, err)
		tensors = append(tensors, w)
	}
	for range 3 {
		runtime.GC()
		for range 1000 {
			garbage = make([]float64, 4*n) // reuse freed memory
		}
	}
	for j, v := range tensors {
		k := j / 2
		if v.dtype == Float64 {
			for i, x := range v.Float64s() {
				require.Equal(t, float64(k*1000+n+i), x, "tensor %d, element %d", j, i)
			}
			continue
		}
		for i, x := range v.Complex64s() {
			require.Equal(t, complex(float32(k), float32(i+1)), x, "tensor %d, element %d", j, i)
		}
	}
	for _, e := range empties {
		assert.Equal(t, 0, e.Size())
		assert.Empty(t, e.Float64s())
	}
}

// garbage is where TestStorageKeepsArrayAlive puts its allocations, so that the
// compiler keeps them.
var garbage []float64
