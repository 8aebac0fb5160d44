package einsum

import (
	"github.com/chainrules-go/chainrules/tensor"
	"math/bits"
	"sync"
)

// Intermediates of a contraction are short-lived and often large; recycling them
// keeps the allocation rate (and with it the garbage collector's work) down on
// repeated evaluations. Buffers are pooled by power-of-two capacity; results handed
// to callers are never pooled.
const poolMinLog = 10 // buffers below 2^10 elements are plain allocations

var (
	poolF64  [48]sync.Pool
	poolC128 [48]sync.Pool
)

func poolsOf[T tensor.Element]() *[48]sync.Pool {
	var z T
	if _, ok := any(z).(float64); ok {
		return &poolF64
	}
	return &poolC128
}

// getBuf returns a slice of length n whose contents are arbitrary.
func getBuf[T tensor.Element](n int) []T {
	if n < 1<<poolMinLog {
		return make([]T, n)
	}
	c := bits.Len(uint(n - 1))
	if c >= 48 {
		return make([]T, n)
	}
	if p, ok := poolsOf[T]()[c].Get().(*[]T); ok {
		return (*p)[:n]
	}
	return make([]T, n, 1<<c)
}

// putBuf returns a buffer obtained from getBuf to its pool.
func putBuf[T tensor.Element](b []T) {
	c := cap(b)
	if c < 1<<poolMinLog || c&(c-1) != 0 {
		return
	}
	l := bits.TrailingZeros(uint(c))
	if l >= 48 {
		return
	}
	b = b[:0]
	poolsOf[T]()[l].Put(&b)
}
