package einsum

import (
	"slices"
	"unsafe"

	"github.com/chainrules-go/chainrules/internal/vmath"
	"github.com/chainrules-go/chainrules/tensor"
)

// block is an intermediate of a contraction: a contiguous row-major tensor whose
// dims carry distinct labels. owned is false when data aliases a caller's operand,
// which must never be written or returned.
type block[T tensor.Numeric] struct {
	data   []T
	labels []int
	owned  bool
	exact  bool // data was allocated for the caller's result: never pooled
}

func (x *block[T]) shape(size *[maxLabels]int) []int {
	sh := make([]int, len(x.labels))
	for i, l := range x.labels {
		sh[i] = size[l]
	}
	return sh
}

func rowMajor(shape []int) []int {
	st := make([]int, len(shape))
	s := 1
	for k := len(shape) - 1; k >= 0; k-- {
		st[k] = s
		s *= max(shape[k], 1)
	}
	return st
}

func numel(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// run evaluates the plan on contiguous row-major operand data and returns the
// result's data (fresh, row-major in the output's label order).
func run[T tensor.Numeric](p *Plan, data [][]T) []T {
	size := &p.b.size
	live := make([]block[T], len(data))
	for k := range data {
		live[k] = unary(p, k, data[k])
	}
	for _, st := range p.path {
		i, j := st[0], st[1]
		var need lset
		need = setOf(p.b.out)
		for q := range live {
			if q != i && q != j {
				need = need.or(setOf(live[q].labels))
			}
		}
		var want []int
		if len(live) == 2 {
			want = p.b.out
		}
		z := pair(live[i], live[j], need, size, want)
		release(live[i])
		release(live[j])
		live = append(append(append([]block[T]{}, live[:i]...), live[i+1:j]...), live[j+1:]...)
		live = append(live, z)
	}
	x := live[0]
	// Final layout: sum out anything the output lacks, then permute to its order.
	if y := sumOut(x, setOf(p.b.out), size); y.owned && len(y.labels) < len(x.labels) {
		release(x)
		x = y
	}
	var out []T
	if slices.Equal(x.labels, p.b.out) {
		if x.exact {
			return x.data
		}
		out = makeNoZero[T](len(x.data))
		copy(out, x.data)
	} else {
		out = makeNoZero[T](len(x.data)) // permuteInto writes every element
		permuteInto(out, x, p.b.out, size)
	}
	release(x)
	return out
}

// release hands the storage of an intermediate the caller no longer uses back to
// the module's buffer pool (vmath.Put), which vmath.MakeNoZero allocates from:
// intermediates are short-lived and often large. Results handed to callers go
// back only when their owner (a tape's Release) knows nobody refers to them.
func release[T tensor.Numeric](x block[T]) {
	if x.owned && !x.exact {
		putBuf(x.data)
	}
}

// makeNoZero allocates n elements of T, not necessarily zero, from the module's
// buffer pool (vmath.MakeNoZero). The pool holds 8-byte words: a float32 buffer is
// a float64 buffer of half the length (rounded up) seen as twice as many float32s,
// a complex64 buffer one of the same length, so that single-precision
// intermediates are reused as double-precision ones are, with no clearing and no
// garbage.
func makeNoZero[T tensor.Numeric](n int) []T {
	var z T
	switch any(z).(type) {
	case float64:
		return any(vmath.MakeNoZero[float64](n)).([]T)
	case complex128:
		return any(vmath.MakeNoZero[complex128](n)).([]T)
	case float32:
		w := vmath.MakeNoZero[float64]((n + 1) / 2)
		return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(w))), 2*cap(w))[:n]
	default: // complex64
		w := vmath.MakeNoZero[float64](n)
		return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(w))), cap(w))[:n]
	}
}

// putBuf hands b, a buffer of makeNoZero, back to the buffer pool (vmath.Put),
// as the words it was allocated as.
func putBuf[T tensor.Numeric](b []T) {
	if cap(b) == 0 {
		return
	}
	switch v := any(b).(type) {
	case []float64:
		vmath.Put(v)
	case []complex128:
		vmath.Put(v)
	case []float32:
		if cap(v)%2 == 0 {
			vmath.Put(unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(v))), cap(v)/2))
		}
	case []complex64:
		vmath.Put(unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(v))), cap(v)))
	}
}

