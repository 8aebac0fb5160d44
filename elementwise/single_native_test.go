package elementwise

import (
	"math"
	"math/rand/v2"
	"testing"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFloat32Native: exp, tanh, sigmoid, relu and sqrt of a float32 tensor run
// their float32 kernels (a float32Rule), within 2 ulp of the double-precision
// result rounded (relu and sqrt exactly), with the specials exact; the pullback and the forward tangent are F'(x) v computed in
// float32 from y, and so is the second-order rule; a float64 cotangent and
// complex64 input go the widened way.
func TestFloat32Native(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	xs := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
		1e-30, -1e-42, 88.7, 89, -104, 0.5, -3, 12}
	for len(xs) < 1000 { // past the vector blocks and their tails
		xs = append(xs, float32(rng.NormFloat64()*4))
	}
	x, err := tensor.FromFloat32(xs, 10, 100)
	require.NoError(t, err)
	g := tensor.RandN(rng, tensor.Float32, 10, 100)
	for _, c := range []struct {
		op  cr.Op[*tensor.Dense]
		f   func(float64) float64
		d1  func(y float64) float64
		tol float64
		d2  func(y float64) float64 // F" from y where the second-order rule is native
	}{
		{ExpOp, math.Exp, func(y float64) float64 { return y }, 2e-7, func(y float64) float64 { return y }},
		{TanhOp, math.Tanh, func(y float64) float64 { return (1 - y) * (1 + y) }, 4e-7, func(y float64) float64 { return -2 * y * (1 - y) * (1 + y) }},
		{SigmoidOp, func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }, func(y float64) float64 { return y * (1 - y) }, 4e-7,
			func(y float64) float64 { return y * (1 - y) * (1 - 2*y) }},
		{ReluOp, func(x float64) float64 { return math.Max(x, 0) }, func(y float64) float64 { return float01(y > 0) }, 0,
			func(float64) float64 { return 0 }},
		{SqrtOp, math.Sqrt, func(y float64) float64 { return 0.5 / y }, 0, func(y float64) float64 { return -0.25 / (y * y * y) }},
	} {
		t.Run(c.op.Name(), func(t *testing.T) {
			in := []cr.NodeID{cr.NewNodeID(1, 1)}
			ys := make([]*tensor.Dense, 1)
			rule, err := c.op.Apply(in, []*tensor.Dense{x}, ys)
			require.NoError(t, err)
			require.IsType(t, &float32Rule{}, rule)
			require.Equal(t, tensor.Float32, ys[0].DType())
			require.Equal(t, []int{10, 100}, ys[0].Shape())
			y := ys[0].Float32s()
			for i, v := range xs {
				want := float32(c.f(float64(v)))
				if want != want {
					assert.True(t, y[i] != y[i], "%s(%g)", c.op.Name(), v)
					continue
				}
				if want == 0 || math.IsInf(float64(want), 0) {
					assert.Equal(t, math.Float32bits(want), math.Float32bits(y[i]), "%s(%g)", c.op.Name(), v)
					continue
				}
				assert.InDelta(t, 0, float64(y[i]-want)/float64(want), c.tol, "%s(%g)", c.op.Name(), v)
			}

			// The pullback and the forward tangent in float32.
			dst, err := rule.Pullback([]*tensor.Dense{g}, []bool{true}, nil)
			require.NoError(t, err)
			require.Len(t, dst, 1)
			xbar := dst[0].Value
			require.Equal(t, tensor.Float32, xbar.DType())
			ydot := make([]*tensor.Dense, 1)
			has := make([]bool, 1)
			require.NoError(t, rule.(cr.ForwardRule[*tensor.Dense]).Forward(func(cr.NodeID) (*tensor.Dense, bool) { return g, true }, ydot, has))
			require.True(t, has[0])
			for i, v := range g.Float32s() {
				if y[i] != y[i] || math.IsInf(float64(y[i]), 0) || y[i] == 0 {
					continue
				}
				want := c.d1(float64(y[i])) * float64(v)
				if math.IsInf(float64(float32(want)), 0) { // past float32's range
					assert.Equal(t, float32(want), xbar.Float32s()[i])
					continue
				}
				assert.InDelta(t, want, float64(xbar.Float32s()[i]), 1e-6*math.Max(1, math.Abs(want)), "xbar at %g", xs[i])
				assert.Equal(t, xbar.Float32s()[i], ydot[0].Float32s()[i])
			}

			// The second-order rule in float32 (the widened rule is not made).
			dual, err := rule.(cr.SecondOrderRule[*tensor.Dense]).PullbackWithTangents(cr.SecondOrderArgs[*tensor.Dense]{
				Cotangents: []cr.Dual[*tensor.Dense]{{Value: g, Tangent: g, HasTangent: true}},
				Has:        []bool{true},
				Outputs:    []cr.Dual[*tensor.Dense]{{Value: ys[0], Tangent: ydot[0], HasTangent: true}},
				TangentOf:  func(cr.NodeID) (*tensor.Dense, bool) { return g, true },
			}, nil)
			require.NoError(t, err)
			require.Len(t, dual, 1)
			assert.Equal(t, tensor.Float32, dual[0].Cotangent.Value.DType())
			require.True(t, dual[0].Cotangent.HasTangent)
			assert.Equal(t, tensor.Float32, dual[0].Cotangent.Tangent.DType())
			assert.Equal(t, c.d2 == nil, rule.(*float32Rule).wide.rule != nil, "widened rule made")
			if c.d2 != nil {
				xbd := dual[0].Cotangent.Tangent.Float32s()
				for i, v := range g.Float32s() {
					yi := float64(y[i])
					if yi != yi || math.IsInf(yi, 0) || yi == 0 {
						continue
					}
					t1, t2 := c.d1(yi)*float64(v), c.d2(yi)*float64(v)*float64(v) // ybardot = xdot = ybar = g
					if math.IsInf(float64(float32(t1)), 0) || math.IsInf(float64(float32(t2)), 0) || math.IsNaN(t1+t2) {
						continue
					}
					// A few roundings of each term: relative to the terms, which may cancel.
					assert.InDelta(t, t1+t2, float64(xbd[i]), 1e-6*math.Max(1, math.Abs(t1)+math.Abs(t2)), "xbardot at %g", xs[i])
					assert.Equal(t, xbar.Float32s()[i], dual[0].Cotangent.Value.Float32s()[i])
				}
			}

			// A float64 cotangent goes through the widened rule, and gives a float32
			// cotangent.
			dst, err = rule.Pullback([]*tensor.Dense{tensor.Ones(tensor.Float64, 10, 100)}, []bool{true}, nil)
			require.NoError(t, err)
			assert.Equal(t, tensor.Float32, dst[0].Value.DType())

			// complex64 input is widened.
			if c.op == ReluOp { // real only
				return
			}
			z := tensor.RandN(rng, tensor.Complex64, 3)
			_, err = c.op.Apply(in, []*tensor.Dense{z}, ys)
			require.NoError(t, err)
			assert.Equal(t, tensor.Complex64, ys[0].DType())
		})
	}
}

