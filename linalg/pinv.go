package linalg

import (
	"fmt"
	"math"
	"math/cmplx"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/linalg/internal/lapack"
	"github.com/chainrules-go/chainrules/permute"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// PinvOptions are the parameters of PinvOp, PyTorch's keyword arguments of
// linalg.pinv.
type PinvOptions struct {
	// Atol and Rtol set the cut-off: singular values s <= max(Atol, Rtol * s_max)
	// are treated as zero. As in PyTorch, when both are zero Rtol is
	// max(m, n) * eps (float64's machine epsilon, 2^-52); a negative Rtol means no
	// relative cut-off.
	Atol, Rtol float64
	// Hermitian says A is symmetric: the primal then uses the eigen-decomposition
	// (s = |w|) instead of the SVD, when the input is exactly symmetric (otherwise,
	// e.g. at the perturbed points of finite differences, the SVD), so the op is
	// always the pseudo-inverse of its actual input.
	Hermitian bool
}

// PinvOp returns the op of PyTorch's linalg.pinv: the Moore-Penrose pseudo-inverse
// of each matrix of a float64 or complex128 batch A [..., m, n] (result [..., n, m]),
//
//	pinv(A) = V diag(1/s_i for s_i > tol, else 0) U^H,   A = U diag(s) V^H,
//
// with tol = max(Atol, Rtol s_max) (PinvOptions). Where the rank is locally
// constant pinv is differentiable with PyTorch's pullback (P = pinv(A), G = Pbar),
// for m <= n,
//
//	Abar = -(P K)^H + K P^H - A P K P^H + P^H P (G^H - K A),   K = G^H P,
//
// and the transposed formula for m > n (X^H the conjugate transpose: X^T for real
// X), recorded with einsum and elementwise ops of A and P, so forward and
// second-order rules follow. Across a change of rank pinv is discontinuous. An
// input with a NaN or infinite entry is an error wrapping
// chainrules.ErrInvalidArgument (its singular values, hence the cut-off, are not
// defined). Complex input always takes the SVD path (Hermitian only selects the
// eigen-decomposition of real symmetric input).
//
// The zero PinvOptions are PyTorch's defaults: PinvOp(PinvOptions{}), or
// PinvDefaultOp(), is torch.linalg.pinv(A).
func PinvOp(opt PinvOptions) cr.Op[*tensor.Dense] {
	return define(core.Def[*tensor.Dense]{Name: "pinv", Space: space, Arity: 1,
		Primal: func(x []*tensor.Dense) ([]*tensor.Dense, error) { return single(pinvValues(x[0], opt)) },
		Pullback: func(t *tape, x, ys, ybars []cr.NodeID) []cr.NodeID {
			y, ybar := ys[0], ybars[0]
			return []cr.NodeID{pinvPullback(t, x[0], y, ybar)}
		}})
}

// Pinv is PinvOp without a tape.
func Pinv(a *tensor.Dense, opt PinvOptions) (*tensor.Dense, error) { return eval(PinvOp(opt), a) }

// pinvPullback records PyTorch's pinv_backward.
func pinvPullback(t *tape, a, p, g cr.NodeID) cr.NodeID {
	sh := shape(t, a)
	if sh == nil {
		return 0
	}
	m, n := sh[len(sh)-2], sh[len(sh)-1]
	ph, gh := mH(t, p), mH(t, g)
	if m <= n {
		k := mm(t, gh, p)
		kph := mm(t, k, ph)
		r := sub(t, kph, mH(t, mm(t, p, k)))
		r = sub(t, r, mm3(t, a, p, kph))
		return add(t, r, mm3(t, ph, p, sub(t, gh, mm(t, k, a))))
	}
	k := mm(t, p, gh)
	phk := mm(t, ph, k)
	r := sub(t, phk, mH(t, mm(t, k, p)))
	r = add(t, r, mm3(t, sub(t, gh, mm(t, a, k)), p, ph))
	return sub(t, r, mm3(t, phk, p, a))
}

func pinvValues(a *tensor.Dense, opt PinvOptions) (*tensor.Dense, error) {
	const op = "pinv"
	batch, count, m, n, err := batchShape(op, "A", a)
	if err != nil {
		return nil, err
	}
	if err := checkFiniteSVD(op, "A", a); err != nil {
		return nil, err
	}
	rtol := opt.Rtol
	switch {
	case rtol < 0:
		rtol = 0
	case rtol == 0 && opt.Atol == 0:
		rtol = float64(max(m, n)) * 0x1p-52
	}
	if a.DType() == tensor.Complex128 {
		return cpinvValues(a, batch, count, m, n, opt.Atol, rtol)
	}
	k := min(m, n)
	ad := a.Contiguous().Float64s()
	out := make([]float64, count*n*m)
	if k == 0 {
		return newOf(out, shapeOf(batch, n, m)...), nil
	}
	work := make([]float64, m*n)
	s := make([]float64, k)
	u := make([]float64, m*k)
	vt := make([]float64, k*n)
	for b := range count {
		am := ad[b*m*n : (b+1)*m*n]
		pm := out[b*n*m : (b+1)*n*m]
		if opt.Hermitian && m == n && isSymmetric(am, n) {
			copy(work, am)
			if !lapack.SymEig(work, s, n, true) {
				return nil, opErr(op, cr.ErrInvalidArgument, "the eigenvalue algorithm did not converge")
			}
			smax := 0.0
			for _, w := range s {
				smax = math.Max(smax, math.Abs(w))
			}
			tol := math.Max(opt.Atol, rtol*smax)
			// pinv = V diag(1/w) V^T over the kept eigenvalues.
			for i := range n {
				for j := range n {
					var acc float64
					for l, w := range s {
						if math.Abs(w) > tol {
							acc += work[i*n+l] * work[j*n+l] / w
						}
					}
					pm[i*n+j] = acc
				}
			}
			continue
		}
		copy(work, am)
		if !lapack.SVD(work, m, n, s, u, vt, true) {
			return nil, opErr(op, cr.ErrInvalidArgument, "the SVD algorithm did not converge")
		}
		tol := math.Max(opt.Atol, rtol*s[0])
		// pinv = V diag(1/s) U^T over the kept singular values: (n×m).
		for l, sv := range s {
			if !(sv > tol) {
				continue
			}
			for i := range n {
				f := vt[l*n+i] / sv
				if f == 0 {
					continue
				}
				row := pm[i*m : i*m+m]
				for j := range m {
					row[j] += f * u[j*k+l]
				}
			}
		}
	}
	return newOf(out, shapeOf(batch, n, m)...), nil
}

// cpinvValues is pinvValues for complex A: V diag(1/s) U^H over the kept singular
// values of lapack.CSVD's SVD (Hermitian or not).
func cpinvValues(a *tensor.Dense, batch []int, count, m, n int, atol, rtol float64) (*tensor.Dense, error) {
	k := min(m, n)
	ad := a.Contiguous().Complex128s()
	out := make([]complex128, count*n*m)
	s := make([]float64, k)
	u := make([]complex128, m*k)
	vh := make([]complex128, k*n)
	for b := range count {
		if k == 0 {
			break
		}
		if !lapack.CSVD(ad[b*m*n:(b+1)*m*n], m, n, s, u, vh) {
			return nil, opErr("pinv", cr.ErrInvalidArgument, "the SVD algorithm did not converge")
		}
		pm := out[b*n*m : (b+1)*n*m]
		tol := math.Max(atol, rtol*s[0])
		for l, sv := range s {
			if !(sv > tol) {
				continue
			}
			for i := range n {
				f := cmplx.Conj(vh[l*n+i]) / complex(sv, 0)
				if f == 0 {
					continue
				}
				row := pm[i*m : i*m+m]
				for j := range m {
					row[j] += f * cmplx.Conj(u[j*k+l])
				}
			}
		}
	}
	return newOf(out, shapeOf(batch, n, m)...), nil
}

// isSymmetric reports whether the n×n matrix a equals its transpose exactly.
func isSymmetric(a []float64, n int) bool {
	for i := range n {
		for j := range i {
			if a[i*n+j] != a[j*n+i] {
				return false
			}
		}
	}
	return true
}

// LstsqOp returns the multi-output op of PyTorch's linalg.lstsq restricted to its
// differentiable outputs: for a float64 or complex128 batch A [..., m, n] and
// B [..., m, k] of the same dtype (batch dims broadcast), the least-squares
// (minimum-norm) solution and the squared residual norms,
//
//	X = pinv(A) B   [..., n, k],
//	residuals_j = ||A x_j - b_j||^2   [..., k] (real) when m > n, else an empty [..., 0]
//
// (PyTorch returns residuals only for m > n, and also the rank and singular values,
// which are not differentiable). The pseudo-inverse uses the default cut-off of
// PinvOp, as PyTorch's gelsd driver uses rcond = max(m, n) eps. It is a composite of
// PinvOp and einsum, so its rules (PyTorch's: Abar through pinv's pullback with
// Pbar = Xbar B^H, Bbar = P^H Xbar) follow. An A with a NaN or infinite entry is an
// error wrapping chainrules.ErrInvalidArgument.
func LstsqOp() cr.Op[*tensor.Dense] {
	body := core.Composite("lstsq", space, 2, func(t *tape, x []cr.NodeID) []cr.NodeID {
		a, b := x[0], x[1]
		sh := shape(t, a)
		m, n := sh[len(sh)-2], sh[len(sh)-1]
		sol := mm(t, t.Apply(PinvOp(PinvOptions{}), a), b)
		if m > n {
			r := sub(t, mm(t, a, sol), b)
			return []cr.NodeID{sol, t.Apply(reduce.SumOp([]int{-2}, false), t.Apply(elementwise.Abs2Op, r))}
		}
		// PyTorch's empty residuals: shape [0].
		flat := t.Apply(permute.ReshapeOp(-1), sol)
		return []cr.NodeID{sol, narrow(t, flat, 0, 0, 0)}
	}, core.Outputs(2))
	return checked(body, 2, func(x []*tensor.Dense) error {
		const op = "lstsq"
		ab, _, m, n, err := batchShape(op, "A", x[0])
		if err != nil {
			return err
		}
		bb, _, bm, k, err := batchShape(op, "B", x[1])
		if err != nil {
			return err
		}
		if err := sameDType(op, x[0], x[1]); err != nil {
			return err
		}
		if bm != m {
			return opErr(op, cr.ErrShapeMismatch, "A is %v and B is %v: B needs %d rows", x[0].Shape(), x[1].Shape(), m)
		}
		batch, err := broadcastBatch(op, ab, bb)
		if err != nil {
			return err
		}
		// The solution's size, checked before pinv works through A's batch.
		if err := tensor.CheckAlloc(x[0].DType(), shapeOf(batch, n, k)...); err != nil {
			return fmt.Errorf("%s: the solution, of batch %v, is too large: %w", op, batch, err)
		}
		return checkFiniteSVD(op, "A", x[0])
	})
}

// Lstsq is LstsqOp without a tape: it returns the solution and the residuals.
func Lstsq(a, b *tensor.Dense) (x, residuals *tensor.Dense, err error) { return eval2(LstsqOp(), a, b) }
