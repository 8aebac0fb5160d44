package linalg

import (
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/einsum"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/tensor"
)

type sample = cr.Sample[*tensor.Dense]

// Register adds the package's op families to reg, with sample inputs for
// testing/ruletest: solve, solve_triangular, cholesky, cholesky_solve, inv, det,
// logdet, slogdet, eigh, eigvalsh, eig, eigvals, svd, svdvals, qr, pinv, lstsq,
// matrix_exp, matrix_power, vector_norm, matrix_norm, cond, trace, cross, vecdot,
// vander, tensorinv, tensorsolve, householder_product, lu_factor, lu and
// lu_solve. It returns an error wrapping chainrules.ErrInvalidArgument for a nil
// reg, or chainrules.ErrDuplicate if a name is taken; registration stops there,
// and the families added before it stay.
func Register(reg *cr.Registry[*tensor.Dense]) error {
	return cr.RegisterEntries(reg, "linalg.Register", entries()...)
}

const (
	f64  = tensor.Float64
	c128 = tensor.Complex128
)

// entries returns the registry entries of the package's op families.
func entries() []cr.Entry[*tensor.Dense] {
	both := tensor.DTypeNames()
	real := tensor.RealDTypeNames()
	var out []cr.Entry[*tensor.Dense]
	reg := func(name string, arity int, dtypes []string, doc string, samples func(rng *rand.Rand) []sample) {
		out = append(out, cr.Entry[*tensor.Dense]{Name: name, Arity: arity, DTypes: dtypes,
			Forward: true, SecondOrder: true, Doc: doc, Samples: samples})
	}
	reg("solve", 2, both, "X = A^-1 B for batches of square A (LU with partial pivoting)", solveSamples)
	reg("solve_triangular", 2, both, "X = T^-1 B or B T^-1 for the upper or lower triangle T of A", solveTriangularSamples)
	reg("cholesky", 1, both, "the Cholesky factor L (or U = L^H) of a Hermitian positive-definite matrix", choleskySamples)
	reg("cholesky_solve", 2, both, "X = (L L^H)^-1 B from a Cholesky factor (inputs B, L)", choleskySolveSamples)
	reg("inv", 1, both, "the inverse of square matrices", invSamples)
	reg("det", 1, both, "the determinant of square matrices", detSamples)
	reg("logdet", 1, both, "log det A (NaN for a negative real determinant)", logdetSamples)
	reg("slogdet", 1, both, "(sign, log|det A|); a real sign is piecewise constant, a complex one a differentiable phase", slogdetSamples)
	reg("eigh", 1, both, "(w, V): eigenvalues (real, ascending) and eigenvectors of symmetric or Hermitian matrices", eighSamples)
	reg("eigvalsh", 1, both, "the eigenvalues of symmetric or Hermitian matrices, real and ascending", eigvalshSamples)
	reg("svd", 1, both, "(U, S, Vh): the thin singular value decomposition (S real; U, Vh unitary up to phases)", svdSamples)
	reg("svdvals", 1, both, "the singular values, real and descending", svdvalsSamples)
	reg("eig", 1, real, "(L, V): eigenvalues and unit right eigenvectors of general real matrices (complex128)", eigSamples)
	reg("eigvals", 1, real, "the eigenvalues of general real matrices (complex128, LAPACK's order)", eigvalsSamples)
	reg("qr", 1, both, "(Q, R): the reduced QR decomposition (LAPACK's signs, R's diagonal real)", qrSamples)
	reg("pinv", 1, both, "the Moore-Penrose pseudo-inverse", pinvSamples)
	reg("lstsq", 2, both, "(X, residuals): the least-squares solution of A X = B and its squared residuals", lstsqSamples)
	reg("matrix_exp", 1, both, "the matrix exponential (Padé 13, scaling and squaring)", matrixExpSamples)
	reg("matrix_power", 1, both, "A^k for an integer k", matrixPowerSamples)
	reg("vector_norm", 1, both, "the ord-norm over axes (p, 0, ±Inf)", vectorNormSamples)
	reg("matrix_norm", 1, both, "the fro, nuc, 1, -1, 2, -2, Inf or -Inf matrix norm", matrixNormSamples)
	reg("cond", 1, both, "the condition number in a matrix norm", condSamples)
	reg("trace", 1, both, "the trace of square matrices", traceSamples)
	reg("cross", 2, both, "the cross product of 3-vectors along an axis", crossSamples)
	reg("vecdot", 2, both, "sum_i conj(x_i) y_i along an axis", vecdotSamples)
	reg("vander", 1, both, "the Vandermonde matrix of increasing powers", vanderSamples)
	reg("tensorinv", 1, both, "the inverse of a tensor seen as a square matrix", tensorinvSamples)
	reg("tensorsolve", 2, both, "X with tensordot(A, X, X.ndim) = B", tensorsolveSamples)
	reg("householder_product", 2, both, "the product of Householder reflections (xORGQR)", householderSamples)
	reg("lu_factor", 1, both, "(LU, pivots): the packed LU factorisation with partial pivoting", luFactorSamples)
	reg("lu", 1, both, "(P, L, U) with A = P L U", luSamples)
	reg("lu_solve", 3, both, "X = op(A)^-1 B or B op(A)^-1 from lu_factor's (LU, pivots)", luSolveSamples)
	return out
}

