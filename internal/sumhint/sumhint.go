// Package sumhint carries the sum of a cotangent from the pullback that makes
// it to the pullback that reduces it, inside one backward sweep.
//
// A log-sum-exp written from its parts, a + log sum exp(x - a), pulls the sum's
// uniform cotangent c back through exp as xbar = c e (one pass over n), and the
// difference x - a then needs abar = -sum(xbar) (a second pass). Package
// elementwise's exp pullback computes that sum in its own pass (vmath.ScaleSum,
// Sum's order) and leaves it here; the difference's pullback takes it instead of
// summing again. The results are the same bit for bit.
//
// A hint holds for a tensor's contents: it names the tensor (its identity, kept
// alive by the hint, so that no other tensor takes its address) and its storage,
// and it is dropped when the storage is written after the hint was set: package
// tensor drops the hints on the storage its Space adds into in place (Accumulate,
// AddRows, the only writes a backward sweep makes into a cotangent it was handed)
// or recycles. A pullback never writes into the cotangent it is given, nor does
// a hook. A hint lives within one sweep: package core's backward sweep starts and
// ends with Reset, so that no hint outlives the cotangents the engine alone
// writes (a gradient handed to the caller, who may write it, keeps none). A hint
// is taken once; a few (slots) are kept, the oldest overwritten. Sweeps that run
// at once on several goroutines share the slots: one's Reset drops the others'
// hints, which costs them the shortcut, never a wrong sum.
package sumhint

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

const slots = 4

type hint struct {
	t    any // the tensor, as its package's pointer
	data unsafe.Pointer
	n    int
	sum  float64
}

var (
	mu     sync.Mutex
	hints  [slots]hint
	next   int
	active atomic.Int32 // the number of slots in use, read without the lock
)

// Set records that the n float64 elements at data, the storage of the tensor t
// (a pointer), sum to s.
func Set(t any, data *float64, n int, s float64) {
	mu.Lock()
	if hints[next].t == nil {
		active.Add(1)
	}
	hints[next] = hint{t: t, data: unsafe.Pointer(data), n: n, sum: s}
	next = (next + 1) % slots
	mu.Unlock()
}

// Take returns the sum recorded for the tensor t whose storage is the n float64
// elements at data, and forgets it; false if there is none.
func Take(t any, data *float64, n int) (float64, bool) {
	if active.Load() == 0 {
		return 0, false
	}
	mu.Lock()
	defer mu.Unlock()
	for i := range hints {
		h := &hints[i]
		if h.t != nil && h.t == t && h.data == unsafe.Pointer(data) && h.n == n {
			s := h.sum
			*h = hint{}
			active.Add(-1)
			return s, true
		}
	}
	return 0, false
}

// Drop forgets the hints on storage that overlaps the bytes [start, start+size):
// the caller writes there.
func Drop(start unsafe.Pointer, size uintptr) {
	if active.Load() == 0 || size == 0 {
		return
	}
	lo, hi := uintptr(start), uintptr(start)+size
	mu.Lock()
	for i := range hints {
		h := &hints[i]
		if h.t == nil {
			continue
		}
		b := uintptr(h.data)
		if e := b + uintptr(h.n)*8; b < hi && lo < e {
			*h = hint{}
			active.Add(-1)
		}
	}
	mu.Unlock()
}

// Reset forgets every hint.
func Reset() {
	if active.Load() == 0 {
		return
	}
	mu.Lock()
	hints = [slots]hint{}
	active.Store(0)
	mu.Unlock()
}
