package linalg_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/einsum"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/linalg"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

func sumAll(t *core.Tape[*tensor.Dense], x cr.NodeID) cr.NodeID {
	return t.Apply(reduce.SumOp(nil, false), x)
}

func finite(x *tensor.Dense) bool { return tensor.Space{}.IsFinite(x) }

// TestRepeatedEigenvalues: at repeated eigenvalues (singular values) a loss of the
// eigenvalues alone has a finite gradient, and one through the eigenvectors does
// not, as in PyTorch.
func TestRepeatedEigenvalues(t *testing.T) {
	a := eye(tensor.Float64, 3) // eigenvalue 1, three times
	_, g, err := hvp.Grad(func(t *core.Tape[*tensor.Dense], x []cr.NodeID) cr.NodeID {
		w := t.Apply(linalg.EigvalshOp(), x[0])
		return sumAll(t, t.Apply(elementwise.SquareOp, w))
	}, []*tensor.Dense{a})
	require.NoError(t, err)
	near(t, g[0], tensor.Scale(eye(tensor.Float64, 3), 2), 1e-14, "d sum(w^2)/dA = 2A")

	_, g, err = hvp.Grad(func(t *core.Tape[*tensor.Dense], x []cr.NodeID) cr.NodeID {
		ys := t.ApplyMulti(linalg.EighOp(), x[0])
		return sumAll(t, t.Apply(elementwise.Abs2Op, t.Apply(einsum.Op("ij,j->ij"), ys[1], ys[0])))
	}, []*tensor.Dense{a})
	require.NoError(t, err)
	require.False(t, finite(g[0]), "a loss of V at repeated eigenvalues has no finite gradient: got %v", g[0])

	// Nuclear norm of a rank-one 3x3 matrix: zero and repeated singular values.
	u := []float64{1, 2, 2}
	r := tensor.New(tensor.Float64, 3, 3)
	for i := range 3 {
		for j := range 3 {
			r.Set(complex(u[i]*u[j], 0), i, j)
		}
	}
	_, g, err = hvp.Grad(func(t *core.Tape[*tensor.Dense], x []cr.NodeID) cr.NodeID {
		return t.Apply(linalg.MatrixNormOp(linalg.OrdNuc, -2, -1, false), x[0])
	}, []*tensor.Dense{r})
	require.NoError(t, err)
	require.True(t, finite(g[0]), "nuclear norm of a rank-deficient matrix: %v", g[0])
	// The pullback is U Vh (as PyTorch's), a subgradient: <g, A> = nuc(A) = |u|^2
	// and g is orthogonal (spectral norm 1); the null-space vectors are LAPACK's.
	ga, err := tensor.Dot(g[0], r)
	require.NoError(t, err)
	require.InDelta(t, 9, real(ga), 1e-12)
	near(t, ein(t, "ji,jk->ik", g[0], g[0]), eye(tensor.Float64, 3), 1e-12, "d nuc / dA = U Vh is orthogonal")
}