func rnd(rng *rand.Rand, dt tensor.DType, shape ...int) *tensor.Dense {
	return tensor.RandN(rng, dt, shape...)
}

// wellConditioned returns a batch of random matrices shifted by 3 on the diagonal
// (so that their condition numbers are moderate and finite differences accurate).
func wellConditioned(rng *rand.Rand, dt tensor.DType, shape ...int) *tensor.Dense {
	a := rnd(rng, dt, shape...)
	n := shape[len(shape)-1]
	for b := range a.Size() / max(n*n, 1) {
		idx := unflat(b, shape[:len(shape)-2])
		for i := range n {
			at := append(append([]int{}, idx...), i, i)
			a.Set(a.At(at...)+3, at...)
		}
	}
	return a
}

// unflat returns the multi-index of flat index i in shape.
func unflat(i int, shape []int) []int {
	idx := make([]int, len(shape))
	for d := len(shape) - 1; d >= 0; d-- {
		idx[d] = i % shape[d]
		i /= shape[d]
	}
	return idx
}

// hpd returns a batch of Hermitian positive-definite matrices B B^H + n I.
func hpd(rng *rand.Rand, dt tensor.DType, shape ...int) *tensor.Dense {
	b := rnd(rng, dt, shape...)
	a, err := einsum.Eval("...ij,...kj->...ik", b, b.Conj())
	if err != nil {
		panic(err)
	}
	n := shape[len(shape)-1]
	for k := range a.Size() / max(n*n, 1) {
		idx := unflat(k, shape[:len(shape)-2])
		for i := range n {
			at := append(append([]int{}, idx...), i, i)
			a.Set(complex(real(a.At(at...))+float64(n), 0), at...)
		}
	}
	return a
}

// sym returns a batch of random real symmetric matrices (A + A^T)/2 with distinct
// eigenvalues (almost surely).
func sym(rng *rand.Rand, shape ...int) *tensor.Dense { return hermitian(rng, f64, shape...) }

// hermSample returns a batch of random complex Hermitian matrices (A + A^H)/2 with
// distinct eigenvalues (almost surely).
func hermSample(rng *rand.Rand, shape ...int) *tensor.Dense {
	return hermitian(rng, c128, shape...)
}

// hermitian returns (A + A^H)/2 for a random batch A of dtype dt.
func hermitian(rng *rand.Rand, dt tensor.DType, shape ...int) *tensor.Dense {
	a := rnd(rng, dt, shape...)
	ah, err := a.Transpose(len(shape)-2, len(shape)-1)
	if err != nil {
		panic(err)
	}
	s, err := tensor.Add(a, ah.Conj())
	if err != nil {
		panic(err)
	}
	return tensor.Scale(s, 0.5)
}

// triangular returns a well-conditioned batch with the other triangle filled with
// noise the op must not read.
func triangular(rng *rand.Rand, dt tensor.DType, shape ...int) *tensor.Dense {
	return wellConditioned(rng, dt, shape...)
}

func in(x ...*tensor.Dense) []*tensor.Dense { return x }

// awayFromZero returns random values of modulus in [0.5, 2] (for the norms with
// p < 1, whose derivatives blow up at zero).
func awayFromZero(rng *rand.Rand, dt tensor.DType, shape ...int) *tensor.Dense {
	x := rnd(rng, dt, shape...)
	e := x.Size()
	for i := range e {
		idx := unflat(i, shape)
		v := x.At(idx...)
		m := 0.5 + 1.5*rng.Float64()
		if a := cmplx.Abs(v); a > 0 {
			x.Set(v*complex(m/a, 0), idx...)
		}
	}
	return x
}

