package vmath

import (
	"unsafe"
)

// noZeroBytes is the size from which MakeNoZero skips the runtime's zeroing: below
// it zeroing is cheap next to the allocation itself.
const noZeroBytes = 64 << 10

// mallocgc is the runtime's allocator. Its signature is fixed for packages outside
// the standard library (see go.dev/issue/67401): typ nil allocates memory the
// garbage collector does not scan, and needzero false skips clearing it.
//
//go:linkname mallocgc runtime.mallocgc
func mallocgc(size uintptr, typ unsafe.Pointer, needzero bool) unsafe.Pointer

// MakeNoZero returns a slice of length n whose elements are unspecified: the caller
// must write every element before reading any. It is make([]T, n) without the
// runtime's clearing, which for an output that a kernel overwrites whole is a second
// pass over memory: for the 8 MB result of exp over 10^6 elements, half the time.
// Buffers of 8 kB and more, of any of the four element types, come from the pool of buffers given back with Put (a
// slice's capacity is then its size class, at most 12.5% above n); small slices
// come from make, and so do sizes past 1 TiB, for make's panic.
func MakeNoZero[T Elem](n int) []T {
	if b := pooled[T](n); b != nil {
		return b
	}
	var z T
	size := uintptr(n) * unsafe.Sizeof(z)
	if n <= 0 || size < noZeroBytes || size/unsafe.Sizeof(z) != uintptr(n) || size > 1<<40 {
		return make([]T, n)
	}
	return unsafe.Slice((*T)(mallocgc(size, nil, false)), n)
}
