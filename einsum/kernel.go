package einsum

import (
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// strided computes dst[od] = src[os] (or dst[od] += src[os] when acc is set) for
// every index i of the space shape, with od = sum_k i_k dstSt[k] and
// os = sum_k i_k srcSt[k]. It is the one kernel behind permutations, diagonals
// (several dims of src folded into one stride), sums (a dst stride of 0) and
// diagonal embeddings (several dims of dst folded into one stride). The last dim is
// the innermost loop; callers put the dim with the smallest strides last.
func strided[T tensor.Numeric](dst []T, dstSt []int, src []T, srcSt []int, shape []int, acc bool) {
	// Drop dims of size 1 and merge dims that are contiguous in both operands.
	var shBuf, dBuf, sBuf [16]int
	sh, ds, ss, ok := opkit.MergeAxes2(shape, dstSt, srcSt, shBuf[:0], dBuf[:0], sBuf[:0])
	if !ok {
		return
	}
	if len(sh) == 0 {
		if acc {
			dst[0] += src[0]
		} else {
			dst[0] = src[0]
		}
		return
	}
	if len(sh) == 1 {
		run1(dst, ds[0], src, ss[0], sh[0], acc)
		return
	}
	// The two innermost loops run as a block without the odometer: the last dim,
	// and before it the dim along which src is densest (for a transpose, reading
	// columns of src while writing rows of dst, block by block).
	r := len(sh) - 1
	best := r - 1
	for k := range r {
		if ss[k] != 0 && (ss[best] == 0 || ss[k] < ss[best]) {
			best = k
		}
	}
	sh[best], sh[r-1] = sh[r-1], sh[best]
	ds[best], ds[r-1] = ds[r-1], ds[best]
	ss[best], ss[r-1] = ss[r-1], ss[best]
	outer := r - 1
	var idxBuf [16]int
	idx := idxBuf[:0]
	for range outer {
		idx = append(idx, 0)
	}
	od, os := 0, 0
	for {
		block2(dst[od:], ds[r-1], ds[r], src[os:], ss[r-1], ss[r], sh[r-1], sh[r], acc)
		if !opkit.Step2(idx, sh, ds, ss, &od, &os) {
			return
		}
	}
}

// block2 runs dst[i*d1 + j*d0] (+)= src[i*s1 + j*s0] over i < n1, j < n0, in tiles
// of 16×16 so that both operands stay in cache whatever their strides.
func block2[T tensor.Numeric](dst []T, d1, d0 int, src []T, s1, s0 int, n1, n0 int, acc bool) {
	const tile = 16
	if n0 <= tile || n1 <= tile || (s0 == 1 && d0 == 1) {
		for i := range n1 {
			run1(dst[i*d1:], d0, src[i*s1:], s0, n0, acc)
		}
		return
	}
	for i0 := 0; i0 < n1; i0 += tile {
		i1 := min(i0+tile, n1)
		for j0 := 0; j0 < n0; j0 += tile {
			m := min(j0+tile, n0) - j0
			for i := i0; i < i1; i++ {
				run1(dst[i*d1+j0*d0:], d0, src[i*s1+j0*s0:], s0, m, acc)
			}
		}
	}
}

// run1 runs dst[j*d] (+)= src[j*s] over j < n.
func run1[T tensor.Numeric](dst []T, d int, src []T, s int, n int, acc bool) {
	switch {
	case acc && d == 0:
		v := dst[0]
		for j, o := 0, 0; j < n; j, o = j+1, o+s {
			v += src[o]
		}
		dst[0] = v
	case acc:
		for j, p, o := 0, 0, 0; j < n; j, p, o = j+1, p+d, o+s {
			dst[p] += src[o]
		}
	case d == 1 && s == 1:
		copy(dst[:n], src[:n])
	case d == 1:
		dst = dst[:n]
		for j, o := 0, 0; j < n; j, o = j+1, o+s {
			dst[j] = src[o]
		}
	default:
		for j, p, o := 0, 0, 0; j < n; j, p, o = j+1, p+d, o+s {
			dst[p] = src[o]
		}
	}
}

// batchGemm computes, for p < batch, the row-major product
//
//	C[p] = op(A[p]) op(B[p]),   op(A[p]) m×k, op(B[p]) k×n, C[p] m×n,
//
// where A[p] is stored m×k (k×m when transA) at a[p*m*k:], B[p] is stored k×n (n×k
// when transB) at b[p*k*n:] and C[p] at c[p*m*n:] (c is overwritten). op is the plain
// transpose, never conjugated. Every pairwise contraction of the package ends here,
// in one call of tensor.GemmBatch: the one path of the project's matrix products,
// which picks the kernel (plain loops for matrix-vector shapes, the packed GEMM, or
// gonum's BLAS under tensor.UseBLAS64).
func batchGemm[T tensor.Numeric](transA, transB bool, batch, m, n, k int, a, b, c []T) {
	lda, ldb := max(k, 1), max(n, 1)
	if transA {
		lda = max(m, 1)
	}
	if transB {
		ldb = max(k, 1)
	}
	if err := tensor.GemmBatch(transA, transB, m, n, k, 1, a, lda, m*k, b, ldb, k*n, 0, c, max(n, 1), m*n, batch); err != nil {
		// The sizes come from the plan and the slices are allocated to fit them: an
		// error here is a bug in this package, not in the caller's data.
		panic("einsum: internal error: " + err.Error())
	}
}
