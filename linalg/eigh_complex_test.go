package linalg_test

import (
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"sort"
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

// hermOf returns (B + B^H)/2 for a batch B.
func hermOf(t *testing.T, b *tensor.Dense) *tensor.Dense {
	t.Helper()
	s, err := tensor.Add(b, ein(t, "...ij->...ji", b.Conj()))
	require.NoError(t, err)
	return tensor.Scale(s, 0.5)
}

// TestEighComplex checks the complex Hermitian eigensolver on the QR-iteration
// sizes and the inverse-iteration ones (n > 48): A V = V diag(w), V^H V = I, w real
// and ascending, and w equal to the eigenvalues of the real embedding
// [[B, -C], [C, B]] of A = B + iC (each doubled).
func TestEighComplex(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for _, n := range []int{0, 1, 2, 3, 5, 8, 49, 64} {
		for _, count := range []int{1, 2} {
			a := hermOf(t, randn(rng, tensor.Complex128, count, n, n))
			if n == 8 && count == 2 {
				a = randn(rng, tensor.Complex128, count, n, n) // read through herm(A)
			}
			h := hermOf(t, a)
			w, v, err := linalg.Eigh(a)
			require.NoError(t, err)
			require.Equal(t, tensor.Float64, w.DType())
			require.Equal(t, tensor.Complex128, v.DType())
			require.Equal(t, []int{count, n}, w.Shape())
			require.Equal(t, []int{count, n, n}, v.Shape())
			msg := fmt.Sprintf("n=%d count=%d", n, count)
			tol := 1e-12 * math.Max(1, float64(n))
			near(t, ein(t, "bij,bjk->bik", h, v), ein(t, "bij,bj->bij", v, w), tol, "A V = V diag(w) "+msg)
			near(t, ein(t, "bji,bjk->bik", v.Conj(), v), batchEye(t, tensor.Complex128, count, n), tol, "V^H V = I "+msg)
			wv := w.Float64s()
			for b := range count {
				for i := 1; i < n; i++ {
					require.LessOrEqual(t, wv[b*n+i-1], wv[b*n+i], "ascending "+msg)
				}
				// The real embedding's eigenvalues are w, each twice.
				emb := tensor.New(tensor.Float64, 2*n, 2*n)
				for i := range n {
					for j := range n {
						z := h.At(b, i, j)
						emb.Set(complex(real(z), 0), i, j)
						emb.Set(complex(-imag(z), 0), i, n+j)
						emb.Set(complex(imag(z), 0), n+i, j)
						emb.Set(complex(real(z), 0), n+i, n+j)
					}
				}
				we, err := linalg.Eigvalsh(emb)
				require.NoError(t, err)
				for i := range n {
					require.InDelta(t, wv[b*n+i], real(we.At(2*i)), tol, msg)
					require.InDelta(t, wv[b*n+i], real(we.At(2*i+1)), tol, msg)
				}
			}
			ev, err := linalg.Eigvalsh(a)
			require.NoError(t, err)
			near(t, ev, w, 0, "eigvalsh "+msg)
		}
	}
}

// TestEighComplexClusters checks orthonormal eigenvectors of a Hermitian matrix
// with repeated and nearly repeated eigenvalues, U diag(w) U^H for a random
// unitary U, on both solver paths.
func TestEighComplexClusters(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	for _, n := range []int{6, 60} {
		// A random unitary from the eigenvectors of a random Hermitian matrix.
		_, u, err := linalg.Eigh(hermOf(t, randn(rng, tensor.Complex128, n, n)))
		require.NoError(t, err)
		want := make([]float64, n)
		for i := range want {
			want[i] = float64(i % 3) // each eigenvalue n/3 times
			if i%5 == 0 {
				want[i] += 1e-9
			}
		}
		wt, err := tensor.FromFloat64(want, n)
		require.NoError(t, err)
		a := ein(t, "ij,j,kj->ik", u, wt, u.Conj())
		w, v, err := linalg.Eigh(a)
		require.NoError(t, err)
		sort.Float64s(want)
		for i := range n {
			require.InDelta(t, want[i], real(w.At(i)), 1e-12, "n=%d", n)
		}
		near(t, ein(t, "ji,jk->ik", v.Conj(), v), eye(tensor.Complex128, n), 1e-12, "V^H V = I")
		near(t, ein(t, "ij,j,kj->ik", v, w, v.Conj()), a, 1e-12, "V diag(w) V^H = A")
	}
}

// TestEighNonFinite: NaN or Inf anywhere in the input is an error naming the op,
// in both dtypes.
func TestEighNonFinite(t *testing.T) {
	for _, x := range []complex128{complex(math.NaN(), 0), complex(math.Inf(1), 0), complex(0, math.NaN()), complex(0, math.Inf(-1))} {
		for _, dt := range []tensor.DType{tensor.Float64, tensor.Complex128} {
			if dt == tensor.Float64 && imag(x) != 0 {
				continue
			}
			a := eye(dt, 3)
			a.Set(x, 2, 1)
			_, _, err := linalg.Eigh(a)
			require.ErrorIs(t, err, cr.ErrInvalidArgument, "%v %v", dt, x)
			require.ErrorContains(t, err, "eigh:")
			require.ErrorContains(t, err, "non-finite")
			_, err = linalg.Eigvalsh(a)
			require.ErrorIs(t, err, cr.ErrInvalidArgument, "%v %v", dt, x)
		}
	}
}

// TestEighComplexGauge: a loss that depends on the eigenvectors' phases (Re V_00)
// has no derivative, and the backward pass says so, as PyTorch's; phase-invariant
// losses (|V|, V diag(w) V^H) go through.
func TestEighComplexGauge(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 46))
	a := hermOf(t, randn(rng, tensor.Complex128, 4, 4))
	run := func(f func(tp *core.Tape[*tensor.Dense], w, v cr.NodeID) cr.NodeID) error {
		tp := core.NewTape[*tensor.Dense](tensor.Space{})
		x := tp.Leaf(a)
		ys := tp.ApplyMulti(linalg.EighOp(), x)
		y := f(tp, ys[0], ys[1])
		out, err := tp.Value(y)
		if err != nil {
			return err
		}
		seed := tensor.Space{}.Rand(out, rng)
		_, err = tp.BackwardSeed(y, seed)
		return err
	}
	err := run(func(tp *core.Tape[*tensor.Dense], w, v cr.NodeID) cr.NodeID { return v })
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
	require.ErrorContains(t, err, "phase")
	require.NoError(t, run(func(tp *core.Tape[*tensor.Dense], w, v cr.NodeID) cr.NodeID {
		return tp.Apply(elementwise.AbsOp, v)
	}))
	require.NoError(t, run(func(tp *core.Tape[*tensor.Dense], w, v cr.NodeID) cr.NodeID { return w }))
}

