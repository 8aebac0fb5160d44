package linalg_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/einsum"
	"github.com/chainrules-go/chainrules/internal/recordtest"
	"github.com/chainrules-go/chainrules/linalg"
	"github.com/chainrules-go/chainrules/tensor"
)

// Recorded pullbacks (chainrules.PullbackRecorder, used by core.Tape.GradGraph) of
// the ops with hand-written rules, cholesky and solve_triangular, and of eigh and
// svd, whose fast first-order path records its own formula (V diag(wbar) V^H,
// U diag(Sbar) Vh) and otherwise the defined pullback. The checks
// (recordtest.CheckCase, as in package nn): the recorded VJP equals Pullback; its
// derivative by the ordinary sweeps equals the second-order rule; a third
// derivative by forward over reverse through it matches finite differences; and a
// recorded sweep of the recorded VJP (order 3) matches the same derivatives
// (Order3 would name an op that stops it with a *cr.OrderError: none does, since
// every op these pullbacks use records its own). Small matrices only (at most 5x5).

func TestRecordedPullbacks(t *testing.T) {
	reg := cr.NewRegistry[*tensor.Dense]()
	require.NoError(t, linalg.Register(reg))
	rng := rand.New(rand.NewPCG(5, 8))
	small := func(s cr.Sample[*tensor.Dense]) bool {
		for _, x := range s.Inputs {
			if sh := x.Shape(); len(sh) >= 2 && sh[len(sh)-1] > 5 {
				return false
			}
		}
		return true
	}
	var cases []recordtest.Case
	for _, f := range []struct {
		family string
		// Per input, the op that stops a recorded sweep of its recorded VJP today,
		// for float64 and complex128 input (nil: the family is not checked with
		// that dtype).
		real, cmplx []string
		orderAt     int
	}{
		// B's recorded cotangent is a solve_triangular of Xbar (summed over
		// broadcast dims); complex input conjugates A with elementwise.ConjOp.
		{"solve_triangular", []string{}, []string{}, 3},
		{"cholesky", []string{}, []string{}, 3},
		// A composite of two solve_triangular, which GradGraph differentiates
		// since solve_triangular records its pullback.
		{"cholesky_solve", []string{}, []string{}, 4},
	} {
		e, ok := reg.Lookup(f.family)
		require.True(t, ok, f.family)
		for _, s := range e.Samples(rng) {
			order3 := f.real
			if s.Inputs[0].DType() == tensor.Complex128 {
				order3 = f.cmplx
			}
			if small(s) && order3 != nil {
				cases = append(cases, recordtest.Case{Name: f.family + "/" + s.Name, Op: s.Op, Inputs: s.Inputs, Order3: order3, OrderAt: f.orderAt})
			}
		}
	}
	// eigh and svd: the registry's samples of the plain multi-output ops (its
	// others are composites of gauge-invariant losses), with the cotangent on some
	// outputs: the eigenvalues (singular values) alone take the fast path; any
	// vector output, the defined pullback.
	for _, f := range []struct {
		family string
		outs   [][]int
	}{
		{"eigh", [][]int{{0}, {1}, {0, 1}}},
		{"svd", [][]int{{1}, {0}, {2}, {0, 1, 2}}},
	} {
		e, ok := reg.Lookup(f.family)
		require.True(t, ok, f.family)
		for _, s := range e.Samples(rng) {
			if s.Op.NumOutputs() == 1 || !small(s) {
				continue
			}
			for _, outs := range f.outs {
				cases = append(cases, recordtest.Case{Name: fmt.Sprintf("%s/%s outputs %v", f.family, s.Name, outs), Op: s.Op,
					Inputs: s.Inputs, Outs: outs, Order3: nil})
			}
		}
	}
	// Complex eigh and svd: the values alone, and the vectors with a
	// gauge-invariant cotangent (Im diag(V^H Vbar) = 0).
	herm := hermitian(rng, 2, 3, 3)
	a := tensor.RandN(rng, tensor.Complex128, 4, 3)
	cases = append(cases,
		recordtest.Case{Name: "eigh/complex128 w", Op: linalg.EighOp(), Inputs: in(herm), Outs: []int{0}, Order3: nil},
		recordtest.Case{Name: "eigh/complex128 V, phase-invariant cotangent", Op: linalg.EighOp(), Inputs: in(herm), Outs: []int{1},
			Seed: func(ys []*tensor.Dense, w *tensor.Dense) *tensor.Dense { return gaugeFree(ys[1], w) }, Order3: nil},
		recordtest.Case{Name: "svd/complex128 S", Op: linalg.SVDOp(), Inputs: in(a), Outs: []int{1}, Order3: nil},
		recordtest.Case{Name: "svd/complex128 U, phase-invariant cotangent", Op: linalg.SVDOp(), Inputs: in(a), Outs: []int{0},
			Seed: func(ys []*tensor.Dense, w *tensor.Dense) *tensor.Dense { return gaugeFree(ys[0], w) }, Order3: nil},
	)
	for _, c := range cases {
		c.FDStep = 2e-5 // a finer step of the third-order central differences than the default 1e-4
		t.Run(c.Name, func(t *testing.T) { recordtest.CheckCase(t, rng, c) })
	}
}

// At a repeated eigenvalue, a loss of the eigenvalues alone has a finite
// gradient, and the recorded one is the same (the fast path's formula): the
// defined pullback would divide by the zero gap.
func TestRecordedEighRepeatedEigenvalues(t *testing.T) {
	a := must(tensor.FromFloat64([]float64{2, 0, 0, 0, 2, 0, 0, 0, 5}, 3, 3))
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	x := tp.Leaf(a)
	ys := tp.ApplyMulti(linalg.EighOp(), x)
	seed := must(tensor.FromFloat64([]float64{1, 2, 3}, 3))
	g, err := tp.GradGraphSeed(ys[0], tp.Constant(seed), x)
	require.NoError(t, err)
	ref, err := tp.BackwardSeed(ys[0], seed)
	require.NoError(t, err)
	want, _ := ref.Of(x)
	got := recordtest.Value(t, tp, g[0])
	for _, v := range got.Float64s() {
		require.False(t, math.IsNaN(v))
	}
	recordtest.RequireNear(t, want, got, 1e-14, "recorded eigenvalue gradient")
}

// hermitian returns a batch of random Hermitian matrices.
func hermitian(rng *rand.Rand, shape ...int) *tensor.Dense {
	a := tensor.RandN(rng, tensor.Complex128, shape...)
	return tensor.Scale(must(tensor.Add(a, must(einsum.Eval("...ij->...ji", a.Conj())))), 0.5)
}

// gaugeFree returns w - V diag(i Im diag(V^H w)): a cotangent of the vectors V
// that does not see their phases.
func gaugeFree(v, w *tensor.Dense) *tensor.Dense {
	d := must(einsum.Eval("...ji,...ji->...i", v.Conj(), w)).Complex128s()
	for i, z := range d {
		d[i] = complex(0, imag(z))
	}
	sh := v.Shape()
	dv := must(tensor.FromComplex128(d, append(sh[:len(sh)-2:len(sh)-2], sh[len(sh)-1])...))
	return must(tensor.Sub(w, must(einsum.Eval("...ij,...j->...ij", v, dv))))
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