// unary applies operand k's diagonals (repeated labels), drops its broadcast dims
// and sums the labels only it carries, giving a block over p.kept[k].
func unary[T tensor.Numeric](p *Plan, k int, data []T) block[T] {
	dims, shape := p.b.dims[k], p.b.shapes[k]
	kept, sum := p.kept[k], p.sum[k]
	direct := len(sum) == 0
	if direct {
		q := 0
		for _, l := range dims {
			if l < 0 {
				continue
			}
			if q >= len(kept) || kept[q] != l {
				direct = false
				break
			}
			q++
		}
		direct = direct && q == len(kept)
	}
	if direct {
		return block[T]{data: data, labels: kept}
	}
	st := rowMajor(shape)
	// Index space: summed labels (outer), then kept labels; the source stride of a
	// label is the sum of the strides of its dims (a diagonal).
	labels := append(slices.Clone(sum), kept...)
	sh := make([]int, len(labels))
	src := make([]int, len(labels))
	dst := make([]int, len(labels))
	for i, l := range labels {
		sh[i] = p.b.size[l]
		for d, dl := range dims {
			if dl == l {
				src[i] += st[d]
			}
		}
	}
	outSh := sh[len(sum):]
	copy(dst[len(sum):], rowMajor(outSh))
	out := makeNoZero[T](numel(outSh))
	if len(sum) > 0 {
		clear(out)
	}
	strided(out, dst, data, src, sh, len(sum) > 0)
	return block[T]{data: out, labels: kept, owned: true}
}

// sumOut sums the labels of x that are not in keep.
func sumOut[T tensor.Numeric](x block[T], keep lset, size *[maxLabels]int) block[T] {
	var gone, kept []int
	for _, l := range x.labels {
		if keep.has(l) {
			kept = append(kept, l)
		} else {
			gone = append(gone, l)
		}
	}
	if len(gone) == 0 {
		return x
	}
	srcSt := rowMajor(x.shape(size))
	pos := func(l int) int { return slices.Index(x.labels, l) }
	labels := append(gone, kept...)
	sh := make([]int, len(labels))
	src := make([]int, len(labels))
	dst := make([]int, len(labels))
	for i, l := range labels {
		sh[i] = size[l]
		src[i] = srcSt[pos(l)]
	}
	outSh := sh[len(gone):]
	copy(dst[len(gone):], rowMajor(outSh))
	out := makeNoZero[T](numel(outSh))
	clear(out)
	strided(out, dst, x.data, src, sh, true)
	return block[T]{data: out, labels: kept, owned: true}
}

// permute returns x with its dims in the order of labels (a permutation of
// x.labels), as a fresh block.
func permute[T tensor.Numeric](x block[T], labels []int, size *[maxLabels]int) block[T] {
	out := makeNoZero[T](len(x.data))
	permuteInto(out, x, labels, size)
	return block[T]{data: out, labels: slices.Clone(labels), owned: true}
}

// permuteInto writes x with its dims in the order of labels into out.
func permuteInto[T tensor.Numeric](out []T, x block[T], labels []int, size *[maxLabels]int) {
	srcSt := rowMajor(x.shape(size))
	sh := make([]int, len(labels))
	src := make([]int, len(labels))
	for i, l := range labels {
		sh[i] = size[l]
		src[i] = srcSt[slices.Index(x.labels, l)]
	}
	strided(out, rowMajor(sh), x.data, src, sh, false)
}

