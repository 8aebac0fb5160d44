package linalg_test

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/einsum"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/linalg"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// realEmbedding returns the real 2m×2n matrix [[Re A, -Im A], [Im A, Re A]] of a
// complex m×n matrix: its singular values are those of A, each twice.
func realEmbedding(a *tensor.Dense) *tensor.Dense {
	sh := a.Shape()
	m, n := sh[0], sh[1]
	out := tensor.New(tensor.Float64, 2*m, 2*n)
	for i := range m {
		for j := range n {
			z := a.At(i, j)
			out.Set(complex(real(z), 0), i, j)
			out.Set(complex(-imag(z), 0), i, n+j)
			out.Set(complex(imag(z), 0), m+i, j)
			out.Set(complex(real(z), 0), m+i, n+j)
		}
	}
	return out
}

// checkSVD checks A = U diag(S) Vh, U^H U = I, Vh Vh^H = I, S descending, and S
// against the singular values of the real embedding, for one complex matrix.
func checkSVD(t *testing.T, a *tensor.Dense, tol float64) {
	t.Helper()
	u, s, vh, err := linalg.SVD(a)
	require.NoError(t, err)
	sh := a.Shape()
	m, n := sh[0], sh[1]
	k := min(m, n)
	require.Equal(t, []int{m, k}, u.Shape())
	require.Equal(t, []int{k}, s.Shape())
	require.Equal(t, []int{k, n}, vh.Shape())
	require.Equal(t, tensor.Complex128, u.DType())
	require.Equal(t, tensor.Float64, s.DType())
	sd := s.Float64s()
	scale := 1.0
	if k > 0 {
		scale = math.Max(sd[0], 1)
	}
	for i := 1; i < k; i++ {
		require.GreaterOrEqual(t, sd[i-1], sd[i])
	}
	rec, err := einsum.Eval("ij,j,jk->ik", u, s, vh)
	require.NoError(t, err)
	for i := range m {
		for j := range n {
			require.InDelta(t, 0, cmplx.Abs(rec.At(i, j)-a.At(i, j)), tol*scale, "A[%d,%d]", i, j)
		}
	}
	uhu, err := einsum.Eval("ji,jk->ik", u.Conj(), u)
	require.NoError(t, err)
	vvh, err := einsum.Eval("ij,kj->ik", vh, vh.Conj())
	require.NoError(t, err)
	for i := range k {
		for j := range k {
			want := complex(0, 0)
			if i == j {
				want = 1
			}
			require.InDelta(t, 0, cmplx.Abs(uhu.At(i, j)-want), tol, "U^H U [%d,%d]", i, j)
			require.InDelta(t, 0, cmplx.Abs(vvh.At(i, j)-want), tol, "Vh Vh^H [%d,%d]", i, j)
		}
	}
	sr, err := linalg.Svdvals(realEmbedding(a))
	require.NoError(t, err)
	srd := sr.Float64s()
	for i := range k {
		require.InDelta(t, srd[2*i], sd[i], tol*scale, "S[%d]", i)
	}
}

func TestComplexSVDKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	c := func(sh ...int) *tensor.Dense { return tensor.RandN(rng, tensor.Complex128, sh...) }
	for _, sh := range [][]int{{1, 1}, {3, 3}, {5, 3}, {3, 5}, {1, 4}, {4, 1}, {12, 12}, {30, 17}, {17, 30}} {
		checkSVD(t, c(sh...), 1e-12)
	}
	// Rank-deficient: U and Vh still have orthonormal columns and rows.
	b, err := einsum.Eval("ik,kj->ij", c(6, 2), c(2, 5))
	require.NoError(t, err)
	checkSVD(t, b, 1e-12)
	checkSVD(t, tensor.New(tensor.Complex128, 4, 3), 1e-12)
	checkSVD(t, tensor.New(tensor.Complex128, 3, 4), 1e-12)
	// Repeated singular values: a scaled unitary-like matrix (the identity).
	id := tensor.New(tensor.Complex128, 3, 3)
	for i := range 3 {
		id.Set(complex(0, 2), i, i)
	}
	checkSVD(t, id, 1e-12)
	// Huge and tiny entries: S scales exactly.
	base := c(4, 3)
	_, s0, _, err := linalg.SVD(base)
	require.NoError(t, err)
	for _, e := range []int{700, -700} {
		_, se, _, err := linalg.SVD(tensor.Scale(base, math.Ldexp(1, e)))
		require.NoError(t, err)
		for i, v := range se.Float64s() {
			require.InDelta(t, s0.Float64s()[i], math.Ldexp(v, -e), 1e-12, "2^%d S[%d]", e, i)
		}
	}
	// Batched, against the matrices one by one.
	batch := c(2, 3, 4, 3)
	_, s, _, err := linalg.SVD(batch)
	require.NoError(t, err)
	require.Equal(t, []int{2, 3, 3}, s.Shape())
	// Empty.
	u, s, vh, err := linalg.SVD(tensor.New(tensor.Complex128, 0, 3))
	require.NoError(t, err)
	require.Equal(t, []int{0, 0}, u.Shape())
	require.Equal(t, []int{0}, s.Shape())
	require.Equal(t, []int{0, 3}, vh.Shape())
}

