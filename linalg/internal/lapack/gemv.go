package lapack

// Level-2 kernels of the blocked reductions (sytrdLower, gebrdUpper): matrix-vector
// products on row-major matrices, four rows at a time so that each load of x or y
// serves four rows. On amd64 with AVX2 and FMA the inner loops run in assembly
// (gemv_amd64.s, four lanes); elsewhere, and for the last columns of a row (fewer
// than four), in Go. Sums are taken in a different order from a plain loop, so
// results agree with it to rounding.

// dot4 returns d[q] = sum_{j<n} a[q*lda+j] x[j] for q < 4.
func dot4(a []float64, lda, n int, x []float64) (d [4]float64) {
	_ = a[3*lda+n-1]
	x = x[:n]
	n4 := 0
	if useGemvAsm {
		if n4 = n &^ 3; n4 > 0 {
			dot4AVX2(&a[0], lda, n4, &x[0], &d)
		}
	}
	dot4Tail(a, lda, n4, n, x, &d)
	return d
}

// dot4Tail adds sum_{j0<=j<n} a[q*lda+j] x[j] to d[q] for q < 4: the columns of
// dot4 and symv4 that the assembly leaves.
func dot4Tail(a []float64, lda, j0, n int, x []float64, d *[4]float64) {
	r0, r1, r2, r3 := a[:n], a[lda:lda+n], a[2*lda:2*lda+n], a[3*lda:3*lda+n]
	for j := j0; j < n; j++ {
		xj := x[j]
		d[0] += r0[j] * xj
		d[1] += r1[j] * xj
		d[2] += r2[j] * xj
		d[3] += r3[j] * xj
	}
}

// axpy4 adds sum_q c[q] a[q*lda+j] to y[j] for j < n.
func axpy4(a []float64, lda, n int, c *[4]float64, y []float64) {
	_ = a[3*lda+n-1]
	y = y[:n]
	n4 := 0
	if useGemvAsm {
		if n4 = n &^ 3; n4 > 0 {
			axpy4AVX2(&a[0], lda, n4, c, &y[0])
		}
	}
	axpy4Tail(a, lda, n4, n, c, y)
}

// axpy4Tail adds sum_q c[q] a[q*lda+j] to y[j] for j0 <= j < n: the columns of
// axpy4 and symv4 that the assembly leaves.
func axpy4Tail(a []float64, lda, j0, n int, c *[4]float64, y []float64) {
	r0, r1, r2, r3 := a[:n], a[lda:lda+n], a[2*lda:2*lda+n], a[3*lda:3*lda+n]
	for j := j0; j < n; j++ {
		y[j] += (c[0]*r0[j] + c[2]*r2[j]) + (c[1]*r1[j] + c[3]*r3[j])
	}
}

// symv4 is dot4 and axpy4 over the same rows in one pass: with AVX-512, the
// columns in groups of eight (symv4AVX512), then of four (symv4AVX2).
func symv4(a []float64, lda, n int, x []float64, c *[4]float64, y []float64) (d [4]float64) {
	_ = a[3*lda+n-1]
	x, y = x[:n], y[:n]
	n4 := 0
	if useGemvAsm {
		n8 := 0
		if useSymvAVX512 {
			if n8 = n &^ 7; n8 > 0 {
				symv4AVX512(&a[0], lda, n8, &x[0], c, &y[0], &d)
			}
		}
		if n4 = n &^ 3; n4 > n8 {
			var d4 [4]float64
			symv4AVX2(&a[n8], lda, n4-n8, &x[n8], c, &y[n8], &d4)
			for q := range d {
				d[q] += d4[q]
			}
		}
	}
	dot4Tail(a, lda, n4, n, x, &d)
	axpy4Tail(a, lda, n4, n, c, y)
	return d
}

// dotRow returns sum_{j<n} a[j] x[j].
func dotRow(a, x []float64, n int) float64 {
	a, x = a[:n], x[:n]
	var s0, s1, s2, s3 float64
	j := 0
	for ; j+4 <= n; j += 4 {
		s0 += a[j] * x[j]
		s1 += a[j+1] * x[j+1]
		s2 += a[j+2] * x[j+2]
		s3 += a[j+3] * x[j+3]
	}
	for ; j < n; j++ {
		s0 += a[j] * x[j]
	}
	return (s0 + s2) + (s1 + s3)
}