// pair contracts x and y, keeping the labels in need. The labels split into batch
// (both, kept), contracted (both, not kept), free in x and free in y; after
// permuting each operand (only if its layout does not already fit) to
// [batch, free, contracted] or [batch, contracted, free], the contraction is one
// batched GEMM whose result carries [batch, free x, free y].
//
// want, if not nil, is the label order the caller needs next; when the roles of x
// and y swapped would produce it directly, they are swapped (C^T = B^T A^T) to save
// a final permutation.
func pair[T tensor.Numeric](x, y block[T], need lset, size *[maxLabels]int, want []int) block[T] {
	ys := setOf(y.labels)
	xs := setOf(x.labels)
	if x2 := sumOut(x, need.or(ys), size); len(x2.labels) < len(x.labels) {
		defer release(x2)
		x = x2
	}
	if y2 := sumOut(y, need.or(xs), size); len(y2.labels) < len(y.labels) {
		defer release(y2)
		y = y2
	}
	ys, xs = setOf(y.labels), setOf(x.labels)
	pick := pickLabels
	both := xs.and(ys)
	batchSet, conSet := both.and(need), both.andNot(need)
	fa, fb := pick(x.labels, xs.andNot(ys)), pick(y.labels, ys.andNot(xs))
	// Two candidate orders of the shared labels: x's and y's. Count the elements
	// each would copy and keep the cheaper.
	type layout struct {
		batch, con []int
		tA, tB     bool
		okA, okB   bool
		cost       int
	}
	try := func(order []int) layout {
		L := layout{batch: pick(order, batchSet), con: pick(order, conSet)}
		cat := func(parts ...[]int) []int { return slices.Concat(parts...) }
		switch {
		case slices.Equal(x.labels, cat(L.batch, fa, L.con)):
			L.okA = true
		case slices.Equal(x.labels, cat(L.batch, L.con, fa)):
			L.okA, L.tA = true, true
		default:
			L.cost += len(x.data)
		}
		switch {
		case slices.Equal(y.labels, cat(L.batch, L.con, fb)):
			L.okB = true
		case slices.Equal(y.labels, cat(L.batch, fb, L.con)):
			L.okB, L.tB = true, true
		default:
			L.cost += len(y.data)
		}
		return L
	}
	L := try(x.labels)
	if L.cost > 0 {
		if L2 := try(y.labels); L2.cost < L.cost {
			L = L2
		}
	}
	if want != nil && !slices.Equal(want, slices.Concat(L.batch, fa, fb)) && slices.Equal(want, slices.Concat(L.batch, fb, fa)) {
		return pair(y, x, need, size, want)
	}
	var zero T
	_, cplx := any(zero).(complex128)
	if _, c64 := any(zero).(complex64); c64 {
		cplx = true
	}
	if z, ok := pairStrided(x, y, pick(x.labels, batchSet), pick(x.labels, conSet), fa, fb, size, want, !cplx); ok {
		return z
	}
	xd, yd := x.data, y.data
	if !L.okA {
		xp := permute(x, slices.Concat(L.batch, fa, L.con), size)
		defer release(xp)
		xd = xp.data
	}
	if !L.okB {
		yp := permute(y, slices.Concat(L.batch, L.con, fb), size)
		defer release(yp)
		yd = yp.data
	}
	prodOf := func(ls []int) int {
		n := 1
		for _, l := range ls {
			n *= size[l]
		}
		return n
	}
	nb, m, n, k := prodOf(L.batch), prodOf(fa), prodOf(fb), prodOf(L.con)
	labels := slices.Concat(L.batch, fa, fb)
	// The last step of a plan writes the caller's result directly when its layout is
	// already the output's.
	exact := want != nil && slices.Equal(labels, want)
	var out []T
	if exact {
		out = makeNoZero[T](nb * m * n) // the product writes all of it (beta = 0)
	} else {
		out = makeNoZero[T](nb * m * n)
	}
	batchGemm(L.tA, L.tB, nb, m, n, k, xd, yd, out)
	return block[T]{data: out, labels: labels, owned: true, exact: exact}
}

// pickLabels returns the labels of from that are in in, in from's order.
func pickLabels(from []int, in lset) []int {
	var r []int
	for _, l := range from {
		if in.has(l) {
			r = append(r, l)
		}
	}
	return r
}

// stridedOff turns pairStrided off (tests compare it with the permuting path).
var stridedOff = false