// TestSingularMatrices: det is 0 with PyTorch's cofactor gradient, logdet -Inf,
// slogdet (0, -Inf), solve and inv fail.
func TestSingularMatrices(t *testing.T) {
	s, err := tensor.FromFloat64([]float64{1, 2, 3, 2, 4, 6, 1, 0, 1}, 3, 3) // rank 2
	require.NoError(t, err)
	d, g, err := hvp.Grad(func(t *core.Tape[*tensor.Dense], x []cr.NodeID) cr.NodeID { return t.Apply(linalg.DetOp(), x[0]) }, []*tensor.Dense{s})
	require.NoError(t, err)
	require.Zero(t, real(d.At()))
	// The cofactor matrix of s, by hand: C_ij = (-1)^(i+j) M_ij.
	cof, err := tensor.FromFloat64([]float64{4, 4, -4, -2, -2, 2, 0, 0, 0}, 3, 3)
	require.NoError(t, err)
	near(t, g[0], cof, 1e-12, "d det / dA = cofactor matrix at a singular A")

	// The HVP of det at a singular matrix: d/de cof(A + e v) = the derivative of the
	// cofactor matrix, a polynomial; compare with central differences of it.
	rng := rand.New(rand.NewPCG(31, 32))
	v := randn(rng, tensor.Float64, 3, 3)
	_, hv, err := hvp.HVP(func(t *core.Tape[*tensor.Dense], x []cr.NodeID) cr.NodeID { return t.Apply(linalg.DetOp(), x[0]) }, []*tensor.Dense{s}, []*tensor.Dense{v})
	require.NoError(t, err)
	cofAt := func(a *tensor.Dense) *tensor.Dense {
		inv, err := linalg.Inv(a)
		require.NoError(t, err)
		det, err := linalg.Det(a)
		require.NoError(t, err)
		return tensor.Scale(ein(t, "ij->ji", inv), det.At())
	}
	const h = 1e-4
	plus, err := tensor.AddScaled(s, h, v)
	require.NoError(t, err)
	minus, err := tensor.AddScaled(s, -h, v)
	require.NoError(t, err)
	fd, err := tensor.Sub(cofAt(plus), cofAt(minus))
	require.NoError(t, err)
	near(t, hv[0], tensor.Scale(fd, 1/(2*h)), 1e-7, "HVP of det at a singular matrix")

	ld, err := linalg.Logdet(s)
	require.NoError(t, err)
	require.True(t, math.IsInf(real(ld.At()), -1))
	sign, la, err := linalg.Slogdet(s)
	require.NoError(t, err)
	require.Zero(t, real(sign.At()))
	require.True(t, math.IsInf(real(la.At()), -1))
	_, err = linalg.Inv(s)
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
	_, err = linalg.Cholesky(tensor.New(tensor.Float64, 2, 2), false)
	require.ErrorIs(t, err, cr.ErrInvalidArgument, "the zero matrix is positive semi-definite only")
}

// TestGaugeInvariantLosses checks the rules through losses that do not depend on
// the sign choices of eigenvectors, singular vectors and Q.
func TestGaugeInvariantLosses(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	sp := tensor.Space{}
	expSym := core.Composite("V diag(exp(w)) V^T", sp, 1, func(t *core.Tape[*tensor.Dense], x []cr.NodeID) []cr.NodeID {
		ys := t.ApplyMulti(linalg.EighOp(), x[0])
		return []cr.NodeID{t.Apply(einsum.Op("...ij,...j,...kj->...ik"), ys[1], t.Apply(elementwise.ExpOp, ys[0]), ys[1])}
	})
	polar := core.Composite("U Vh + S", sp, 1, func(t *core.Tape[*tensor.Dense], x []cr.NodeID) []cr.NodeID {
		ys := t.ApplyMulti(linalg.SVDOp(), x[0])
		uvh := t.Apply(einsum.Op("...ij,...jk->...ik"), ys[0], ys[2])
		return []cr.NodeID{t.Apply(elementwise.AddOp, uvh, t.Apply(reduce.SumOp([]int{-1}, true), ys[1]))}
	})
	qdiag := core.Composite("Q diag(R) and |R|", sp, 1, func(t *core.Tape[*tensor.Dense], x []cr.NodeID) []cr.NodeID {
		ys := t.ApplyMulti(linalg.QROp(), x[0])
		qd := t.Apply(einsum.Op("...ij,...jj->...ij"), ys[0], ys[1])
		return []cr.NodeID{t.Apply(elementwise.AddOp, qd, t.Apply(elementwise.AbsOp, t.Apply(einsum.Op("...ij->...ji"), ys[1])))}
	})
	sym := func(sh ...int) *tensor.Dense {
		a := randn(rng, tensor.Float64, sh...)
		s, err := tensor.Add(a, ein(t, "...ij->...ji", a))
		require.NoError(t, err)
		return s
	}
	ruletest.Check(t, sp, expSym, []*tensor.Dense{sym(2, 4, 4)}, ruletest.Config{})
	ruletest.Check(t, sp, polar, []*tensor.Dense{randn(rng, tensor.Float64, 5, 3)}, ruletest.Config{})
	ruletest.Check(t, sp, polar, []*tensor.Dense{randn(rng, tensor.Float64, 3, 5)}, ruletest.Config{})
	ruletest.Check(t, sp, qdiag, []*tensor.Dense{randn(rng, tensor.Float64, 4, 4)}, ruletest.Config{})
	ruletest.Check(t, sp, qdiag, []*tensor.Dense{randn(rng, tensor.Float64, 3, 3, 3)}, ruletest.Config{})
}

