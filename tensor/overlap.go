package tensor

import "unsafe"

// Functions that write into storage the caller passes (Copy, Space.Accumulate and
// Space.AddRows into an accumulator, GemmBatch into C) follow NumPy's rule for an
// out argument: the result is the one a fresh destination would get, whatever the
// destination shares with the sources. They test for overlap by address, since two
// tensors over one array need not have the same backing slice (FromFloat64 keeps
// the slice it is given, so s[0:8:8] and s[2:10:10] make two tensors over one array),
// and read an overlapping source through a temporary copy.

// span returns the half-open range [lo, hi) of the addresses of t's elements, and
// false if t has none. Every element of t lies in it, but for a strided view not
// every address in it is an element of t.
func (t *Dense) span() (lo, hi uintptr, ok bool) {
	if t.Size() == 0 {
		return 0, 0, false
	}
	last := t.offset
	for k, d := range t.shape {
		last += (d - 1) * t.strides[k]
	}
	es := uintptr(elemSize(t.dtype))
	base := t.addr()
	return base + uintptr(t.offset)*es, base + uintptr(last+1)*es, true
}

// addr returns the address of the start of t's backing slice.
func (t *Dense) addr() uintptr { return uintptr(t.data.ptr) }

// storageCap returns the capacity of t's backing slice.
func (t *Dense) storageCap() int { return t.data.cap }

// sliceAddr returns the address of s[0] (of the array behind s when s is empty).
func sliceAddr[T Numeric](s []T) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(s))) }

// mayOverlap reports whether a and b may share an element: whether the address
// ranges of their elements intersect. It is exact when both are contiguous; a
// strided view's range may interleave with another tensor's without sharing an
// element, and then mayOverlap reports true, which costs a caller a copy and never a
// wrong result.
func mayOverlap(a, b *Dense) bool {
	alo, ahi, aok := a.span()
	blo, bhi, bok := b.span()
	return aok && bok && alo < bhi && blo < ahi
}

// sameElements reports whether a and b have the same dtype and shape and element i
// of a is element i of b for every i: writing a[i] from b[i] in any order then reads
// each element before it is written.
func sameElements(a, b *Dense) bool {
	if a.dtype != b.dtype || len(a.shape) != len(b.shape) {
		return false
	}
	es := uintptr(elemSize(a.dtype))
	if a.addr()+uintptr(a.offset)*es != b.addr()+uintptr(b.offset)*es {
		return false
	}
	for k, d := range a.shape {
		if b.shape[k] != d || (d > 1 && a.strides[k] != b.strides[k]) {
			return false
		}
	}
	return true
}

// matrixOverlap reports whether the rows×cols matrix x (leading dimension ldx) may
// share an element with the m×n matrix c (leading dimension ldc). Neither may be
// empty. When x starts a whole number of elements from c, it is exact: each row of
// x is an interval of addresses, tested against the rows of c, so that disjoint
// blocks of one matrix (the panels of a blocked factorisation) do not overlap.
func matrixOverlap[T Numeric](x []T, rows, cols, ldx int, c []T, m, n, ldc int) bool {
	var z T
	es := unsafe.Sizeof(z)
	xlo, clo := sliceAddr(x), sliceAddr(c)
	xhi := xlo + uintptr((rows-1)*ldx+cols)*es
	chi := clo + uintptr((m-1)*ldc+n)*es
	if xlo >= chi || clo >= xhi {
		return false
	}
	diff := int64(xlo) - int64(clo)
	if diff%int64(es) != 0 {
		return true
	}
	d := int(diff / int64(es)) // x[0] is c[d]
	for i := range rows {
		// Row i of x is c[s : s+cols]; row p of c is c[p*ldc : p*ldc+n]. The first
		// row of c that ends after s is p0; the rows meet if it starts before s+cols.
		s := d + i*ldx
		p0 := max(floorDiv(s-n, ldc)+1, 0)
		if p0 < m && p0*ldc < s+cols {
			return true
		}
	}
	return false
}

// floorDiv returns floor(a / b) for b > 0.
func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// readApart returns x, the operand of a GemmBatch whose batch reads rows×cols
// matrices (leading dimension ld, batch stride stride), or, if they may share an
// element with the m×n matrices of c that the batch writes, a copy of the part of x
// that the batch reads. The arguments are valid and the sizes positive.
func readApart[T Numeric](x []T, batch, stride, rows, ld, cols int, c []T, strideC, m, ldc, n int) []T {
	lx := (batch-1)*stride + (rows-1)*ld + cols
	var overlap bool
	if batch == 1 {
		overlap = matrixOverlap(x, rows, cols, ld, c, m, n, ldc)
	} else {
		lc := (batch-1)*strideC + (m-1)*ldc + n
		overlap = matrixOverlap(x, 1, lx, lx, c, 1, lc, lc)
	}
	if !overlap {
		return x
	}
	return append([]T(nil), x[:lx]...)
}
