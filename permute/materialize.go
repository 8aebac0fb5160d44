package permute

import (
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// blockSize is the edge of the square tiles of the blocked transpose: 8 float64 are
// one 64-byte cache line, so a tile reads 8 whole source lines and writes 8 whole
// destination lines, and each line of either array is touched exactly once.
const blockSize = 8

// Materialize returns a fresh contiguous row-major copy of t, whatever its strides.
//
// It is tensor.Dense.Contiguous without the aliasing shortcut, and much faster on
// permuted views: when t is a permutation of a contiguous block of storage (the
// result of Permute, Transpose or MoveAxis on a contiguous tensor), the copy runs a
// cache-blocked kernel that moves 8x8 tiles between the source's fastest axis and
// the destination's fastest axis, so that every cache line of either side is read
// or written once. Other views (slices with steps, broadcasts) are copied by
// tensor.Dense.Clone.
func Materialize(t *tensor.Dense) *tensor.Dense {
	if t.Size() == 0 || t.IsContiguous() || !isPermutedBlock(t) {
		return t.Clone()
	}
	out := tensor.New(t.DType(), t.Shape()...)
	copyPermuted(out, t)
	return out
}

// MaterializeTo copies the elements of t into dst in row-major order: the
// destination-first form of Materialize, for callers that reuse a buffer. dst must be
// contiguous, of t's shape and dtype, and must not share storage with t; otherwise
// MaterializeTo returns an error wrapping ErrShapeMismatch (or ErrInvalidArgument for
// a non-contiguous dst).
func MaterializeTo(dst, t *tensor.Dense) error {
	if dst.DType() != t.DType() || !slices.Equal(dst.Shape(), t.Shape()) {
		return cr.Errorf(cr.ErrShapeMismatch, "materialize: destination %s for source %s", dst.Describe(), t.Describe())
	}
	if !dst.IsContiguous() {
		return cr.Errorf(cr.ErrInvalidArgument, "materialize: destination %s is not contiguous", dst.Describe())
	}
	if t.Size() == 0 {
		return nil
	}
	if isPermutedBlock(t) {
		copyPermuted(dst, t)
		return nil
	}
	// A general view: tensor gathers it into a fresh buffer, which we copy.
	if t.DType() == tensor.Complex128 {
		copy(dst.Complex128s(), t.Complex128s())
	} else {
		copy(dst.Float64s(), t.Float64s())
	}
	return nil
}

// copyPermuted writes the permuted block t into the contiguous dst of its shape.
func copyPermuted(dst, t *tensor.Dense) {
	shape, strides := t.Shape(), t.Strides()
	// Listing t's axes in storage order gives a contiguous view whose element slice
	// starts at t's first element and aliases the storage (read only here).
	base, err := t.Permute(storageOrder(strides)...)
	if err != nil {
		panic(err) // storageOrder returns a permutation by construction
	}
	if t.DType() == tensor.Complex128 {
		permuteCopy(dst.Complex128s(), base.Complex128s(), shape, strides)
		return
	}
	permuteCopy(dst.Float64s(), base.Float64s(), shape, strides)
}

// storageOrder returns the axes of a view sorted by decreasing stride: the
// permutation that, applied to the view, lists its axes in storage order.
func storageOrder(strides []int) []int {
	order := make([]int, len(strides))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int { return strides[b] - strides[a] })
	return order
}

// isPermutedBlock reports whether t's elements are exactly a contiguous block of its
// storage in some axis order (no broadcast axes, no gaps).
func isPermutedBlock(t *tensor.Dense) bool {
	shape, strides := t.Shape(), t.Strides()
	order := storageOrder(strides)
	want := 1
	for k := len(order) - 1; k >= 0; k-- {
		a := order[k]
		if shape[a] == 1 {
			continue
		}
		if strides[a] != want {
			return false
		}
		want *= shape[a]
	}
	return true
}

// permuteCopy writes into dst, in row-major order of shape, the elements of src at
// offsets sum_k i_k srcStrides[k]. The strides must address distinct elements of src
// with one of them equal to 1 (src is a permuted contiguous block).
func permuteCopy[T float64 | complex128](dst, src []T, shape, srcStrides []int) {
	// Drop axes of size 1 and merge destination-adjacent axes that are adjacent in
	// the source too: a permutation of a contiguous tensor then has as few axes as
	// its layout needs.
	var dims, ss []int
	for k, d := range shape {
		if d == 1 {
			continue
		}
		if m := len(dims) - 1; m >= 0 && ss[m] == srcStrides[k]*d {
			dims[m] *= d
			ss[m] = srcStrides[k]
			continue
		}
		dims = append(dims, d)
		ss = append(ss, srcStrides[k])
	}
	r := len(dims)
	if r == 0 {
		dst[0] = src[0]
		return
	}
	ds := tensor.RowMajorStrides(dims...)
	last := r - 1
	if ss[last] == 1 {
		copyRows(dst, src, dims, ss, ds)
		return
	}
	a := -1
	for k, s := range ss {
		if s == 1 {
			a = k
		}
	}
	if a < 0 {
		// Not a permuted block: a plain strided gather.
		stridedCopy(dst, src, dims, ss, ds)
		return
	}
	k := blocked[T]{dst: dst, src: src, dims: dims, ss: ss, ds: ds, a: a, b: last}
	k.loop(0, 0, 0)
}

