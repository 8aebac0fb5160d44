package lapack

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/lapack"
)

// Divide and conquer for the eigenvectors of an unreduced symmetric tridiagonal
// block (LAPACK's xSTEDC / xLAED0-xLAED4, Cuppen's method with Gu and
// Eisenstat's recomputed z): T = diag(T1, T2) + rho v v^T with v the last unit
// vector of T1 and the first of T2 (the corner entries of T1 and T2 less |e|),
// T1 and T2 solved recursively (gonum's Dsteqr below dcLeaf), then the
// eigenproblem of D + rho z z^T by deflation (negligible z_j, nearly equal d_j
// rotated together) and the secular equation, and the eigenvectors Q diag(Q1, Q2)
// U by matrix products on the halves. The eigenvectors are kept as the rows of qt
// (component j of vector i at qt[i*ld+j]), so that rotations and gathers move
// contiguous rows.

const dcLeaf = 32

// stedc computes the eigenvalues (into d, ascending) and eigenvectors (the rows of
// the n×n block of qt at offset 0 with leading dimension ld, vector i in row i) of
// the symmetric tridiagonal matrix (d, e). It reports success.
func stedc(d, e []float64, qt []float64, ld int) bool {
	n := len(d)
	for i := range n {
		clear(qt[i*ld : i*ld+n])
	}
	var scr *dcScratch
	if n > dcLeaf {
		scr = &dcScratch{out: make([]float64, n*n), delta: make([]float64, n*n), rows: make([]float64, n*n),
			qk: make([]float64, (n-n/2)*n), uk: make([]float64, n*n)}
	}
	return dcRec(d, slicesClone(e), qt, ld, scr)
}

// dcScratch holds the merges' n×n work matrices (the merges run one at a time).
type dcScratch struct{ out, delta, rows, qk, uk []float64 }

func slicesClone(x []float64) []float64 { return append([]float64(nil), x...) }

// dcRec is stedc's recursion on the block of qt at its start (rows and columns
// 0..n-1, zero on entry).
func dcRec(d, e []float64, qt []float64, ld int, scr *dcScratch) bool {
	n := len(d)
	if n <= dcLeaf {
		z := make([]float64, n*n)
		work := make([]float64, max(1, 2*n-2))
		if !lapackGonum.Dsteqr(lapack.EVTridiag, n, d, e, z, n, work) {
			return false
		}
		for i := range n { // column i of z is vector i
			for j := range n {
				qt[i*ld+j] = z[j*n+i]
			}
		}
		return true
	}
	n1 := n / 2
	beta := e[n1-1]
	d[n1-1] -= math.Abs(beta)
	d[n1] -= math.Abs(beta)
	if !dcRec(d[:n1], e[:n1-1], qt, ld, scr) || !dcRec(d[n1:], e[n1:], qt[n1*ld+n1:], ld, scr) {
		return false
	}
	// z = (last components of the first half's vectors, sign(beta) first
	// components of the second's) / sqrt(2), rho = 2 |beta|.
	z := make([]float64, n)
	for i := range n1 {
		z[i] = qt[i*ld+n1-1] / math.Sqrt2
	}
	sg := 1.0
	if beta < 0 {
		sg = -1
	}
	for i := n1; i < n; i++ {
		z[i] = sg * qt[i*ld+n1] / math.Sqrt2
	}
	return dcMerge(d, z, 2*math.Abs(beta), qt, ld, n1, scr)
}