// TestEighComplexGradient checks the gradient of a phase-invariant loss,
// sum_ij |V_ij|^4 + sum_i w_i^3, against central differences along a random
// Hermitian direction.
func TestEighComplexGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(47, 48))
	for _, n := range []int{4, 52} {
		a := hermOf(t, randn(rng, tensor.Complex128, n, n))
		loss := func(a *tensor.Dense) float64 {
			w, v, err := linalg.Eigh(a)
			require.NoError(t, err)
			s := 0.0
			for _, z := range v.Complex128s() {
				s += math.Pow(cmplx.Abs(z), 4)
			}
			for _, x := range w.Float64s() {
				s += x * x * x
			}
			return s
		}
		tp := core.NewTape[*tensor.Dense](tensor.Space{})
		x := tp.Leaf(a)
		ys := tp.ApplyMulti(linalg.EighOp(), x)
		av := tp.Apply(elementwise.AbsOp, ys[1])
		l := tp.Apply(reduce.SumOp(nil, false), tp.Apply(elementwise.PowScalarOp(4), av))
		l = tp.Apply(elementwise.AddOp, l, tp.Apply(reduce.SumOp(nil, false), tp.Apply(elementwise.PowScalarOp(3), ys[0])))
		g, err := tp.Backward(l)
		require.NoError(t, err)
		ga, ok := g.Of(x)
		require.True(t, ok)
		d := hermOf(t, randn(rng, tensor.Complex128, n, n))
		const h = 1e-5
		fd := (loss(addScaled(t, a, d, h)) - loss(addScaled(t, a, d, -h))) / (2 * h)
		// The directional derivative is Re <Abar, D>.
		dot := 0.0
		gd, dd := ga.Complex128s(), d.Complex128s()
		for i := range gd {
			dot += real(cmplx.Conj(gd[i]) * dd[i])
		}
		require.InDelta(t, fd, dot, 1e-6*math.Max(1, math.Abs(fd)), "n=%d", n)
	}
}

