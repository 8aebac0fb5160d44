package tensor

import (
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/internal/vmath"
)

// Copy writes the elements of src into dst in row-major order, whatever src's
// strides: the destination-first form of Clone, for callers that reuse a buffer. dst
// must be contiguous (IsContiguous) and of src's dtype and shape. dst may share
// storage with src, as in Copy(x, xT) for a transposed view xT of a square x: the
// result is then, as NumPy's copyto, the one of copying src to a temporary first
// (which Copy does when the addresses of their elements overlap). Copy returns an
// error wrapping ErrShapeMismatch for a different dtype or shape, and
// ErrInvalidArgument for a non-contiguous dst.
//
// Every copy of a strided view in the project (Clone, Contiguous, Float64s and
// Complex128s of a view, the operand copies of MatMul and BatchMatMul, Reshape of a
// view that cannot be reshaped in place) runs the kernel of Copy: contiguous source
// runs are copied with the built-in copy, broadcast runs are filled, and a view
// whose fastest source axis is not the destination's last axis (a transposed or
// permuted view) is copied in 8x8 tiles between those two axes, so that every
// cache line of either side is read or written once.
func Copy(dst, src *Dense) error {
	if dst == nil || src == nil {
		return errNil()
	}
	if dst.dtype != src.dtype || !slices.Equal(dst.shape, src.shape) {
		return cr.Errorf(cr.ErrShapeMismatch, "copy: destination %s for source %s", dst.Describe(), src.Describe())
	}
	if !dst.IsContiguous() {
		return cr.Errorf(cr.ErrInvalidArgument, "copy: destination %s is not contiguous", dst.Describe())
	}
	n := src.Size()
	if n == 0 {
		return nil
	}
	if mayOverlap(dst, src) {
		if sameElements(dst, src) {
			return nil
		}
		src = src.Clone()
	}
	gatherInto(dst, src)
	return nil
}

// tileSize is the edge of the square tiles of the blocked transpose: 8 float64 are
// one 64-byte cache line, so a tile reads 8 whole source lines and writes 8 whole
// destination lines.
const tileSize = 8

// blockSize is the edge of the square blocks of tiles that the blocked transpose
// walks: a block reads and writes 16 runs of 16 elements on either side, so its
// lines and pages stay in cache and TLB while it is copied (a 4096x4096 transpose
// runs twice as fast as with whole strips of tiles).
const blockSize = 16

// maxStackRank is the rank up to which gather keeps its coalesced layout on the
// stack.
const maxStackRank = 8

// gather copies the elements of the strided view (shape, strides, offset) of src into
// dst in row-major order; len(dst) must be prod(shape).
//
// It first drops axes of size 1 and merges neighbouring axes that are contiguous in
// src (the destination is row-major, so they are always contiguous there). The
// innermost (destination-fastest) axis then decides the kernel:
//
//   - source stride 1: each run is one built-in copy;
//   - source stride 0 (broadcast): each run is a fill;
//   - otherwise, if another axis a has a smaller non-zero source stride, the pair
//     (a, last) is copied in 8x8 tiles, each reading 8 short runs along a and
//     writing 8 short runs along the last axis; the tile loop over a runs
//     innermost, so consecutive tiles read consecutive source memory;
//   - otherwise each run is a strided loop.
func gather[T element](dst, src []T, shape, strides []int, offset int) {
	if len(dst) == 0 {
		return
	}
	var dimsArr, ssArr, dsArr [maxStackRank]int
	dims, ss := dimsArr[:0], ssArr[:0]
	if len(shape) > maxStackRank {
		dims, ss = make([]int, 0, len(shape)), make([]int, 0, len(shape))
	}
	for k, d := range shape {
		if d == 1 {
			continue
		}
		if m := len(dims) - 1; m >= 0 && ss[m] == strides[k]*d {
			dims[m] *= d
			ss[m] = strides[k]
			continue
		}
		dims = append(dims, d)
		ss = append(ss, strides[k])
	}
	r := len(dims)
	if r == 0 {
		dst[0] = src[offset]
		return
	}
	var ds []int
	if r > maxStackRank {
		ds = make([]int, r)
	} else {
		ds = dsArr[:r]
	}
	fillRowMajor(ds, dims)
	last := r - 1
	c := stridedCopy[T]{dst: dst, src: src, dims: dims, ss: ss, ds: ds, a: -1, last: last}
	if sl := ss[last]; sl > 1 {
		// The destination's fastest axis is strided in the source: tile it against
		// the source's fastest axis if that is another one.
		for k := range last {
			if s := ss[k]; s != 0 && s < sl && (c.a < 0 || s <= ss[c.a]) {
				c.a = k
			}
		}
	}
	if n0 := dims[0]; r >= 2 && c.a != 0 && n0 >= 2 && len(dst) >= parallelCopyMin {
		gatherSlabs(dst, src, dims, ss, ds, c.a, offset)
		return
	}
	c.loop(0, offset, 0)
}