// dcMerge replaces the eigen-decomposition (d, rows of qt) of diag(T1, T2) by
// that of diag(T1, T2) + rho (Q z)(Q z)^T, z of unit norm (rows 0..n1-1 of qt have
// nonzero components only in columns 0..n1-1, the others only in n1..n-1).
func dcMerge(d, z []float64, rho float64, qt []float64, ld, n1 int, scr *dcScratch) bool {
	n := len(d)
	const eps = 0x1p-53
	// Sort the poles ascending.
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	sort.SliceStable(perm, func(a, b int) bool { return d[perm[a]] < d[perm[b]] })
	ds, zs := make([]float64, n), make([]float64, n)
	for k, p := range perm {
		ds[k], zs[k] = d[p], z[p]
	}
	// mixed marks vectors with components in both halves (rotated together).
	mixed := make([]bool, n)
	dmax, zmax := 0.0, 0.0
	for k := range n {
		dmax = math.Max(dmax, math.Abs(ds[k]))
		zmax = math.Max(zmax, math.Abs(zs[k]))
	}
	tol := 8 * eps * math.Max(dmax, zmax)
	// Deflation: keep lists the sorted indices that stay in the secular equation.
	var keep, defl []int
	pj := -1
	for k := range n {
		if rho*math.Abs(zs[k]) <= tol {
			defl = append(defl, k)
			continue
		}
		if pj >= 0 {
			s, c := zs[pj], zs[k]
			tau := math.Hypot(c, s)
			t := ds[k] - ds[pj]
			c /= tau
			s = -s / tau
			if math.Abs(t*c*s) <= tol {
				// Rotate vectors pj and k so that z[pj] = 0 (deflated).
				zs[k], zs[pj] = tau, 0
				rp, rk := qt[perm[pj]*ld:perm[pj]*ld+n], qt[perm[k]*ld:perm[k]*ld+n]
				for j := range rp {
					x, y := rp[j], rk[j]
					rp[j] = c*x + s*y
					rk[j] = c*y - s*x
				}
				if (perm[pj] < n1) != (perm[k] < n1) || mixed[perm[pj]] || mixed[perm[k]] {
					mixed[perm[pj]], mixed[perm[k]] = true, true
				}
				dp := ds[pj]*c*c + ds[k]*s*s
				ds[k] = ds[pj]*s*s + ds[k]*c*c
				ds[pj] = dp
				defl = append(defl, pj)
				pj = k
				continue
			}
			keep = append(keep, pj)
		}
		pj = k
	}
	if pj >= 0 {
		keep = append(keep, pj)
	}
	k := len(keep)
	lam := make([]float64, n) // the new eigenvalues, by sorted position of their pole
	newRows := scr.rows[:k*n]
	if k > 0 {
		dl, zl := make([]float64, k), make([]float64, k)
		for i, p := range keep {
			dl[i], zl[i] = ds[p], zs[p]
		}
		// Normalise z over the kept entries (deflation moved norm into them).
		nz := 0.0
		for _, v := range zl {
			nz += v * v
		}
		rhok := rho * nz
		nz = math.Sqrt(nz)
		for i := range zl {
			zl[i] /= nz
		}
		// delta[j*k+r] = dl[j] - lambda_r, from the root's origin and offset.
		delta := scr.delta[:k*k]
		roots := make([]float64, k)
		for r := range k {
			org, tau, ok := secularRoot(dl, zl, rhok, r, delta[r*k:(r+1)*k])
			if !ok {
				return false
			}
			roots[r] = dl[org] + tau
		}
		// delta is stored by root (row r): delta[r*k+j] = dl[j] - lambda_r.
		// Gu-Eisenstat: zhat_j^2 = -delta_j(j) prod_{r != j} delta_j(r)/(dl_j - dl_r).
		zh := make([]float64, k)
		for j := range k {
			w := delta[j*k+j]
			for r := range k {
				if r != j {
					w *= delta[r*k+j] / (dl[j] - dl[r])
				}
			}
			zh[j] = math.Copysign(math.Sqrt(math.Max(-w, 0)), zl[j])
		}
		// U^T in place of delta: row r, the vector of root r in the kept basis.
		ut := delta
		for r := range k {
			row := ut[r*k : (r+1)*k]
			nrm := 0.0
			for j := range k {
				v := zh[j] / row[j]
				row[j] = v
				nrm += v * v
			}
			nrm = 1 / math.Sqrt(nrm)
			for j := range k {
				row[j] *= nrm
			}
		}
		for r, p := range keep {
			lam[p] = roots[r]
		}
		// New vectors (rows): V_new = U^T Q_keep on each half, from the kept
		// vectors with components there.
		for half := range 2 {
			c0, c1 := 0, n1
			if half == 1 {
				c0, c1 = n1, n
			}
			var rows []int
			for i, p := range keep {
				o := perm[p]
				if (o < n1) == (half == 0) || mixed[o] {
					rows = append(rows, i)
				}
			}
			w := c1 - c0
			if len(rows) == 0 {
				for r := range k {
					clear(newRows[r*n+c0 : r*n+c1])
				}
				continue
			}
			nr := len(rows)
			qk, uk := scr.qk[:nr*w], scr.uk[:k*nr]
			for a, i := range rows {
				o := perm[keep[i]]
				copy(qk[a*w:(a+1)*w], qt[o*ld+c0:o*ld+c1])
			}
			for r := range k {
				ur, kr := ut[r*k:(r+1)*k], uk[r*nr:(r+1)*nr]
				for a, i := range rows {
					kr[a] = ur[i]
				}
			}
			Gemm(false, false, k, w, nr, 1, uk, nr, qk, w, 0, newRows[c0:], n)
		}
	}
	for _, p := range defl {
		lam[p] = ds[p]
	}
	// Write back in ascending order of the eigenvalues.
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return lam[order[a]] < lam[order[b]] })
	keptAt := make([]int, n)
	for i := range keptAt {
		keptAt[i] = -1
	}
	for i, p := range keep {
		keptAt[p] = i
	}
	out := scr.out[:n*n]
	for i, p := range order {
		d[i] = lam[p]
		if r := keptAt[p]; r >= 0 {
			copy(out[i*n:(i+1)*n], newRows[r*n:(r+1)*n])
		} else {
			copy(out[i*n:(i+1)*n], qt[perm[p]*ld:perm[p]*ld+n])
		}
	}
	for i := range n {
		copy(qt[i*ld:i*ld+n], out[i*n:(i+1)*n])
	}
	return true
}

