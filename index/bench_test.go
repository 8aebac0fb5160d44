package index_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/tensor"
)

// benchOp times the forward op (Apply) and the pullback of op at inputs, reporting
// GB/s as the bytes of the inputs read plus the output written (forward) or the
// cotangent read plus the input cotangents written (pullback).
func benchOp(b *testing.B, op cr.Op[*tensor.Dense], inputs ...*tensor.Dense) {
	in := ids(len(inputs))
	ys := make([]*tensor.Dense, 1)
	rule, err := op.Apply(in, inputs, ys)
	if err != nil {
		b.Fatal(err)
	}
	y := ys[0]
	bytes := 8 * y.Size()
	for _, x := range inputs {
		bytes += 8 * x.Size()
	}
	b.Run("forward", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := op.Apply(in, inputs, ys); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(bytes)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
	})
	ybar := tensor.RandN(rand.New(rand.NewPCG(1, 1)), y.DType(), y.Shape()...)
	ybars, has := []*tensor.Dense{ybar}, []bool{true}
	b.Run("pullback", func(b *testing.B) {
		b.ReportAllocs()
		var dst []cr.Contribution[*tensor.Dense]
		for b.Loop() {
			if dst, err = rule.Pullback(ybars, has, dst[:0]); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(bytes)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
	})
}

func BenchmarkOps(b *testing.B) {
	rng := rand.New(rand.NewPCG(2, 2))
	for _, n := range []int{64, 512} {
		x := tensor.RandN(rng, tensor.Float64, n, n)
		x2 := tensor.RandN(rng, tensor.Float64, n, n)
		rows := make([]int, n)
		for i := range rows {
			rows[i] = rng.IntN(n)
		}
		cols := make([]int, n*n)
		for i := range cols {
			cols[i] = rng.IntN(n)
		}
		mask := make([]bool, n*n)
		for i := range mask {
			mask[i] = rng.IntN(2) == 0
		}
		cases := []struct {
			name   string
			op     cr.Op[*tensor.Dense]
			inputs []*tensor.Dense
		}{
			{"slice_1:,1:", index.SliceOp(index.Range{Start: 1, Stop: index.End}, index.Range{Start: 1, Stop: index.End}), []*tensor.Dense{x}},
			{"slice_::2,::2", index.SliceOp(index.Range{Stop: index.End, Step: 2}, index.Range{Stop: index.End, Step: 2}), []*tensor.Dense{x}},
			{"diagonal", index.DiagonalOp(0, 0, 1), []*tensor.Dense{x}},
			{"index_select_rows", index.IndexSelectOp(0, rows...), []*tensor.Dense{x}},
			{"gather_axis1", index.GatherOp(1, cols, n, n), []*tensor.Dense{x}},
			{"concat_axis1", index.ConcatOp(1), []*tensor.Dense{x, x2}},
			{"stack_axis0", index.StackOp(0), []*tensor.Dense{x, x2}},
			{"pad_1", index.PadOp([2]int{1, 1}, [2]int{1, 1}), []*tensor.Dense{x}},
			{"flip_both", index.FlipOp(0, 1), []*tensor.Dense{x}},
			{"roll_both", index.RollOp([]int{3, 5}, []int{0, 1}), []*tensor.Dense{x}},
			{"where", index.WhereOp(mask, n, n), []*tensor.Dense{x, x2}},
		}
		for _, c := range cases {
			b.Run(fmt.Sprintf("%s/n=%d", c.name, n), func(b *testing.B) { benchOp(b, c.op, c.inputs...) })
		}
	}
}
