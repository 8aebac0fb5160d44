package lapack

import "math"

// splitTridiag returns the unreduced blocks [start, end) of the tridiagonal matrix
// (d, e): it splits where |e_i| <= eps sqrt(|d_i|) sqrt(|d_{i+1}|) (LAPACK's
// criterion), setting those e_i to zero.
func splitTridiag(d, e []float64) [][2]int {
	const eps = 0x1p-53
	var out [][2]int
	start := 0
	for i := range e {
		if math.Abs(e[i]) <= eps*math.Sqrt(math.Abs(d[i]))*math.Sqrt(math.Abs(d[i+1])) {
			e[i] = 0
			out = append(out, [2]int{start, i + 1})
			start = i + 1
		}
	}
	return append(out, [2]int{start, len(d)})
}

// stein computes by inverse iteration the eigenvectors of the unreduced symmetric
// tridiagonal block (d, e) for its eigenvalues vals (ascending), writing each into
// row cols[k] of the matrix zt (leading dimension ldz) at columns
// off..off+len(d)-1, the rest of the row untouched (LAPACK's xSTEIN: random
// start, at most 5 iterations plus 2 after convergence, eigenvalues closer than
// 1e-3 ||T||_1 form a cluster, the entry of largest magnitude made positive).
// Within a cluster each iterate is orthogonalised against the cluster's previous
// vectors by modified Gram-Schmidt over blocks of four vectors (xSTEIN's
// modified Gram-Schmidt does one vector at a time), and the final iterate once
// more (for exactly repeated eigenvalues, where the solve does not make the new
// vector dominate). It reports success (every vector
// converged).
func stein(d, e, vals []float64, zt []float64, ldz, off int, cols []int) bool {
	bs := len(d)
	if bs == 1 {
		zt[cols[0]*ldz+off] = 1
		return true
	}
	const (
		eps    = 0x1p-53
		maxits = 5
		extra  = 2
	)
	onenrm := 0.0
	for i := range bs {
		s := math.Abs(d[i])
		if i > 0 {
			s += math.Abs(e[i-1])
		}
		if i < bs-1 {
			s += math.Abs(e[i])
		}
		onenrm = math.Max(onenrm, s)
	}
	ortol := 1e-3 * onenrm
	dtpcrt := math.Sqrt(0.1 / float64(bs))
	// Deterministic random starts in (-1, 1), from xorshift64* (a few integer
	// operations an entry).
	seed := uint64(bs)*0x9e3779b97f4a7c15 ^ (uint64(off)+1)*0xbf58476d1ce4e5b9
	if seed == 0 {
		seed = 1
	}
	uniform := func() float64 {
		seed ^= seed >> 12
		seed ^= seed << 25
		seed ^= seed >> 27
		return float64((seed*2685821657736338717)>>11)*0x1p-52 - 1
	}
	fac := newTridiagLU(bs)
	x := make([]float64, bs)
	vecs := make([]float64, len(vals)*bs) // the block's eigenvectors so far, as rows
	gpStart := 0                          // first eigenvalue of the current cluster
	xjm := 0.0
	for j, lambda := range vals {
		xj := lambda
		if j > 0 {
			if xj-xjm < ortol {
				// Perturb coincident eigenvalues apart (LAPACK: pertol).
				if pertol := 10 * math.Abs(eps*xj); xj-xjm < pertol {
					xj = xjm + pertol
				}
			} else {
				gpStart = j
			}
		}
		xjm = xj
		for i := range x {
			x[i] = uniform()
		}
		fac.factor(d, e, xj, eps*onenrm)
		// One Gram-Schmidt pass against the cluster's previous vectors, modified
		// Gram-Schmidt over blocks of four (classical within a block, whose
		// vectors are orthonormal): each vector is read from memory once, for
		// its dot product, and again from cache for the update.
		orthogonalise := func(x []float64) {
			k := gpStart
			for ; k+4 <= j; k += 4 {
				d := dot4(vecs[k*bs:], bs, bs, x)
				c := [4]float64{-d[0], -d[1], -d[2], -d[3]}
				axpy4(vecs[k*bs:], bs, bs, &c, x)
			}
			for ; k < j; k++ {
				vk := vecs[k*bs : (k+1)*bs]
				c := -dotRow(vk, x, bs)
				for i, v := range vk {
					x[i] += c * v
				}
			}
		}
		converged := false
		xnorm := infNorm(x)
		for its, nrmchk := 1, 0; its <= maxits; its++ {
			// Scale the right-hand side to bs ||T||_1 max(eps, |u_nn|) in the
			// infinity norm: a solution much larger than that has converged.
			sc := float64(bs) * onenrm * math.Max(eps, math.Abs(fac.u[bs-1])) / xnorm
			for i := range x {
				x[i] *= sc
			}
			fac.solve(x)
			orthogonalise(x)
			if xnorm = infNorm(x); xnorm < dtpcrt {
				continue
			}
			// Iterate twice more after the criterion is met.
			if nrmchk++; nrmchk >= extra+1 {
				// The second Gram-Schmidt pass of the final iterate.
				orthogonalise(x)
				converged = true
				break
			}
		}
		if !converged {
			return false
		}
		nrm := 0.0
		jmax, big := 0, -1.0
		for i, v := range x {
			nrm += v * v
			if a := math.Abs(v); a > big {
				jmax, big = i, a
			}
		}
		scl := 1 / math.Sqrt(nrm)
		if x[jmax] < 0 {
			scl = -scl
		}
		v := vecs[j*bs : (j+1)*bs]
		for i := range x {
			v[i] = x[i] * scl
		}
		copy(zt[cols[j]*ldz+off:cols[j]*ldz+off+bs], v)
	}
	return true
}

