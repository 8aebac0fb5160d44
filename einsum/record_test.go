package einsum_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/einsum"
	"github.com/chainrules-go/chainrules/internal/recordtest"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/tensor"
)

// The recorded pullback of every registry sample of einsum, checked as the recipe
// of recordtest.CheckOp: it equals Pullback; its derivative along random directions
// (a plain sweep over the recorded VJP, and forward over it) equals the
// second-order rule; its recorded derivative (third order) matches central
// differences of the second-order rule; and a fourth recorded sweep succeeds.
func TestRecordedPullbackSamples(t *testing.T) {
	recordtest.CheckFamilies(t, einsum.Register, rand.New(rand.NewPCG(7, 8)), orderErrors)
}

// orderErrors lists the families of the package whose derivatives stop at some
// order (GradGraph returns an *cr.OrderError there), with that order: none.
var orderErrors = map[string]int{}

// Masked operands (constants) get no recorded cotangent, and the others are
// unchanged, to third order.
func TestRecordedPullbackMasked(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	A := tensor.RandN(rng, tensor.Complex128, 3, 4)
	B := tensor.RandN(rng, tensor.Float64, 4, 2)
	C := tensor.RandN(rng, tensor.Complex128, 2)
	W := tensor.RandN(rng, tensor.Complex128, 3)
	op := einsum.Op("ij,jk,k->i")
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	a, b, c := tp.Constant(A), tp.Leaf(B), tp.Leaf(C)
	y := tp.Apply(op, a, b, c)
	// The masked op kept no cotangent for the constant: differentiating with
	// respect to it is an error, not a zero.
	_, err := tp.GradGraphSeed(y, tp.Constant(W), a, b, c)
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
	g, err := tp.GradGraphSeed(y, tp.Constant(W), b, c)
	require.NoError(t, err)
	ref := core.NewTape[*tensor.Dense](tensor.Space{})
	ra, rb, rc := ref.Leaf(A), ref.Leaf(B), ref.Leaf(C)
	gr, err := ref.BackwardSeed(ref.Apply(op, ra, rb, rc), W)
	require.NoError(t, err)
	for k, id := range []cr.NodeID{rb, rc} {
		want, _ := gr.Of(id)
		got := recordtest.Value(t, tp, g[k])
		require.True(t, tensor.EqualApprox(want, got, 1e-13, 1e-13), "operand %d", k+1)
	}
	recordtest.CheckOp(t, rng, op, []*tensor.Dense{A, B, C}, 0)
}

// nn.MatmulOp records einsum's rule, so it has einsum's orders too (vector-matrix,
// batched with broadcasting, complex).
func TestRecordedMatmul(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, c := range []struct {
		name string
		x    []*tensor.Dense
	}{
		{"matrix", []*tensor.Dense{tensor.RandN(rng, tensor.Float64, 2, 3), tensor.RandN(rng, tensor.Float64, 3, 2)}},
		{"vector matrix", []*tensor.Dense{tensor.RandN(rng, tensor.Float64, 3), tensor.RandN(rng, tensor.Float64, 3, 2)}},
		{"batched broadcast complex", []*tensor.Dense{tensor.RandN(rng, tensor.Complex128, 2, 1, 2, 3), tensor.RandN(rng, tensor.Complex128, 3, 3, 2)}},
	} {
		t.Run(c.name, func(t *testing.T) { recordtest.CheckOp(t, rng, nn.MatmulOp, c.x, 0) })
	}
}

// Einsums differentiate to the fourth order exactly: f(x) = (x^T M x)^2 has the
// fourth directional derivative 24 (u^T M u)^2 along u.
func TestRecordedEinsumFourthOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	M := tensor.RandN(rng, tensor.Float64, 3, 3)
	X := tensor.RandN(rng, tensor.Float64, 3)
	U := tensor.RandN(rng, tensor.Float64, 3)
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	x, m, u := tp.Leaf(X), tp.Constant(M), tp.Constant(U)
	q := tp.Apply(einsum.Op("i,ij,j->"), x, m, x)
	f := tp.Apply(einsum.Op(",->"), q, q)
	// Each derivative along u is a recorded gradient contracted with u.
	cur := f
	for range 4 {
		g, err := tp.GradGraph(cur, x)
		require.NoError(t, err)
		cur = tp.Apply(einsum.Op("i,i->"), g[0], u)
	}
	uMu := 0.0
	for i := range 3 {
		for j := range 3 {
			uMu += U.AtFloat64(i) * M.AtFloat64(i, j) * U.AtFloat64(j)
		}
	}
	require.InDelta(t, 24*uMu*uMu, recordtest.Value(t, tp, cur).AtFloat64(), 1e-10*(1+24*uMu*uMu))
}
