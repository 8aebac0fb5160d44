package linalg_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/einsum"
	"github.com/chainrules-go/chainrules/linalg"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// benchOps are the benchmarked ops at n = 512: each records its outputs on a tape
// and reduces them to a scalar loss for the backward pass.
func benchOps(n int, rng *rand.Rand) []struct {
	name string
	x    []*tensor.Dense
	f    func(t *core.Tape[*tensor.Dense], x []cr.NodeID) cr.NodeID
} {
	a := tensor.RandN(rng, tensor.Float64, n, n)
	spd, err := einsum.Eval("ij,kj->ik", a, a)
	if err != nil {
		panic(err)
	}
	for i := range n {
		spd.Set(spd.At(i, i)+complex(float64(n), 0), i, i)
	}
	b := tensor.RandN(rng, tensor.Float64, n, n)
	sum := func(t *core.Tape[*tensor.Dense], y cr.NodeID) cr.NodeID { return t.Apply(reduce.SumOp(nil, false), y) }
	return []struct {
		name string
		x    []*tensor.Dense
		f    func(t *core.Tape[*tensor.Dense], x []cr.NodeID) cr.NodeID
	}{
		{"cholesky", []*tensor.Dense{spd}, func(t *core.Tape[*tensor.Dense], x []cr.NodeID) cr.NodeID {
			return sum(t, t.Apply(linalg.CholeskyOp(false), x[0]))
		}},
		{"lu_factor", []*tensor.Dense{a}, func(t *core.Tape[*tensor.Dense], x []cr.NodeID) cr.NodeID {
			return sum(t, t.ApplyMulti(linalg.LUFactorOp(), x[0])[0])
		}},
		{"solve", []*tensor.Dense{a, b}, func(t *core.Tape[*tensor.Dense], x []cr.NodeID) cr.NodeID {
			return sum(t, t.Apply(linalg.SolveOp(), x...))
		}},
		{"inv", []*tensor.Dense{a}, func(t *core.Tape[*tensor.Dense], x []cr.NodeID) cr.NodeID {
			return sum(t, t.Apply(linalg.InvOp(), x[0]))
		}},
		{"logdet", []*tensor.Dense{spd}, func(t *core.Tape[*tensor.Dense], x []cr.NodeID) cr.NodeID {
			return t.Apply(linalg.LogdetOp(), x[0])
		}},
		{"qr", []*tensor.Dense{a}, func(t *core.Tape[*tensor.Dense], x []cr.NodeID) cr.NodeID {
			return sum(t, t.ApplyMulti(linalg.QROp(), x[0])[1])
		}},
		{"eigh", []*tensor.Dense{spd}, func(t *core.Tape[*tensor.Dense], x []cr.NodeID) cr.NodeID {
			return sum(t, t.Apply(linalg.EigvalshOp(), x[0]))
		}},
		{"svd", []*tensor.Dense{a}, func(t *core.Tape[*tensor.Dense], x []cr.NodeID) cr.NodeID {
			return sum(t, t.Apply(linalg.SvdvalsOp(), x[0]))
		}},
	}
}

// BenchmarkOps times each op at n = 512: "forward" records the op without
// gradients, "backward" records it and runs the backward pass. Run with -cpu 1 for
// one thread.
func BenchmarkOps(b *testing.B) {
	const n = 512
	for _, bo := range benchOps(n, rand.New(rand.NewPCG(1, 2))) {
		b.Run(bo.name+"/forward", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				t := core.NewTape[*tensor.Dense](tensor.Space{})
				t.SetGradEnabled(false)
				ids := make([]cr.NodeID, len(bo.x))
				for k, v := range bo.x {
					ids[k] = t.Constant(v)
				}
				bo.f(t, ids)
				if err := t.Err(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(bo.name+"/backward", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				t := core.NewTape[*tensor.Dense](tensor.Space{})
				ids := make([]cr.NodeID, len(bo.x))
				for k, v := range bo.x {
					ids[k] = t.Leaf(v)
				}
				if _, err := t.Backward(bo.f(t, ids)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecompSizes times eigvalsh and svdvals at n = 128, 512 and 1024 as
// BenchmarkOps does (forward; forward and backward), reporting besides the wall
// time the process's CPU time per op (cpu-ms/op), which a loaded machine does not
// inflate with waits for a core. Run with -cpu 1 for one thread.
func BenchmarkDecompSizes(b *testing.B) {
	for _, n := range []int{128, 512, 1024} {
		for _, bo := range benchOps(n, rand.New(rand.NewPCG(1, 2))) {
			if bo.name != "eigh" && bo.name != "svd" {
				continue
			}
			for _, backward := range []bool{false, true} {
				name := fmt.Sprintf("%s/%d/forward", bo.name, n)
				if backward {
					name = fmt.Sprintf("%s/%d/backward", bo.name, n)
				}
				b.Run(name, func(b *testing.B) {
					t0 := linalg.CPUTime()
					for b.Loop() {
						t := core.NewTape[*tensor.Dense](tensor.Space{})
						t.SetGradEnabled(backward)
						ids := make([]cr.NodeID, len(bo.x))
						for k, v := range bo.x {
							if backward {
								ids[k] = t.Leaf(v)
							} else {
								ids[k] = t.Constant(v)
							}
						}
						y := bo.f(t, ids)
						if backward {
							if _, err := t.Backward(y); err != nil {
								b.Fatal(err)
							}
						} else if err := t.Err(); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(linalg.CPUTime()-t0)/1e6/float64(b.N), "cpu-ms/op")
				})
			}
		}
	}
}
