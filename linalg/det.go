package linalg

import (
	"math"
	"math/cmplx"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/linalg/internal/lapack"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// luDet holds the determinant of one matrix in the forms the ops need:
// det = sign * exp(logabs), with sign of modulus 1 (0 for a singular matrix).
type luDet[T scalar] struct {
	det, sign T
	logabs    float64
}

// dets computes the determinants of a batch of square matrices by LU factorisation
// with partial pivoting: det = (-1)^swaps prod_i U[i,i].
func dets[T scalar](a *tensor.Dense, count, n int) []luDet[T] {
	ad := dataOf[T](a.Contiguous())
	out := make([]luDet[T], count)
	lu := make([]T, n*n)
	piv := make([]int, n)
	for b := range count {
		r := luDet[T]{det: fromReal[T](1), sign: fromReal[T](1)}
		if n > 0 {
			copy(lu, ad[b*n*n:(b+1)*n*n])
			lapack.Getrf(lu, n, n, piv)
			for i := range n {
				u := lu[i*n+i]
				if piv[i] != i {
					r.det, r.sign = -r.det, -r.sign
				}
				r.det *= u
				au := abs(u)
				r.logabs += math.Log(au)
				if au == 0 {
					r.sign = 0
				} else {
					r.sign *= u / fromReal[T](au)
				}
			}
		}
		out[b] = r
	}
	return out
}

// scalarPerMatrix records s[..., None, None] * m for a batch of scalars s and
// matrices m.
func scalarPerMatrix(t *tape, s, m cr.NodeID) cr.NodeID {
	return mul(t, unsq(t, unsq(t, s, -1), -1), m)
}

// DetOp returns the op of PyTorch's linalg.det: the determinant of each matrix of a
// batch A [..., n, n] (float64 or complex128), shape [...], by LU factorisation
// (det = (-1)^swaps prod U_ii; the determinant of a 0×0 matrix is 1). det is
// holomorphic with derivative d det = det tr(A^-1 dA), so the pullback is
//
//	Abar = ybar conj(det) A^-H,
//
// recorded with the (unchecked) inverse and elementwise ops, so the forward tangent
// and the second-order rule follow. At a singular real matrix (a zero determinant
// in the batch) the pullback is PyTorch's cofactor formula through the SVD,
// Abar = ybar det(U) det(Vh) U diag(prod_{j != i} s_j) Vh, finite and recorded with
// SVDOp and reduce's prod, so its second order is exact where the singular values
// are distinct. At a singular complex matrix the pullback is the same cofactor
// (adjugate) formula, Abar = ybar adj(A)^H, with adj(A) recorded as the mean of
// adj(A + t I) = det(A + t I) (A + t I)^-1 over t on a circle outside the spectrum
// (see detAdjugatePullback): finite, as PyTorch's, and exact to every order.
func DetOp() cr.Op[*tensor.Dense] {
	return define(core.Def[*tensor.Dense]{Name: "det", Space: space, Arity: 1,
		Primal: detPrimal("det",
			func(d luDet[float64]) float64 { return d.det },
			func(d luDet[complex128]) complex128 { return d.det }),
		Pullback: func(t *tape, x, ys, ybars []cr.NodeID) []cr.NodeID {
			y, ybar := ys[0], ybars[0]
			if yv := val(t, y); yv != nil && yv.DType() == tensor.Float64 && slices.Contains(yv.Float64s(), 0) {
				return []cr.NodeID{detCofactorPullback(t, x[0], ybar)}
			} else if yv != nil && yv.DType() == tensor.Complex128 && slices.Contains(yv.Complex128s(), 0) {
				return []cr.NodeID{detAdjugatePullback(t, x[0], ybar)}
			}
			ainvh := mH(t, t.Apply(invOp(false), x[0]))
			return []cr.NodeID{scalarPerMatrix(t, mul(t, ybar, conj(t, y)), ainvh)}
		}})
}

// detCofactorPullback records Abar = ybar cof(A) for real A through the SVD
// A = U diag(s) Vh: det A = det(U) det(Vh) prod(s), so
//
//	cof(A) = det(U) det(Vh) U diag(p) Vh,   p_i = prod_{j != i} s_j,
//
// which is finite at singular A (PyTorch's formula there). The signs det(U) and
// det(Vh) are locally constant (±1) and recorded as constants.
func detCofactorPullback(t *tape, a, ybar cr.NodeID) cr.NodeID {
	ys := t.ApplyMulti(SVDOp(), a)
	u, s, vh := ys[0], ys[1], ys[2]
	uv, vhv := val(t, u), val(t, vh)
	sh := shape(t, s)
	if uv == nil || vhv == nil || sh == nil {
		return 0
	}
	n := sh[len(sh)-1]
	count := prodOf(sh[:len(sh)-1])
	du := dets[float64](uv, count, n)
	dv := dets[float64](vhv, count, n)
	sg := make([]float64, count)
	for i := range sg {
		sg[i] = math.Copysign(1, du[i].det*dv[i].det)
	}
	// Row i holds s with s_i replaced by 1: its product is p_i.
	offDiag := tensor.Ones(tensor.Float64, n, n)
	for i := range n {
		offDiag.Set(0, i, i)
	}
	full := add(t, mul(t, unsq(t, s, -2), t.Constant(offDiag)), t.Constant(eye(tensor.Float64, n)))
	p := t.Apply(reduce.ProdOp([]int{-1}, false), full)
	g := mul(t, ybar, t.Constant(newOf(sg, sh[:len(sh)-1]...)))
	return scalarPerMatrix(t, g, mm(t, mul(t, u, unsq(t, p, -2)), vh))
}

// detAdjugatePullback records Abar = ybar adj(A)^H for a batch of n×n matrices A
// (PyTorch's gradient at a singular complex matrix, where conj(det) A^-H is 0·Inf).
// The adjugate is a matrix polynomial: adj(A + t I) = det(A + t I) (A + t I)^-1 has
// degree n-1 in t, so its mean over the n points t_k = r w^k (w = e^(2 pi i/n))
// is its value at t = 0,
//
//	adj(A) = (1/n) sum_k det(A + t_k I) (A + t_k I)^-1.
//
// With r = 2 ||A||_F (1 for A = 0) above the spectral radius, every A + t_k I is
// invertible (its eigenvalues have modulus at least r/2), so the terms go through
// the ordinary det and inverse pullbacks and the recording is exact to every order.
// The terms are of size (3 ||A||_F)^(n-1): the rounding error relative to adj(A)
// grows with n and with the conditioning of A's nonzero singular values, which is
// harmless for the small exactly singular matrices that reach this path.
func detAdjugatePullback(t *tape, a, ybar cr.NodeID) cr.NodeID {
	av := val(t, a)
	if av == nil {
		return 0
	}
	sh := av.Shape()
	n := sh[len(sh)-1]
	count := prodOf(sh[:len(sh)-2])
	ad := av.AsComplex().Contiguous().Complex128s()
	radius := make([]float64, count)
	for b := range radius {
		f := lapack.Cnrm2(ad[b*n*n:], n*n, 1)
		radius[b] = 2 * f
		if f == 0 {
			radius[b] = 1
		}
	}
	var adj cr.NodeID
	for k := range n {
		w := cmplx.Rect(1, 2*math.Pi*float64(k)/float64(n))
		shift := make([]complex128, count*n*n)
		for b := range count {
			for i := range n {
				shift[b*n*n+i*n+i] = complex(radius[b], 0) * w
			}
		}
		bk := add(t, a, t.Constant(newOf(shift, sh...)))
		term := scalarPerMatrix(t, t.Apply(DetOp(), bk), t.Apply(invOp(false), bk))
		if k == 0 {
			adj = term
		} else {
			adj = add(t, adj, term)
		}
	}
	return scalarPerMatrix(t, ybar, scale(t, mH(t, adj), 1/float64(n)))
}

// Det is DetOp without a tape.
func Det(a *tensor.Dense) (*tensor.Dense, error) { return eval(DetOp(), a) }

// detPrimal returns the primal of the op named op of one batch of square matrices
// A [..., n, n] whose value [...] is ofReal(d) for the LU determinant d of each
// matrix of float64 A, ofComplex(d) of complex128 A.
func detPrimal(op string, ofReal func(luDet[float64]) float64, ofComplex func(luDet[complex128]) complex128) func(x []*tensor.Dense) ([]*tensor.Dense, error) {
	return func(x []*tensor.Dense) ([]*tensor.Dense, error) {
		batch, count, n, err := square(op, "A", x[0])
		if err != nil {
			return nil, err
		}
		if x[0].DType() == tensor.Complex128 {
			return []*tensor.Dense{detValues(dets[complex128](x[0], count, n), batch, ofComplex)}, nil
		}
		return []*tensor.Dense{detValues(dets[float64](x[0], count, n), batch, ofReal)}, nil
	}
}

// detValues returns f(d) for each of the determinants ds, with the batch's shape.
func detValues[T, R scalar](ds []luDet[T], batch []int, f func(luDet[T]) R) *tensor.Dense {
	out := make([]R, len(ds))
	for i, d := range ds {
		out[i] = f(d)
	}
	return newOf(out, batch...)
}

// LogdetOp returns the op of PyTorch's logdet: log det A for each matrix of a batch
// A [..., n, n]. For float64 it is log|det A| where det A > 0, NaN where det A < 0
// and -Inf where A is singular; for complex128 the principal complex logarithm
// log|det A| + i arg(det A). Its derivative is d logdet = tr(A^-1 dA), so
//
//	Abar = ybar A^-H
//
// (zero where a real determinant is negative, as PyTorch's gradient of its NaN
// branch), recorded with the inverse and elementwise ops.
func LogdetOp() cr.Op[*tensor.Dense] {
	return define(core.Def[*tensor.Dense]{Name: "logdet", Space: space, Arity: 1,
		Primal: detPrimal("logdet",
			func(d luDet[float64]) float64 {
				if d.sign < 0 {
					return math.NaN()
				}
				return d.logabs
			},
			func(d luDet[complex128]) complex128 {
				if d.sign == 0 {
					return complex(math.Inf(-1), 0)
				}
				return complex(d.logabs, cmplx.Phase(d.sign))
			}),
		Pullback: func(t *tape, x, ys, ybars []cr.NodeID) []cr.NodeID {
			y, ybar := ys[0], ybars[0]
			g := ybar
			if yv := val(t, y); yv != nil && yv.DType() == tensor.Float64 {
				m := tensor.New(tensor.Float64, yv.Shape()...)
				md, yd := m.Float64s(), yv.Float64s()
				for i, v := range yd {
					md[i] = b2f(!math.IsNaN(v))
				}
				g = mul(t, ybar, t.Constant(m))
			}
			return []cr.NodeID{scalarPerMatrix(t, g, mH(t, t.Apply(invOp(false), x[0])))}
		}})
}

// Logdet is LogdetOp without a tape.
func Logdet(a *tensor.Dense) (*tensor.Dense, error) { return eval(LogdetOp(), a) }

// SlogdetOp returns the multi-output op of PyTorch's linalg.slogdet: for each matrix
// of a batch A [..., n, n], the sign of its determinant and the logarithm of its
// absolute value,
//
//	det A = sign * exp(logabsdet),
//
// both of shape [...]. logabsdet is float64; sign has A's dtype: -1, 0 or 1 for
// float64, det/|det| (a complex number of modulus 1) for complex128. A singular
// matrix gives sign 0 and logabsdet -Inf. With w = tr(A^-1 dA) (d log det A),
//
//	d logabsdet = Re w,   d sign = i sign Im w,
//
// and the pullback (PyTorch's slogdet_backward) is
//
//	Abar = (logabsdetbar - i Im(conj(signbar) sign)) A^-H,
//
// recorded with the inverse and elementwise ops, so forward and second-order
// rules follow. For float64 the sign is piecewise constant, its derivative 0:
// signbar contributes nothing and Abar = logabsdetbar A^-T.
func SlogdetOp() cr.Op[*tensor.Dense] {
	return decomposition("slogdet", 2,
		func(a *tensor.Dense) ([]*tensor.Dense, error) {
			batch, count, n, err := square("slogdet", "A", a)
			if err != nil {
				return nil, err
			}
			if a.DType() == tensor.Complex128 {
				ds := dets[complex128](a, count, n)
				return []*tensor.Dense{
					detValues(ds, batch, func(d luDet[complex128]) complex128 { return d.sign }),
					detValues(ds, batch, func(d luDet[complex128]) float64 { return d.logabs }),
				}, nil
			}
			ds := dets[float64](a, count, n)
			return []*tensor.Dense{
				detValues(ds, batch, func(d luDet[float64]) float64 { return d.sign }),
				detValues(ds, batch, func(d luDet[float64]) float64 { return d.logabs }),
			}, nil
		},
		func(t *tape, a cr.NodeID, y, ybar []cr.NodeID) cr.NodeID {
			var g cr.NodeID
			if isComplex(t, a) {
				// g = logabsdetbar - i Im(conj(signbar) sign), as a complex tensor.
				im := t.Apply(elementwise.ImagOp, mul(t, conj(t, ybar[0]), y[0]))
				g = t.Apply(elementwise.ComplexOp, ybar[1], neg(t, im))
			} else {
				// The real sign is locally constant: its cotangent is multiplied by
				// its derivative, 0. An absent cotangent contributes no term.
				switch {
				case !ybar[0].Valid():
					g = ybar[1]
				case !ybar[1].Valid():
					g = scale(t, ybar[0], 0)
				default:
					g = add(t, ybar[1], scale(t, ybar[0], 0))
				}
			}
			return scalarPerMatrix(t, g, mH(t, t.Apply(invOp(false), a)))
		})
}

// Slogdet is SlogdetOp without a tape: it returns (sign, logabsdet).
func Slogdet(a *tensor.Dense) (sign, logabsdet *tensor.Dense, err error) {
	return eval2(SlogdetOp(), a)
}
