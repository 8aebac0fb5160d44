package optim_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/optim"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// makers32 are the optimisers and options of the float32 tests, every option that
// adds state or changes the update among them.
var makers32 = []struct {
	name string
	make func(p []*tensor.Dense) (optim.Optimizer, error)
}{
	{"SGD", func(p []*tensor.Dense) (optim.Optimizer, error) { return optim.NewSGD(p, optim.SGDConfig{LR: 0.05}) }},
	{"SGD momentum", func(p []*tensor.Dense) (optim.Optimizer, error) {
		return optim.NewSGD(p, optim.SGDConfig{LR: 0.05, Momentum: 0.9, Dampening: 0.1, WeightDecay: 1e-3})
	}},
	{"SGD Nesterov", func(p []*tensor.Dense) (optim.Optimizer, error) {
		return optim.NewSGD(p, optim.SGDConfig{LR: 0.05, Momentum: 0.9, Nesterov: true})
	}},
	{"Adam", func(p []*tensor.Dense) (optim.Optimizer, error) { return optim.NewAdam(p, optim.AdamConfig{LR: 0.05}) }},
	{"Adam AMSGrad", func(p []*tensor.Dense) (optim.Optimizer, error) {
		return optim.NewAdam(p, optim.AdamConfig{LR: 0.05, AMSGrad: true, WeightDecay: 1e-3})
	}},
	{"AdamW", func(p []*tensor.Dense) (optim.Optimizer, error) {
		return optim.NewAdamW(p, optim.AdamConfig{LR: 0.05, WeightDecay: 1e-2})
	}},
	{"RMSprop", func(p []*tensor.Dense) (optim.Optimizer, error) {
		return optim.NewRMSprop(p, optim.RMSpropConfig{LR: 0.01})
	}},
	{"RMSprop centered momentum", func(p []*tensor.Dense) (optim.Optimizer, error) {
		return optim.NewRMSprop(p, optim.RMSpropConfig{LR: 0.01, Centered: true, Momentum: 0.5, WeightDecay: 1e-3})
	}},
}

// loss32 is f(a, b) = sum (a - 1)^2 exp(a/2) + sum log(1 + b^2), TestWithHVPGrad's
// objective, written so that it keeps its inputs' precision.
func loss32(tp *hvp.Tape, p []cr.NodeID) cr.NodeID {
	sum := reduce.SumOp(nil, false)
	d := tp.Apply(ew.ShiftOp(-1), p[0])
	fa := tp.Apply(sum, tp.Apply(ew.MulOp, tp.Apply(ew.SquareOp, d), tp.Apply(ew.ExpOp, tp.Apply(ew.ScaleOp(0.5), p[0]))))
	fb := tp.Apply(sum, tp.Apply(ew.LogOp, tp.Apply(ew.ShiftOp(1), tp.Apply(ew.SquareOp, p[1]))))
	return tp.Apply(ew.AddOp, fa, fb)
}

func asFloat64s(t *testing.T, x *tensor.Dense) []float64 {
	t.Helper()
	y, err := tensor.AsType(x, tensor.Float64)
	require.NoError(t, err)
	return y.Contiguous().Float64s()
}

// TestFloat32Trajectories runs every optimiser on float32 parameters, with float32
// gradients from hvp.Grad, next to the same run in float64 from the same start: the
// parameters stay float32 tensors, updated in place, and the trajectories agree to
// float32 precision.
func TestFloat32Trajectories(t *testing.T) {
	for _, m := range makers32 {
		t.Run(m.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(5, 6))
			p64 := []*tensor.Dense{tensor.RandUniform(rng, tensor.Float64, 0, 2, 3), tensor.RandUniform(rng, tensor.Float64, -1, 1, 2, 2)}
			p32 := make([]*tensor.Dense, len(p64))
			for k := range p64 {
				var err error
				p32[k], err = tensor.AsType(p64[k], tensor.Float32)
				require.NoError(t, err)
				p64[k], err = tensor.AsType(p32[k], tensor.Float64) // the same start
				require.NoError(t, err)
			}
			storage := p32[0].Float32s()
			o64, err := m.make(p64)
			require.NoError(t, err)
			o32, err := m.make(p32)
			require.NoError(t, err)
			const steps = 40
			for range steps {
				for _, run := range []struct {
					o optim.Optimizer
					p []*tensor.Dense
				}{{o64, p64}, {o32, p32}} {
					_, grads, err := hvp.Grad(loss32, run.p)
					require.NoError(t, err)
					_, err = optim.ClipGradNorm(grads, 2, 2)
					require.NoError(t, err)
					require.NoError(t, run.o.Step(grads))
				}
			}
			for k := range p64 {
				require.Equal(t, tensor.Float32, p32[k].DType())
				want, got := p64[k].Float64s(), asFloat64s(t, p32[k])
				for i := range want {
					assert.InDelta(t, want[i], got[i], 1e-4, "parameter %d element %d", k, i)
				}
				assert.NotEqual(t, asFloat64s(t, p32[k]), asFloat64s(t, p64[k]), "a float32 run that equals the float64 one bit for bit was not run in float32")
			}
			assert.Equal(t, &storage[0], &p32[0].Float32s()[0], "the update is in place")
		})
	}
}