func solveSamples(rng *rand.Rand) []sample {
	return []sample{
		{Name: "4x4 matrix rhs", Op: SolveOp(), Inputs: in(wellConditioned(rng, f64, 4, 4), rnd(rng, f64, 4, 2))},
		{Name: "batched vector rhs", Op: SolveOp(), Inputs: in(wellConditioned(rng, f64, 2, 3, 3), rnd(rng, f64, 2, 3))},
		{Name: "broadcast batch", Op: SolveOp(), Inputs: in(wellConditioned(rng, f64, 3, 3), rnd(rng, f64, 2, 3, 2))},
		{Name: "complex128", Op: SolveOp(), Inputs: in(wellConditioned(rng, c128, 3, 3), rnd(rng, c128, 3, 2))},
		{Name: "empty", Op: SolveOp(), Inputs: in(rnd(rng, f64, 0, 0), rnd(rng, f64, 0, 2))},
	}
}

func solveTriangularSamples(rng *rand.Rand) []sample {
	var out []sample
	for _, upper := range []bool{true, false} {
		for _, left := range []bool{true, false} {
			for _, unit := range []bool{false, true} {
				dt := f64
				if unit && !left {
					dt = c128
				}
				b := rnd(rng, dt, 2, 4, 3)
				if !left {
					b = rnd(rng, dt, 2, 3, 4)
				}
				out = append(out, sample{Name: fmt.Sprintf("upper=%v left=%v unit=%v %v", upper, left, unit, dt),
					Op: SolveTriangularOp(upper, left, unit), Inputs: in(triangular(rng, dt, 4, 4), b)})
			}
		}
	}
	out = append(out, sample{Name: "options Upper Right UnitTriangular", Op: SolveTriangularOptsOp(Upper(), Right(), UnitTriangular()),
		Inputs: in(triangular(rng, f64, 3, 3), rnd(rng, f64, 2, 3))})
	return out
}

func choleskySamples(rng *rand.Rand) []sample {
	return []sample{
		{Name: "lower 4x4", Op: CholeskyOp(false), Inputs: in(hpd(rng, f64, 4, 4))},
		{Name: "lower 70x70 (recursive)", Op: CholeskyOp(false), Inputs: in(hpd(rng, f64, 70, 70))},
		{Name: "upper batched", Op: CholeskyOp(true), Inputs: in(hpd(rng, f64, 2, 3, 3))},
		{Name: "lower complex128", Op: CholeskyOp(false), Inputs: in(hpd(rng, c128, 3, 3))},
		{Name: "upper complex128", Op: CholeskyOp(true), Inputs: in(hpd(rng, c128, 3, 3))},
	}
}

func choleskySolveSamples(rng *rand.Rand) []sample {
	l := func(dt tensor.DType, upper bool, shape ...int) *tensor.Dense {
		c, err := Cholesky(hpd(rng, dt, shape...), upper)
		if err != nil {
			panic(err)
		}
		return c
	}
	return []sample{
		{Name: "lower", Op: CholeskySolveOp(false), Inputs: in(rnd(rng, f64, 3, 2), l(f64, false, 3, 3))},
		{Name: "upper batched", Op: CholeskySolveOp(true), Inputs: in(rnd(rng, f64, 2, 3, 2), l(f64, true, 2, 3, 3))},
		{Name: "complex128", Op: CholeskySolveOp(false), Inputs: in(rnd(rng, c128, 3, 1), l(c128, false, 3, 3))},
	}
}

func invSamples(rng *rand.Rand) []sample {
	return []sample{
		{Name: "4x4", Op: InvOp(), Inputs: in(wellConditioned(rng, f64, 4, 4))},
		{Name: "batched complex128", Op: InvOp(), Inputs: in(wellConditioned(rng, c128, 2, 3, 3))},
		{Name: "empty", Op: InvOp(), Inputs: in(rnd(rng, f64, 0, 0))},
	}
}

func detSamples(rng *rand.Rand) []sample {
	return []sample{
		{Name: "4x4", Op: DetOp(), Inputs: in(wellConditioned(rng, f64, 4, 4))},
		{Name: "batched", Op: DetOp(), Inputs: in(rnd(rng, f64, 2, 3, 3))},
		{Name: "complex128", Op: DetOp(), Inputs: in(wellConditioned(rng, c128, 3, 3))},
		{Name: "1x1", Op: DetOp(), Inputs: in(rnd(rng, f64, 1, 1))},
		{Name: "singular (cofactor pullback)", Op: DetOp(), Inputs: in(singularSample())},
		{Name: "singular complex128 (adjugate pullback)", Op: DetOp(), Inputs: in(singularSample().AsComplex())},
	}
}