// secularRoot solves 1/rho + sum_j z_j^2/(d_j - lambda) = 0 (d ascending, z of
// unit norm with no zero entry, rho > 0) for its root r, in (d_r, d_{r+1}) or,
// for the last, (d_{k-1}, d_{k-1} + rho). It returns the pole org nearest the
// root and tau = lambda - d_org, and fills delta[j] = d_j - lambda computed as
// (d_j - d_org) - tau (accurate near the poles). Rational interpolation of the
// two sums on either side of the root (the "middle way" of LAPACK's xLAED4),
// safeguarded by bisection.
func secularRoot(d, z []float64, rho float64, r int, delta []float64) (org int, tau float64, ok bool) {
	k := len(d)
	const eps = 0x1p-53
	last := r == k-1
	// The origin: the nearer pole, judged by the sign of f at the midpoint.
	var lo, hi float64 // the bracket for tau
	if last {
		org = r
		lo, hi = 0, rho
	} else {
		mid := (d[r+1] - d[r]) / 2
		f := 1 / rho
		for j := range k {
			f += z[j] * z[j] / ((d[j] - d[r]) - mid)
		}
		// The first guess solves the equation with the two poles r, r+1 exact and
		// the others frozen at the midpoint (xLAED4's start).
		del := d[r+1] - d[r]
		zr, zn := z[r]*z[r], z[r+1]*z[r+1]
		c := f + 2*(zr-zn)/del
		if f >= 0 {
			org, lo, hi = r, 0, mid
			a, b := c*del+zr+zn, zr*del
			if a > 0 {
				tau = 2 * b / (a + math.Sqrt(math.Abs(a*a-4*b*c)))
			} else {
				tau = (a - math.Sqrt(math.Abs(a*a-4*b*c))) / (2 * c)
			}
		} else {
			org, lo, hi = r+1, -mid, 0
			a, b := -c*del+zr+zn, -zn*del
			if a > 0 {
				tau = 2 * b / (a + math.Sqrt(math.Abs(a*a+4*b*c)))
			} else {
				tau = -(a + math.Sqrt(math.Abs(a*a+4*b*c))) / (2 * c)
			}
		}
	}
	if last {
		tau = hi / 2
	}
	if !(tau > lo && tau < hi) {
		tau = (lo + hi) / 2
	}
	for it := 0; it < 100; it++ {
		psi, dpsi, phi, dphi, erretm := 0.0, 0.0, 0.0, 0.0, 0.0
		for j := range k {
			delta[j] = (d[j] - d[org]) - tau
			t := z[j] / delta[j]
			if j <= r {
				psi += z[j] * t
				dpsi += t * t
			} else {
				phi += z[j] * t
				dphi += t * t
			}
			erretm += math.Abs(z[j] * t)
		}
		f := 1/rho + psi + phi
		if f < 0 {
			lo = tau
		} else {
			hi = tau
		}
		if math.Abs(f) <= 8*eps*(1/rho+erretm)*float64(k) || hi-lo <= 4*eps*math.Max(math.Abs(lo), math.Abs(hi)) {
			return org, tau, true
		}
		// The model C + dpsi Di^2/(Di - eta) + dphi Dn^2/(Dn - eta) = 0.
		di := delta[r]
		var eta float64
		if last {
			c := f - dpsi*di
			if c != 0 {
				eta = di + dpsi*di*di/c
			} else {
				eta = -f / dpsi
			}
		} else {
			dn := delta[r+1]
			c := f - dpsi*di - dphi*dn
			a := c
			b := c*(di+dn) + dpsi*di*di + dphi*dn*dn
			c0 := di * dn * f
			disc := math.Sqrt(math.Abs(b*b - 4*a*c0))
			switch {
			case a == 0:
				eta = c0 / b
			case b <= 0:
				eta = (b - disc) / (2 * a)
			default:
				eta = 2 * c0 / (b + disc)
			}
		}
		if f*eta >= 0 || math.IsNaN(eta) { // wrong direction: a Newton step
			eta = -f / (dpsi + dphi)
		}
		next := tau + eta
		if !(next > lo && next < hi) {
			next = (lo + hi) / 2
		}
		tau = next
	}
	return org, tau, false
}

