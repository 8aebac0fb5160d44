package hvp_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/einsum"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// TestFloat32ReusesNothingItReturned is TestGradReusesNothingItReturned and
// TestOperatorReusesOnlyTemporaries in float32, whose storage the pool now takes
// too: a dense layer with a bias, tanh, products, a quotient and a difference, all
// float32. Repeated gradients, Gradient's reuse and repeated Hessian-vector
// products give the results of the first call, and nothing a call returned
// changes afterwards (under the race detector released storage is filled with
// NaN, so storage reused too early would show).
func TestFloat32ReusesNothingItReturned(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	f32 := func(shape ...int) *tensor.Dense { return tensor.RandN(rng, tensor.Float32, shape...) }
	w, b, x := f32(64, 64), f32(64), f32(128, 64)
	v := []*tensor.Dense{f32(64, 64), f32(64)}
	f := func(tp *hvp.Tape, p []cr.NodeID) cr.NodeID {
		z := tp.Apply(ew.AddOp, tp.Apply(einsum.Op("ij,jk->ik"), tp.Constant(x), p[0]), p[1])
		h := tp.Apply(ew.TanhOp, z)
		q := tp.Apply(ew.DivOp, tp.Apply(ew.MulOp, h, h), tp.Apply(ew.ExpOp, h))
		return tp.Apply(reduce.SumOp(nil, false), tp.Apply(ew.SubOp, q, h))
	}
	params := []*tensor.Dense{w, b}
	copyOf := func(ts []*tensor.Dense) [][]float32 {
		out := make([][]float32, len(ts))
		for i, d := range ts {
			require.Equal(t, tensor.Float32, d.DType())
			out[i] = append([]float32(nil), d.Float32s()...)
		}
		return out
	}
	check := func(want [][]float32, got []*tensor.Dense, msg string, args ...any) {
		t.Helper()
		for i := range want {
			require.Equal(t, want[i], got[i].Float32s(), append([]any{msg + " (result %d)"}, append(args, i)...)...)
		}
	}

	// Grad again and again.
	_, g0, err := hvp.Grad(f, params)
	require.NoError(t, err)
	want := copyOf(g0)
	var grads [][]*tensor.Dense
	for range 4 {
		_, g, err := hvp.Grad(f, params)
		require.NoError(t, err)
		check(want, g, "Grad")
		grads = append(grads, g)
	}
	for i, g := range grads {
		check(want, g, "Grad %d later", i)
	}

	// Gradient, which reuses its previous results.
	var gr hvp.Gradient
	for i := range 4 {
		_, g, err := gr.Grad(f, params)
		require.NoError(t, err)
		check(want, g, "Gradient call %d", i)
	}

	// HVP again and again.
	g1, hv1, err := hvp.HVP(f, params, v)
	require.NoError(t, err)
	check(want, g1, "HVP's gradient")
	wantHV := copyOf(hv1)
	var hvs [][]*tensor.Dense
	for range 4 {
		_, hv, err := hvp.HVP(f, params, v)
		require.NoError(t, err)
		check(wantHV, hv, "HVP")
		hvs = append(hvs, hv)
	}
	for i, hv := range hvs {
		check(wantHV, hv, "HVP %d later", i)
	}
	check(want, g1, "HVP's gradient later")
	check(wantHV, hv1, "the first HVP later")
}