// singularSample is a rank-2 3x3 matrix whose LU factorisation has an exact zero
// pivot.
func singularSample() *tensor.Dense {
	s, err := tensor.FromFloat64([]float64{1, 2, 3, 2, 4, 6, 1, 0, 1}, 3, 3)
	if err != nil {
		panic(err)
	}
	return s
}

func logdetSamples(rng *rand.Rand) []sample {
	return []sample{
		{Name: "positive definite", Op: LogdetOp(), Inputs: in(hpd(rng, f64, 4, 4))},
		{Name: "batched", Op: LogdetOp(), Inputs: in(hpd(rng, f64, 2, 3, 3))},
		{Name: "complex128", Op: LogdetOp(), Inputs: in(wellConditioned(rng, c128, 3, 3))},
	}
}

func slogdetSamples(rng *rand.Rand) []sample {
	neg := wellConditioned(rng, f64, 3, 3)
	neg.Set(-neg.At(0, 0), 0, 0) // a negative determinant, almost surely
	return []sample{
		{Name: "4x4", Op: SlogdetOp(), Inputs: in(wellConditioned(rng, f64, 4, 4))},
		{Name: "batched", Op: SlogdetOp(), Inputs: in(rnd(rng, f64, 2, 3, 3))},
		{Name: "sign flipped", Op: SlogdetOp(), Inputs: in(neg)},
		{Name: "complex128", Op: SlogdetOp(), Inputs: in(wellConditioned(rng, c128, 3, 3))},
		{Name: "complex128 batched", Op: SlogdetOp(), Inputs: in(rnd(rng, c128, 2, 3, 3))},
	}
}

// The eigenvector and singular-vector outputs of small matrices (gonum's Dsyev
// and Dgesvd, QR iterations) are checked alone as well as together: their sign
// choice evolves continuously with the matrix, so each output is a differentiable
// function near the samples and finite differences apply to it. The larger
// matrices go through inverse iteration, whose sign convention is xSTEIN's (the
// entry of largest magnitude positive): it flips where two entries tie, which
// finite differences over 60 vectors are likely to cross, so those samples check
// the rules through gauge-invariant losses (composites named like the family):
// V diag(sin w) V^T + V o V for eigh and U diag(log S) Vh for svd.

// eighInvariant is the sign- and phase-invariant function
// A -> V diag(sin w) V^H + V o conj(V) of eigh's outputs (V^T and V o V for real A),
// named "eigh" for the family's samples.
func eighInvariant() cr.Op[*tensor.Dense] {
	return core.Composite("eigh", space, 1, func(t *tape, x []cr.NodeID) []cr.NodeID {
		ys := t.ApplyMulti(EighOp(), x[0])
		f := t.Apply(einsum.Op("...ij,...j,...kj->...ik"), ys[1], t.Apply(elementwise.SinOp, ys[0]), conj(t, ys[1]))
		return []cr.NodeID{add(t, f, mul(t, ys[1], conj(t, ys[1])))}
	})
}

// svdInvariant is the sign-invariant function A -> U diag(log S) Vh of svd's
// outputs, named "svd" for the family's samples.
func svdInvariant() cr.Op[*tensor.Dense] {
	return core.Composite("svd", space, 1, func(t *tape, x []cr.NodeID) []cr.NodeID {
		ys := t.ApplyMulti(SVDOp(), x[0])
		return []cr.NodeID{t.Apply(einsum.Op("...ij,...j,...jk->...ik"), ys[0], t.Apply(elementwise.LogOp, ys[1]), ys[2])}
	})
}

func eighSamples(rng *rand.Rand) []sample {
	return []sample{
		{Name: "4x4", Op: EighOp(), Inputs: in(sym(rng, 4, 4))},
		{Name: "batched", Op: EighOp(), Inputs: in(sym(rng, 2, 3, 3))},
		{Name: "non-symmetric input (symmetric part)", Op: EighOp(), Inputs: in(rnd(rng, f64, 3, 3))},
		{Name: "60x60 tridiagonal solver, gauge-invariant loss", Op: eighInvariant(), Inputs: in(sym(rng, 60, 60))},
		// Complex eigenvectors are defined up to phases: phase-invariant losses only.
		{Name: "4x4 complex128, phase-invariant loss", Op: eighInvariant(), Inputs: in(hermSample(rng, 4, 4))},
		{Name: "batched non-Hermitian complex128 (Hermitian part), phase-invariant loss", Op: eighInvariant(), Inputs: in(rnd(rng, c128, 2, 3, 3))},
		{Name: "60x60 complex128 tridiagonal solver, phase-invariant loss", Op: eighInvariant(), Inputs: in(hermSample(rng, 60, 60))},
	}
}