// tridiagEigDC is tridiagEig with vectors by divide and conquer (stedc) on each
// unreduced block (Dsteqr for blocks of at most dcLeaf); d and e are not
// modified. It reports success: false if a secular equation did not converge or a
// vector is not finite.
func tridiagEigDC(d, e, w, z []float64) bool {
	n := len(d)
	d, e = slicesClone(d), slicesClone(e)
	blocks := splitTridiag(d, e)
	type eig struct {
		v          float64
		block, idx int
	}
	eigs := make([]eig, 0, n)
	vecs := make([][]float64, len(blocks))
	for bi, b := range blocks {
		bs := b[1] - b[0]
		bd := d[b[0]:b[1]]
		q := make([]float64, bs*bs)
		if !stedc(bd, e[b[0]:max(b[1]-1, b[0])], q, bs) {
			return false
		}
		vecs[bi] = q
		for i, v := range bd {
			eigs = append(eigs, eig{v, bi, i})
		}
	}
	sort.SliceStable(eigs, func(i, j int) bool { return eigs[i].v < eigs[j].v })
	for _, q := range vecs { // a guard: the fallback takes any non-finite result
		for _, v := range q {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return false
			}
		}
	}
	zt := make([]float64, n*n)
	for j, ev := range eigs {
		w[j] = ev.v
		b := blocks[ev.block]
		bs := b[1] - b[0]
		copy(zt[j*n+b[0]:j*n+b[1]], vecs[ev.block][ev.idx*bs:(ev.idx+1)*bs])
	}
	Transpose(z, zt, n, n)
	return true
}
