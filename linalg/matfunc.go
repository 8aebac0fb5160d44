package linalg

import (
	"math"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/linalg/internal/lapack"
	"github.com/chainrules-go/chainrules/tensor"
)

// MatrixExpOp returns the op of PyTorch's linalg.matrix_exp: the matrix exponential
// exp(A) = sum_k A^k / k! of each matrix of a batch [..., n, n] (float64 or
// complex128), by scaling and squaring with the degree-13 Padé approximant
// (Higham 2005, as PyTorch and SciPy). The derivative is the Fréchet derivative
// L(A, E), the upper-right block of exp([[A, E], [0, A]]), whose adjoint is
// L(A^H, .), so the pullback is
//
//	Abar = [exp([[A^H, Ybar], [0, A^H]])]_{1:n, n+1:2n},
//
// recorded with MatrixExpOp itself on the 2n×2n block matrix: forward tangents and
// second-order rules follow (through a 4n×4n exponential).
func MatrixExpOp() cr.Op[*tensor.Dense] {
	return define(core.Def[*tensor.Dense]{Name: "matrix_exp", Space: space, Arity: 1,
		Primal: func(x []*tensor.Dense) ([]*tensor.Dense, error) { return single(matrixExpValues(x[0])) },
		Pullback: func(t *tape, x, ys, ybars []cr.NodeID) []cr.NodeID {
			ybar := ybars[0]
			xv := val(t, x[0])
			if xv == nil {
				return []cr.NodeID{0}
			}
			n := xv.Shape()[xv.Rank()-1]
			ah := mH(t, x[0])
			zero := t.Constant(tensor.New(xv.DType(), xv.Shape()...))
			block := concat(t, -2, concat(t, -1, ah, ybar), concat(t, -1, zero, ah))
			e := t.Apply(MatrixExpOp(), block)
			return []cr.NodeID{narrow(t, narrow(t, e, -2, 0, n), -1, n, n)}
		}})
}

// MatrixExp is MatrixExpOp without a tape.
func MatrixExp(a *tensor.Dense) (*tensor.Dense, error) { return eval(MatrixExpOp(), a) }

func matrixExpValues(a *tensor.Dense) (*tensor.Dense, error) {
	const op = "matrix_exp"
	_, count, n, err := square(op, "A", a)
	if err != nil {
		return nil, err
	}
	if a.DType() == tensor.Complex128 {
		return expmBatch[complex128](a.Contiguous(), count, n), nil
	}
	return expmBatch[float64](a.Contiguous(), count, n), nil
}

func expmBatch[T scalar](a *tensor.Dense, count, n int) *tensor.Dense {
	ad := dataOf[T](a)
	out := make([]T, len(ad))
	for b := range count {
		expm(out[b*n*n:(b+1)*n*n], ad[b*n*n:(b+1)*n*n], n)
	}
	return newOf(out, a.Shape()...)
}

// padé13 are the coefficients b_0..b_13 of the degree-13 Padé approximant of exp.
var pade13 = [14]float64{64764752532480000, 32382376266240000, 7771770303897600,
	1187353796428800, 129060195264000, 10559470521600, 670442572800, 33522128640,
	1323241920, 40840800, 960960, 16380, 182, 1}