func eigvalshSamples(rng *rand.Rand) []sample {
	return []sample{
		{Name: "4x4", Op: EigvalshOp(), Inputs: in(sym(rng, 4, 4))},
		{Name: "batched", Op: EigvalshOp(), Inputs: in(sym(rng, 2, 3, 3))},
		{Name: "batched complex128", Op: EigvalshOp(), Inputs: in(hermSample(rng, 2, 4, 4))},
	}
}

func svdSamples(rng *rand.Rand) []sample {
	return []sample{
		{Name: "square", Op: SVDOp(), Inputs: in(rnd(rng, f64, 4, 4))},
		{Name: "tall", Op: SVDOp(), Inputs: in(rnd(rng, f64, 5, 3))},
		{Name: "wide batched", Op: SVDOp(), Inputs: in(rnd(rng, f64, 2, 2, 4))},
		{Name: "60x52 Golub-Kahan solver, gauge-invariant loss", Op: svdInvariant(), Inputs: in(rnd(rng, f64, 60, 52))},
		// Complex singular vectors are defined up to phases: phase-invariant losses only.
		{Name: "square complex128, U diag(log S) Vh", Op: svdInvariant(), Inputs: in(rnd(rng, c128, 4, 4))},
		{Name: "tall complex128, U diag(log S) Vh", Op: svdInvariant(), Inputs: in(rnd(rng, c128, 5, 3))},
		{Name: "wide batched complex128, U diag(log S) Vh", Op: svdInvariant(), Inputs: in(rnd(rng, c128, 2, 2, 4))},
		{Name: "tall complex128, |U|", Op: svdAbsInvariant(0), Inputs: in(rnd(rng, c128, 5, 3))},
		{Name: "wide complex128, |Vh|", Op: svdAbsInvariant(2), Inputs: in(rnd(rng, c128, 3, 4))},
	}
}

// svdAbsInvariant is the phase-invariant function A -> |U| (out 0) or |Vh|
// (out 2) of svd's outputs, named "svd" for the family's samples.
func svdAbsInvariant(out int) cr.Op[*tensor.Dense] {
	return core.Composite("svd", space, 1, func(t *tape, x []cr.NodeID) []cr.NodeID {
		return []cr.NodeID{t.Apply(elementwise.AbsOp, t.ApplyMulti(SVDOp(), x[0])[out])}
	})
}

func svdvalsSamples(rng *rand.Rand) []sample {
	return []sample{
		{Name: "tall", Op: SvdvalsOp(), Inputs: in(rnd(rng, f64, 5, 3))},
		{Name: "wide batched", Op: SvdvalsOp(), Inputs: in(rnd(rng, f64, 2, 2, 4))},
		{Name: "tall complex128", Op: SvdvalsOp(), Inputs: in(rnd(rng, c128, 5, 3))},
		{Name: "wide batched complex128", Op: SvdvalsOp(), Inputs: in(rnd(rng, c128, 2, 2, 4))},
	}
}

// eigInvariant is the phase-invariant function A -> |V| + L (L along the rows) of
// eig's outputs, named "eig" for the family's samples.
func eigInvariant() cr.Op[*tensor.Dense] {
	return core.Composite("eig", space, 1, func(t *tape, x []cr.NodeID) []cr.NodeID {
		ys := t.ApplyMulti(EigOp(), x[0])
		return []cr.NodeID{add(t, t.Apply(elementwise.AbsOp, ys[1]), unsq(t, ys[0], -2))}
	})
}

// eigSpectral is the phase-invariant function A -> V diag(sin L) V^-1 (sin of A).
func eigSpectral() cr.Op[*tensor.Dense] {
	return core.Composite("eig", space, 1, func(t *tape, x []cr.NodeID) []cr.NodeID {
		ys := t.ApplyMulti(EigOp(), x[0])
		vs := mul(t, ys[1], unsq(t, t.Apply(elementwise.SinOp, ys[0]), -2))
		return []cr.NodeID{mT(t, t.Apply(SolveOp(), mT(t, ys[1]), mT(t, vs)))}
	})
}

// Eigenvectors are defined up to phases: phase-invariant losses only.
func eigSamples(rng *rand.Rand) []sample {
	return []sample{
		{Name: "4x4, |V| + L", Op: eigInvariant(), Inputs: in(rnd(rng, f64, 4, 4))},
		{Name: "batched, |V| + L", Op: eigInvariant(), Inputs: in(rnd(rng, f64, 2, 3, 3))},
		{Name: "5x5, V diag(sin L) V^-1", Op: eigSpectral(), Inputs: in(rnd(rng, f64, 5, 5))},
	}
}

