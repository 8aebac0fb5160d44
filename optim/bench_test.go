package optim_test

import (
	"math/rand/v2"
	"testing"

	"github.com/chainrules-go/chainrules/optim"
	"github.com/chainrules-go/chainrules/tensor"
)

// benchSet returns a parameter set of 99,932 floats (a 300-300-32 MLP's weights and
// biases) and gradients of the same shapes.
func benchSet() (params, grads []*tensor.Dense, n int) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sh := range [][]int{{300, 300}, {300}, {300, 32}, {32}} {
		params = append(params, tensor.RandN(rng, tensor.Float64, sh...))
		grads = append(grads, tensor.RandN(rng, tensor.Float64, sh...))
		n += params[len(params)-1].Size()
	}
	return params, grads, n
}

func benchStep(b *testing.B, mk func(p []*tensor.Dense) (optim.Optimizer, error)) {
	benchStepOf(b, tensor.Float64, mk)
}

// benchStepOf is benchStep with the set in dtype dt.
func benchStepOf(b *testing.B, dt tensor.DType, mk func(p []*tensor.Dense) (optim.Optimizer, error)) {
	params, grads, n := benchSet()
	size := 8
	if dt == tensor.Float32 {
		size = 4
		for k := range params {
			params[k], _ = tensor.AsType(params[k], dt)
			grads[k], _ = tensor.AsType(grads[k], dt)
		}
	}
	opt, err := mk(params)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(size * n))
	b.ResetTimer()
	for range b.N {
		if err := opt.Step(grads); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/param")
}

func BenchmarkSGDStep(b *testing.B) {
	b.Run("plain", func(b *testing.B) {
		benchStep(b, func(p []*tensor.Dense) (optim.Optimizer, error) { return optim.NewSGD(p, optim.SGDConfig{LR: 1e-3}) })
	})
	b.Run("nesterov", func(b *testing.B) {
		benchStep(b, func(p []*tensor.Dense) (optim.Optimizer, error) {
			return optim.NewSGD(p, optim.SGDConfig{LR: 1e-3, Momentum: 0.9, Nesterov: true, WeightDecay: 1e-4})
		})
	})
}

func BenchmarkAdamStep(b *testing.B) {
	b.Run("adam", func(b *testing.B) {
		benchStep(b, func(p []*tensor.Dense) (optim.Optimizer, error) { return optim.NewAdam(p, optim.AdamConfig{}) })
	})
	b.Run("amsgrad", func(b *testing.B) {
		benchStep(b, func(p []*tensor.Dense) (optim.Optimizer, error) {
			return optim.NewAdam(p, optim.AdamConfig{AMSGrad: true})
		})
	})
}

// BenchmarkStep32 times a step of every optimiser of the float32 tests on the
// float32 set of benchSet: updates and state in float32.
func BenchmarkStep32(b *testing.B) {
	for _, m := range makers32 {
		b.Run(m.name, func(b *testing.B) { benchStepOf(b, tensor.Float32, m.make) })
	}
}

func BenchmarkAdamWStep(b *testing.B) {
	benchStep(b, func(p []*tensor.Dense) (optim.Optimizer, error) { return optim.NewAdamW(p, optim.AdamConfig{}) })
}

func BenchmarkRMSpropStep(b *testing.B) {
	b.Run("plain", func(b *testing.B) {
		benchStep(b, func(p []*tensor.Dense) (optim.Optimizer, error) { return optim.NewRMSprop(p, optim.RMSpropConfig{}) })
	})
	b.Run("centered-momentum", func(b *testing.B) {
		benchStep(b, func(p []*tensor.Dense) (optim.Optimizer, error) {
			return optim.NewRMSprop(p, optim.RMSpropConfig{Centered: true, Momentum: 0.9})
		})
	})
}

func BenchmarkClipGradNorm(b *testing.B) {
	_, grads, n := benchSet()
	b.ReportAllocs()
	b.SetBytes(int64(8 * n))
	b.ResetTimer()
	for range b.N {
		// maxNorm above the norm: measures the norm alone, leaving grads unchanged.
		if _, err := optim.ClipGradNorm(grads, 1e9, 2); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBatchesNext(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	x := tensor.RandN(rng, tensor.Float64, 10000, 28, 28)
	y := tensor.RandN(rng, tensor.Float64, 10000)
	it, err := optim.NewBatches(x, y, optim.BatchConfig{BatchSize: 64, Shuffle: true, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(64 * (28*28 + 1) * 8)
	b.ResetTimer()
	for range b.N {
		if !it.Next() {
			it.Next()
		}
	}
}