// gemvN adds alpha A x to y: y[r*incy] += alpha sum_{j<n} a[r*lda+j] x[j] for r < m.
func gemvN(m, n int, alpha float64, a []float64, lda int, x, y []float64, incy int) {
	if m <= 0 || n <= 0 {
		return
	}
	_ = a[(m-1)*lda+n-1]
	_ = y[(m-1)*incy]
	x = x[:n]
	m4, n4 := 0, 0
	if useGemvAsm && m >= 4 && n >= 4 {
		m4, n4 = m&^3, n&^3
		gemvNAVX2(&a[0], lda, m4, n4, &x[0], &y[0], incy, alpha)
		for r := range m4 { // the last columns
			row := a[r*lda : r*lda+n]
			s := 0.0
			for j := n4; j < n; j++ {
				s += row[j] * x[j]
			}
			y[r*incy] += alpha * s
		}
	}
	r := m4
	for ; r+4 <= m; r += 4 {
		d := dot4(a[r*lda:], lda, n, x)
		y[r*incy] += alpha * d[0]
		y[(r+1)*incy] += alpha * d[1]
		y[(r+2)*incy] += alpha * d[2]
		y[(r+3)*incy] += alpha * d[3]
	}
	for ; r < m; r++ {
		y[r*incy] += alpha * dotRow(a[r*lda:], x, n)
	}
}

// gemvT adds alpha A^T x to y: y[j] += alpha sum_{r<m} x[r] a[r*lda+j] for j < n.
func gemvT(m, n int, alpha float64, a []float64, lda int, x, y []float64) {
	if m <= 0 || n <= 0 {
		return
	}
	_ = a[(m-1)*lda+n-1]
	x, y = x[:m], y[:n]
	m4, n4 := 0, 0
	if useGemvAsm && m >= 4 && n >= 4 {
		m4, n4 = m&^3, n&^3
		gemvTAVX2(&a[0], lda, m4, n4, &x[0], &y[0], alpha)
		for r := range m4 { // the last columns
			xr := alpha * x[r]
			for j := n4; j < n; j++ {
				y[j] += xr * a[r*lda+j]
			}
		}
	}
	r := m4
	for ; r+4 <= m; r += 4 {
		c := [4]float64{alpha * x[r], alpha * x[r+1], alpha * x[r+2], alpha * x[r+3]}
		axpy4(a[r*lda:], lda, n, &c, y)
	}
	for ; r < m; r++ {
		if xr := alpha * x[r]; xr != 0 {
			row := a[r*lda : r*lda+n]
			for j, v := range row {
				y[j] += xr * v
			}
		}
	}
}

// symvLower sets y = S x for the symmetric n×n matrix S whose lower triangle (the
// diagonal included) is stored in a with leading dimension lda; the strict upper
// triangle is not read. Row i contributes its dot product with x to y[i] and
// x[i] times itself to y[:i], both in one pass over the row.
func symvLower(n int, a []float64, lda int, x, y []float64) {
	y = y[:n]
	clear(y)
	r := 0
	for ; r+4 <= n; r += 4 {
		// The rows r..r+3 left of the diagonal block, then the block.
		if r > 0 {
			c := [4]float64{x[r], x[r+1], x[r+2], x[r+3]}
			d := symv4(a[r*lda:], lda, r, x, &c, y)
			y[r] += d[0]
			y[r+1] += d[1]
			y[r+2] += d[2]
			y[r+3] += d[3]
		}
		// The diagonal block (lower triangle of rows r..r+3, columns r..r+3).
		d0 := a[r*lda+r : r*lda+r+1]
		d1 := a[(r+1)*lda+r : (r+1)*lda+r+2]
		d2 := a[(r+2)*lda+r : (r+2)*lda+r+3]
		d3 := a[(r+3)*lda+r : (r+3)*lda+r+4]
		x0, x1, x2, x3 := x[r], x[r+1], x[r+2], x[r+3]
		y[r] += (d0[0]*x0 + d1[0]*x1) + (d2[0]*x2 + d3[0]*x3)
		y[r+1] += (d1[0]*x0 + d1[1]*x1) + (d2[1]*x2 + d3[1]*x3)
		y[r+2] += (d2[0]*x0 + d2[1]*x1) + (d2[2]*x2 + d3[2]*x3)
		y[r+3] += (d3[0]*x0 + d3[1]*x1) + (d3[2]*x2 + d3[3]*x3)
	}
	for ; r < n; r++ {
		row := a[r*lda : r*lda+r+1]
		xr := x[r]
		s := 0.0
		for j, v := range row[:r] {
			s += v * x[j]
			y[j] += xr * v
		}
		y[r] += s + row[r]*xr
	}
}