func eigvalsSamples(rng *rand.Rand) []sample {
	return []sample{
		{Name: "4x4", Op: EigvalsOp(), Inputs: in(rnd(rng, f64, 4, 4))},
		{Name: "batched", Op: EigvalsOp(), Inputs: in(rnd(rng, f64, 2, 3, 3))},
	}
}

func qrSamples(rng *rand.Rand) []sample {
	return []sample{
		{Name: "square", Op: QROp(), Inputs: in(rnd(rng, f64, 4, 4))},
		{Name: "tall", Op: QROp(), Inputs: in(rnd(rng, f64, 5, 3))},
		{Name: "wide batched", Op: QROp(), Inputs: in(rnd(rng, f64, 2, 3, 5))},
		{Name: "70x40 (blocked)", Op: QROp(), Inputs: in(rnd(rng, f64, 70, 40))},
		{Name: "complex128 square", Op: QROp(), Inputs: in(rnd(rng, c128, 4, 4))},
		{Name: "complex128 tall", Op: QROp(), Inputs: in(rnd(rng, c128, 5, 3))},
		{Name: "complex128 wide batched", Op: QROp(), Inputs: in(rnd(rng, c128, 2, 3, 5))},
	}
}

func pinvSamples(rng *rand.Rand) []sample {
	return []sample{
		{Name: "wide", Op: PinvOp(PinvOptions{}), Inputs: in(rnd(rng, f64, 3, 5))},
		{Name: "tall batched", Op: PinvOp(PinvOptions{}), Inputs: in(rnd(rng, f64, 2, 4, 3))},
		{Name: "hermitian", Op: PinvOp(PinvOptions{Hermitian: true}), Inputs: in(sym(rng, 4, 4))},
		{Name: "atol", Op: PinvOp(PinvOptions{Atol: 1e-3}), Inputs: in(rnd(rng, f64, 3, 3))},
		{Name: "wide complex128", Op: PinvOp(PinvOptions{}), Inputs: in(rnd(rng, c128, 3, 5))},
		{Name: "tall batched complex128", Op: PinvOp(PinvOptions{}), Inputs: in(rnd(rng, c128, 2, 4, 3))},
		{Name: "square complex128", Op: PinvOp(PinvOptions{Hermitian: true}), Inputs: in(rnd(rng, c128, 3, 3))},
		{Name: "defaults (PinvDefaultOp)", Op: PinvDefaultOp(), Inputs: in(rnd(rng, f64, 4, 2))},
	}
}

func lstsqSamples(rng *rand.Rand) []sample {
	return []sample{
		{Name: "overdetermined", Op: LstsqOp(), Inputs: in(rnd(rng, f64, 5, 3), rnd(rng, f64, 5, 2))},
		{Name: "underdetermined batched", Op: LstsqOp(), Inputs: in(rnd(rng, f64, 2, 2, 4), rnd(rng, f64, 2, 2, 3))},
		{Name: "overdetermined complex128", Op: LstsqOp(), Inputs: in(rnd(rng, c128, 5, 3), rnd(rng, c128, 5, 2))},
		{Name: "underdetermined complex128", Op: LstsqOp(), Inputs: in(rnd(rng, c128, 2, 4), rnd(rng, c128, 2, 3))},
	}
}

func matrixExpSamples(rng *rand.Rand) []sample {
	big := tensor.Scale(rnd(rng, f64, 3, 3), 3) // 1-norm above theta13: squarings
	return []sample{
		{Name: "3x3", Op: MatrixExpOp(), Inputs: in(rnd(rng, f64, 3, 3))},
		{Name: "scaled", Op: MatrixExpOp(), Inputs: in(big)},
		{Name: "batched complex128", Op: MatrixExpOp(), Inputs: in(rnd(rng, c128, 2, 2, 2))},
	}
}

func matrixPowerSamples(rng *rand.Rand) []sample {
	return []sample{
		{Name: "k=3", Op: MatrixPowerOp(3), Inputs: in(rnd(rng, f64, 3, 3))},
		{Name: "k=0", Op: MatrixPowerOp(0), Inputs: in(rnd(rng, f64, 2, 3, 3))},
		{Name: "k=1", Op: MatrixPowerOp(1), Inputs: in(rnd(rng, f64, 3, 3))},
		{Name: "k=-2 complex128", Op: MatrixPowerOp(-2), Inputs: in(wellConditioned(rng, c128, 3, 3))},
	}
}

