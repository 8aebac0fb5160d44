package recordtest

import (
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/tensor"
)

// Value returns the value of the node id of tp, failing t if it has none.
func Value(t testing.TB, tp *core.Tape[*tensor.Dense], id cr.NodeID) *tensor.Dense {
	t.Helper()
	v, err := tp.Value(id)
	require.NoError(t, err)
	return v
}

// RandLike returns standard normal tensors shaped and typed like xs.
func RandLike(rng *rand.Rand, xs []*tensor.Dense) []*tensor.Dense {
	out := make([]*tensor.Dense, len(xs))
	for k, x := range xs {
		out[k] = tensor.RandN(rng, x.DType(), x.Shape()...)
	}
	return out
}

// SquaredNorm returns Re<x, x>, the squared 2-norm of x.
func SquaredNorm(x *tensor.Dense) float64 {
	v, err := tensor.Space{}.Inner(x, x)
	if err != nil {
		panic(err)
	}
	return v
}

// RequireNear requires |got - want| <= tol max(|want|, 1e-6) in the 2-norm (over
// the elements as complex numbers), with the shapes equal; msg and args describe
// the comparison in the failure message.
func RequireNear(t testing.TB, want, got *tensor.Dense, tol float64, msg string, args ...any) {
	t.Helper()
	require.Equal(t, want.Shape(), got.Shape(), msg)
	a, b := want.AsComplex().Contiguous().Complex128s(), got.AsComplex().Contiguous().Complex128s()
	var num, den float64
	for i := range a {
		d := cmplx.Abs(a[i] - b[i])
		num += d * d
		den += cmplx.Abs(a[i]) * cmplx.Abs(a[i])
	}
	num, den = math.Sqrt(num), math.Sqrt(den)
	if !(num <= tol*max(den, 1e-6)) {
		require.Failf(t, "not close", "%s: |got - want| = %.3g, |want| = %.3g\nwant %v\ngot  %v", fmt.Sprintf(msg, args...), num, den, a, b)
	}
}

// entries is what of reads: a *core.Gradients or a *core.Tangents.
type entries interface {
	Of(cr.NodeID) (*tensor.Dense, bool)
}

// of returns the entry of g (gradients or tangents) for id, or zeros like like.
func of(g entries, id cr.NodeID, like *tensor.Dense) *tensor.Dense {
	if v, ok := g.Of(id); ok && v != nil {
		return v
	}
	return tensor.New(like.DType(), like.Shape()...)
}

// ofAll returns the entries of g for ids, each zeros like the matching like when
// absent.
func ofAll(g entries, ids []cr.NodeID, like []*tensor.Dense) []*tensor.Dense {
	out := make([]*tensor.Dense, len(ids))
	for k, id := range ids {
		out[k] = of(g, id, like[k])
	}
	return out
}

// values returns the values of the nodes ids of tp.
func values(t testing.TB, tp *core.Tape[*tensor.Dense], ids []cr.NodeID) []*tensor.Dense {
	t.Helper()
	out := make([]*tensor.Dense, len(ids))
	for k, id := range ids {
		out[k] = Value(t, tp, id)
	}
	return out
}

// requireAllClose requires the tensors a and b to agree to tol relative to their
// overall size (norms over all of them).
func requireAllClose(t testing.TB, what string, a, b []*tensor.Dense, tol float64) {
	t.Helper()
	var d2, a2, b2 float64
	for k := range a {
		require.Equal(t, a[k].Shape(), b[k].Shape(), "%s: shape of %d", what, k)
		diff, err := tensor.Sub(a[k], b[k])
		require.NoError(t, err)
		d2 += SquaredNorm(diff)
		a2 += SquaredNorm(a[k])
		b2 += SquaredNorm(b[k])
	}
	d, n := math.Sqrt(d2), math.Max(math.Sqrt(a2), math.Sqrt(b2))
	require.LessOrEqual(t, d, tol*n+1e-14, "%s: |a-b| = %g, |a| = %g, |b| = %g", what, d, math.Sqrt(a2), math.Sqrt(b2))
}

// must returns v, panicking on err.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
