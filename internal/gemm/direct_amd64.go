//go:build amd64 && !noasm

package gemm

// kern8x16AVX512S is kern8x24AVX512S for an 8 x 16 tile (kernel16_amd64.s): the
// last 16 columns of a C whose width leaves 16 after the 24-wide tiles (n = 64:
// 24 + 24 + 16). Two calls of the 8x8 kernel ran at under half the 8x24 kernel's
// speed (9 loads per 8 FMAs, its broadcasts embedded in the FMAs); this one
// loads 2 B vectors and 8 broadcasts per 16 FMAs.
//
//go:noescape
func kern8x16AVX512S(k int, a *float64, rsa, csa int, b *float64, ldb int, c *float64, ldc int, alpha, beta float64)

// Bounds of the direct path: products whose B (k x n) stays in L2, at most
// directMaxN columns wide: directMaxKN float64 values (256 KiB), or
// directMaxKN32 float32 values (800 KiB: the first layer of the float32 MLP
// 784-256-256-10, X W with W 784 x 256, is 5% faster direct in CPU time, on a Zen
// 5 core with 1 MiB of L2; at 1 MiB direct and packed were even, at 2 MiB
// direct was 11% slower).
const (
	directMaxN    = 256
	directMaxKN   = 32768
	directMaxKN32 = 204800
)

// kern8x48AVX512S and kern8x16AVX512S32 are the float32 kernels of direct32 on
// unpacked operands (kernel32s_amd64.s), with the strides of kern8x24AVX512S.
//
//go:noescape
func kern8x48AVX512S(k int, a *float32, rsa, csa int, b *float32, ldb int, c *float32, ldc int, alpha, beta float32)

//go:noescape
func kern8x16AVX512S32(k int, a *float32, rsa, csa int, b *float32, ldb int, c *float32, ldc int, alpha, beta float32)

// directRun is run's hook for the direct path: the product on one goroutine with
// the AVX-512 kernel (float64, or float32: direct32) and real operands goes to
// direct or direct32, which reports whether it took it.
func directRun[R float](kn *kernel[R], m, n, k int, pa packerA[R], pb packerB[R], alpha, beta R, c []R, ldc int) bool {
	switch any(kn) {
	case any(avx512):
		ra, okA := any(pa).(*realA[float64])
		rb, okB := any(pb).(*realB[float64])
		if !okA || !okB {
			return false
		}
		return direct(ra.trans, rb.trans, m, n, k, any(alpha).(float64), ra.a, ra.lda, rb.b, rb.ldb, any(beta).(float64), any(c).([]float64), ldc)
	case any(avx512s):
		ra, okA := any(pa).(*realA[float32])
		rb, okB := any(pb).(*realB[float32])
		if !okA || !okB {
			return false
		}
		return direct32(ra.trans, rb.trans, m, n, k, any(alpha).(float32), ra.a, ra.lda, rb.b, rb.ldb, any(beta).(float32), any(c).([]float32), ldc)
	}
	return false
}

// directReal is directRun on the operands of realGemmOn, before they are boxed
// as packers.
func directReal[R float](kn *kernel[R], transA, transB bool, m, n, k int, alpha R, a []R, lda int, b []R, ldb int, beta R, c []R, ldc int) bool {
	switch any(kn) {
	case any(avx512):
		return direct(transA, transB, m, n, k, any(alpha).(float64), any(a).([]float64), lda, any(b).([]float64), ldb, any(beta).(float64), any(c).([]float64), ldc)
	case any(avx512s):
		return direct32(transA, transB, m, n, k, any(alpha).(float32), any(a).([]float32), lda, any(b).([]float32), ldb, any(beta).(float32), any(c).([]float32), ldc)
	}
	return false
}