// TestHVPThroughFactorisations compares exact Hessian-vector products of
// non-quadratic losses through cholesky, logdet, solve and eigh with central
// differences of the gradient, and checks the symmetry <u, H v> = <v, H u>.
func TestHVPThroughFactorisations(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 36))
	b := randn(rng, tensor.Float64, 4, 4)
	a0 := spdOf(t, b)
	rhs := randn(rng, tensor.Float64, 4, 2)
	losses := map[string]hvp.Func{
		"logdet": func(t *core.Tape[*tensor.Dense], x []cr.NodeID) cr.NodeID { return t.Apply(linalg.LogdetOp(), x[0]) },
		"sum exp(cholesky)": func(t *core.Tape[*tensor.Dense], x []cr.NodeID) cr.NodeID {
			return sumAll(t, t.Apply(elementwise.ExpOp, t.Apply(linalg.CholeskyOp(false), x[0])))
		},
		"logdet + sum(solve^2)": func(t *core.Tape[*tensor.Dense], x []cr.NodeID) cr.NodeID {
			y := t.Apply(linalg.SolveOp(), x[0], t.Constant(rhs))
			return t.Apply(elementwise.AddOp, t.Apply(linalg.LogdetOp(), x[0]), sumAll(t, t.Apply(elementwise.SquareOp, y)))
		},
		"sum sin(eigvalsh)": func(t *core.Tape[*tensor.Dense], x []cr.NodeID) cr.NodeID {
			return sumAll(t, t.Apply(elementwise.SinOp, t.Apply(linalg.EigvalshOp(), x[0])))
		},
		"gaussian nll": func(t *core.Tape[*tensor.Dense], x []cr.NodeID) cr.NodeID {
			l := t.Apply(linalg.CholeskyOp(false), x[0])
			z := t.Apply(linalg.SolveTriangularOp(false, true, false), l, t.Constant(rhs))
			half := t.Apply(elementwise.ScaleOp(0.5), sumAll(t, t.Apply(elementwise.SquareOp, z)))
			logdet := t.Apply(elementwise.ScaleOp(2), sumAll(t, t.Apply(elementwise.LogOp, t.Apply(einsum.Op("ii->i"), l))))
			return t.Apply(elementwise.AddOp, half, logdet)
		},
	}
	for name, f := range losses {
		t.Run(name, func(t *testing.T) {
			u := randn(rng, tensor.Float64, 4, 4)
			v := randn(rng, tensor.Float64, 4, 4)
			_, hv, err := hvp.HVP(f, []*tensor.Dense{a0}, []*tensor.Dense{v})
			require.NoError(t, err)
			_, hu, err := hvp.HVP(f, []*tensor.Dense{a0}, []*tensor.Dense{u})
			require.NoError(t, err)
			grad := func(a *tensor.Dense) *tensor.Dense {
				_, g, err := hvp.Grad(f, []*tensor.Dense{a})
				require.NoError(t, err)
				return g[0]
			}
			const h = 1e-4
			// Fourth-order central difference of the gradient along v.
			at := func(s float64) *tensor.Dense {
				x, err := tensor.AddScaled(a0, s*h, v)
				require.NoError(t, err)
				return grad(x)
			}
			fd := tensor.Scale(at(-2), 1)
			for _, c := range []struct {
				s, w float64
			}{{-1, -8}, {1, 8}, {2, -1}} {
				var err error
				fd, err = tensor.AddScaled(fd, c.w, at(c.s))
				require.NoError(t, err)
			}
			fd = tensor.Scale(fd, 1/(12*h))
			near(t, hv[0], fd, 1e-7*math.Max(1, maxAbs(fd)), "HVP vs finite differences of the gradient")
			uhv, err := tensor.Dot(u, hv[0])
			require.NoError(t, err)
			vhu, err := tensor.Dot(v, hu[0])
			require.NoError(t, err)
			require.InDelta(t, real(uhv), real(vhu), 1e-10*math.Max(1, math.Abs(real(uhv))), "Hessian symmetry")
		})
	}
}
