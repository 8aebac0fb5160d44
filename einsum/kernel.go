package einsum

import "github.com/chainrules-go/chainrules/internal/gemm"

// scalar is the element type of the contraction kernels.
type scalar interface{ float64 | complex128 }

// strided computes dst[od] = src[os] (or dst[od] += src[os] when acc is set) for
// every index i of the space shape, with od = sum_k i_k dstSt[k] and
// os = sum_k i_k srcSt[k]. It is the one kernel behind permutations, diagonals
// (several dims of src folded into one stride), sums (a dst stride of 0) and
// diagonal embeddings (several dims of dst folded into one stride). The last dim is
// the innermost loop; callers put the dim with the smallest strides last.
func strided[T scalar](dst []T, dstSt []int, src []T, srcSt []int, shape []int, acc bool) {
	// Drop dims of size 1 and merge dims that are contiguous in both operands.
	var shBuf, dBuf, sBuf [16]int
	sh, ds, ss := shBuf[:0], dBuf[:0], sBuf[:0]
	for k, n := range shape {
		if n == 0 {
			return
		}
		if n == 1 {
			continue
		}
		if m := len(sh) - 1; m >= 0 && ds[m] == dstSt[k]*n && ss[m] == srcSt[k]*n {
			sh[m] *= n
			ds[m], ss[m] = dstSt[k], srcSt[k]
			continue
		}
		sh, ds, ss = append(sh, n), append(ds, dstSt[k]), append(ss, srcSt[k])
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
		k := outer - 1
		for ; k >= 0; k-- {
			idx[k]++
			od += ds[k]
			os += ss[k]
			if idx[k] < sh[k] {
				break
			}
			od -= ds[k] * sh[k]
			os -= ss[k] * sh[k]
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

// block2 runs dst[i*d1 + j*d0] (+)= src[i*s1 + j*s0] over i < n1, j < n0, in tiles
// of 16×16 so that both operands stay in cache whatever their strides.
func block2[T scalar](dst []T, d1, d0 int, src []T, s1, s0 int, n1, n0 int, acc bool) {
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
func run1[T scalar](dst []T, d int, src []T, s int, n int, acc bool) {
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
// transpose, never conjugated. Every pairwise contraction of the package ends here:
// matrix-vector and vector-vector shapes run plain loops (they are memory-bound and
// a packed GEMM would only add packing), and the rest goes to the packed GEMM kernel
// of internal/gemm.
func batchGemm[T scalar](transA, transB bool, batch, m, n, k int, a, b, c []T) {
	if m == 0 || n == 0 || batch == 0 {
		return
	}
	if k == 0 {
		clear(c[:batch*m*n])
		return
	}
	sa, sb, sc := m*k, k*n, m*n
	for p := range batch {
		ap, bp, cp := a[p*sa:(p+1)*sa], b[p*sb:(p+1)*sb], c[p*sc:(p+1)*sc]
		switch {
		case n == 1 && !transA: // rows of A dotted with the vector b
			gemv(cp, ap, bp, m, k)
		case n == 1: // A stored k×m: c = sum_l b[l] A[l, :]
			clear(cp)
			for l := range k {
				axpy(cp, bp[l], ap[l*m:(l+1)*m])
			}
		case m == 1 && transB: // B stored n×k: c[j] = a · B[j, :]
			gemv(cp, bp, ap, n, k)
		case m == 1: // c = sum_l a[l] B[l, :]
			clear(cp)
			for l := range k {
				axpy(cp, ap[l], bp[l*n:(l+1)*n])
			}
		case k == 1: // outer product
			for i := range m {
				axpyInto(cp[i*n:(i+1)*n], ap[i], bp)
			}
		default:
			lda, ldb := k, n
			if transA {
				lda = m
			}
			if transB {
				ldb = k
			}
			switch cc := any(cp).(type) {
			case []float64:
				gemm.Dgemm(transA, transB, m, n, k, 1, any(ap).([]float64), lda, any(bp).([]float64), ldb, 0, cc, n)
			case []complex128:
				gemm.Zgemm(transA, transB, m, n, k, 1, any(ap).([]complex128), lda, any(bp).([]complex128), ldb, 0, cc, n)
			}
		}
	}
}

// gemv computes c[i] = sum_l a[i*k+l] x[l] for i < m, four rows at a time so
// that four streams of a are in flight and x is read once per four rows.
func gemv[T scalar](c, a, x []T, m, k int) {
	x = x[:k]
	i := 0
	for ; i+4 <= m; i += 4 {
		a0 := a[i*k : i*k+k]
		a1 := a[(i+1)*k : (i+1)*k+k]
		a2 := a[(i+2)*k : (i+2)*k+k]
		a3 := a[(i+3)*k : (i+3)*k+k]
		var s0, s1, s2, s3 T
		for l, v := range x {
			s0 += a0[l] * v
			s1 += a1[l] * v
			s2 += a2[l] * v
			s3 += a3[l] * v
		}
		c[i], c[i+1], c[i+2], c[i+3] = s0, s1, s2, s3
	}
	for ; i < m; i++ {
		c[i] = dot(a[i*k:(i+1)*k], x)
	}
}

// dot returns sum_i x_i y_i (no conjugation), with four accumulators.
func dot[T scalar](x, y []T) T {
	y = y[:len(x)]
	var s0, s1, s2, s3 T
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += x[i] * y[i]
		s1 += x[i+1] * y[i+1]
		s2 += x[i+2] * y[i+2]
		s3 += x[i+3] * y[i+3]
	}
	for ; i < len(x); i++ {
		s0 += x[i] * y[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// axpy computes y += alpha x.
func axpy[T scalar](y []T, alpha T, x []T) {
	x = x[:len(y)]
	for i := range y {
		y[i] += alpha * x[i]
	}
}

// axpyInto computes y = alpha x.
func axpyInto[T scalar](y []T, alpha T, x []T) {
	x = x[:len(y)]
	for i := range y {
		y[i] = alpha * x[i]
	}
}