// TestNonFiniteSVDInput checks that every op built on the SVD refuses a NaN or
// infinite entry with an error naming the op, whatever the size (the small and
// the blocked kernels behaved differently) and dtype.
func TestNonFiniteSVDInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	bad := func(dt tensor.DType, v float64, sh ...int) *tensor.Dense {
		x := tensor.RandN(rng, dt, sh...)
		idx := make([]int, len(sh))
		idx[len(idx)-1] = sh[len(sh)-1] - 1
		x.Set(complex(v, 0), idx...)
		return x
	}
	for _, dt := range []tensor.DType{tensor.Float64, tensor.Complex128} {
		for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
			for _, sh := range [][]int{{2, 2}, {10, 10}, {60, 55}, {2, 3, 4}} {
				a := bad(dt, v, sh...)
				for _, tc := range []struct {
					name  string
					op    cr.Op[*tensor.Dense]
					multi cr.Op[*tensor.Dense]
					x     []*tensor.Dense
				}{
					{"svd", nil, linalg.SVDOp(), in(a)},
					{"svdvals", linalg.SvdvalsOp(), nil, in(a)},
					{"pinv", linalg.PinvOp(linalg.PinvOptions{}), nil, in(a)},
					{"pinv", linalg.PinvOp(linalg.PinvOptions{Hermitian: true}), nil, in(a)},
					{"lstsq", nil, linalg.LstsqOp(), in(a, tensor.RandN(rng, dt, append(slices.Clone(sh[:len(sh)-1]), 2)...))},
					{"matrix_norm", linalg.MatrixNormOp(linalg.OrdNuc, -2, -1, false), nil, in(a)},
					{"matrix_norm", linalg.MatrixNormOp(linalg.Ord2, -2, -1, false), nil, in(a)},
					{"matrix_norm", linalg.MatrixNormOp(linalg.OrdNeg2, -2, -1, false), nil, in(a)},
					{"cond", linalg.CondOp(linalg.Ord2), nil, in(a)},
				} {
					err := applyErr(t, tc.op, tc.multi, tc.x...)
					require.ErrorIs(t, err, cr.ErrInvalidArgument, "%s %v %v %v", tc.name, dt, v, sh)
					require.True(t, strings.Contains(err.Error(), tc.name+":"), "%v does not name %s", err, tc.name)
					require.True(t, strings.Contains(err.Error(), "NaN or infinite"), "%v", err)
				}
			}
		}
	}
}

// TestComplexSVDGauge checks PyTorch's error for a loss of a complex matrix's
// singular vectors that depends on their phases, and the phase term of the
// pullback for one that does not (finite differences of a loss of U Vh).
func TestComplexSVDGauge(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 46))
	a := tensor.RandN(rng, tensor.Complex128, 4, 3)
	tape := core.NewTape[*tensor.Dense](tensor.Space{})
	x := tape.Leaf(a)
	ys := tape.ApplyMulti(linalg.SVDOp(), x)
	loss := tape.Apply(reduce.SumOp(nil, false), tape.Apply(elementwise.RealOp, ys[0]))
	_, err := tape.Backward(loss)
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
	require.Contains(t, err.Error(), "phase")
	// The second-order sweep of a Hessian-vector product refuses it too.
	tan, err := tape.ForwardTangents(map[cr.NodeID]*tensor.Dense{x: tensor.RandN(rng, tensor.Complex128, 4, 3)})
	require.NoError(t, err)
	_, _, err = tape.BackwardWithTangents(loss, tan)
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
	require.Contains(t, err.Error(), "phase")

	// f(A) = sum Re(W o (U Vh)) + sum S^2 (phase-invariant).
	w := tensor.RandN(rng, tensor.Complex128, 4, 3)
	f := func(a *tensor.Dense) (float64, *tensor.Dense) {
		tape := core.NewTape[*tensor.Dense](tensor.Space{})
		x := tape.Leaf(a)
		ys := tape.ApplyMulti(linalg.SVDOp(), x)
		uvh := tape.Apply(einsum.Op("ij,jk->ik"), ys[0], ys[2])
		l := tape.Apply(reduce.SumOp(nil, false), tape.Apply(elementwise.RealOp, tape.Apply(elementwise.MulOp, tape.Constant(w), uvh)))
		l = tape.Apply(elementwise.AddOp, l, tape.Apply(reduce.SumOp(nil, false), tape.Apply(elementwise.MulOp, ys[1], ys[1])))
		g, err := tape.Backward(l)
		require.NoError(t, err)
		gx, ok := g.Of(x)
		require.True(t, ok)
		v, err := tape.Value(l)
		require.NoError(t, err)
		return real(v.At()), gx
	}
	_, g := f(a)
	const h = 1e-6
	for i := range 4 {
		for j := range 3 {
			for _, d := range []complex128{1, 1i} {
				ap, am := a.Clone(), a.Clone()
				ap.Set(a.At(i, j)+complex(h, 0)*d, i, j)
				am.Set(a.At(i, j)-complex(h, 0)*d, i, j)
				fp, _ := f(ap)
				fm, _ := f(am)
				fd := (fp - fm) / (2 * h)
				// The gradient convention: d f = Re(conj(g) dA).
				want := real(cmplx.Conj(g.At(i, j)) * d)
				require.InDelta(t, fd, want, 1e-6, "entry %d,%d direction %v", i, j, d)
			}
		}
	}
}
