package linalg

import (
	"math"
	"math/cmplx"
	"slices"

	"gonum.org/v1/gonum/lapack"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// The complex Hermitian eigensolver (LAPACK's zheev arranged as the real path):
// A = Q T Q^H with T real symmetric tridiagonal by complex Householder reflections
// (zhetd2, unblocked, lower), the eigen-decomposition T = Z diag(w) Z^T by the real
// tridiagonal machinery of eigsym.go (Dsteqr's QR iterations for n <= eigSmall,
// Dsterf and inverse iteration beyond, Dsteqr as the fallback), and V = Q Z.

// hermEig computes the eigenvalues w (ascending) and the eigenvectors (into the
// columns of a) of the Hermitian n×n matrix a (both triangles set, row-major). It
// reports success.
func hermEig(a []complex128, w []float64, n int) bool {
	switch n {
	case 0:
		return true
	case 1:
		w[0] = real(a[0])
		a[0] = 1
		return true
	}
	d := make([]float64, n)
	e := make([]float64, n-1)
	tau := make([]complex128, n-1)
	refl := hetrdLower(a, n, d, e, tau)
	z := make([]float64, n*n)
	ok := false
	if n > eigSmall {
		ok = tridiagEig(slices.Clone(d), slices.Clone(e), w, z)
	}
	if !ok {
		if !lapackGonum.Dsteqr(lapack.EVTridiag, n, d, e, z, n, make([]float64, 2*n-2)) {
			return false
		}
		copy(w, d)
	}
	// V = Q Z = H_0 (H_1 (... (H_{n-2} Z))).
	for i, v := range z {
		a[i] = complex(v, 0)
	}
	s := make([]complex128, n)
	for i := n - 2; i >= 0; i-- {
		applyReflector(a, n, i+1, refl[i], tau[i], s)
	}
	return true
}

// hetrdLower reduces the Hermitian n×n matrix a (both triangles set) to real
// symmetric tridiagonal form T = Q^H A Q, as LAPACK's zhetd2 with uplo = Lower: d
// and e receive T's diagonal and subdiagonal, and Q = H_0 H_1 ... H_{n-2} with
// H_i = I - tau_i v_i v_i^H acting on rows i+1..n-1, v_i (v_i[0] = 1) returned.
// The trailing matrix is kept whole (both triangles) by the rank-2 updates; a is
// clobbered.
func hetrdLower(a []complex128, n int, d, e []float64, tau []complex128) [][]complex128 {
	refl := make([][]complex128, n-1)
	x := make([]complex128, n)
	for i := range n - 1 {
		m := n - i - 1 // rows i+1..n-1
		v := make([]complex128, m)
		for r := range m {
			v[r] = a[(i+1+r)*n+i]
		}
		beta, ti := zlarfg(v, m, 1)
		v[0] = 1
		e[i], tau[i], refl[i] = beta, ti, v
		d[i] = real(a[i*n+i])
		if ti == 0 {
			continue
		}
		// x = tau A22 v, w = x - tau/2 (x^H v) v, A22 -= v w^H + w v^H.
		xs := x[:m]
		for r := range m {
			row := a[(i+1+r)*n+i+1 : (i+1+r)*n+n]
			var s complex128
			for c, vc := range v {
				s += row[c] * vc
			}
			xs[r] = ti * s
		}
		var xv complex128
		for r := range m {
			xv += cmplx.Conj(xs[r]) * v[r]
		}
		alpha := -0.5 * ti * xv
		for r := range m {
			xs[r] += alpha * v[r]
		}
		for r := range m {
			row := a[(i+1+r)*n+i+1 : (i+1+r)*n+n]
			vr, wr := v[r], xs[r]
			for c := range m {
				row[c] -= vr*cmplx.Conj(xs[c]) + wr*cmplx.Conj(v[c])
			}
			row[r] = complex(real(row[r]), 0)
		}
	}
	d[n-1] = real(a[n*n-1])
	return refl
}

// zlarfg generates LAPACK's zlarfg reflector for the vector (alpha, x_1, ...,
// x_{n-1}) stored at x[0], x[inc], ..., x[(n-1)inc]: H = I - tau v v^H, v = (1,
// v_1, ...), with H^H (alpha, x) = beta e_1, beta real. It overwrites x_k with v_k
// and leaves x[0] to the caller.
func zlarfg(x []complex128, n, inc int) (beta float64, tau complex128) {
	alpha := x[0]
	xnorm := 0.0
	if n > 1 {
		xnorm = cnrm2(x[inc:], n-1, inc)
	}
	ar, ai := real(alpha), imag(alpha)
	if xnorm == 0 && ai == 0 {
		return ar, 0
	}
	beta = -math.Copysign(math.Hypot(math.Hypot(ar, ai), xnorm), ar)
	tau = complex((beta-ar)/beta, -ai/beta)
	s := 1 / (alpha - complex(beta, 0))
	for k := 1; k < n; k++ {
		x[k*inc] *= s
	}
	return beta, tau
}

// cnrm2 is the Euclidean norm of the n elements x[0], x[inc], ..., scaled against
// overflow (BLAS's dznrm2).
func cnrm2(x []complex128, n, inc int) float64 {
	scale := 0.0
	for k := range n {
		v := x[k*inc]
		scale = math.Max(scale, math.Max(math.Abs(real(v)), math.Abs(imag(v))))
	}
	if scale == 0 || math.IsInf(scale, 0) || math.IsNaN(scale) {
		return scale
	}
	ss := 0.0
	for k := range n {
		r, i := real(x[k*inc])/scale, imag(x[k*inc])/scale
		ss += r*r + i*i
	}
	return scale * math.Sqrt(ss)
}

// applyReflector overwrites rows off..off+len(v)-1 of the n×n matrix m with
// H m, H = I - tau v v^H; s is scratch of length n.
func applyReflector(m []complex128, n, off int, v []complex128, tau complex128, s []complex128) {
	if tau == 0 {
		return
	}
	clear(s)
	for r, vr := range v { // s = v^H M
		c := cmplx.Conj(vr)
		row := m[(off+r)*n : (off+r+1)*n]
		for j, x := range row {
			s[j] += c * x
		}
	}
	for r, vr := range v { // M -= tau v s
		f := tau * vr
		row := m[(off+r)*n : (off+r+1)*n]
		for j := range row {
			row[j] -= f * s[j]
		}
	}
}

// checkGauge makes the recording of op's pullback (eigh, eig) fail, as PyTorch's
// linalg_eig_backward does, when the cotangent of the eigenvectors depends on their
// phases: a loss invariant under V -> V diag(e^{i phi}) has Im diag(V^H Vbar) = 0,
// and one that is not has no well-defined derivative. k is the recorded V^H Vbar; a
// diagonal entry whose imaginary part exceeds 1e-2 times the largest modulus of its
// matrix is the error (relative, so that the check does not depend on the
// cotangent's scale, and far above the rounding of a gauge-invariant loss).
func checkGauge(t *Tape, k cr.NodeID, op string) {
	kv := val(t, k)
	if kv == nil || kv.DType() != tensor.Complex128 {
		return
	}
	sh := kv.Shape()
	n := sh[len(sh)-1]
	if n == 0 {
		return
	}
	data := kv.Contiguous().Complex128s()
	for b := 0; b+n*n <= len(data); b += n * n {
		mat := data[b : b+n*n]
		big := 0.0
		for _, z := range mat {
			big = math.Max(big, cmplx.Abs(z))
		}
		for i := range n {
			if im := math.Abs(imag(mat[i*n+i])); im > 1e-2*big {
				t.Apply(cr.FailOp[*tensor.Dense](op+"_gauge_check", opErr(op, cr.ErrInvalidArgument,
					"the eigenvectors of a complex matrix are defined up to a phase e^{i phi} each, and the loss depends on it, so its derivative is ill-defined (Im (V^H Vbar)_%d%d = %.3g)", i, i, imag(mat[i*n+i]))), k)
				return
			}
		}
	}
}
