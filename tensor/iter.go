package tensor

import "github.com/chainrules-go/chainrules/internal/vmath"

// maxOperands is the most strided operands a walker steps through together (the
// destination and two sources of a binary op).
const maxOperands = 3

// walker visits the elements of up to three strided operands of a common shape in
// row-major order, one innermost run at a time, so that kernels run a plain loop
// over each run:
//
//	w := newWalker(shape, offs, strides...)
//	for w.next() {
//		o, a := w.off[0], w.off[1]
//		for range w.n { dst[o] = f(src[a]); o += w.inner[0]; a += w.inner[1] }
//	}
//
// Axes of size 1 are dropped and neighbouring axes that are contiguous for every
// operand are merged, so a contiguous operand set is a single run. A walker makes
// at most one small allocation, never one per element.
type walker struct {
	n     int              // length of each innermost run
	inner [maxOperands]int // strides along the run
	off   [maxOperands]int // offsets of the current run's first elements

	// The outer axes, outermost first, in one allocation: buf[:nd] holds their dims,
	// buf[nd:2nd] the odometer, and buf[2nd:] their strides, maxOperands per axis.
	nd      int
	buf     []int
	runs    int // runs not yet visited
	started bool
}

// newWalker returns a walker over shape for operands with the given offsets and
// strides (one strides slice of len(shape) per operand, at most maxOperands). It
// allocates nothing when the operands coalesce to a single run.
func newWalker(shape []int, offs [maxOperands]int, strides ...[]int) walker {
	nop := len(strides)
	w := walker{off: offs}
	total := prod(shape)
	if total == 0 {
		return w
	}
	// First pass: coalesce into a stack buffer when the rank is small.
	var dimsArr [8]int
	var stArr [8][maxOperands]int
	dims, st := dimsArr[:0], stArr[:0]
	for k, d := range shape {
		if d == 1 {
			continue
		}
		var s [maxOperands]int
		for p := range nop {
			s[p] = strides[p][k]
		}
		if m := len(dims) - 1; m >= 0 {
			// Merge with the previous (outer) axis if stepping it once equals
			// stepping this one d times, for every operand.
			merge := true
			for p := range nop {
				if st[m][p] != s[p]*d {
					merge = false
					break
				}
			}
			if merge {
				dims[m] *= d
				st[m] = s
				continue
			}
		}
		dims = append(dims, d)
		st = append(st, s)
	}
	if len(dims) == 0 {
		w.n = 1
		w.runs = 1
		return w
	}
	last := len(dims) - 1
	w.n = dims[last]
	w.inner = st[last]
	w.runs = total / w.n
	w.nd = last
	if last > 0 {
		w.buf = make([]int, (2+maxOperands)*last)
		copy(w.buf, dims[:last])
		for d := range last {
			copy(w.buf[2*last+maxOperands*d:], st[d][:])
		}
	}
	return w
}

// next moves to the next run and reports whether there is one.
func (w *walker) next() bool {
	if w.runs == 0 {
		return false
	}
	w.runs--
	if !w.started {
		w.started = true
		return true
	}
	nd := w.nd
	dims, idx, st := w.buf[:nd], w.buf[nd:2*nd], w.buf[2*nd:]
	for d := nd - 1; d >= 0; d-- {
		s := st[maxOperands*d : maxOperands*d+maxOperands]
		idx[d]++
		w.off[0] += s[0]
		w.off[1] += s[1]
		w.off[2] += s[2]
		if idx[d] < dims[d] {
			return true
		}
		n := dims[d]
		w.off[0] -= s[0] * n
		w.off[1] -= s[1] * n
		w.off[2] -= s[2] * n
		idx[d] = 0
	}
	return true
}

// element is the element type of a tensor's storage.
type element = Numeric

// sumStrided returns the sum of n elements of x starting at i with stride s. Single
// precision sums are accumulated in double precision (sumWide).
func sumStrided[T element](x []T, i, n, s int) T {
	switch xs := any(x).(type) {
	case []float64:
		if s == 1 {
			return any(vmath.Sum(xs[i : i+n])).(T)
		}
	case []complex128:
		if s == 1 {
			return any(vmath.Sum(xs[i : i+n])).(T)
		}
	case []float32:
		return any(float32(sumWide(xs, i, n, s))).(T)
	case []complex64:
		return any(complex64(sumWideC(xs, i, n, s))).(T)
	}
	var s0, s1 T
	k := 0
	for ; k+2 <= n; k += 2 {
		s0 += x[i]
		s1 += x[i+s]
		i += 2 * s
	}
	if k < n {
		s0 += x[i]
	}
	return s0 + s1
}

// sumWide returns the sum of n elements of x starting at i with stride s,
// accumulated in the wider type W (float64 for float32 elements, complex128 for
// complex64) with four partial sums. The caller rounds the result to T once, so the
// error of a single-precision sum is at most
//
//	|fl(S) - S| <= u32 |S| + n u64 sum_i |x_i|,   u32 = 2^-24, u64 = 2^-53,
//
// which is u32 |S| plus less than 2^-24 sum_i |x_i| for every n below 2^29: the
// error of one rounding, whatever n, where a float32 loop would lose up to n u32.
func sumWide(x []float32, i, n, s int) float64 {
	var s0, s1, s2, s3 float64
	k := 0
	for ; k+4 <= n; k += 4 {
		s0 += float64(x[i])
		s1 += float64(x[i+s])
		s2 += float64(x[i+2*s])
		s3 += float64(x[i+3*s])
		i += 4 * s
	}
	for ; k < n; k++ {
		s0 += float64(x[i])
		i += s
	}
	return (s0 + s1) + (s2 + s3)
}

// sumWideC is sumWide for complex64 elements, accumulated in complex128 (the bound
// holds for the real and imaginary parts separately).
func sumWideC(x []complex64, i, n, s int) complex128 {
	var s0, s1 complex128
	k := 0
	for ; k+2 <= n; k += 2 {
		s0 += complex128(x[i])
		s1 += complex128(x[i+s])
		i += 2 * s
	}
	if k < n {
		s0 += complex128(x[i])
	}
	return s0 + s1
}

// addDotRun returns s + sum_k x_{i + k si} y_{j + k sj} over the current run of w,
// whose operands 0 and 1 are x and y (offsets i, j and strides si, sj along the run):
// through dotContig when both are contiguous, and otherwise adding the products to s
// one by one.
func addDotRun(s float64, x, y []float64, w *walker) float64 {
	i, j, si, sj := w.off[0], w.off[1], w.inner[0], w.inner[1]
	if si == 1 && sj == 1 {
		return s + dotContig(x[i:i+w.n], y[j:j+w.n])
	}
	for range w.n {
		s += x[i] * y[j]
		i += si
		j += sj
	}
	return s
}

// dotContig returns sum_i x_i y_i for float64 slices of equal length.
func dotContig(x, y []float64) float64 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		a, b := x[i:i+4:i+4], y[i:i+4:i+4]
		s0 += a[0] * b[0]
		s1 += a[1] * b[1]
		s2 += a[2] * b[2]
		s3 += a[3] * b[3]
	}
	for ; i < len(x); i++ {
		s0 += x[i] * y[i]
	}
	return (s0 + s1) + (s2 + s3)
}
