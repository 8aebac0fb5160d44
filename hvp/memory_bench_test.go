package hvp_test

import (
	"fmt"
	"runtime"
	"testing"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// BenchmarkChainMemory measures the memory of a long graph: a chain of 10^6 sin
// nodes on 4-element tensors. "live-B/node" is the heap a recorded chain holds per
// node (values included: a 4-element tensor is 160 bytes with its header, shape and
// strides); "B/node" is what one gradient or HVP allocates per node, recording
// included.
func BenchmarkChainMemory(b *testing.B) {
	const n = 1_000_000
	x0, err := tensor.FromFloat64([]float64{0.1, 0.2, 0.3, 0.4}, 4)
	if err != nil {
		b.Fatal(err)
	}
	chain := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		y := x[0]
		for range n {
			y = t.Apply(ew.SinOp, y)
		}
		return t.Apply(reduce.SumOp(nil, false), y)
	}
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	b.Run("record", func(b *testing.B) {
		b.ReportAllocs()
		var live uint64
		for b.Loop() {
			before := heap()
			t := core.NewTape[*tensor.Dense](tensor.Space{})
			chain(t, []cr.NodeID{t.Leaf(x0)})
			if err := t.Err(); err != nil {
				b.Fatal(err)
			}
			live = heap() - before
			runtime.KeepAlive(t)
		}
		b.ReportMetric(float64(live)/n, "live-B/node")
	})
	perNode := func(b *testing.B, run func() error) {
		b.ReportAllocs()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		for b.Loop() {
			if err := run(); err != nil {
				b.Fatal(err)
			}
		}
		runtime.ReadMemStats(&m1)
		b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/float64(b.N)/n, "B/node")
	}
	b.Run("gradient", func(b *testing.B) {
		perNode(b, func() error { _, _, err := hvp.Grad(chain, []*tensor.Dense{x0}); return err })
	})
	b.Run("hvp", func(b *testing.B) {
		perNode(b, func() error { _, _, err := hvp.HVP(chain, []*tensor.Dense{x0}, []*tensor.Dense{x0}); return err })
	})
}

// BenchmarkChainMemoryDTypes measures what a recorded chain of sin nodes holds per
// node in each real dtype, for small (4-element) and larger (1024-element) values:
// the header and rule are per node, the data per element.
func BenchmarkChainMemoryDTypes(b *testing.B) {
	for _, size := range []int{4, 1024} {
		for _, dt := range []tensor.DType{tensor.Float64, tensor.Float32} {
			n := 100_000
			if size > 4 {
				n = 2_000
			}
			x0, err := tensor.FromFloat64(make([]float64, size), size)
			if err != nil {
				b.Fatal(err)
			}
			if x0, err = tensor.AsType(x0, dt); err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("%v/%d", dt, size), func(b *testing.B) {
				var live uint64
				for b.Loop() {
					before := liveHeap()
					t := core.NewTape[*tensor.Dense](tensor.Space{})
					y := t.Leaf(x0)
					for range n {
						y = t.Apply(ew.SinOp, y)
					}
					if err := t.Err(); err != nil {
						b.Fatal(err)
					}
					live = liveHeap() - before
					runtime.KeepAlive(t)
				}
				b.ReportMetric(float64(live)/float64(n), "live-B/node")
			})
		}
	}
}

// liveHeap collects garbage and returns the bytes of the live heap.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