// copyRows copies the innermost runs, which are contiguous on both sides.
func copyRows[T float64 | complex128](dst, src []T, dims, ss, ds []int) {
	r := len(dims)
	n := dims[r-1]
	if r == 1 {
		copy(dst[:n], src[:n])
		return
	}
	idx := make([]int, r-1)
	so, do := 0, 0
	for {
		copy(dst[do:do+n], src[so:so+n])
		k := r - 2
		for ; k >= 0; k-- {
			idx[k]++
			so += ss[k]
			do += ds[k]
			if idx[k] < dims[k] {
				break
			}
			so -= ss[k] * dims[k]
			do -= ds[k] * dims[k]
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

// stridedCopy is the unblocked fallback: an odometer over the destination.
func stridedCopy[T float64 | complex128](dst, src []T, dims, ss, ds []int) {
	r := len(dims)
	idx := make([]int, r)
	so := 0
	for i := range dst {
		dst[i] = src[so]
		for k := r - 1; k >= 0; k-- {
			idx[k]++
			so += ss[k]
			if idx[k] < dims[k] {
				break
			}
			so -= ss[k] * dims[k]
			idx[k] = 0
		}
	}
}

// blocked is the cache-blocked permutation: axis a of the destination has source
// stride 1 and axis b (the last) has destination stride 1. The loop nest follows the
// destination's axis order except for a, whose tile loop runs innermost, inside the
// tile loop of b: the tiles of one step of b then read whole runs of the source
// (sequential reads the hardware prefetches), and each tile writes whole cache lines
// of the destination.
type blocked[T float64 | complex128] struct {
	dst, src []T
	dims     []int
	ss, ds   []int
	a, b     int
}

func (k *blocked[T]) loop(level, so, do int) {
	n := k.dims[level]
	switch level {
	case k.b:
		sb, da, sa := k.ss[k.b], k.ds[k.a], k.ss[k.a]
		na := k.dims[k.a]
		for j := 0; j < n; j += blockSize {
			bl := min(blockSize, n-j)
			for i := 0; i < na; i += blockSize {
				al := min(blockSize, na-i)
				s, d := so+j*sb+i*sa, do+j+i*da
				if al == blockSize && bl == blockSize {
					tile8(k.dst, k.src, s, d, sb, da)
				} else {
					tile(k.dst, k.src, s, d, sb, da, al, bl)
				}
			}
		}
	case k.a:
		k.loop(level+1, so, do)
	default:
		sl, dl := k.ss[level], k.ds[level]
		for i := range n {
			k.loop(level+1, so+i*sl, do+i*dl)
		}
	}
}

// tile8 transposes a full 8x8 tile: dst[do + p*da + q] = src[so + p + q*sb].
// Slicing the eight source rows first lets the compiler drop every bounds check in
// the body.
func tile8[T float64 | complex128](dst, src []T, so, do, sb, da int) {
	r0 := src[so : so+8 : so+8]
	r1 := src[so+sb : so+sb+8 : so+sb+8]
	r2 := src[so+2*sb : so+2*sb+8 : so+2*sb+8]
	r3 := src[so+3*sb : so+3*sb+8 : so+3*sb+8]
	r4 := src[so+4*sb : so+4*sb+8 : so+4*sb+8]
	r5 := src[so+5*sb : so+5*sb+8 : so+5*sb+8]
	r6 := src[so+6*sb : so+6*sb+8 : so+6*sb+8]
	r7 := src[so+7*sb : so+7*sb+8 : so+7*sb+8]
	for p := range 8 {
		o := do + p*da
		d := dst[o : o+8 : o+8]
		d[0], d[1], d[2], d[3] = r0[p], r1[p], r2[p], r3[p]
		d[4], d[5], d[6], d[7] = r4[p], r5[p], r6[p], r7[p]
	}
}

// tile transposes a partial tile of al x bl elements.
func tile[T float64 | complex128](dst, src []T, so, do, sb, da, al, bl int) {
	for p := range al {
		d := dst[do+p*da : do+p*da+bl]
		s := so + p
		for q := range d {
			d[q] = src[s]
			s += sb
		}
	}
}