// pairStrided is pair's product without copies: when each of x and y, and the
// caller's layout want, holds every group of labels (batch, contracted, free in x,
// free in y) as one dim (consecutive, in one order), the contraction is one
// tensor.GemmBatch call on the operands where they are, with the leading
// dimensions and batch strides of those dims, writing the result in want's layout
// when it holds its groups so (the last step of a plan; else [batch, fa, fb]). The
// contracted dims x carries (n, k, d) and y carries (k, d, d), say, give
// out[n, k, i] = sum_j x[n, k, j] y[k, i, j] as k products of n x d by d x d with
// leading dimensions k d, d and k d: no permutation of x, y or the result.
//
// It reports false, and pair permutes, when a group is split or ordered otherwise
// in one of the operands, or when a product would have a dimension below 2: a
// matrix-vector or outer-product shape runs tensor.GemmBatch's plain loops only on
// contiguous vectors, so its result could differ in the last bits from the one of
// the permuted operands. From 2 up, every shape runs internal/gemm's packed (or
// direct) kernels, whose results do not depend on the layout of the operands
// (packing absorbs it): bit for bit those of pair's permuted operands. swap allows
// one exchange of x and y (C^T = B^T A^T), to put want's innermost dim in y: for
// real types only, whose products a b and b a, and FMA chains over them, round
// alike; a complex product's parts add their two terms in the order of the
// factors (re a im b + im a re b), so pair's roles are kept.
func pairStrided[T tensor.Numeric](x, y block[T], batch, con, fa, fb []int, size *[maxLabels]int, want []int, swap bool) (block[T], bool) {
	if stridedOff {
		return block[T]{}, false
	}
	prodOf := func(ls []int) int {
		n := 1
		for _, l := range ls {
			n *= size[l]
		}
		return n
	}
	nb, m, n, k := prodOf(batch), prodOf(fa), prodOf(fb), prodOf(con)
	if len(fa) == 0 || len(fb) == 0 || len(con) == 0 || nb == 0 || m < 2 || n < 2 || k < 2 {
		return block[T]{}, false
	}
	lastOf := func(ls []int) int { return ls[len(ls)-1] }
	var sa [3]int // strides of batch, fa, con in x
	var sb [3]int // strides of batch, con, fb in y
	for g, grp := range [][]int{batch, fa, con} {
		s, ok := span(x.labels, grp, size)
		if !ok {
			return block[T]{}, false
		}
		sa[g] = s
	}
	for g, grp := range [][]int{batch, con, fb} {
		s, ok := span(y.labels, grp, size)
		if !ok {
			return block[T]{}, false
		}
		sb[g] = s
	}
	// C: want's layout if it holds the groups as dims with fb innermost, else
	// [batch, fa, fb].
	labels := slices.Concat(batch, fa, fb)
	exact := false
	strideC, ldc := m*n, n
	if want != nil && len(want) == len(labels) && setOf(want) == setOf(labels) {
		sc, okC := [3]int{}, true
		for g, grp := range [][]int{batch, fa, fb} {
			s, ok := span(want, grp, size)
			if !ok {
				okC = false
				break
			}
			sc[g] = s
		}
		switch {
		case okC && lastOf(want) == lastOf(fb):
			labels, exact = slices.Clone(want), true
			strideC, ldc = sc[0], sc[1]
		case okC && swap && lastOf(want) == lastOf(fa):
			if z, ok := pairStrided(y, x, batch, con, fb, fa, size, want, false); ok {
				return z, true
			}
		}
	}
	lda, tA := sa[1], false
	switch lastOf(x.labels) {
	case lastOf(con):
	case lastOf(fa):
		lda, tA = sa[2], true
	default:
		return block[T]{}, false
	}
	ldb, tB := sb[1], false
	switch lastOf(y.labels) {
	case lastOf(fb):
	case lastOf(con):
		ldb, tB = sb[2], true
	default:
		return block[T]{}, false
	}
	out := makeNoZero[T](nb * m * n) // the product writes all of it (beta = 0)
	if err := tensor.GemmBatch(tA, tB, m, n, k, 1, x.data, lda, sa[0], y.data, ldb, sb[0], 0, out, ldc, strideC, nb); err != nil {
		// The sizes come from the plan and the slices are allocated to fit them: an
		// error here is a bug in this package, not in the caller's data.
		panic("einsum: internal error: " + err.Error())
	}
	return block[T]{data: out, labels: labels, owned: true, exact: exact}, true
}

// span returns the stride of the dims of a row-major block over labels (sizes in
// size) that carry group, seen as one dim, and whether they can be: the labels of
// group are consecutive in labels, in group's order. An empty group is a dim of
// size 1 (stride 0).
func span(labels, group []int, size *[maxLabels]int) (int, bool) {
	if len(group) == 0 {
		return 0, true
	}
	i := slices.Index(labels, group[0])
	if i < 0 || i+len(group) > len(labels) || !slices.Equal(labels[i:i+len(group)], group) {
		return 0, false
	}
	s := 1
	for _, l := range labels[i+len(group):] {
		s *= max(size[l], 1)
	}
	return s, true
}
