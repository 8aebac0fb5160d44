package linalg

import (
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/einsum"
	"github.com/chainrules-go/chainrules/internal/vmath"
	"github.com/chainrules-go/chainrules/linalg/internal/lapack"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// CholeskyOp returns the op of PyTorch's linalg.cholesky: the Cholesky factor of a
// batch of Hermitian positive-definite matrices A [..., n, n],
//
//	A = L L^H  (L lower triangular with a positive diagonal),
//
// returning L, or U = L^H when upper is set. The op reads A through its Hermitian
// part S = (A + A^H)/2, which is A itself for the Hermitian inputs PyTorch accepts
// (PyTorch reads one triangle); this makes the gradient Hermitian, as PyTorch's is.
// A matrix that is not positive-definite is an error wrapping
// chainrules.ErrInvalidArgument that names the order of the failing leading minor.
// float64 and complex128.
//
// With Phi(X) the lower triangle of X with its diagonal halved (so that
// L^-1 Ldot = Phi(L^-1 Sdot L^-H)), the rules are hand-written:
//
//	Ldot    = L C,                         C = Phi(L^-1 Sdot L^-H),
//	Abar    = herm(G),                     G = L^-H P L^-1,  P = Phi(L^H Lbar),
//	Abardot = herm(L^-H (Pdot - C^H P - P C) L^-1),  Pdot = Phi(Ldot^H Lbar + L^H Lbardot),
//
// with herm(X) = (X + X^H)/2 (for upper, Lbar = Ubar^H and Udot = Ldot^H). Each
// costs a few triangular solves and matrix products; the second-order rule is the
// exact derivative of the pullback along the input tangent. The pullback is also
// recorded with ops (SolveTriangularOp, einsum, a mask and elementwise ops;
// chainrules.PullbackRecorder), for derivatives of higher order through
// core.Tape.GradGraph.
func CholeskyOp(upper bool) cr.Op[*tensor.Dense] { return cholOp{upper: upper} }

type cholOp struct{ upper bool }

func (o cholOp) Name() string { return "cholesky" }

// NumOutputs returns 1.
func (o cholOp) NumOutputs() int { return 1 }

func (o cholOp) Apply(in []cr.NodeID, x, out []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if opkit.HasSingle(x) {
		return applySingle(o, in, x, out, nil)
	}
	if err := opkit.CheckApply("cholesky", in, x, 1); err != nil {
		return nil, err
	}
	y, err := choleskyValues(x[0], o.upper)
	if err != nil {
		return nil, err
	}
	l := y
	if o.upper {
		l = conjT(y)
	}
	out[0] = y
	return &cholRule{upper: o.upper, in: slices.Clone(in), l: l}, nil
}

// conjT returns the conjugate transpose of a batch of matrices (a fresh tensor).
func conjT(x *tensor.Dense) *tensor.Dense {
	y, err := einsum.Eval("...ij->...ji", conjOf(x))
	if err != nil {
		panic(err) // x is a batch of matrices
	}
	return y
}

type cholRule struct {
	upper bool
	in    []cr.NodeID
	l     *tensor.Dense // the lower factor
}

func (r *cholRule) Inputs() []cr.NodeID { return r.in }

var (
	lowerLeft  = triSolveOp{upper: false, left: true}
	lowerRight = triSolveOp{upper: false, left: false}
)

// phi returns Phi(x): the lower triangle of each matrix with its diagonal halved.
func phi(x *tensor.Dense) *tensor.Dense {
	sh := x.Shape()
	n := sh[len(sh)-1]
	m := tensor.New(tensor.Float64, n, n)
	md := m.Float64s()
	for i := range n {
		for j := range i {
			md[i*n+j] = 1
		}
		md[i*n+i] = 0.5
	}
	p, err := tensor.Mul(x, m)
	if err != nil {
		panic(err)
	}
	return p
}

// hermOf returns (x + x^H)/2.
func hermOf(x *tensor.Dense) *tensor.Dense {
	s, err := tensor.Add(x, conjT(x))
	if err != nil {
		panic(err)
	}
	return tensor.Scale(s, 0.5)
}

// sandwich returns L^-H x L^-1.
func (r *cholRule) sandwich(x *tensor.Dense) (*tensor.Dense, error) {
	y, err := lowerRight.solve(r.l, x, lapack.NoTrans) // x L^-1
	if err != nil {
		return nil, err
	}
	return lowerLeft.solve(r.l, y, lapack.ConjTrans) // L^-H (x L^-1)
}

// lowerCot returns the cotangent (or its tangent) of the lower factor.
func (r *cholRule) lowerCot(v *tensor.Dense) *tensor.Dense {
	if r.upper {
		return conjT(v)
	}
	return v
}

// p returns P = Phi(L^H Lbar).
func (r *cholRule) p(lbar *tensor.Dense) (*tensor.Dense, error) {
	m, err := prod(r.l, lbar, true, false)
	if err != nil {
		return nil, err
	}
	return phi(m), nil
}

func (r *cholRule) Pullback(ybars []*tensor.Dense, _ []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	ybar := ybars[0]
	if abar, ok := r.pullbackF64(r.lowerCot(ybar)); ok {
		return append(dst, cr.Contribution[*tensor.Dense]{Node: r.in[0], Value: abar}), nil
	}
	p, err := r.p(r.lowerCot(ybar))
	if err != nil {
		return dst, err
	}
	g, err := r.sandwich(p)
	if err != nil {
		return dst, err
	}
	return append(dst, cr.Contribution[*tensor.Dense]{Node: r.in[0], Value: hermOf(g)}), nil
}

// c returns C = Phi(L^-1 Sdot L^-H) and Ldot = L C for the input tangent adot.
func (r *cholRule) c(adot *tensor.Dense) (c, ldot *tensor.Dense, err error) {
	w, err := lowerLeft.solve(r.l, hermOf(adot), lapack.NoTrans) // L^-1 Sdot
	if err != nil {
		return nil, nil, err
	}
	if w, err = lowerRight.solve(r.l, w, lapack.ConjTrans); err != nil { // (L^-1 Sdot) L^-H
		return nil, nil, err
	}
	c = phi(w)
	ldot, err = prod(r.l, c, false, false)
	return c, ldot, err
}

func (r *cholRule) Forward(tangentOf cr.TangentOf[*tensor.Dense], ydot []*tensor.Dense, has []bool) error {
	adot, ok := tangentOf(r.in[0])
	if !ok {
		return nil
	}
	_, ldot, err := r.c(adot)
	if err != nil {
		return err
	}
	if r.upper {
		ydot[0], has[0] = conjT(ldot), true
		return nil
	}
	ydot[0], has[0] = ldot, true
	return nil
}

func (r *cholRule) PullbackWithTangents(a cr.SecondOrderArgs[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	ct, tangentOf := a.Cotangents[0], a.TangentOf
	lbar := r.lowerCot(ct.Value)
	p, err := r.p(lbar)
	if err != nil {
		return dst, err
	}
	g, err := r.sandwich(p)
	if err != nil {
		return dst, err
	}
	out := cr.DualContribution[*tensor.Dense]{Node: r.in[0], Cotangent: cr.Dual[*tensor.Dense]{Value: hermOf(g)}}
	adot, hasA := tangentOf(r.in[0])
	if !hasA && !ct.HasTangent {
		return append(dst, out), nil
	}
	// inner = Pdot - C^H P - P C, Pdot = Phi(Ldot^H Lbar + L^H Lbardot).
	var m *tensor.Dense // Ldot^H Lbar + L^H Lbardot
	var inner *tensor.Dense
	if hasA {
		c, ldot, err := r.c(adot)
		if err != nil {
			return dst, err
		}
		if m, err = prod(ldot, lbar, true, false); err != nil {
			return dst, err
		}
		chp, err := prod(c, p, true, false)
		if err != nil {
			return dst, err
		}
		pc, err := prod(p, c, false, false)
		if err != nil {
			return dst, err
		}
		if inner, err = tensor.Add(chp, pc); err != nil {
			return dst, err
		}
		inner = tensor.Scale(inner, -1)
	}
	if ct.HasTangent {
		lt, err := prod(r.l, r.lowerCot(ct.Tangent), true, false)
		if err != nil {
			return dst, err
		}
		if m, err = accAdd(m, lt); err != nil {
			return dst, err
		}
	}
	pdot := phi(m)
	if inner, err = accAdd(inner, pdot); err != nil {
		return dst, err
	}
	dg, err := r.sandwichHerm(inner)
	if err != nil {
		return dst, err
	}
	out.Cotangent.Tangent, out.Cotangent.HasTangent = dg, true
	return append(dst, out), nil
}

// cholBlockRows is the block height of lowerProdF64.
const cholBlockRows = 64

// lowerProdF64 writes to c (n×n, zeroed first) the lower triangle of L^T B for the
// lower triangular L and a general B (row-major n×n each): block row I of the
// triangle is L[i0:n, I]^T B[i0:n, 0:i1] (L's zero upper triangle makes the
// shortened sum exact), one GEMM per block, n^3/3 flops in all instead of a full
// product's 2n^3.
func lowerProdF64(c, l, b []float64, n int) {
	clear(c)
	for i0 := 0; i0 < n; i0 += cholBlockRows {
		i1 := min(i0+cholBlockRows, n)
		lapack.Gemm(true, false, i1-i0, i1, n-i0, 1, l[i0*n+i0:], n, b[i0*n:], n, 0, c[i0*n:], n)
		for i := i0; i < i1; i++ {
			clear(c[i*n+i+1 : i*n+i1])
		}
	}
}

// sandwichHermF64 replaces the symmetric n×n matrix q by L^-T q L^-1 (symmetric
// again): Y = L^-T q, then L^-T Y^T = L^-T q^T L^-1, two left triangular solves
// through the GEMM-based trsmRec and a transpose; the result is symmetrised to
// remove rounding asymmetry.
func sandwichHermF64(q, l []float64, n int) {
	lapack.TrsmF64(false, true, false, n, n, l, n, q, n)
	transposeSquare(q, n)
	lapack.TrsmF64(false, true, false, n, n, l, n, q, n)
	for i := range n {
		for j := range i {
			v := (q[i*n+j] + q[j*n+i]) * 0.5
			q[i*n+j], q[j*n+i] = v, v
		}
	}
}

// transposeSquare transposes the n×n matrix a in place, in 32×32 tiles.
func transposeSquare(a []float64, n int) {
	const tile = 32
	for i0 := 0; i0 < n; i0 += tile {
		for j0 := i0; j0 < n; j0 += tile {
			for i := i0; i < min(i0+tile, n); i++ {
				for j := max(j0, i+1); j < min(j0+tile, n); j++ {
					a[i*n+j], a[j*n+i] = a[j*n+i], a[i*n+j]
				}
			}
		}
	}
}

// cholPullbackF64 is the real pullback herm(L^-T Phi(L^T Lbar) L^-1) =
// L^-T herm(Phi(L^T Lbar)) L^-1 per matrix of the batch, in structured kernels: the
// lower triangle of L^T Lbar alone, then two triangular solves. ok is false for
// complex input (the generic path handles it).
func (r *cholRule) pullbackF64(lbar *tensor.Dense) (*tensor.Dense, bool) {
	if r.l.DType() != tensor.Float64 || lbar.DType() != tensor.Float64 || !slices.Equal(r.l.Shape(), lbar.Shape()) {
		return nil, false
	}
	sh := r.l.Shape()
	n := sh[len(sh)-1]
	ld, bd := r.l.Float64s(), lbar.Float64s()
	out := make([]float64, len(ld))
	if n > 0 {
		for b := range len(ld) / (n * n) {
			q := out[b*n*n : (b+1)*n*n]
			lowerProdF64(q, ld[b*n*n:(b+1)*n*n], bd[b*n*n:(b+1)*n*n], n)
			// herm(Phi(M)): M_ij/2 in both triangles, M_ii/2 on the diagonal.
			for i := range n {
				for j := range i + 1 {
					v := q[i*n+j] * 0.5
					q[i*n+j], q[j*n+i] = v, v
				}
			}
			sandwichHermF64(q, ld[b*n*n:(b+1)*n*n], n)
		}
	}
	return newOf(out, sh...), true
}

// sandwichHerm returns herm(L^-H x L^-1) = L^-H herm(x) L^-1.
func (r *cholRule) sandwichHerm(x *tensor.Dense) (*tensor.Dense, error) {
	if r.l.DType() == tensor.Float64 && x.DType() == tensor.Float64 && slices.Equal(r.l.Shape(), x.Shape()) {
		sh := r.l.Shape()
		n := sh[len(sh)-1]
		ld := r.l.Float64s()
		out := hermOf(x).Float64s()
		out = append([]float64(nil), out...)
		if n > 0 {
			for b := range len(ld) / (n * n) {
				sandwichHermF64(out[b*n*n:(b+1)*n*n], ld[b*n*n:(b+1)*n*n], n)
			}
		}
		return newOf(out, sh...), nil
	}
	g, err := r.sandwich(x)
	if err != nil {
		return nil, err
	}
	return hermOf(g), nil
}

// RecordPullback records the pullback with ops (chainrules.PullbackRecorder),
//
//	Abar = herm(L^-H P L^-1),   P = Phi(L^H Lbar),
//
// from the output node (L, or U = L^H) and its cotangent, with einsum products, the
// mask of Phi, two SolveTriangularOp and elementwise ops; so core.Tape.GradGraph
// differentiates through the op to the orders those ops reach.
func (r *cholRule) RecordPullback(rec cr.Recorder[*tensor.Dense], _, y, ybar []cr.NodeID) ([]cr.NodeID, error) {
	t, err := tapeOf(rec, "cholesky")
	if err != nil {
		return nil, err
	}
	g := ybar[0]
	if !g.Valid() {
		return []cr.NodeID{0}, nil
	}
	l, lh, lbar := y[0], mH(t, y[0]), g // L, L^H, Lbar
	if r.upper {
		l, lh, lbar = lh, y[0], mH(t, g)
	}
	p := masked(t, mm(t, lh, lbar), func(i, j int) float64 { // Phi(L^H Lbar)
		switch {
		case j < i:
			return 1
		case j == i:
			return 0.5
		}
		return 0
	})
	w := t.Apply(lowerRight, l, p)                            // P L^-1
	gm := t.Apply(triSolveOp{upper: true, left: true}, lh, w) // L^-H (P L^-1)
	abar := scale(t, add(t, gm, mH(t, gm)), 0.5)
	return []cr.NodeID{abar}, t.Err()
}

// Cholesky is CholeskyOp without a tape.
func Cholesky(a *tensor.Dense, upper bool) (*tensor.Dense, error) {
	return eval(CholeskyOp(upper), a)
}

func choleskyValues(a *tensor.Dense, upper bool) (*tensor.Dense, error) {
	const op = "cholesky"
	_, _, n, err := square(op, "A", a)
	if err != nil {
		return nil, err
	}
	if a.DType() == tensor.Complex128 {
		return cholT[complex128](op, a, n, upper)
	}
	return cholT[float64](op, a, n, upper)
}

func cholT[T scalar](op string, a *tensor.Dense, n int, upper bool) (*tensor.Dense, error) {
	ad := dataOf[T](a)
	out := vmath.MakeNoZero[T](len(ad)) // every block is written whole below
	if n > 0 {
		s := vmath.MakeNoZero[T](n * n) // scratch: the Hermitian part, kept for Potrf's error report
		defer vmath.Put(s)
		for b := range len(ad) / (n * n) {
			hermPart(s, ad[b*n*n:(b+1)*n*n], n)
			l := out[b*n*n : (b+1)*n*n]
			copy(l, s)
			if bad := lapack.Potrf(l, s, n); bad > 0 {
				return nil, opErr(op, cr.ErrInvalidArgument,
					"the matrix is not positive-definite (the leading minor of order %d is not positive-definite)", bad)
			}
			if upper {
				conjTransposeInPlace(l, n)
			}
		}
	}
	return newOf(out, a.Shape()...), nil
}

// hermPart writes (A + A^H)/2 of the n×n matrix a to dst.
func hermPart[T scalar](dst, a []T, n int) {
	if d, ok := any(dst).([]float64); ok {
		// In 8×8 tiles: the transposed reads walk a few cache lines at a time.
		s := any(a).([]float64)
		const tile = 8
		for i0 := 0; i0 < n; i0 += tile {
			for j0 := 0; j0 < n; j0 += tile {
				for i := i0; i < min(i0+tile, n); i++ {
					for j := j0; j < min(j0+tile, n); j++ {
						d[i*n+j] = (s[i*n+j] + s[j*n+i]) * 0.5
					}
				}
			}
		}
		return
	}
	half := fromReal[T](0.5)
	for i := range n {
		for j := range n {
			dst[i*n+j] = (a[i*n+j] + cj(a[j*n+i])) * half
		}
	}
}

// conjTransposeInPlace replaces the n×n matrix a by a^H.
func conjTransposeInPlace[T scalar](a []T, n int) {
	for i := range n {
		a[i*n+i] = cj(a[i*n+i])
		for j := i + 1; j < n; j++ {
			a[i*n+j], a[j*n+i] = cj(a[j*n+i]), cj(a[i*n+j])
		}
	}
}
