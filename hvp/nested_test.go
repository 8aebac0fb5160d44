package hvp_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// cubeSum is f(x) = sum(x^3): grad = 3x^2, H = diag(6x), third derivative 6.
func cubeSum(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
	return t.Apply(reduce.SumOp(nil, false), t.Apply(ew.MulOp, t.Apply(ew.MulOp, x[0], x[0]), x[0]))
}

// sinExp is f(x, y) = sum(sin(x) exp(x y)): not quadratic in anything.
func sinExp(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
	return t.Apply(reduce.SumOp(nil, false), t.Apply(ew.MulOp, t.Apply(ew.SinOp, x[0]), t.Apply(ew.ExpOp, t.Apply(ew.MulOp, x[0], x[1]))))
}

func TestGradOfNests(t *testing.T) {
	x := vec(0.5, -1.2, 2)
	xs := x.Float64s()
	// Gradient penalty |grad f|^2 = sum 9 x^4: its gradient is 36 x^3.
	penalty := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		g := hvp.GradOf(cubeSum)(t, x)
		return hvp.Inner(t, g, g)
	}
	v, g, err := hvp.Grad(penalty, []*tensor.Dense{x})
	require.NoError(t, err)
	want := 0.0
	for _, xi := range xs {
		want += 9 * math.Pow(xi, 4)
	}
	require.InDelta(t, want, v.Float64s()[0], 1e-12)
	for i, xi := range xs {
		require.InDelta(t, 36*xi*xi*xi, g[0].Float64s()[i], 1e-12)
	}
	// Its HVP (order 4 of f) along e_0: 108 x^2 on the diagonal.
	_, hv, err := hvp.HVP(penalty, []*tensor.Dense{x}, []*tensor.Dense{vec(1, 0, 0)})
	require.NoError(t, err)
	require.InDelta(t, 108*xs[0]*xs[0], hv[0].Float64s()[0], 1e-11)
	require.InDelta(t, 0, hv[0].Float64s()[1], 1e-12)
}

// JVP of the gradient is the Hessian-vector product, and reverse over reverse
// agrees with forward over reverse.
func TestJVPOfGradOfAndHVPRev(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x := []*tensor.Dense{tensor.RandN(rng, tensor.Float64, 4), tensor.RandN(rng, tensor.Float64, 4)}
	v := []*tensor.Dense{tensor.RandN(rng, tensor.Float64, 4), tensor.RandN(rng, tensor.Float64, 4)}
	grad, hv, err := hvp.HVP(sinExp, x, v)
	require.NoError(t, err)
	grad2, hv2, err := hvp.HVPRev(sinExp, x, v)
	require.NoError(t, err)
	for k := range x {
		require.InDeltaSlice(t, grad[k].Float64s(), grad2[k].Float64s(), 1e-13)
		require.InDeltaSlice(t, hv[k].Float64s(), hv2[k].Float64s(), 1e-12)
	}
	// JVPOf(GradOf(f)) gives H v for the first input's block of the gradient.
	jvpOfGrad := func(t *hvp.Tape, xs []cr.NodeID) cr.NodeID {
		g0 := func(t *hvp.Tape, xs []cr.NodeID) cr.NodeID { return hvp.GradOf(sinExp)(t, xs)[0] }
		vs := []cr.NodeID{t.Constant(v[0]), t.Constant(v[1])}
		return hvp.JVPOf(g0)(t, xs, vs)
	}
	_, _, err = hvp.Grad(func(tp *hvp.Tape, xs []cr.NodeID) cr.NodeID {
		jv := jvpOfGrad(tp, xs)
		val, err := tp.Value(jv)
		require.NoError(t, err)
		require.InDeltaSlice(t, hv[0].Float64s(), val.Float64s(), 1e-12)
		return tp.Apply(reduce.SumOp(nil, false), jv)
	}, x)
	require.NoError(t, err)
}

