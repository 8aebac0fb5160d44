package vmath

import (
	"math"
	"math/bits"
	"sync"
	"unsafe"

	"github.com/chainrules-go/chainrules/internal/race"
)

// The pool keeps large pointer-free buffers for reuse. A repeated computation (an
// optimiser's gradient at every step) allocates the same sizes again and again;
// taking them from the pool instead of fresh memory saves the page faults of new
// memory, the runtime's scavenging of freed memory back to the system, and most
// garbage collections.
//
// Buffers come in size classes of eight steps per power of two, so that a buffer
// is at most 12.5% larger than asked for:
//
//	class sizes (in 8-byte words): 2^(c-1) * (1 + k/8), k = 1..8, for c >= 4.
//
// A class keeps its free buffers in a sync.Pool, which the garbage collector
// empties of buffers unused for two cycles, so the pool never holds memory a
// program has stopped using.

// poolMinWords is the smallest buffer, in 8-byte words, that the pool serves:
// below it an allocation costs little next to the bookkeeping.
const poolMinWords = 1 << 10

// poolMaxLog bounds the classes: buffers of 2^poolMaxLog words (512 GiB) or more
// are plain allocations.
const poolMaxLog = 36

var pools [8 * (poolMaxLog + 1)]sync.Pool

// classOf returns the class index and size in words of the smallest class that
// holds n words (n >= poolMinWords), or ok false when n is past the classes.
func classOf(n uintptr) (class int, words uintptr, ok bool) {
	c := bits.Len(uint(n - 1)) // n <= 2^c
	if c > poolMaxLog {
		return 0, 0, false
	}
	half, step := uintptr(1)<<(c-1), uintptr(1)<<(c-4)
	k := (n - half + step - 1) / step // 1..8
	return 8*c + int(k) - 1, half + k*step, true
}

// getWords returns a pooled or new buffer of the class holding n words, and its
// capacity in words; its contents are unspecified.
func getWords(n uintptr) (unsafe.Pointer, uintptr) {
	class, words, ok := classOf(n)
	if !ok {
		return nil, 0
	}
	if p, _ := pools[class].Get().(unsafe.Pointer); p != nil {
		return p, words
	}
	return mallocgc(words*8, nil, false), words
}

// Elem is the element types the pool and MakeNoZero serve: the four dtypes of
// the module. The pool sorts buffers by their size in 8-byte words whatever their
// element type, so that a float32 buffer of 2n elements is the float64 buffer of
// n words, and storage released in one precision is reused in the other.
type Elem interface {
	float64 | complex128 | float32 | complex64
}

// wordsOf returns the number of 8-byte words that n elements of T fill, rounded
// up, or ok false when that overflows the pooled sizes.
func wordsOf[T Elem](n int) (words uintptr, ok bool) {
	var z T
	size := unsafe.Sizeof(z) // 4, 8 or 16 bytes
	if n <= 0 || uintptr(n) > (8<<poolMaxLog)/size {
		return 0, false
	}
	return (uintptr(n)*size + 7) / 8, true
}

// pooled returns a slice of length n from the pool (its capacity is the class
// size, in elements of T), or nil when n is outside the pooled sizes.
func pooled[T Elem](n int) []T {
	w, ok := wordsOf[T](n)
	if !ok || w < poolMinWords {
		return nil
	}
	p, words := getWords(w)
	if p == nil {
		return nil
	}
	var z T
	return unsafe.Slice((*T)(p), words*8/unsafe.Sizeof(z))[:n]
}

// Poolable reports whether Put would take a buffer of the given capacity in
// elements of T, so that a caller can leave small ones out before any work: its
// size is a whole number of words (an even capacity for float32) and the size of
// a class.
func Poolable[T Elem](capacity int) bool {
	var z T
	if uintptr(capacity)*unsafe.Sizeof(z)%8 != 0 {
		return false
	}
	words, ok := wordsOf[T](capacity)
	if !ok || words < poolMinWords {
		return false
	}
	_, size, ok := classOf(words)
	return ok && size == words
}

// Put hands b's storage back to the pool, for MakeNoZero to reuse. The
// caller guarantees that nothing refers to b's storage any more: not b, not any
// other slice or view of it. Put takes only buffers whose capacity is a class
// size (as MakeNoZero's large buffers are), and ignores the others. Under the race
// detector the buffer is filled with NaN first, so that a use after Put shows.
func Put[T Elem](b []T) {
	if !Poolable[T](cap(b)) {
		return
	}
	words, _ := wordsOf[T](cap(b))
	class, _, _ := classOf(words)
	b = b[:cap(b)]
	if race.Enabled {
		var nan T
		switch p := any(&nan).(type) {
		case *float64:
			*p = math.NaN()
		case *complex128:
			*p = complex(math.NaN(), math.NaN())
		case *float32:
			*p = float32(math.NaN())
		case *complex64:
			*p = complex64(complex(math.NaN(), math.NaN()))
		}
		for i := range b {
			b[i] = nan
		}
	}
	pools[class].Put(unsafe.Pointer(unsafe.SliceData(b)))
}
