package hvp_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/einsum"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// mlpLoss is the peers' MLP workload: two tanh layers and a softmax cross-entropy
// written with logsumexp and a one-hot matrix,
//
//	h1 = tanh(X W1 + b1), h2 = tanh(h1 W2 + b2), z = h2 W3 + b3,
//	L  = mean_b (logsumexp_c z_bc - sum_c z_bc Y_bc),
//
// with parameters (W1, b1, W2, b2, W3, b3) as the inputs.
func mlpLoss(X, Y *tensor.Dense) hvp.Func {
	return func(t *hvp.Tape, p []cr.NodeID) cr.NodeID {
		x, y := t.Constant(X), t.Constant(Y)
		layer := func(in, w, b cr.NodeID) cr.NodeID {
			return t.Apply(ew.AddOp, t.Apply(einsum.Op("bi,ij->bj"), in, w), b)
		}
		h1 := t.Apply(ew.TanhOp, layer(x, p[0], p[1]))
		h2 := t.Apply(ew.TanhOp, layer(h1, p[2], p[3]))
		z := layer(h2, p[4], p[5])
		lse := t.Apply(reduce.LogSumExpOp([]int{1}, false), z)
		picked := t.Apply(einsum.Op("bc,bc->b"), z, y)
		return t.Apply(reduce.MeanOp(nil, false), t.Apply(ew.SubOp, lse, picked))
	}
}

// mlpProblem returns data, labels and parameters for batch b and widths w.
func mlpProblem(seed uint64, b int, w []int) (X, Y *tensor.Dense, params []*tensor.Dense) {
	rng := rand.New(rand.NewPCG(seed, 0))
	X = tensor.RandN(rng, tensor.Float64, b, w[0])
	c := w[len(w)-1]
	onehot := make([]float64, b*c)
	for i := range b {
		onehot[i*c+rng.IntN(c)] = 1
	}
	Y, _ = tensor.FromFloat64(onehot, b, c)
	for l := 0; l+1 < len(w); l++ {
		params = append(params,
			tensor.Scale(tensor.RandN(rng, tensor.Float64, w[l], w[l+1]), 1/math.Sqrt(float64(w[l]))),
			tensor.Scale(tensor.RandN(rng, tensor.Float64, w[l+1]), 0.1))
	}
	return X, Y, params
}

func TestMLPHVPMatchesFiniteDifferences(t *testing.T) {
	X, Y, p := mlpProblem(1, 7, []int{5, 4, 3, 3})
	f := mlpLoss(X, Y)
	rng := rand.New(rand.NewPCG(2, 2))
	v := make([]*tensor.Dense, len(p))
	for i, pi := range p {
		v[i] = tensor.RandN(rng, tensor.Float64, pi.Shape()...)
	}
	_, hv, err := hvp.HVP(f, p, v)
	require.NoError(t, err)
	const h = 1e-3
	grads := make([][]*tensor.Dense, 4)
	for i, s := range []float64{-2, -1, 1, 2} {
		xs := make([]*tensor.Dense, len(p))
		for k := range p {
			xs[k], _ = tensor.AddScaled(p[k], s*h, v[k])
		}
		_, grads[i], err = hvp.Grad(f, xs)
		require.NoError(t, err)
	}
	for k := range p {
		for i, got := range floats(hv[k]) {
			fd := (floats(grads[0][k])[i] - 8*floats(grads[1][k])[i] + 8*floats(grads[2][k])[i] - floats(grads[3][k])[i]) / (12 * h)
			require.InDelta(t, fd, got, 1e-8, "parameter %d element %d", k, i)
		}
	}
}

// BenchmarkMLP measures the peers' MLP (batch 256, widths 784-256-256-10, float64):
// the recorded forward pass, the gradient (forward + backward) and the
// Hessian-vector product (forward + forward-tangent sweep + second-order sweep).
// Ratios: gradient/forward and hvp/gradient (torch: 2.0-2.1 and 3.1 for
// forward-over-reverse, 2.4 for double backward).
func BenchmarkMLP(b *testing.B) { benchMLP(b, tensor.Float64) }

// BenchmarkMLP32 is BenchmarkMLP in float32: the same problem rounded to float32
// (data, labels, parameters and direction), every product and derivative in
// float32; bench/compare.py sets it against torch's float32 MLP.
func BenchmarkMLP32(b *testing.B) { benchMLP(b, tensor.Float32) }

func benchMLP(b *testing.B, dt tensor.DType) {
	X, Y, p := mlpProblem(1, 256, []int{784, 256, 256, 10})
	rng := rand.New(rand.NewPCG(3, 3))
	v := make([]*tensor.Dense, len(p))
	for i, pi := range p {
		v[i] = tensor.RandN(rng, tensor.Float64, pi.Shape()...)
	}
	as := func(x *tensor.Dense) *tensor.Dense {
		y, err := tensor.AsType(x, dt)
		if err != nil {
			b.Fatal(err)
		}
		return y
	}
	X, Y = as(X), as(Y)
	for i := range p {
		p[i], v[i] = as(p[i]), as(v[i])
	}
	f := mlpLoss(X, Y)
	b.Run("forward", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			t := core.NewTape[*tensor.Dense](tensor.Space{})
			ids := make([]cr.NodeID, len(p))
			for i, pi := range p {
				ids[i] = t.Leaf(pi)
			}
			f(t, ids)
			if t.Err() != nil {
				b.Fatal(t.Err())
			}
		}
	})
	b.Run("gradient", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := hvp.Grad(f, p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("gradient-reused", func(b *testing.B) {
		var g hvp.Gradient // each call in the memory of the one before
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := g.Grad(f, p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("hvp", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := hvp.HVP(f, p, v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("hvp-reused", func(b *testing.B) {
		var g hvp.Gradient // each call in the memory of the one before
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := g.HVP(f, p, v); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The products of one recording (a Krylov solver's): Apply returns new
	// tensors each time, ApplyFlat writes H v into the caller's slice.
	b.Run("operator-apply", func(b *testing.B) {
		op, err := hvp.NewOperator(f, p)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := op.Apply(v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("operator-applyflat", func(b *testing.B) {
		op, err := hvp.NewOperator(f, p)
		if err != nil {
			b.Fatal(err)
		}
		l, err := op.Layout()
		if err != nil {
			b.Fatal(err)
		}
		vf, dst := make([]float64, l.Dim()), make([]float64, l.Dim())
		if err := l.FlattenTo(vf, v); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if err := op.ApplyFlat(dst, vf); err != nil {
				b.Fatal(err)
			}
		}
	})
}