// TestFloat32StepAllocatesNothing checks that a float32 step allocates nothing.
func TestFloat32StepAllocatesNothing(t *testing.T) {
	for _, m := range makers32 {
		t.Run(m.name, func(t *testing.T) {
			params := []*tensor.Dense{tensor.Ones(tensor.Float32, 3), tensor.Ones(tensor.Float32, 2, 3)}
			grads := []*tensor.Dense{tensor.Full(tensor.Float32, 0.1, 3), tensor.Full(tensor.Float32, 0.5, 2, 3)}
			o, err := m.make(params)
			require.NoError(t, err)
			n := testing.AllocsPerRun(20, func() {
				if err := o.Step(grads); err != nil {
					t.Fatal(err)
				}
			})
			assert.Zero(t, n)
		})
	}
}

// TestMixedPrecisionSet steps a set of one float64 and one float32 parameter: each
// is updated in its own precision, as the two one-tensor sets would be.
func TestMixedPrecisionSet(t *testing.T) {
	for _, m := range makers32 {
		t.Run(m.name, func(t *testing.T) {
			a64, a32 := vec(0.3, 1.7, -0.2), tensor.Full(tensor.Float32, 0.5, 2, 2)
			b64, b32 := vec(0.3, 1.7, -0.2), tensor.Full(tensor.Float32, 0.5, 2, 2)
			mixed, err := m.make([]*tensor.Dense{a64, a32})
			require.NoError(t, err)
			only64, err := m.make([]*tensor.Dense{b64})
			require.NoError(t, err)
			only32, err := m.make([]*tensor.Dense{b32})
			require.NoError(t, err)
			for range 5 {
				_, g, err := hvp.Grad(loss32, []*tensor.Dense{a64, a32})
				require.NoError(t, err)
				require.NoError(t, mixed.Step(g))
				_, h, err := hvp.Grad(loss32, []*tensor.Dense{b64, b32})
				require.NoError(t, err)
				require.NoError(t, only64.Step(h[:1]))
				require.NoError(t, only32.Step(h[1:]))
			}
			assert.Equal(t, b64.Float64s(), a64.Float64s())
			assert.Equal(t, b32.Float32s(), a32.Float32s())
		})
	}
}

// TestFloat32StepErrors checks that a gradient of the other precision is refused
// with an error naming both dtypes, and leaves the parameters unchanged.
func TestFloat32StepErrors(t *testing.T) {
	cases := []struct {
		name          string
		params, grads []*tensor.Dense
		want          []string
	}{
		{"float64 gradient of a float32 parameter",
			[]*tensor.Dense{tensor.Ones(tensor.Float32, 2)}, []*tensor.Dense{tensor.Ones(tensor.Float64, 2)},
			[]string{"gradient 0", "float64", "parameter 0", "float32"}},
		{"float32 gradient of a float64 parameter",
			[]*tensor.Dense{tensor.Ones(tensor.Float64, 2)}, []*tensor.Dense{tensor.Ones(tensor.Float32, 2)},
			[]string{"gradient 0", "float32", "parameter 0", "float64"}},
		{"complex64 gradient",
			[]*tensor.Dense{tensor.Ones(tensor.Float32, 2)}, []*tensor.Dense{tensor.Ones(tensor.Complex64, 2)},
			[]string{"complex64"}},
	}
	for _, m := range makers32 {
		for _, c := range cases {
			t.Run(m.name+"/"+c.name, func(t *testing.T) {
				o, err := m.make(c.params)
				require.NoError(t, err)
				before := asFloat64s(t, c.params[0])
				err = o.Step(c.grads)
				require.Error(t, err)
				assert.True(t, errors.Is(err, cr.ErrInvalidArgument), "%v", err)
				for _, s := range c.want {
					assert.Contains(t, err.Error(), s)
				}
				assert.Equal(t, before, asFloat64s(t, c.params[0]))
			})
		}
	}
	_, err := optim.NewAdam([]*tensor.Dense{tensor.Ones(tensor.Complex64, 2)}, optim.AdamConfig{})
	assert.True(t, errors.Is(err, cr.ErrInvalidArgument), "%v", err)
}

