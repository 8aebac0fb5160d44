package vmath

import (
	"runtime"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/chainrules-go/chainrules/internal/race"
)

func TestClassOf(t *testing.T) {
	for _, tc := range []struct {
		n, words uintptr
	}{
		{1024, 1024}, {1025, 1152}, {1152, 1152}, {1153, 1280}, {1280, 1280}, {1281, 1408},
		{1500, 1536}, {1537, 1664}, {1793, 1920}, {2047, 2048}, {2048, 2048}, {32768, 32768}, {32769, 36864},
	} {
		_, words, ok := classOf(tc.n)
		require.True(t, ok, "n=%d", tc.n)
		require.Equal(t, tc.words, words, "n=%d", tc.n)
	}
	// Every size from poolMinWords to 2^16 gets the smallest class holding it, at most
	// 12.5% larger, and class indices grow with the size.
	prev := -1
	for n := uintptr(poolMinWords); n <= 1<<16; n++ {
		c, words, ok := classOf(n)
		require.True(t, ok)
		require.GreaterOrEqual(t, words, n)
		require.LessOrEqual(t, float64(words), 1.125*float64(n))
		require.GreaterOrEqual(t, c, prev)
		prev = c
	}
	_, _, ok := classOf(1<<poolMaxLog + 1)
	require.False(t, ok)
}

func TestPooledCapacity(t *testing.T) {
	b := MakeNoZero[float64](1500)
	require.Len(t, b, 1500)
	require.Equal(t, 1536, cap(b))
	c := MakeNoZero[complex128](1500)
	require.Len(t, c, 1500)
	require.Equal(t, 1536, cap(c)) // 3072 words
	require.Len(t, MakeNoZero[float64](100), 100)
}

// TestPutTakesOnlyClassSizes checks that Put ignores a slice whose capacity is not
// a class size (a slice of make's, or a slice into a buffer), so that it never
// hands out memory that is part of something else.
func TestPutTakesOnlyClassSizes(t *testing.T) {
	odd := make([]float64, 1500)
	Put(odd)
	for range 4 {
		b := MakeNoZero[float64](1500)
		// Addresses, not pointers: testify compares pointers by what they point to.
		require.NotEqual(t, uintptr(unsafe.Pointer(unsafe.SliceData(odd))), uintptr(unsafe.Pointer(unsafe.SliceData(b))))
	}
	small := make([]float64, 64)
	Put(small) // below the pooled sizes: ignored
	runtime.KeepAlive(odd)
}

// TestSinglePrecisionPooled checks that float32 and complex64 buffers come from
// the pool and go back to it as the double-precision ones do, sized in words: a
// float32 buffer of 2n elements is the float64 buffer of n words, so storage
// released in one precision is reused in the other.
func TestSinglePrecisionPooled(t *testing.T) {
	f := MakeNoZero[float32](3000) // 1500 words: the class of 1536
	require.Len(t, f, 3000)
	require.Equal(t, 2*1536, cap(f))
	c := MakeNoZero[complex64](1500) // 1500 words
	require.Len(t, c, 1500)
	require.Equal(t, 1536, cap(c))
	odd := MakeNoZero[float32](2999) // 1500 words rounded up
	require.Equal(t, 2*1536, cap(odd))

	for _, tc := range []struct {
		name     string
		capacity int
		want     bool
	}{
		{"class size", 2 * 1536, true},
		{"not a class", 3000, false},
		{"odd capacity", 2*1536 - 1, false},
		{"below the pool", 1024, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, Poolable[float32](tc.capacity))
		})
	}
	require.True(t, Poolable[complex64](1536))
	require.False(t, Poolable[complex64](1500))

	// A float32 buffer put back is the next float64 buffer of its class (the pool is
	// per P and the GC may empty it, so look for it among a few).
	if race.Enabled {
		t.Skip("the race detector drops pooled buffers at random")
	}
	addr := uintptr(unsafe.Pointer(unsafe.SliceData(f)))
	Put(f)
	var got []float64
	found := false
	for range 4 {
		b := MakeNoZero[float64](1500)
		got = append(got, b...)
		if uintptr(unsafe.Pointer(unsafe.SliceData(b))) == addr {
			found = true
			break
		}
	}
	require.True(t, found, "the float32 buffer was not reused")
	runtime.KeepAlive(got)
}