// The float32 second-order kernels agree with the double-precision rule (pull1
// of the op's float64 definition) at the same values, with ybardot, xdot or both
// present, zeros, infinities and NaN included (where both give NaN).
func TestFloat32SecondOrderKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	xs := []float32{0, float32(math.Inf(1)), float32(math.NaN()), 1e-30, 0.5, -3, 12}
	for len(xs) < 200 {
		xs = append(xs, float32(rng.NormFloat64()*4))
	}
	n := len(xs)
	vec := func() []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		v[1], v[5] = float32(math.Inf(-1)), 0
		return v
	}
	wide := func(v []float32) []float64 {
		if v == nil {
			return nil
		}
		out := make([]float64, len(v))
		for i, e := range v {
			out[i] = float64(e)
		}
		return out
	}
	for _, op := range []cr.Op[*tensor.Dense]{ExpOp, TanhOp, SigmoidOp, ReluOp, SqrtOp} {
		fn := op.(*unaryOp).spec.Real
		require.NotNil(t, fn.singleD2, op.Name())
		x := xs
		if op == SqrtOp {
			x = make([]float32, n)
			for i, v := range xs {
				x[i] = float32(math.Abs(float64(v)))
			}
		}
		y := make([]float32, n)
		fn.single(y, x)
		w := vec()
		for _, c := range []struct{ wd, xd []float32 }{{vec(), nil}, {nil, vec()}, {vec(), vec()}} {
			xb, xbd := make([]float32, n), make([]float32, n)
			fn.singleD2(xb, xbd, y, w, c.wd, c.xd)
			wantB, wantBD := pull1(&fn, wide(x), wide(y), wide(w), wide(c.wd), wide(c.xd), true)
			for i := range xb {
				for k, p := range [][2]float64{{float64(xb[i]), wantB[i]}, {float64(xbd[i]), wantBD[i]}} {
					got, want := p[0], p[1]
					switch {
					case math.IsNaN(want) || math.IsInf(want, 0) || math.Abs(want) > math.MaxFloat32:
						assert.Equal(t, math.IsNaN(want), math.IsNaN(got), "%s at x = %g: result %d is %g, want %g", op.Name(), x[i], k, got, want)
					default:
						assert.InDelta(t, want, got, 1e-5*(1+math.Abs(want)), "%s at x = %g: result %d", op.Name(), x[i], k)
					}
				}
			}
		}
	}
}
