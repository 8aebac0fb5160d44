package lapack

import (
	"math"
	"math/cmplx"
	"slices"
	"sort"
)

// CSVD computes the thin SVD of the complex m×n matrix a (row-major, not
// modified): A = U diag(s) Vh with s real and descending (k = min(m, n) values),
// U (m×k) with orthonormal columns and Vh (k×n) with orthonormal rows, by the
// one-sided (Hestenes) Jacobi method on A (m >= n) or on A^H (m < n). It reports
// whether the sweeps converged.
//
// Each Jacobi step makes two columns w_p, w_q orthogonal: with
// g = w_p^H w_q = |g| e^{i phi}, the column w_q e^{-i phi} has a real inner product
// |g| with w_p, and the real rotation of the 2×2 Gram matrix
// [[a, |g|], [|g|, b]] (a = |w_p|^2, b = |w_q|^2) diagonalises it; the same unitary
// 2×2 transformation accumulates into V. At convergence the columns of A V are
// orthogonal: s_j = |(A V)_j| and u_j = (A V)_j / s_j. Columns with a negligible
// s_j are completed to an orthonormal set by Gram-Schmidt.
func CSVD(a []complex128, m, n int, s []float64, u, vh []complex128) bool {
	k := min(m, n)
	if k == 0 {
		return true
	}
	// W is rows×cols with rows >= cols, stored column-major (one slice per column),
	// scaled by a power of two (exactly) so that its largest entry is about 1: the
	// squared column norms neither overflow nor underflow.
	rows, cols := m, n
	tr := m < n
	if tr {
		rows, cols = n, m
	}
	amax := 0.0
	for _, z := range a[:m*n] {
		amax = math.Max(amax, math.Max(math.Abs(real(z)), math.Abs(imag(z))))
	}
	sc, unsc := complex(1, 0), 1.0
	if amax > 0 {
		_, e := math.Frexp(amax)
		sc, unsc = complex(math.Ldexp(1, -e), 0), math.Ldexp(1, e)
	}
	w := make([][]complex128, cols)
	v := make([][]complex128, cols)
	for j := range cols {
		w[j] = make([]complex128, rows)
		v[j] = make([]complex128, cols)
		v[j][j] = 1
		for i := range rows {
			if tr {
				w[j][i] = sc * cmplx.Conj(a[j*n+i]) // (A^H)_ij = conj(A_ji)
			} else {
				w[j][i] = sc * a[i*n+j]
			}
		}
	}
	ctol := 0x1p-52 * math.Sqrt(float64(rows))
	converged := false
	for sweep := 0; sweep < 80 && !converged; sweep++ {
		converged = true
		for p := 0; p < cols-1; p++ {
			for q := p + 1; q < cols; q++ {
				wp, wq := w[p], w[q]
				var alpha, beta float64
				var g complex128
				for i := range rows {
					x, y := wp[i], wq[i]
					alpha += real(x)*real(x) + imag(x)*imag(x)
					beta += real(y)*real(y) + imag(y)*imag(y)
					g += cmplx.Conj(x) * y
				}
				ag := cmplx.Abs(g)
				if ag == 0 || ag <= ctol*math.Sqrt(alpha)*math.Sqrt(beta) {
					continue
				}
				converged = false
				e := g / complex(ag, 0) // e^{i phi}
				ec := cmplx.Conj(e)
				zeta := (beta - alpha) / (2 * ag)
				t := 1 / (math.Abs(zeta) + math.Sqrt(1+zeta*zeta))
				if zeta < 0 {
					t = -t
				}
				c := 1 / math.Sqrt(1+t*t)
				sn := c * t
				cc, sc := complex(c, 0), complex(sn, 0)
				// [w_p, w_q] <- [c w_p - s conj(e) w_q, s w_p + c conj(e) w_q]
				for i := range rows {
					x, y := wp[i], ec*wq[i]
					wp[i], wq[i] = cc*x-sc*y, sc*x+cc*y
				}
				vp, vq := v[p], v[q]
				for i := range cols {
					x, y := vp[i], ec*vq[i]
					vp[i], vq[i] = cc*x-sc*y, sc*x+cc*y
				}
			}
		}
	}
	if !converged {
		return false
	}
	norms := make([]float64, cols)
	for j := range cols {
		norms[j] = Cnrm2(w[j], len(w[j]), 1)
	}
	order := make([]int, cols)
	for j := range order {
		order[j] = j
	}
	sort.SliceStable(order, func(x, y int) bool { return norms[order[x]] > norms[order[y]] })
	tol := float64(rows) * 0x1p-52 * norms[order[0]]
	// The left vectors (of W = A or A^H): columns of rows×k, in order.
	lv := make([][]complex128, k)
	var weak []int
	for r, j := range order {
		sj := norms[j]
		s[r] = sj * unsc
		col := slices.Clone(w[j])
		if sj > tol && sj > 0 {
			for i := range col {
				col[i] /= complex(sj, 0)
			}
		} else {
			weak = append(weak, r)
		}
		lv[r] = col
	}
	// Complete the columns of negligible singular values: orthonormalise them (or
	// unit vectors) against the others.
	for _, r := range weak {
		lv[r] = nil
	}
	for _, r := range weak {
		lv[r] = svdCompleteColumn(lv, rows)
	}
	// Write U and Vh: for W = A, U = lv, V = v; for W = A^H = U' S V'^H,
	// A = V' S U'^H: U = v, Vh = lv^H.
	for r, j := range order {
		if !tr {
			for i := range m {
				u[i*k+r] = lv[r][i]
			}
			for i := range n {
				vh[r*n+i] = cmplx.Conj(v[j][i])
			}
			continue
		}
		for i := range m {
			u[i*k+r] = v[j][i]
		}
		for i := range n {
			vh[r*n+i] = cmplx.Conj(lv[r][i])
		}
	}
	return true
}

// svdCompleteColumn returns a unit vector of length rows orthogonal to the non-nil
// columns of cols: the first unit vector e_i whose projection out of their span
// (Gram-Schmidt, twice) keeps a large enough norm.
func svdCompleteColumn(cols [][]complex128, rows int) []complex128 {
	best := -1.0
	var out []complex128
	for i := range rows {
		x := make([]complex128, rows)
		x[i] = 1
		for range 2 {
			for _, c := range cols {
				if c == nil {
					continue
				}
				var d complex128
				for l := range rows {
					d += cmplx.Conj(c[l]) * x[l]
				}
				for l := range rows {
					x[l] -= d * c[l]
				}
			}
		}
		nrm := Cnrm2(x, len(x), 1)
		if nrm > best && nrm > 0 {
			best, out = nrm, x
			for l := range out {
				out[l] /= complex(nrm, 0)
			}
		}
		if nrm > 0.5 {
			break
		}
	}
	return out
}