func TestDirectionalDerivatives(t *testing.T) {
	x, v := vec(0.3, -0.8), vec(1.5, 0.5)
	f := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		return t.Apply(reduce.SumOp(nil, false), t.Apply(ew.SinOp, x[0]))
	}
	d, err := hvp.DirectionalDerivatives(f, []*tensor.Dense{x}, []*tensor.Dense{v}, 4)
	require.NoError(t, err)
	// d^j/de^j sum sin(x + e v) = sum v^j sin^(j)(x), sin^(j) cycling sin, cos, -sin, -cos.
	for j := range 5 {
		want := 0.0
		for i, xi := range x.Float64s() {
			s, c := math.Sincos(xi)
			want += math.Pow(v.Float64s()[i], float64(j)) * []float64{s, c, -s, -c}[j%4]
		}
		require.InDelta(t, want, d[j], 1e-12, "order %d", j)
	}
	_, err = hvp.DirectionalDerivatives(f, []*tensor.Dense{x}, []*tensor.Dense{v}, 0)
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
}

// A value-level transform inside a recording is refused, never a silent zero; the
// same call on another goroutine is not nested and works.
func TestNestedValueTransformIsAnError(t *testing.T) {
	x := vec(0.5, 1)
	f := func(t *hvp.Tape, xs []cr.NodeID) cr.NodeID {
		xv, _ := t.Value(xs[0])
		_, g, err := hvp.Grad(cubeSum, []*tensor.Dense{xv})
		if err != nil {
			t.Apply(cr.FailOp[*tensor.Dense]("inner grad", err))
			return 0
		}
		return t.Apply(reduce.SumOp(nil, false), t.Apply(ew.MulOp, xs[0], t.Constant(g[0])))
	}
	_, _, err := hvp.Grad(f, []*tensor.Dense{x})
	require.ErrorIs(t, err, hvp.ErrNested)
	require.ErrorIs(t, err, cr.ErrInvalidArgument)

	done := make(chan error)
	go func() {
		_, _, err := hvp.Grad(cubeSum, []*tensor.Dense{x})
		done <- err
	}()
	require.NoError(t, <-done)
}

// GradOf's errors become the tape's sticky error: a non-scalar function.
func TestGradOfErrors(t *testing.T) {
	vector := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID { return t.Apply(ew.SinOp, x[0]) }
	_, _, err := hvp.Grad(func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		return hvp.Inner(t, hvp.GradOf(vector)(t, x), x)
	}, []*tensor.Dense{vec(1, 2)})
	require.ErrorIs(t, err, cr.ErrNonScalarLoss)
	require.False(t, errors.Is(err, hvp.ErrNested))
}

// tanhRegression is a 16-64-64-1 tanh network's mean squared error on a batch of
// 256, a function of its parameter set.
func tanhRegression() (hvp.Func, []*tensor.Dense, []*tensor.Dense) {
	rng := rand.New(rand.NewPCG(9, 9))
	X, Y := tensor.RandN(rng, tensor.Float64, 256, 16), tensor.RandN(rng, tensor.Float64, 256, 1)
	widths := []int{16, 64, 64, 1}
	var params, dirs []*tensor.Dense
	for l := 0; l+1 < len(widths); l++ {
		w := tensor.Scale(tensor.RandN(rng, tensor.Float64, widths[l], widths[l+1]), 1/math.Sqrt(float64(widths[l])))
		params = append(params, w, tensor.RandN(rng, tensor.Float64, widths[l+1]))
		dirs = append(dirs, tensor.RandN(rng, tensor.Float64, widths[l], widths[l+1]), tensor.RandN(rng, tensor.Float64, widths[l+1]))
	}
	f := func(t *hvp.Tape, p []cr.NodeID) cr.NodeID {
		h := t.Constant(X)
		for l := 0; l < len(p); l += 2 {
			h = t.Apply(ew.AddOp, t.Apply(einsumBI, h, p[l]), p[l+1])
			if l+2 < len(p) {
				h = t.Apply(ew.TanhOp, h)
			}
		}
		d := t.Apply(ew.SubOp, h, t.Constant(Y))
		return t.Apply(reduce.MeanOp(nil, false), t.Apply(ew.MulOp, d, d))
	}
	return f, params, dirs
}