// gatherSlabs is the parallel path of gather over its coalesced layout (dims,
// source strides ss, destination strides ds, tiled axis a): slabs of the outermost
// axis go to goroutines, disjoint parts of dst, so the result is the same for any
// split. Each slab is at least parallelCopyMin/2 elements. The workers share a copy
// of the layout, so that the closure does not capture gather's layout arrays: they
// stay on gather's stack, and a small copy allocates nothing.
func gatherSlabs[T element](dst, src []T, dims, ss, ds []int, a, offset int) {
	c := &stridedCopy[T]{dst: dst, src: src, dims: slices.Clone(dims), ss: slices.Clone(ss), ds: slices.Clone(ds), a: a, last: len(dims) - 1}
	s0, d0 := ss[0], ds[0]
	vmath.ParallelFor(dims[0], max(1, parallelCopyMin/2/d0), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			c.loop(1, offset+i*s0, i*d0)
		}
	})
}

// parallelCopyMin is the fewest elements a copy splits over goroutines: a copy is
// bound by memory bandwidth, which one core of a small machine nearly saturates
// below a few megabytes.
const parallelCopyMin = 1 << 19

// stridedCopy is the state of one gather over a coalesced layout: dims, source
// strides ss and (row-major) destination strides ds. a is the axis tiled against
// last, or -1.
type stridedCopy[T element] struct {
	dst, src []T
	dims     []int
	ss, ds   []int
	a, last  int
}

// loop copies the sub-block of axes level.. at source offset so and destination
// offset do. The loop nest follows the destination's axis order, except that the
// tiled axis a is handled together with the last axis.
func (c *stridedCopy[T]) loop(level, so, do int) {
	switch {
	case level == c.a:
		c.loop(level+1, so, do)
	case level == c.last:
		if c.a >= 0 {
			c.tiles(so, do)
		} else {
			c.run(so, do)
		}
	case level == c.last-1 && c.a < 0:
		// Rows of the last axis: keep the row loop out of the recursion, which
		// matters when rows are short.
		n, sl, dl := c.dims[level], c.ss[level], c.ds[level]
		for range n {
			c.run(so, do)
			so += sl
			do += dl
		}
	default:
		n, sl, dl := c.dims[level], c.ss[level], c.ds[level]
		for range n {
			c.loop(level+1, so, do)
			so += sl
			do += dl
		}
	}
}

// run copies one run of the last axis.
func (c *stridedCopy[T]) run(so, do int) {
	n := c.dims[c.last]
	d := c.dst[do : do+n]
	switch s := c.ss[c.last]; s {
	case 1:
		copy(d, c.src[so:so+n])
	case 0:
		v := c.src[so]
		for i := range d {
			d[i] = v
		}
	default:
		for i := range d {
			d[i] = c.src[so]
			so += s
		}
	}
}

// tiles copies the 2-D block of axes (a, last) in blockSize x blockSize blocks of
// tileSize x tileSize tiles. Within a block the tile loop over a runs inside the one
// over last, so that consecutive tiles read consecutive source memory when a has
// source stride 1.
func (c *stridedCopy[T]) tiles(so, do int) {
	nb, sb := c.dims[c.last], c.ss[c.last]
	na, sa, da := c.dims[c.a], c.ss[c.a], c.ds[c.a]
	for j0 := 0; j0 < nb; j0 += blockSize {
		j1 := min(j0+blockSize, nb)
		for i0 := 0; i0 < na; i0 += blockSize {
			i1 := min(i0+blockSize, na)
			for j := j0; j < j1; j += tileSize {
				bl := min(tileSize, j1-j)
				for i := i0; i < i1; i += tileSize {
					al := min(tileSize, i1-i)
					s, d := so+j*sb+i*sa, do+j+i*da
					if al == tileSize && bl == tileSize && sa == 1 {
						tile8(c.dst, c.src, s, d, sb, da)
					} else {
						tile(c.dst, c.src, s, d, sa, sb, da, al, bl)
					}
				}
			}
		}
	}
}

// tile8 transposes a full 8x8 tile of a source with unit stride along a:
// dst[do + p*da + q] = src[so + p + q*sb]. Slicing the eight source runs first lets
// the compiler drop every bounds check in the body.
func tile8[T element](dst, src []T, so, do, sb, da int) {
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

// tile copies an al x bl tile: dst[do + p*da + q] = src[so + p*sa + q*sb].
func tile[T element](dst, src []T, so, do, sa, sb, da, al, bl int) {
	for p := range al {
		d := dst[do+p*da : do+p*da+bl]
		s := so + p*sa
		for q := range d {
			d[q] = src[s]
			s += sb
		}
	}
}