// direct computes C = alpha op(A) op(B) + beta C for a small or thin product
// without packing A, and without packing B unless it is transposed or ragged,
// when the AVX-512 float64 kernel is in use, n is at most directMaxN and k n at
// most directMaxKN, and m and n are multiples of 8 or beta is 0 or 1, and
// reports whether it did. C is cut into 8-row tiles of 24 columns, and 16 or 8
// at the right edge (directTile); the kernels read A's elements where they are,
// with its row and column strides, and B's rows with its row stride.
//
// Three kinds of product go this way. The layer products of a small MLP on a
// batch (1024x32 times 32x32, and X^T G with k = 1024), where packing cost as
// much as the multiply-adds. The small products of a batch, such as the heads of
// attention (128x64 times 64x128, 128x128 times 128x64, either operand
// transposed): both operands fit in L2 (64 to 128 kB each), so packing them for
// every product of the batch bought nothing and took about a third of the time.
// And ragged ones, m or n not a multiple of 8, such as the batches of a Gaussian
// mixture's k products of n points by a d x d factor (1000x10 times 10x10, and
// 10x1000 times 1000x10), where packing A cost as much as the product and the
// packed path computed every tile of a C 10 wide 24 wide: B is packed (k n
// values at most) into 8-column groups padded with zeros, the last tile of a row
// of tiles (8, 16 or 24 wide, at most 7 columns beyond n) and the tiles of the
// last rows (op(A)'s last 8 rows, of which the first 8 - m mod 8 are computed
// again; when m < 8, its rows copied into 8 zero-padded ones) are computed into a
// scratch tile and merged into C.
//
// The results are those of the packed path bit for bit: the same FMA chain per
// element, in the same blocks of k, and the same write-back (alpha, then beta
// with an FMA), whatever the tile; except that where the packed path computes a
// partial tile (the last 16 columns when n = 24 q + 16) into a scratch tile and
// merges it into C with a beta other than 0 and 1, this path does the same
// (mergeTile). A ragged product's partial tiles are not those of the packed path
// (columns 10 to 15 of a 16-wide tile, against 10 to 23 of a 24-wide one), so it
// goes this way only with beta 0 or 1, where a merge rounds as the kernel's
// write-back.
func direct(transA, transB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) bool {
	ragged := m%8 != 0 || n%8 != 0
	if directOff || kern != avx512 || n > directMaxN || k*n > directMaxKN || (ragged && !raggedDirect(n, k, beta)) {
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
	nw := roundUp(n, 8) // the columns the tiles compute
	bp, bld := b, ldb
	switch {
	case n%8 != 0:
		// op(B) in panels of row stride 24, zero beyond column n.
		ws.b = aligned(ws.b, (nw/24+1)*24*k)
		packRaggedB(ws.b, b, ldb, transB, n, k)
		bp, bld = ws.b, 24
	case transB:
		// op(B)'s columns are B's rows: pack them into one panel per column
		// tile, row stride 24 (see packTransB).
		ws.b = aligned(ws.b, (nw/24+1)*24*k)
		packTransB(ws.b, b, ldb, n, k)
		bp, bld = ws.b, 24
	default:
		_ = b[(k-1)*ldb+n-1]
	}
	ws.tmp = aligned(ws.tmp, 8*24)
	// The packed path's partial tile, written with mergeTile.
	merged := n%24 == 16
	// Row tiles outer: a tile's 8 rows of A are read from L1 for every column
	// tile, and B (at most directMaxKN values) stays in L2.
	for ir := 0; ir < m; ir += 8 {
		mb := min(8, m-ir)
		at, ars, acs := a[ir*rsa:], rsa, csa
		skip := 0 // rows of the tile that the previous tile has written
		switch {
		case mb < 8 && m >= 8:
			// op(A)'s last 8 rows: the first 8 - mb are computed again (the
			// same FMA chains) into the scratch tile, and only the others merged.
			at, skip = a[(m-8)*rsa:], 8-mb
		case mb < 8:
			// op(A)'s m < 8 rows, copied into 8 rows of k, zero below them.
			ws.a = aligned(ws.a, 8*k)
			clear(ws.a[mb*k:])
			for r := range mb {
				row := ws.a[r*k : r*k+k]
				for p := range row {
					row[p] = at[r*rsa+p*csa]
				}
			}
			at, ars, acs = ws.a, k, 1
		}
		for jr, t := 0, 0; jr < nw; t++ {
			w := directTile(nw - jr)
			nb := min(w, n-jr)
			bj := bp[jr:]
			if bld == 24 {
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
				ap, bq := &at[pc*acs], bj[pc*bld:]
				switch {
				case mb < 8 || nb < w:
					tmp := ws.tmp
					directKernel(w, kb, ap, ars, acs, &bq[0], bld, &tmp[0], 24, alpha, 0)
					mergeTile(tmp[skip*24:], 24, cp, ldc, mb, nb, bt)
				case w == 24 || w == 8 || !merged || jr+16 < n || bt == 0 || bt == 1:
					// The packed path's merge with beta 0 or 1 rounds as the
					// kernel's write-back.
					directKernel(w, kb, ap, ars, acs, &bq[0], bld, &cp[0], ldc, alpha, bt)
				default:
					tmp := ws.tmp
					kern8x16AVX512S(kb, ap, ars, acs, &bq[0], bld, &tmp[0], 24, alpha, 0)
					mergeTile(tmp, 24, cp, ldc, 8, 16, bt)
				}
			}
			jr += w
		}
	}
	return true
}

// raggedDirect reports whether a ragged product (m or n not a multiple of 8)
// with these n, k and beta goes direct: with beta 0 or 1 (see direct), when k is
// at most one block of KC (packing A, m x k, then cost as much as the product:
// 1000x10x10 took 14 us direct and 19 to 37 packed, 1000x20x20 50 and 72 to 78)
// or when direct's tiles are narrower than the packed path's (n = 10: 16 columns
// against 24; X^T G 10x10x1000 took 27 us direct and 42 packed). Otherwise
// (20x20x1000: 24 columns either way) reading A where it is, 8 rows at a time,
// was slower than packing it: 65 us against 52 (one goroutine, best of 4, on a
// loaded 2-core AMD EPYC).
func raggedDirect(n, k int, beta float64) bool {
	if beta != 0 && beta != 1 {
		return false
	}
	packed := n / 24 * 24 // the packed path's width: 24-wide tiles, an 8-wide edge
	switch r := n % 24; {
	case r > 8:
		packed += 24
	case r > 0:
		packed += 8
	}
	return k <= avx512.kc || roundUp(n, 8) < packed
}

// directKernel runs direct's kernel for an 8 x w tile, w = 24, 16 or 8.
func directKernel(w, k int, a *float64, rsa, csa int, b *float64, ldb int, c *float64, ldc int, alpha, beta float64) {
	switch w {
	case 24:
		kern8x24AVX512S(k, a, rsa, csa, b, ldb, c, ldc, alpha, beta)
	case 16:
		kern8x16AVX512S(k, a, rsa, csa, b, ldb, c, ldc, alpha, beta)
	default:
		kern8x8AVX512S(k, a, rsa, csa, b, ldb, c, ldc, alpha, beta)
	}
}

// packRaggedB packs op(B) (k x n, n not a multiple of 8; B stored n x k when
// trans, else k x n, row stride ldb) like packTransB, into one micro-panel per
// column tile of direct over roundUp(n, 8) columns, row stride 24: the tile's
// column c at step p at dst[t*24*k + p*24 + c], and zeros in the columns from n to
// the end of the last tile.
func packRaggedB(dst, b []float64, ldb int, trans bool, n, k int) {
	nw := roundUp(n, 8)
	for jr, t := 0, 0; jr < nw; t++ {
		w := directTile(nw - jr)
		nb := min(w, n-jr)
		panel := dst[t*24*k : t*24*k+24*k]
		for p := range k {
			row := panel[p*24 : p*24+w]
			if trans {
				for c := range nb {
					row[c] = b[(jr+c)*ldb+p]
				}
			} else {
				copy(row[:nb], b[p*ldb+jr:p*ldb+jr+nb])
			}
			clear(row[nb:])
		}
		jr += w
	}
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

// direct32 is direct for float32 with the kernel avx512s: C = alpha op(A) op(B) +
// beta C without packing A, and without packing B unless it is transposed, when
// m is a multiple of 8, n one of 16 whose last column tile the packed path
// computes in place (n = 48 q or 48 q + 16: tiles of 48 columns and a last one
// of 16, kern8x48AVX512S and kern8x16AVX512S32), n at most directMaxN and k n at
// most directMaxKN32; it reports whether it did. k is cut into
// blocks of avx512s.kc, C accumulating after the first, as in serial, and each
// element's FMA chain and write-back are those of the packed kernels
// kern8x48AVX512 and kern8x16AVX512, so the results are the packed path's bit for
// bit.
//
// It takes the products of a float32 MLP on a batch (784-256-256-10, batch 256:
// X W, h W, G W^T, and X^T G with k = 256), where packing A and B took a sixth
// of the time of the MLP's Hessian-vector product: in CPU time (the minimum of
// 30 interleaved runs on a loaded Zen 5 core) 256x256x256 nn takes 127 us
// direct and 137 packed, tn 132 and 141, nt 133 and 143, X W (k = 784) 406 and
// 427, X^T G (m = 784) 404 and 429.
func direct32(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) bool {
	if directOff || kern32 != avx512s || m%8 != 0 || n%16 != 0 || n%48 == 32 || n > directMaxN || k == 0 || k*n > directMaxKN32 {
		return false
	}
	rsa, csa := lda, 1
	if transA {
		rsa, csa = 1, lda
	}
	// The last element of A, B and C read (checkArgs has checked the lengths).
	_ = a[(m-1)*rsa+(k-1)*csa]
	_ = c[(m-1)*ldc+n-1]
	ws := pools32.workspaces.Get().(*workspace[float32])
	defer pools32.workspaces.Put(ws)
	bp, bld := b, ldb
	if transB {
		// op(B)'s columns are B's rows: pack them into one panel per column
		// tile, row stride 48.
		ws.b = aligned(ws.b, (n/48+1)*48*k)
		for jr, t := 0, 0; jr < n; t++ {
			w := min(n-jr, 48)
			for g := 0; g < w; g += 8 {
				packRows8(ws.b[t*48*k+g:], 48, b, (jr+g)*ldb, ldb, k)
			}
			jr += w
		}
		bp, bld = ws.b, 48
	} else {
		_ = b[(k-1)*ldb+n-1]
	}
	kc := avx512s.kc
	// Row tiles outer: a tile's 8 rows of A are read from L1 for every column
	// tile, and B stays in L2.
	for ir := 0; ir < m; ir += 8 {
		for jr, t := 0, 0; jr < n; t++ {
			w := min(n-jr, 48)
			bj := bp[jr:]
			if transB {
				bj = bp[t*48*k:]
			}
			cp := c[ir*ldc+jr:]
			for pc := 0; pc < k; pc += kc {
				kb, bt := min(kc, k-pc), beta
				if pc > 0 {
					bt = 1
				}
				ap, bq := &a[ir*rsa+pc*csa], &bj[pc*bld]
				if w == 48 {
					kern8x48AVX512S(kb, ap, rsa, csa, bq, bld, &cp[0], ldc, alpha, bt)
				} else {
					kern8x16AVX512S32(kb, ap, rsa, csa, bq, bld, &cp[0], ldc, alpha, bt)
				}
			}
			jr += w
		}
	}
	return true
}
