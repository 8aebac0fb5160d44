//go:build amd64 && !noasm

package gemm

// directOff turns the direct path off (tests compare it with the packed one).
var directOff = false

// kern8x16AVX512S is kern8x24AVX512S for an 8 x 16 tile (kernel16_amd64.s): the
// last 16 columns of a C whose width leaves 16 after the 24-wide tiles (n = 64:
// 24 + 24 + 16). Two calls of the 8x8 kernel ran at under half the 8x24 kernel's
// speed (9 loads per 8 FMAs, its broadcasts embedded in the FMAs); this one
// loads 2 B vectors and 8 broadcasts per 16 FMAs.
//
//go:noescape
func kern8x16AVX512S(k int, a *float64, rsa, csa int, b *float64, ldb int, c *float64, ldc int, alpha, beta float64)

// Bounds of the direct path: products whose B (k x n, 256 kB at most) stays in
// L2, at most directMaxN columns wide.
const (
	directMaxN  = 256
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

// directReal is directRun on the operands of realGemmOn, before they are boxed
// as packers.
func directReal[R float](kn *kernel[R], transA, transB bool, m, n, k int, alpha R, a []R, lda int, b []R, ldb int, beta R, c []R, ldc int) bool {
	if any(kn) != any(avx512) {
		return false
	}
	return direct(transA, transB, m, n, k, any(alpha).(float64), any(a).([]float64), lda, any(b).([]float64), ldb, any(beta).(float64), any(c).([]float64), ldc)
}

// direct computes C = alpha op(A) op(B) + beta C for a small or thin product
// without packing A, and without packing B unless it is transposed, when the
// AVX-512 float64 kernel is in use, m and n are multiples of 8, n is at most
// directMaxN and k n at most directMaxKN, and reports whether it did. C is cut
// into 8-row tiles of 24 columns, and 16 or 8 at the right edge (directTile);
// the kernels read A's elements where they are, with its row and column
// strides, and B's rows with its row stride.
//
// Two kinds of product go this way. The layer products of a small MLP on a batch
// (1024x32 times 32x32, and X^T G with k = 1024), where packing cost as much as
// the multiply-adds. And the small products of a batch, such as the heads of
// attention (128x64 times 64x128, 128x128 times 128x64, either operand
// transposed): both operands fit in L2 (64 to 128 kB each), so packing them for
// every product of the batch bought nothing and took about a third of the time.
//
// The results are those of the packed path bit for bit: the same FMA chain per
// element, in the same blocks of k, and the same write-back (alpha, then beta
// with an FMA), whatever the tile; except that where the packed path computes a
// partial tile (the last 16 columns when n = 24 q + 16) into a scratch tile and
// merges it into C with a beta other than 0 and 1, this path does the same
// (mergeTile).
func direct(transA, transB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) bool {
	if directOff || kern != avx512 || m%8 != 0 || n%8 != 0 || n > directMaxN || k*n > directMaxKN {
		return false
	}
	rsa, csa := lda, 1
	if transA {
		rsa, csa = 1, lda
	}
	// The last element of A, B and C read (checkArgs has checked the lengths).
	_ = a[(m-1)*rsa+(k-1)*csa]
	_ = c[(m-1)*ldc+n-1]
	ws := pools64.workspaces.Get().(*workspace[float64])
	defer pools64.workspaces.Put(ws)
	bp, bld := b, ldb
	if transB {
		// op(B)'s columns are B's rows: pack them into one panel per column
		// tile, row stride 24 (see packTransB).
		ws.b = aligned(ws.b, (n/24+1)*24*k)
		packTransB(ws.b, b, ldb, n, k)
		bp, bld = ws.b, 24
	} else {
		_ = b[(k-1)*ldb+n-1]
	}
	ws.tmp = aligned(ws.tmp, 8*24)
	// The packed path's partial tile, written with mergeTile.
	merged := n%24 == 16
	// Row tiles outer: a tile's 8 rows of A are read from L1 for every column
	// tile, and B (at most directMaxKN values) stays in L2.
	for ir := 0; ir < m; ir += 8 {
		for jr, t := 0, 0; jr < n; t++ {
			w := directTile(n - jr)
			bj := bp[jr:]
			if transB {
				bj = bp[t*24*k:]
			}
			cp := c[ir*ldc+jr:]
			// k in blocks of KC, C accumulating after the first, as in the
			// packed loop nest (serial), which rounds the same way.
			for pc := 0; pc < k; pc += avx512.kc {
				kb, bt := min(avx512.kc, k-pc), beta
				if pc > 0 {
					bt = 1
				}
				ap, bq := &a[ir*rsa+pc*csa], bj[pc*bld:]
				switch {
				case w == 24:
					kern8x24AVX512S(kb, ap, rsa, csa, &bq[0], bld, &cp[0], ldc, alpha, bt)
				case w == 8:
					kern8x8AVX512S(kb, ap, rsa, csa, &bq[0], bld, &cp[0], ldc, alpha, bt)
				case !merged || jr+16 < n || bt == 0 || bt == 1:
					// 16 columns; the packed path's merge with beta 0 or 1
					// rounds as the kernel's write-back.
					kern8x16AVX512S(kb, ap, rsa, csa, &bq[0], bld, &cp[0], ldc, alpha, bt)
				default:
					tmp := ws.tmp
					kern8x16AVX512S(kb, ap, rsa, csa, &bq[0], bld, &tmp[0], 24, alpha, 0)
					mergeTile(tmp, 24, cp, ldc, 8, 16, bt)
				}
			}
			jr += w
		}
	}
	return true
}

// directTile returns the width of direct's column tile when r columns (a
// positive multiple of 8) remain: 24, except 16 and 16 for the last 32 and 16
// or 8 for the last 16 or 8. Two 16-column tiles instead of 24 and 8: the 8x8
// kernel loads a broadcast of A per FMA and ran at half the speed of the others.
func directTile(r int) int {
	if r == 32 {
		return 16
	}
	return min(r, 24)
}

// packTransB packs op(B) = B^T, B stored n x k with row stride ldb (n a multiple
// of 8), into one micro-panel per column tile of direct (directTile), stored
// k-major with row stride 24: the tile's column c at step p at dst[t*24*k + p*24 +
// c]. It packs 8 columns at a time with packRows8 (one sequential store stream
// per k step). The columns of a panel beyond its tile's width are left as they
// are: direct reads only the tile's columns.
func packTransB(dst, b []float64, ldb, n, k int) {
	for jr, t := 0, 0; jr < n; t++ {
		w := directTile(n - jr)
		for g := 0; g < w; g += 8 {
			packRows8(dst[t*24*k+g:], 24, b, (jr+g)*ldb, ldb, k)
		}
		jr += w
	}
}