// infNorm returns max |x_i| (NaN entries are skipped).
func infNorm(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		if a := math.Abs(v); a > m {
			m = a
		}
	}
	return m
}

// tridiagLU is the LU factorisation with partial pivoting of T - lambda I for a
// symmetric tridiagonal T (LAPACK's xLAGTF): U has the diagonal u and two
// superdiagonals u1, u2; l holds the multipliers and swap whether rows k and k+1
// were interchanged. solve uses them in a branch-free form (ga, gb, ca, cb, w1,
// w2, set by factor), so that each step of its two recurrences waits for one
// fused multiply-add.
type tridiagLU struct {
	u, u1, u2, l []float64
	uinv         []float64 // 1/u, with pivots below tol in magnitude replaced by ±tol
	swap         []bool
	// Forward step k: x[k] = ga c + gb b, carry = ca c + cb b, where c is the
	// carried value and b = x[k+1]; back substitution:
	// x[k] = (x[k] uinv[k] - w2[k] x[k+2]) - w1[k] x[k+1].
	ga, gb, ca, cb, w1, w2 []float64
}

func newTridiagLU(n int) *tridiagLU {
	f := func() []float64 { return make([]float64, n) }
	return &tridiagLU{u: f(), u1: f(), u2: f(), l: f(), uinv: f(), swap: make([]bool, n),
		ga: f(), gb: f(), ca: f(), cb: f(), w1: f(), w2: f()}
}

// factor factors T - lambda I; pivots smaller than tol in magnitude are replaced by
// ±tol in the solves (LAPACK's xLAGTS with job -1: the shifted matrix is singular
// up to rounding at an eigenvalue, and the perturbation only scales the result).
func (f *tridiagLU) factor(d, e []float64, lambda, tol float64) {
	defer func() {
		u, uinv, w1, w2 := f.u, f.uinv[:len(f.u)], f.w1[:len(f.u)], f.w2[:len(f.u)]
		u1, u2 := f.u1[:len(f.u)], f.u2[:len(f.u)]
		for k, p := range u {
			if math.Abs(p) < tol {
				p = math.Copysign(tol, p)
			}
			r := 1 / p
			uinv[k] = r
			w1[k] = u1[k] * r
			w2[k] = u2[k] * r
		}
	}()
	n := len(d)
	// Row k of the active matrix: (a, b, c) in columns k, k+1, k+2.
	a := d[0] - lambda
	b := 0.0
	if n > 1 {
		b = e[0]
	}
	c := 0.0
	for k := range n - 1 {
		// Next row: sub-diagonal e[k], diagonal d[k+1] - lambda, super e[k+1].
		sub, dia, sup := e[k], d[k+1]-lambda, 0.0
		if k+1 < n-1 {
			sup = e[k+1]
		}
		if math.Abs(sub) > math.Abs(a) {
			// Interchange rows k and k+1.
			f.swap[k] = true
			f.u[k], f.u1[k], f.u2[k] = sub, dia, sup
			m := a / sub
			f.l[k] = m
			// solve's step: x[k] = b, carry = c - l b.
			f.ga[k], f.gb[k], f.ca[k], f.cb[k] = 0, 1, 1, -m
			a, b, c = b-m*dia, c-m*sup, 0
		} else {
			f.swap[k] = false
			f.u[k], f.u1[k], f.u2[k] = a, b, c
			m := 0.0
			if a != 0 {
				m = sub / a
			}
			f.l[k] = m
			// solve's step: x[k] = c, carry = b - l c.
			f.ga[k], f.gb[k], f.ca[k], f.cb[k] = 1, 0, -m, 1
			a, b, c = dia-m*b, sup-m*c, 0
		}
	}
	f.u[n-1], f.u1[n-1], f.u2[n-1] = a, 0, 0
}

// solve overwrites x with (T - lambda I)^-1 x (x finite).
func (f *tridiagLU) solve(x []float64) {
	n := len(x)
	ga, gb, ca, cb := f.ga[:n-1], f.gb[:n-1], f.ca[:n-1], f.cb[:n-1]
	c := x[0]
	for k := range n - 1 {
		b := x[k+1]
		x[k] = ga[k]*c + gb[k]*b // one term is zero, the other exact
		c = math.FMA(ca[k], c, cb[k]*b)
	}
	x[n-1] = c
	uinv, w1, w2 := f.uinv[:n], f.w1[:n], f.w2[:n]
	x[n-1] *= uinv[n-1]
	if n > 1 {
		x[n-2] = x[n-2]*uinv[n-2] - w1[n-2]*x[n-1]
	}
	for k := n - 3; k >= 0; k-- {
		x[k] = math.FMA(-w1[k], x[k+1], x[k]*uinv[k]-w2[k]*x[k+2])
	}
}
