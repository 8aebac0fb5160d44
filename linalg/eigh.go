package linalg

import (
	"math"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/einsum"
	"github.com/chainrules-go/chainrules/linalg/internal/lapack"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// EighOp returns the multi-output op of PyTorch's linalg.eigh: the eigenvalues w
// (real, ascending, float64 of shape [..., n]) and orthonormal eigenvectors V
// (columns, shape [..., n, n], of A's dtype) of each matrix of a batch of real
// symmetric or complex Hermitian matrices A,
//
//	A = V diag(w) V^H     (V^T for real A; V unitary for complex A).
//
// The op reads A through its Hermitian part herm(A) = (A + A^H)/2, which is A
// itself for the inputs PyTorch accepts (PyTorch reads one triangle). The
// eigenvectors follow LAPACK's conventions (xSYEV's QR iterations for n <= 48,
// xSTEIN's inverse iteration beyond: see the package documentation; complex A is
// reduced to a real tridiagonal matrix by complex Householder reflections, as
// zhetrd, and takes the same tridiagonal solvers): each column is defined up to a
// sign (real) or a phase e^{i phi} (complex), so only losses invariant under
// V -> V diag(±1) or V -> V diag(e^{i phi}) — functions of w, of V diag(f(w)) V^H,
// of |V| elementwise, of the projectors v_i v_i^H — have a derivative that does not
// depend on that choice. The pullback (PyTorch's linalg_eigh_backward) is
//
//	Abar = V (diag(wbar) + F o skew(V^H Vbar)) V^H,
//	F_ij = 1/(w_j - w_i) (i != j), F_ii = 0,  skew(X) = (X - X^H)/2,
//
// recorded with einsum and elementwise ops, so forward tangents
// (wdot = diag(V^H Adot V), Vdot = V (F o V^H Adot V)) and the second-order rule
// follow. For complex A the diagonal of skew(V^H Vbar), i Im diag(V^H Vbar), is the
// cotangent of the phases: it is zero for a phase-invariant loss and dropped by
// F_ii = 0; as in PyTorch, a cotangent with Im (V^H Vbar)_ii larger than 1e-2 times
// the largest |(V^H Vbar)_jk| of its matrix (a loss that depends on the phases) is an
// error wrapping chainrules.ErrInvalidArgument. Repeated eigenvalues make F
// infinite: a loss that uses V then gets infinite or NaN derivatives, as in
// PyTorch; a loss of w alone does not (its pullback is V diag(wbar) V^H, taken
// directly, also when recorded for core.Tape.GradGraph). float64 and complex128; a non-finite entry of A is an error wrapping
// chainrules.ErrInvalidArgument.
func EighOp() cr.Op[*tensor.Dense] {
	def := decomposition("eigh", 2,
		func(a *tensor.Dense) ([]*tensor.Dense, error) { return pair(eighValues(a, true)) },
		func(t *tape, _ cr.NodeID, y, ybar []cr.NodeID) cr.NodeID {
			w, v, wbar, vbar := y[0], y[1], ybar[0], ybar[1]
			n := 0
			if sh := shape(t, w); len(sh) > 0 {
				n = sh[len(sh)-1]
			}
			k := mm(t, mH(t, v), vbar)
			checkGauge(t, k, "eigh")
			skew := scale(t, sub(t, k, mH(t, k)), 0.5)
			id := t.Constant(eye(tensor.Float64, n))
			gap := add(t, sub(t, unsq(t, w, -2), unsq(t, w, -1)), id)
			f := masked(t, div(t, skew, gap), func(i, j int) float64 { return b2f(i != j) })
			if wbar.Valid() { // w was used too
				f = add(t, f, diagEmbed(t, wbar))
			}
			return mm3(t, v, f, mH(t, v))
		})
	return withFastPath(def, func(x, y, ybar []*tensor.Dense, has []bool) ([]*tensor.Dense, bool, error) {
		if has[1] {
			return nil, false, nil
		}
		// Only w was used: Abar = V diag(wbar) V^H.
		if y[1].DType() == tensor.Float64 {
			return []*tensor.Dense{vDiagVt(y[1], ybar[0])}, true, nil
		}
		g, err := einsum.Eval("...ij,...j,...kj->...ik", y[1], ybar[0], y[1].Conj())
		return []*tensor.Dense{g}, true, err
	}, func(t *tape, _, y, ybar []cr.NodeID) ([]cr.NodeID, bool) {
		if ybar[1].Valid() || !ybar[0].Valid() {
			return nil, false
		}
		return []cr.NodeID{t.Apply(einsum.Op("...ij,...j,...kj->...ik"), y[1], ybar[0], conj(t, y[1]))}, true
	})
}

// Eigh is EighOp without a tape.
func Eigh(a *tensor.Dense) (w, v *tensor.Dense, err error) { return eval2(EighOp(), a) }

// EigvalshOp returns the op of PyTorch's linalg.eigvalsh: the eigenvalues of each
// matrix of a batch of real symmetric or complex Hermitian matrices (read through
// their Hermitian part), real and ascending (float64, shape [..., n]). It is a
// composite of EighOp keeping w, so its pullback Abar = V diag(wbar) V^H is finite
// at repeated eigenvalues (and never depends on the eigenvectors' phases); its
// second-order rule goes through the eigenvectors' derivative and is infinite
// there (the Hessian of an eigenvalue does not exist at a crossing). Applied where
// no input needs a cotangent (recorded without gradient, or on a constant) it
// computes the eigenvalues alone, as LAPACK's xSYEV with jobz = 'N' does, for
// float64 input (complex input still computes the vectors). float64 and complex128; non-finite input is an error wrapping
// chainrules.ErrInvalidArgument.
func EigvalshOp() cr.Op[*tensor.Dense] {
	body := core.Composite("eigvalsh", space, 1, func(t *tape, x []cr.NodeID) []cr.NodeID {
		return []cr.NodeID{t.ApplyMulti(EighOp(), x[0])[0]}
	})
	return valuesOnly(body, func(x []*tensor.Dense) (*tensor.Dense, error) {
		if err := opkit.CheckInputs("eigvalsh", x, 1); err != nil {
			return nil, err
		}
		w, _, err := eighValues(x[0], false)
		return w, err
	})
}

// Eigvalsh is EigvalshOp without a tape.
func Eigvalsh(a *tensor.Dense) (*tensor.Dense, error) { return eval(EigvalshOp(), a) }

// eighValues computes the eigen-decompositions of the Hermitian parts of a batch:
// w is float64, V of a's dtype.
func eighValues(a *tensor.Dense, vectors bool) (w, v *tensor.Dense, err error) {
	const op = "eigh"
	batch, count, n, err := square(op, "A", a)
	if err != nil {
		return nil, nil, err
	}
	if !space.IsFinite(a) {
		return nil, nil, opErr(op, cr.ErrInvalidArgument, "the input has non-finite entries (NaN or Inf)")
	}
	if a.DType() == tensor.Complex128 {
		wd, vd, ok := eigBatch(a.Contiguous().Complex128s(), count, n, func(s []complex128, w []float64) bool {
			return lapack.HermEig(s, w, n)
		})
		if !ok {
			return nil, nil, opErr(op, cr.ErrInvalidArgument, "the eigenvalue algorithm did not converge")
		}
		return newOf(wd, shapeOf(batch, n)...), newOf(vd, shapeOf(batch, n, n)...), nil
	}
	wd, vd, ok := eigBatch(a.Contiguous().Float64s(), count, n, func(s, w []float64) bool {
		return lapack.SymEig(s, w, n, vectors)
	})
	if !ok {
		return nil, nil, opErr(op, cr.ErrInvalidArgument, "the eigenvalue algorithm did not converge")
	}
	return newOf(wd, shapeOf(batch, n)...), newOf(vd, shapeOf(batch, n, n)...), nil
}

// eigBatch runs kernel on the Hermitian part of each n×n matrix of the batch ad,
// scaled into the solvers' safe range: kernel overwrites its matrix with the
// eigenvectors and fills w. It returns the eigenvalues [count, n], the vectors
// [count, n, n] and whether every kernel converged.
func eigBatch[T scalar](ad []T, count, n int, kernel func(s []T, w []float64) bool) (wd []float64, vd []T, ok bool) {
	wd, vd = make([]float64, count*n), make([]T, count*n*n)
	for b := range count {
		s, w := vd[b*n*n:(b+1)*n*n], wd[b*n:(b+1)*n]
		if f, ok := any(s).([]float64); ok {
			// The real kernel (lapack.SymEig) reads the lower triangle only.
			symLowerPart(f, any(ad).([]float64)[b*n*n:(b+1)*n*n], n)
		} else {
			hermPart(s, ad[b*n*n:(b+1)*n*n], n)
		}
		sigma := eigScale(s)
		if !kernel(s, w) {
			return nil, nil, false
		}
		unscale(w, sigma)
	}
	return wd, vd, true
}

// symLowerPart writes the lower triangle (diagonal included) of the symmetric part
// (A + A^T)/2 of the n×n matrix a to dst, leaving dst's strict upper triangle
// untouched; in 8×8 tiles, so that the transposed reads walk a few cache lines at
// a time.
func symLowerPart(dst, a []float64, n int) {
	const tile = 8
	for i0 := 0; i0 < n; i0 += tile {
		i1 := min(i0+tile, n)
		for j0 := 0; j0 <= i0; j0 += tile {
			for i := i0; i < i1; i++ {
				di, ai := dst[i*n:i*n+i+1], a[i*n:i*n+i+1]
				for j := j0; j < min(j0+tile, i+1); j++ {
					di[j] = (ai[j] + a[j*n+i]) * 0.5
				}
			}
		}
	}
}

// eigScale scales the matrix a by a power of two sigma (returned) when its largest
// modulus lies outside [2^-100, 2^100], as xSYEV and xHEEV scale theirs: the
// tridiagonal solvers (Dsterf, inverse iteration) overflow or underflow beyond
// that range. The eigenvalues of the scaled matrix are sigma w, its eigenvectors
// V; the scaling is exact (up to entries below 2^-900 or so of the largest).
func eigScale(a any) float64 {
	big := 0.0
	switch d := a.(type) {
	case []float64: // finite entries (checked by the callers)
		for _, v := range d {
			if a := math.Abs(v); a > big {
				big = a
			}
		}
	case []complex128:
		for _, v := range d {
			big = math.Max(big, math.Max(math.Abs(real(v)), math.Abs(imag(v))))
		}
	}
	if big == 0 || (big >= 0x1p-100 && big <= 0x1p100) {
		return 1
	}
	_, e := math.Frexp(big)
	sigma := math.Ldexp(1, -e)
	switch d := a.(type) {
	case []float64:
		for i := range d {
			d[i] *= sigma
		}
	case []complex128:
		for i := range d {
			d[i] *= complex(sigma, 0)
		}
	}
	return sigma
}

// unscale divides the eigenvalues w of a matrix scaled by sigma by sigma.
func unscale(w []float64, sigma float64) {
	if sigma == 1 {
		return
	}
	for i := range w {
		w[i] /= sigma
	}
}

// vDiagVt returns V diag(g) V^T for a float64 batch of n×n matrices V [..., n, n]
// and vectors g [..., n]: W = V diag(g), then the lower block triangle of W V^T by
// matrix products on its row blocks (half the flops of the full product), mirrored
// into the upper triangle (so the result is exactly symmetric).
func vDiagVt(v, g *tensor.Dense) *tensor.Dense {
	sh := v.Shape()
	n := sh[len(sh)-1]
	vd, gd := v.Contiguous().Float64s(), g.Contiguous().Float64s()
	out := make([]float64, len(vd))
	if n == 0 {
		return newOf(out, sh...)
	}
	w := make([]float64, n*n)
	const rb = 64
	for b := range len(vd) / (n * n) {
		vb, gb, ob := vd[b*n*n:(b+1)*n*n], gd[b*n:(b+1)*n], out[b*n*n:(b+1)*n*n]
		for i := range n {
			wi, vi := w[i*n:(i+1)*n], vb[i*n:(i+1)*n]
			for j, x := range vi {
				wi[j] = x * gb[j]
			}
		}
		for r0 := 0; r0 < n; r0 += rb {
			h := min(rb, n-r0)
			lapack.Gemm(false, true, h, r0+h, n, 1, w[r0*n:], n, vb, n, 0, ob[r0*n:], n)
		}
		mirrorLower(ob, n)
	}
	return newOf(out, sh...)
}

// mirrorLower copies the strict lower triangle of the n×n matrix a onto its strict
// upper triangle, in 8×8 tiles.
func mirrorLower(a []float64, n int) {
	const tile = 8
	for i0 := 0; i0 < n; i0 += tile {
		for j0 := 0; j0 <= i0; j0 += tile {
			for i := i0; i < min(i0+tile, n); i++ {
				for j := j0; j < min(j0+tile, i); j++ {
					a[j*n+i] = a[i*n+j]
				}
			}
		}
	}
}
