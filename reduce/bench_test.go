package reduce_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/internal/recordtest"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// BenchmarkReduce times sum, max and logsumexp of a 1024x1024 float64 matrix over
// each axis, forward alone and forward+backward on a tape that recycles, with the
// page faults of each loop (recordtest.ReportFaults).
func BenchmarkReduce(b *testing.B) {
	x := tensor.RandN(rand.New(rand.NewPCG(1, 2)), tensor.Float64, 1024, 1024)
	ops := []struct {
		name string
		mk   func([]int, bool) cr.Op[*tensor.Dense]
	}{{"sum", reduce.SumOp}, {"max", reduce.MaxOp}, {"logsumexp", reduce.LogSumExpOp}}
	gb := func(b *testing.B) {
		b.ReportMetric(float64(8*x.Size())*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
	}
	for _, o := range ops {
		for _, axis := range []int{1, 0} {
			op := o.mk([]int{axis}, false)
			b.Run(fmt.Sprintf("%s/axis%d/forward", o.name, axis), func(b *testing.B) {
				ys := make([]*tensor.Dense, 1) // the output slot, cleared before each Apply
				b.ReportAllocs()
				defer recordtest.ReportFaults(b)()
				for b.Loop() {
					ys[0] = nil
					if _, err := op.Apply([]cr.NodeID{0}, []*tensor.Dense{x}, ys); err != nil {
						b.Fatal(err)
					}
				}
				gb(b)
			})
			b.Run(fmt.Sprintf("%s/axis%d/forward+backward", o.name, axis), func(b *testing.B) {
				seed := tensor.Ones(tensor.Float64, 1024)
				b.ReportAllocs()
				defer recordtest.ReportFaults(b)()
				for b.Loop() {
					// A training loop's VJP: each call in the memory of the one
					// before (EnableRecycling and Release, as hvp's transforms
					// do), the result used up within the iteration.
					tape := core.NewTape[*tensor.Dense](tensor.Space{})
					tape.EnableRecycling()
					y := tape.Apply(op, tape.Leaf(x))
					if _, err := tape.BackwardSeed(y, seed); err != nil {
						b.Fatal(err)
					}
					tape.Release()
				}
				gb(b)
			})
		}
	}
}