func vectorNormSamples(rng *rand.Rand) []sample {
	var out []sample
	for _, o := range []float64{2, 1, 3, 1.5, 0.5, -1.5, 0, math.Inf(1), math.Inf(-1)} {
		out = append(out, sample{Name: fmt.Sprintf("ord %v axis -1", o), Op: VectorNormOp(o, []int{-1}, false), Inputs: in(awayFromZero(rng, f64, 3, 4))})
	}
	out = append(out,
		sample{Name: "ord 2 all axes keepdim complex128", Op: VectorNormOp(2, nil, true), Inputs: in(rnd(rng, c128, 2, 3))},
		sample{Name: "ord 3 axes 0,2 complex128", Op: VectorNormOp(3, []int{0, 2}, false), Inputs: in(rnd(rng, c128, 2, 3, 2))},
		sample{Name: "ord inf complex128", Op: VectorNormOp(math.Inf(1), []int{0}, true), Inputs: in(rnd(rng, c128, 4, 2))},
	)
	return out
}

func matrixNormSamples(rng *rand.Rand) []sample {
	var out []sample
	for _, o := range []MatrixOrd{OrdFro, OrdNuc, Ord1, OrdNeg1, Ord2, OrdNeg2, OrdInf, OrdNegInf} {
		out = append(out, sample{Name: string(o), Op: MatrixNormOp(o, -2, -1, false), Inputs: in(rnd(rng, f64, 2, 3, 4))})
	}
	out = append(out,
		sample{Name: "nuc axes 0,-1 keepdim", Op: MatrixNormOp(OrdNuc, 0, -1, true), Inputs: in(rnd(rng, f64, 3, 2, 4))},
		sample{Name: "fro complex128", Op: MatrixNormOp(OrdFro, -1, -2, false), Inputs: in(rnd(rng, c128, 3, 2))},
		sample{Name: "defaults (MatrixNormFroOp)", Op: MatrixNormFroOp(), Inputs: in(rnd(rng, f64, 2, 3, 2))},
		sample{Name: "inf complex128", Op: MatrixNormOp(OrdInf, -2, -1, true), Inputs: in(rnd(rng, c128, 3, 2))},
		sample{Name: "nuc complex128", Op: MatrixNormOp(OrdNuc, -2, -1, false), Inputs: in(rnd(rng, c128, 2, 3, 4))},
		sample{Name: "2 complex128", Op: MatrixNormOp(Ord2, -2, -1, false), Inputs: in(rnd(rng, c128, 4, 3))},
		sample{Name: "-2 axes 0,-1 keepdim complex128", Op: MatrixNormOp(OrdNeg2, 0, -1, true), Inputs: in(rnd(rng, c128, 3, 2, 4))},
	)
	return out
}

func condSamples(rng *rand.Rand) []sample {
	return []sample{
		{Name: "2", Op: CondOp(Ord2), Inputs: in(wellConditioned(rng, f64, 3, 3))},
		{Name: "-2 rectangular", Op: CondOp(OrdNeg2), Inputs: in(rnd(rng, f64, 2, 3, 4))},
		{Name: "fro", Op: CondOp(OrdFro), Inputs: in(wellConditioned(rng, f64, 3, 3))},
		{Name: "1 complex128", Op: CondOp(Ord1), Inputs: in(wellConditioned(rng, c128, 3, 3))},
		{Name: "2 complex128", Op: CondOp(Ord2), Inputs: in(wellConditioned(rng, c128, 3, 3))},
		{Name: "-2 rectangular complex128", Op: CondOp(OrdNeg2), Inputs: in(rnd(rng, c128, 2, 3, 4))},
		{Name: "nuc complex128", Op: CondOp(OrdNuc), Inputs: in(wellConditioned(rng, c128, 3, 3))},
	}
}

func traceSamples(rng *rand.Rand) []sample {
	return []sample{
		{Name: "3x3", Op: TraceOp(), Inputs: in(rnd(rng, f64, 3, 3))},
		{Name: "batched complex128", Op: TraceOp(), Inputs: in(rnd(rng, c128, 2, 4, 4))},
	}
}

func crossSamples(rng *rand.Rand) []sample {
	return []sample{
		{Name: "last axis broadcast", Op: CrossOp(-1), Inputs: in(rnd(rng, f64, 4, 3), rnd(rng, f64, 1, 3))},
		{Name: "axis 1 complex128", Op: CrossOp(1), Inputs: in(rnd(rng, c128, 2, 3, 2), rnd(rng, c128, 2, 3, 2))},
	}
}