func addScaled(t *testing.T, a, d *tensor.Dense, h float64) *tensor.Dense {
	t.Helper()
	s, err := tensor.Add(a, tensor.Scale(d, h))
	require.NoError(t, err)
	return s
}

// ExampleEigh_complex decomposes a complex Hermitian matrix and rebuilds it from
// its real eigenvalues and unitary eigenvectors.
func ExampleEigh_complex() {
	a, err := tensor.FromComplex128([]complex128{2, 1i, -1i, 2}, 2, 2)
	if err != nil {
		panic(err)
	}
	w, v, err := linalg.Eigh(a)
	if err != nil {
		panic(err)
	}
	back, err := einsum.Eval("ij,j,kj->ik", v, w, v.Conj()) // V diag(w) V^H
	if err != nil {
		panic(err)
	}
	fmt.Printf("w = %.4f (%v)\n", w.Float64s(), w.DType())
	for i := range 2 {
		fmt.Printf("%.4f %.4f\n", back.At(i, 0), back.At(i, 1))
	}
	// Output:
	// w = [1.0000 3.0000] (float64)
	// (2.0000+0.0000i) (0.0000+1.0000i)
	// (0.0000-1.0000i) (2.0000+0.0000i)
}

// TestEighComplexSpecial checks matrices that skip reflectors or split the
// tridiagonal form (diagonal, zero, block-diagonal), a complex matrix with zero
// imaginary parts (the real solver's eigenvalues), and extreme scales (in both
// dtypes: the solvers see the matrix scaled by a power of two).
func TestEighComplexSpecial(t *testing.T) {
	rng := rand.New(rand.NewPCG(49, 50))
	var cases []*tensor.Dense
	for _, n := range []int{5, 60} {
		diag := tensor.New(tensor.Complex128, n, n)
		for i := range n {
			diag.Set(complex(float64((i*7)%n), 0), i, i)
		}
		block := hermOf(t, randn(rng, tensor.Complex128, n, n))
		for i := range n {
			for j := range n {
				if (i < n/2) != (j < n/2) {
					block.Set(0, i, j)
				}
			}
		}
		cases = append(cases, diag, tensor.New(tensor.Complex128, n, n), block,
			tensor.Scale(hermOf(t, randn(rng, tensor.Complex128, n, n)), 1e150),
			tensor.Scale(hermOf(t, randn(rng, tensor.Complex128, n, n)), 1e-150),
			// The real path scales as well (Dsterf's own scaling fails below 1e-122).
			tensor.Scale(hermOf(t, randn(rng, tensor.Float64, n, n)), 1e300),
			tensor.Scale(hermOf(t, randn(rng, tensor.Float64, n, n)), 1e-150))
		r := randn(rng, tensor.Float64, n, n)
		rs, err := tensor.Add(r, ein(t, "ij->ji", r))
		require.NoError(t, err)
		wr, err := linalg.Eigvalsh(rs)
		require.NoError(t, err)
		wc, err := linalg.Eigvalsh(rs.AsComplex())
		require.NoError(t, err)
		near(t, wc, wr, 1e-12*float64(n), "real input as complex")
	}
	for k, a := range cases {
		n := a.Shape()[0]
		w, v, err := linalg.Eigh(a)
		require.NoError(t, err)
		scale := 0.0
		for _, z := range a.AsComplex().Complex128s() {
			scale = math.Max(scale, cmplx.Abs(z))
		}
		got := ein(t, "ij,j,kj->ik", v, w, v.Conj())
		diff, err := tensor.Sub(got, a)
		require.NoError(t, err)
		for _, z := range diff.AsComplex().Complex128s() {
			require.LessOrEqual(t, cmplx.Abs(z), 1e-12*float64(n)*scale, "case %d: V diag(w) V^H = A", k)
		}
		near(t, ein(t, "ji,jk->ik", v.Conj(), v), eye(a.DType(), n), 1e-12*float64(n), fmt.Sprintf("case %d: V^H V = I", k))
	}
}
