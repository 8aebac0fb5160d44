package opkit

import (
	"iter"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// Lanes is the layout of a row-major array around one of its axes: the shape
// [Outer, Len, Inner], where Outer is the product of the dims before the axis, Len
// the dim of the axis and Inner the product of the dims after it. Element (i, k, j)
// is at offset
//
//	(i*Len + k)*Inner + j.
//
// A lane is the line of the Len elements (i, 0, j), ..., (i, Len-1, j) along the
// axis: what one output of a reduction over the axis reads, or what one run of a
// cumulative sum along it scans. There are Outer*Inner lanes, numbered
// o = i*Inner + j, which is also the row-major offset of element (i, j) of the
// [Outer, Inner] array that a reduction over the axis produces.
//
// Lanes lets a kernel that works along an axis run without index arithmetic of its
// own: [Lanes.All] visits the lanes one by one (strided unless Inner is 1), and
// [Lanes.Rows] visits the contiguous rows (i, k, 0..Inner-1), for kernels that keep
// their innermost loop contiguous so that it vectorizes. Both are range-over-func
// iterators that the compiler inlines; a kernel whose inner loop is hot is best
// called from the loop body as a function of its own, since a long inner loop
// inlined into the iterator's loop can run short of registers.
type Lanes struct{ Outer, Len, Inner int }

// LanesOf returns the Lanes of a row-major array of the given shape along axis
// (negative axes count from the end). An axis out of range, a negative dim, or a shape
// whose size overflows int, is an error wrapping chainrules.ErrInvalidArgument.
func LanesOf(shape []int, axis int) (Lanes, error) {
	if _, err := tensor.ShapeSize(shape...); err != nil {
		return Lanes{}, err
	}
	a, err := Axis("lanes", axis, len(shape))
	if err != nil {
		return Lanes{}, err
	}
	// The whole product fits in an int (ShapeSize), so its parts do too.
	outer, _ := tensor.ShapeSize(shape[:a]...)
	inner, _ := tensor.ShapeSize(shape[a+1:]...)
	return Lanes{Outer: outer, Len: shape[a], Inner: inner}, nil
}

// Axis returns axis as an index into the dims of a shape of the given rank, a
// negative axis counting from the end (Python's: -1 is the last): the one
// normalisation of the axis parameter of the op packages. An axis outside
// [-rank, rank) is an error wrapping cr.ErrInvalidArgument whose message starts
// with op.
func Axis(op string, axis, rank int) (int, error) {
	a := axis
	if a < 0 {
		a += rank
	}
	if a < 0 || a >= rank {
		return 0, cr.Errorf(cr.ErrInvalidArgument, "%s: axis %d out of range for rank %d", op, axis, rank)
	}
	return a, nil
}

// Offset returns the offset of element (i, k, j), (i*Len + k)*Inner + j: with j = 0,
// the start of the contiguous row (i, k, 0..Inner-1).
func (l Lanes) Offset(i, k, j int) int { return (i*l.Len+k)*l.Inner + j }

// Count returns the number of lanes, Outer*Inner.
func (l Lanes) Count() int { return l.Outer * l.Inner }

// Size returns the number of elements, Outer*Len*Inner.
func (l Lanes) Size() int { return l.Outer * l.Len * l.Inner }

// Lane is one lane of a [Lanes]: the Len elements at offsets Off, Off+Stride, ...,
// Off+(Len-1)*Stride.
type Lane struct{ Off, Stride, Len int }

// At returns the offset of element k of the lane, Off + k*Stride.
func (l Lane) At(k int) int { return l.Off + k*l.Stride }

// All returns an iterator over the lanes in order o = 0, 1, ..., Count()-1, yielding
// o and lane o, whose element k is (i, k, j) with o = i*Inner + j: offset
// i*Len*Inner + j and stride Inner. A cumulative sum along the axis reads
//
//	for _, l := range lanes.All() {
//		var s float64
//		for k := range l.Len {
//			s += xs[l.At(k)]
//			y[l.At(k)] = s
//		}
//	}
func (l Lanes) All() iter.Seq2[int, Lane] {
	return func(yield func(int, Lane) bool) {
		o := 0
		for i := range l.Outer {
			base := i * l.Len * l.Inner
			for j := range l.Inner {
				if !yield(o, Lane{Off: base + j, Stride: l.Inner, Len: l.Len}) {
					return
				}
				o++
			}
		}
	}
}

// Rows returns an iterator over the contiguous rows (i, k, 0..Inner-1), for i and
// then k increasing (storage order). It yields the offset o = i*Inner of row i of
// the reduced [Outer, Inner] array and the offset (i*Len + k)*Inner of the row, so
// that a kernel keeps a contiguous innermost loop, the same j in both:
//
//	for o, off := range lanes.Rows() {
//		acc, row := out[o:o+lanes.Inner], xs[off:off+lanes.Inner]
//		for j, v := range row {
//			acc[j] += v
//		}
//	}
//
// is the sum over the axis. When Inner is 0 there are no rows.
func (l Lanes) Rows() iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		if l.Inner == 0 {
			return
		}
		off := 0
		for i := range l.Outer {
			o := i * l.Inner
			for range l.Len {
				if !yield(o, off) {
					return
				}
				off += l.Inner
			}
		}
	}
}