// The third directional derivative of the network's loss against finite
// differences of its HVPs: d/de <v, H(x + e v) v>.
func TestThirdDirectionalDerivativeMatchesHVPs(t *testing.T) {
	f, x, v := tanhRegression()
	d, err := hvp.DirectionalDerivatives(f, x, v, 3)
	require.NoError(t, err)
	vhv := func(e float64) float64 {
		xe := make([]*tensor.Dense, len(x))
		for k := range x {
			xe[k], err = tensor.Add(x[k], tensor.Scale(v[k], e))
			require.NoError(t, err)
		}
		_, hv, err := hvp.HVP(f, xe, v)
		require.NoError(t, err)
		s := 0.0
		for k := range v {
			for i, a := range v[k].Float64s() {
				s += a * hv[k].Float64s()[i]
			}
		}
		return s
	}
	// The difference's error falls as h^4 (the fifth derivative is large here:
	// at h = 1e-3 it is 3e-4 of 110); at 2.5e-4 it is about 1e-6.
	const h = 2.5e-4
	fd := (-vhv(2*h) + 8*vhv(h) - 8*vhv(-h) + vhv(-2*h)) / (12 * h)
	require.InDelta(t, fd, d[3], 1e-6*math.Max(1, math.Abs(fd)))
	require.InDelta(t, vhv(0), d[2], 1e-10*math.Max(1, math.Abs(d[2])))
}

// BenchmarkNested compares, on the same network loss, an HVP (forward over
// reverse), the same product by reverse over reverse, and the third derivative
// along a direction (two nested recorded gradients and a forward sweep).
func BenchmarkNested(b *testing.B) {
	f, x, v := tanhRegression()
	b.Run("hvp", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := hvp.HVP(f, x, v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("hvp-rev", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := hvp.HVPRev(f, x, v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("third", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := hvp.DirectionalDerivatives(f, x, v, 3); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// Transforms nest three deep: the second derivative along v by a JVP of a JVP,
// and the Hessian of a function of a gradient.
func TestNestedTransforms(t *testing.T) {
	x, v := vec(0.3, -0.8), vec(1.5, 0.5)
	// d^2/de^2 sum(sin(x + e v)) = -sum v^2 sin(x), by JVPOf(JVPOf(f)).
	_, _, err := hvp.Grad(func(tp *hvp.Tape, xs []cr.NodeID) cr.NodeID {
		vs := []cr.NodeID{tp.Constant(v)}
		f := func(tp *hvp.Tape, x []cr.NodeID) cr.NodeID {
			return tp.Apply(reduce.SumOp(nil, false), tp.Apply(ew.SinOp, x[0]))
		}
		jf := func(tp *hvp.Tape, x []cr.NodeID) cr.NodeID { return hvp.JVPOf(f)(tp, x, vs) }
		jjf := hvp.JVPOf(jf)(tp, xs, vs)
		got, err := tp.Value(jjf)
		require.NoError(t, err)
		want := 0.0
		for i, xi := range x.Float64s() {
			want -= v.Float64s()[i] * v.Float64s()[i] * math.Sin(xi)
		}
		require.InDelta(t, want, got.Float64s()[0], 1e-13)
		return jjf
	}, []*tensor.Dense{x})
	require.NoError(t, err)

	// The Hessian of p(x) = |grad f(x)|^2 for f = sum(x^3): p = sum 9 x^4, so
	// H = diag(108 x^2).
	penalty := func(tp *hvp.Tape, x []cr.NodeID) cr.NodeID {
		g := hvp.GradOf(cubeSum)(tp, x)
		return hvp.Inner(tp, g, g)
	}
	H, err := hvp.Hessian(penalty, []*tensor.Dense{x})
	require.NoError(t, err)
	for i, xi := range x.Float64s() {
		for j := range x.Float64s() {
			want := 0.0
			if i == j {
				want = 108 * xi * xi
			}
			require.InDelta(t, want, H.At(i, j), 1e-11)
		}
	}
}
