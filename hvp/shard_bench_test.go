package hvp_test

import (
	"fmt"
	"sync"
	"testing"

	"gonum.org/v1/gonum/optimize"

	"github.com/chainrules-go/chainrules/hvp"
)

// The README's sharded benchmark: L2-regularised logistic regression with n = 100,000
// samples and d = 100 features, as one shard or split into shards evaluated in
// parallel. Run it with
//
//	GOMAXPROCS=1 go test ./hvp/ -run '^$' -bench ShardedLogistic
//	GOMAXPROCS=2 go test ./hvp/ -run '^$' -bench ShardedLogistic
//
// and not with -cpu 1,2: a b.Loop benchmark ramps up in the testing package's
// first call, before -cpu's value is set, so its first -cpu entry is timed at the
// GOMAXPROCS left from before (golang/go#49980).
var benchLogistic = sync.OnceValues(func() ([]float64, []float64) { return logisticData(11, 100_000, 100) })

func BenchmarkShardedLogistic(b *testing.B) {
	const n, d, lambda = 100_000, 100, 1e-4
	xs, negY := benchLogistic()
	l, _ := hvp.NewLayout([]int{d})
	for _, k := range []int{1, 2, 4} {
		// One value and gradient at a new point, then the Hessian-vector product
		// there: the work of an iteration of Newton-CG with one inner step.
		b.Run(fmt.Sprintf("shards=%d/grad+hvp", k), func(b *testing.B) {
			b.ReportAllocs()
			obj := hvp.NewShardedObjective(l, logisticShards(xs, negY, n, d, k, lambda)...)
			x, g, hv, v := make([]float64, d), make([]float64, d), make([]float64, d), make([]float64, d)
			for i := range v {
				v[i] = 1
			}
			for b.Loop() {
				x[0] += 1e-3 // a new point: a new recording
				obj.Func(x)
				obj.Grad(g, x)
				if err := obj.HessVec(hv, x, v); err != nil {
					b.Fatal(err)
				}
			}
		})
		// A whole minimisation by trust-region Newton-CG from w = 0.
		b.Run(fmt.Sprintf("shards=%d/newton-cg", k), func(b *testing.B) {
			b.ReportAllocs()
			var iters int
			for b.Loop() {
				obj := hvp.NewShardedObjective(l, logisticShards(xs, negY, n, d, k, lambda)...)
				res, err := hvp.Minimize(obj, make([]float64, d), &optimize.Settings{GradientThreshold: 1e-8}, &hvp.NewtonCG{})
				if err != nil || res.Status != optimize.GradientThreshold {
					b.Fatal(res.Status, err)
				}
				iters = res.Stats.MajorIterations - 1
			}
			b.ReportMetric(float64(iters), "iters")
		})
	}
}