func vecdotSamples(rng *rand.Rand) []sample {
	return []sample{
		{Name: "last axis", Op: VecdotOp(-1), Inputs: in(rnd(rng, f64, 3, 4), rnd(rng, f64, 3, 4))},
		{Name: "axis 0 broadcast complex128", Op: VecdotOp(0), Inputs: in(rnd(rng, c128, 3, 2), rnd(rng, c128, 3, 1))},
	}
}

func vanderSamples(rng *rand.Rand) []sample {
	return []sample{
		{Name: "default columns", Op: VanderOp(0), Inputs: in(rnd(rng, f64, 4))},
		{Name: "5 columns batched complex128", Op: VanderOp(5), Inputs: in(rnd(rng, c128, 2, 3))},
	}
}

func tensorinvSamples(rng *rand.Rand) []sample {
	a := wellConditioned(rng, f64, 6, 6)
	ar, err := a.Reshape(2, 3, 6)
	if err != nil {
		panic(err)
	}
	return []sample{{Name: "ind 2", Op: TensorinvOp(2), Inputs: in(ar)}}
}

func tensorsolveSamples(rng *rand.Rand) []sample {
	a := wellConditioned(rng, f64, 6, 6)
	ar, err := a.Reshape(2, 3, 6)
	if err != nil {
		panic(err)
	}
	c := wellConditioned(rng, c128, 4, 4)
	cr4, err := c.Reshape(2, 2, 2, 2)
	if err != nil {
		panic(err)
	}
	return []sample{
		{Name: "no dims", Op: TensorsolveOp(nil), Inputs: in(ar, rnd(rng, f64, 2, 3))},
		{Name: "dims 0,2 complex128", Op: TensorsolveOp([]int{0, 2}), Inputs: in(cr4, rnd(rng, c128, 2, 2))},
	}
}

func householderSamples(rng *rand.Rand) []sample {
	return []sample{
		{Name: "5x4 k=3", Op: HouseholderProductOp(), Inputs: in(rnd(rng, f64, 5, 4), rnd(rng, f64, 3))},
		{Name: "batched complex128", Op: HouseholderProductOp(), Inputs: in(rnd(rng, c128, 2, 3, 3), rnd(rng, c128, 2, 3))},
	}
}

func luFactorSamples(rng *rand.Rand) []sample {
	return []sample{
		{Name: "square", Op: LUFactorOp(), Inputs: in(clearPivots(rng, 4))},
		{Name: "40x40 (recursive)", Op: LUFactorOp(), Inputs: in(clearPivots(rng, 40))},
		{Name: "wide", Op: LUFactorOp(), Inputs: in(rnd(rng, f64, 3, 5))},
		{Name: "tall batched complex128", Op: LUFactorOp(), Inputs: in(rnd(rng, c128, 2, 5, 3))},
	}
}

// clearPivots returns a random n x n float64 matrix plus 10 at the places of a
// random permutation: partial pivoting then swaps rows (the permutation's), and
// every pivot beats the other candidates of its column by a wide margin, so that
// the finite differences of the checks never straddle a change of pivot (a plain
// random 40 x 40 matrix can hold a near tie).
func clearPivots(rng *rand.Rand, n int) *tensor.Dense {
	a := rnd(rng, f64, n, n)
	for i, j := range rng.Perm(n) {
		a.SetFloat64(a.AtFloat64(i, j)+10, i, j)
	}
	return a
}

func luSamples(rng *rand.Rand) []sample {
	return []sample{
		{Name: "square", Op: LUOp(), Inputs: in(rnd(rng, f64, 4, 4))},
		{Name: "wide complex128", Op: LUOp(), Inputs: in(rnd(rng, c128, 3, 5))},
		{Name: "tall batched", Op: LUOp(), Inputs: in(rnd(rng, f64, 2, 5, 3))},
	}
}

func luSolveSamples(rng *rand.Rand) []sample {
	var out []sample
	for _, left := range []bool{true, false} {
		for _, adj := range []bool{false, true} {
			dt := f64
			if adj && !left {
				dt = c128
			}
			lu, piv, err := LUFactor(wellConditioned(rng, dt, 2, 3, 3))
			if err != nil {
				panic(err)
			}
			out = append(out, sample{Name: fmt.Sprintf("left=%v adjoint=%v %v", left, adj, dt),
				Op: LUSolveOp(left, adj), Inputs: in(lu, piv, rnd(rng, dt, 2, 3, 3))})
		}
	}
	return out
}