// expm writes exp(a) of the n×n matrix a to dst: A is scaled by 2^-s so that its
// 1-norm is at most theta13 = 5.37, the [13/13] Padé approximant
// r(A) = (V - U)^-1 (V + U) is formed, and squared s times.
func expm[T scalar](dst, a []T, n int) {
	if n == 0 {
		return
	}
	const theta13 = 5.371920351148152
	norm := 0.0
	for j := range n {
		s := 0.0
		for i := range n {
			s += abs(a[i*n+j])
		}
		norm = math.Max(norm, s)
	}
	sq := 0
	if norm > theta13 {
		sq = int(math.Ceil(math.Log2(norm / theta13)))
	}
	if math.IsNaN(norm) || math.IsInf(norm, 0) {
		sq = 0
	}
	scale := fromReal[T](math.Ldexp(1, -sq))
	x := make([]T, n*n)
	for i, v := range a {
		x[i] = v * scale
	}
	mul := func(p, q []T) []T {
		r := make([]T, n*n)
		if err := tensor.Gemm(false, false, n, n, n, 1, p, n, q, n, 0, r, n); err != nil {
			panic(err) // sizes are consistent by construction
		}
		return r
	}
	x2 := mul(x, x)
	x4 := mul(x2, x2)
	x6 := mul(x4, x2)
	b := func(k int) T { return fromReal[T](pade13[k]) }
	comb := func(c6, c4, c2 T, withI bool, cI T) []T {
		r := make([]T, n*n)
		for i := range r {
			r[i] = c6*x6[i] + c4*x4[i] + c2*x2[i]
		}
		if withI {
			for i := range n {
				r[i*n+i] += cI
			}
		}
		return r
	}
	// U = X [X6 (b13 X6 + b11 X4 + b9 X2) + b7 X6 + b5 X4 + b3 X2 + b1 I]
	u1 := mul(x6, comb(b(13), b(11), b(9), false, 0))
	u2 := comb(b(7), b(5), b(3), true, b(1))
	for i := range u1 {
		u1[i] += u2[i]
	}
	u := mul(x, u1)
	// V = X6 (b12 X6 + b10 X4 + b8 X2) + b6 X6 + b4 X4 + b2 X2 + b0 I
	v := mul(x6, comb(b(12), b(10), b(8), false, 0))
	v2 := comb(b(6), b(4), b(2), true, b(0))
	for i := range v {
		v[i] += v2[i]
	}
	p, q := make([]T, n*n), make([]T, n*n)
	for i := range p {
		p[i], q[i] = v[i]+u[i], v[i]-u[i]
	}
	piv := make([]int, n)
	lapack.Getrf(q, n, n, piv)
	lapack.Getrs(q, n, piv, p, n, lapack.NoTrans)
	for range sq {
		p = mul(p, p)
	}
	copy(dst, p)
}

// MatrixPowerOp returns the op of PyTorch's linalg.matrix_power: A^k for each
// matrix of a batch [..., n, n] and an integer k. k = 0 gives the identity (zero
// derivative), k > 0 repeated squaring with batched matrix products, k < 0 the same
// on InvOp(A) (a singular matrix is then an error wrapping
// chainrules.ErrInvalidArgument, and so is k = math.MinInt, whose -k overflows int).
// A composite: its rules are those of the products (and of the inverse). float64
// and complex128.
func MatrixPowerOp(k int) cr.Op[*tensor.Dense] {
	body := core.Composite("matrix_power", space, 1, func(t *tape, x []cr.NodeID) []cr.NodeID {
		xv := val(t, x[0])
		if k == 0 {
			sh := xv.Shape()
			e := batchEye(xv.DType(), sh[:len(sh)-2], sh[len(sh)-1])
			return []cr.NodeID{t.Constant(e)}
		}
		base := x[0]
		if k < 0 {
			base = t.Apply(InvOp(), base)
		}
		e := k
		if e < 0 {
			e = -e
		}
		var acc cr.NodeID
		for e > 0 {
			if e&1 == 1 {
				if acc == 0 {
					acc = base
				} else {
					acc = mm(t, acc, base)
				}
			}
			e >>= 1
			if e > 0 {
				base = mm(t, base, base)
			}
		}
		if k == 1 {
			// A fresh output, not the input itself.
			acc = scale(t, acc, 1)
		}
		return []cr.NodeID{acc}
	})
	return checked(body, 1, func(x []*tensor.Dense) error {
		if k == math.MinInt {
			return opErr("matrix_power", cr.ErrInvalidArgument, "k = %d: -k, the power of the inverse, overflows int", k)
		}
		return squareMatrices("matrix_power")(x)
	})
}

// MatrixPower is MatrixPowerOp without a tape.
func MatrixPower(a *tensor.Dense, k int) (*tensor.Dense, error) { return eval(MatrixPowerOp(k), a) }