// TestFloat32ClipGradNorm clips float32 gradients (alone and mixed with float64
// ones) to the norms and factors of the float64 computation.
func TestFloat32ClipGradNorm(t *testing.T) {
	for _, p := range []float64{1, 2, 3, math.Inf(1)} {
		rng := rand.New(rand.NewPCG(7, 8))
		g64 := []*tensor.Dense{tensor.RandN(rng, tensor.Float64, 5), tensor.RandN(rng, tensor.Float64, 2, 3)}
		g32 := make([]*tensor.Dense, len(g64))
		for k := range g64 {
			g32[k], _ = tensor.AsType(g64[k], tensor.Float32)
			g64[k], _ = tensor.AsType(g32[k], tensor.Float64)
		}
		mixed := []*tensor.Dense{g64[0].Clone(), g32[1].Clone()}
		want, err := optim.ClipGradNorm(g64, 0.5, p)
		require.NoError(t, err)
		got, err := optim.ClipGradNorm(g32, 0.5, p)
		require.NoError(t, err)
		assert.InDelta(t, want, got, 1e-12*want, "p = %v: norms from the same float32 values", p)
		got, err = optim.ClipGradNorm(mixed, 0.5, p)
		require.NoError(t, err)
		assert.InDelta(t, want, got, 1e-12*want, "p = %v: mixed set", p)
		for k := range g64 {
			w, g := g64[k].Float64s(), asFloat64s(t, g32[k])
			for i := range w {
				assert.InDelta(t, w[i], g[i], 1e-6, "p = %v: gradient %d element %d", p, k, i)
			}
			assert.Equal(t, tensor.Float32, g32[k].DType())
		}
		assert.Equal(t, g64[0].Float64s(), mixed[0].Float64s())
		assert.Equal(t, g32[1].Float32s(), mixed[1].Float32s())
	}
}

// TestFloat32Batches cuts a float32 dataset (with float64 targets: each tensor
// keeps its dtype) into the batches of the float64 one, in the same seeded order,
// allocating nothing per batch.
func TestFloat32Batches(t *testing.T) {
	x, y := dataset(t, 23)
	x32, err := tensor.AsType(x, tensor.Float32)
	require.NoError(t, err)
	cfg := optim.BatchConfig{BatchSize: 5, Shuffle: true, Seed: 3}
	want, err := optim.NewBatches(x, y, cfg)
	require.NoError(t, err)
	got, err := optim.NewBatches(x32, y, cfg)
	require.NoError(t, err)
	for range 2 { // two epochs: the order is reshuffled alike
		for want.Next() {
			require.True(t, got.Next())
			wx, wy := want.Batch()
			gx, gy := got.Batch()
			require.Equal(t, tensor.Float32, gx.DType())
			require.Equal(t, tensor.Float64, gy.DType())
			require.Equal(t, wx.Shape(), gx.Shape())
			require.Equal(t, want.Indices(), got.Indices())
			require.Equal(t, wy.Float64s(), gy.Float64s())
			for i, v := range gx.Float32s() {
				require.Equal(t, float32(wx.Float64s()[i]), v)
			}
		}
		require.False(t, got.Next())
	}
	assert.Zero(t, testing.AllocsPerRun(50, func() { got.Next() }))
	_, err = optim.NewBatches(tensor.Ones(tensor.Complex64, 4, 2), nil, cfg)
	assert.True(t, errors.Is(err, cr.ErrInvalidArgument), "%v", err)
	_, err = optim.NewBatches(x32, tensor.Ones(tensor.Complex64, 23), cfg)
	assert.True(t, errors.Is(err, cr.ErrShapeMismatch), "%v", err)
}
