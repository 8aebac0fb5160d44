package tensor

import (
	"cmp"
	"slices"
	"unsafe"

	"github.com/chainrules-go/chainrules/internal/vmath"
)

// Recycle hands the storage of the tensors in dead back to the module's buffer
// pool, from which later tensors are allocated (chainrules.Recycler): a repeated
// computation then reuses the memory of the previous one instead of faulting in
// new pages. Storage is compared as address ranges, the whole capacity of each
// tensor's backing slice. A range is reused only if it overlaps no range of a
// tensor in live, and every dead tensor whose range overlaps it has exactly the
// same range (views of one buffer: the buffer goes back once); anything else is
// left to the garbage collector. The caller guarantees that nothing outside dead
// and live refers to the storage of a dead tensor.
func (Space) Recycle(dead, live []*Dense) {
	// Only buffers the pool takes are candidates; a live range matters only if it
	// can overlap one, that is if it meets [lo, hi) of the candidates.
	spans := make([]span, 0, 8) // on the stack for the usual handful of tensors
	lo, hi := ^uintptr(0), uintptr(0)
	for _, d := range dead {
		if d == nil || !poolable(d) {
			continue
		}
		spans = appendSpan(spans, d, false)
		if n := len(spans); n > 0 {
			lo, hi = min(lo, spans[n-1].lo), max(hi, spans[n-1].hi)
		}
	}
	if len(spans) == 0 {
		return
	}
	for _, d := range live {
		n := len(spans)
		if spans = appendSpan(spans, d, true); len(spans) > n && (spans[n].hi <= lo || spans[n].lo >= hi) {
			spans = spans[:n] // apart from every candidate
		}
	}
	slices.SortFunc(spans, func(a, b span) int {
		if c := cmp.Compare(a.lo, b.lo); c != 0 {
			return c
		}
		return cmp.Compare(a.hi, b.hi)
	})
	// Walk clusters of overlapping ranges; a cluster is reused when it has no live
	// range and all its ranges are one.
	for i := 0; i < len(spans); {
		j, hi, ok := i+1, spans[i].hi, !spans[i].live
		for ; j < len(spans) && spans[j].lo < hi; j++ {
			s := spans[j]
			ok = ok && !s.live && s.lo == spans[i].lo && s.hi == spans[i].hi
			hi = max(hi, s.hi)
		}
		if ok {
			recycle(spans[i].t)
		}
		i = j
	}
}

// recycle hands d's storage to the pool; tests replace it to see what is reused.
var recycle = func(d *Dense) { vmath.Put(d.words()) }

// Reusable reports whether Recycle would hand d's storage to the pool: its
// capacity is one of the pool's size classes (chainrules.Recycler).
func (Space) Reusable(d *Dense) bool { return d != nil && poolable(d) }

// poolable reports whether d's storage is of a size the pool takes: a whole number
// of 8-byte words (an even capacity for float32) that is one of its size classes.
func poolable(d *Dense) bool {
	bytes := d.data.cap * elemSize(d.dtype)
	return d.data.ptr != nil && bytes%8 == 0 && vmath.Poolable[float64](bytes/8)
}

// words returns the whole backing slice of d (its capacity) as float64 words: two
// to a complex128 element, one to a complex64, half of one to a float32 (an odd
// float32 capacity leaves its last element out). The pool sorts buffers by their
// size in words, whatever their element type, so that storage released in one
// precision is reused in the other.
func (d *Dense) words() []float64 {
	if d.data.ptr == nil {
		return nil
	}
	w := d.data.cap * elemSize(d.dtype) / 8
	return unsafe.Slice((*float64)(d.data.ptr), w)
}

// span is the address range of a tensor's backing storage.
type span struct {
	lo, hi uintptr
	live   bool
	t      *Dense
}

func appendSpan(spans []span, d *Dense, live bool) []span {
	lo, hi := d.storageSpan()
	if lo == hi {
		return spans
	}
	return append(spans, span{lo: lo, hi: hi, live: live, t: d})
}

// storageSpan returns the address range [lo, hi) of d's whole backing slice (its
// capacity; lo == hi when it has none, and for a nil d).
func (d *Dense) storageSpan() (lo, hi uintptr) {
	if d == nil {
		return 0, 0
	}
	c := d.storageCap()
	if c == 0 {
		return 0, 0
	}
	lo = d.addr()
	return lo, lo + uintptr(c*elemSize(d.dtype))
}
