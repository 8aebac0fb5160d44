//go:build amd64 && !noasm

package gemm

// directOff turns the direct path off (tests compare it with the packed one).
var directOff = false

// Bounds of the direct path: thin products whose B (k x n, 256 kB at most) stays
// in L2.
const (
	directMaxN  = 64
	directMaxKN = 32768
)

// directRun is run's hook for the direct path: the product on one goroutine with
// the float64 AVX-512 kernel and real operands goes to direct, which reports whether
// it took it.
func directRun[R float](kn *kernel[R], m, n, k int, pa packerA[R], pb packerB[R], alpha, beta R, c []R, ldc int) bool {
	if any(kn) != any(avx512) {
		return false
	}
	ra, okA := any(pa).(*realA[float64])
	rb, okB := any(pb).(*realB[float64])
	if !okA || !okB {
		return false
	}
	return direct(ra.trans, rb.trans, m, n, k, any(alpha).(float64), ra.a, ra.lda, rb.b, rb.ldb, any(beta).(float64), any(c).([]float64), ldc)
}

// direct computes C = alpha op(A) op(B) + beta C for a thin product without
// packing A, and without packing B unless it is transposed, when the AVX-512
// float64 kernel is in use and every tile of C is a full 8x24 or 8x8 one (m a
// multiple of 8; n = 24 q or 24 q + 8, at most directMaxN; k n at most
// directMaxKN), and reports whether it did. The kernels read A's elements where
// they are, with its row and column strides, and B's rows with its row stride:
// for the layer products of a small MLP on a batch (1024x32 times 32x32, and X^T G
// with k = 1024) packing cost as much as the multiply-adds. The results are those
// of the packed path bit for bit (the same FMA chain per element, and the same
// blocks of k).
func direct(transA, transB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) bool {
	if directOff || kern != avx512 || m%8 != 0 || n > directMaxN || k*n > directMaxKN || (n%24 != 0 && n%24 != 8) {
		return false
	}
	rsa, csa := lda, 1
	if transA {
		rsa, csa = 1, lda
	}
	// The last element of A, B and C read (checkArgs has checked the lengths).
	_ = a[(m-1)*rsa+(k-1)*csa]
	_ = c[(m-1)*ldc+n-1]
	bp, bld := b, ldb
	if transB {
		// op(B)'s columns are B's rows: pack it into 24-wide panels, row stride 24.
		ws := pools64.workspaces.Get().(*workspace[float64])
		defer pools64.workspaces.Put(ws)
		ws.b = aligned(ws.b, roundUp(n, 24)*k)
		packPanels(ws.b, 24, b, ldb, false, 0, n, 0, k)
		bp, bld = ws.b, 24
	} else {
		_ = b[(k-1)*ldb+n-1]
	}
	// Row tiles outer: a tile's 8 rows of A are read from L1 for every column
	// tile, and B (at most directMaxKN values) stays in L2.
	for ir := 0; ir < m; ir += 8 {
		for jr := 0; jr < n; jr += 24 {
			bj := bp[jr:]
			if transB {
				bj = bp[jr*k:]
			}
			wide := n-jr >= 24
			cp := &c[ir*ldc+jr]
			// k in blocks of KC, C accumulating after the first, as in the
			// packed loop nest (serial), which rounds the same way.
			for pc := 0; pc < k; pc += avx512.kc {
				kb, bt := min(avx512.kc, k-pc), beta
				if pc > 0 {
					bt = 1
				}
				ap, bq := &a[ir*rsa+pc*csa], &bj[pc*bld]
				if wide {
					kern8x24AVX512S(kb, ap, rsa, csa, bq, bld, cp, ldc, alpha, bt)
				} else {
					kern8x8AVX512S(kb, ap, rsa, csa, bq, bld, cp, ldc, alpha, bt)
				}
			}
		}
	}
	return true
}
