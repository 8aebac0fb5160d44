package tensor

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
// operand are merged, so a contiguous operand set is a single run. Walking
// allocates only the walker's small slices, never per element.
type walker struct {
	n     int              // length of each innermost run
	inner [maxOperands]int // strides along the run
	off   [maxOperands]int // offsets of the current run's first elements

	dims    []int              // outer axes, outermost first
	st      [][maxOperands]int // strides of the outer axes
	idx     []int              // odometer over dims
	runs    int                // runs not yet visited
	started bool
}

// newWalker returns a walker over shape for operands with the given offsets and
// strides (one strides slice of len(shape) per operand, at most maxOperands).
func newWalker(shape []int, offs [maxOperands]int, strides ...[]int) walker {
	nop := len(strides)
	w := walker{off: offs}
	total := prod(shape)
	if total == 0 {
		return w
	}
	dims := make([]int, 0, len(shape))
	st := make([][maxOperands]int, 0, len(shape))
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
	w.dims = dims[:last]
	w.st = st[:last]
	w.idx = make([]int, last)
	w.runs = total / w.n
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
	for d := len(w.dims) - 1; d >= 0; d-- {
		w.idx[d]++
		s := &w.st[d]
		w.off[0] += s[0]
		w.off[1] += s[1]
		w.off[2] += s[2]
		if w.idx[d] < w.dims[d] {
			return true
		}
		n := w.dims[d]
		w.off[0] -= s[0] * n
		w.off[1] -= s[1] * n
		w.off[2] -= s[2] * n
		w.idx[d] = 0
	}
	return true
}

// element is the element type of a tensor's storage.
type element interface{ float64 | complex128 }

// gather copies the elements of the strided view (shape, strides, offset) of src into
// dst in row-major order; len(dst) must be prod(shape).
func gather[T element](dst, src []T, shape, strides []int, offset int) {
	if len(dst) == 0 {
		return
	}
	w := newWalker(shape, [maxOperands]int{0, offset}, rowMajorStrides(shape), strides)
	for w.next() {
		o, a, sa := w.off[0], w.off[1], w.inner[1]
		switch sa {
		case 1:
			copy(dst[o:o+w.n], src[a:a+w.n])
		case 0:
			v := src[a]
			d := dst[o : o+w.n]
			for i := range d {
				d[i] = v
			}
		default:
			d := dst[o : o+w.n]
			for i := range d {
				d[i] = src[a]
				a += sa
			}
		}
	}
}
