package elementwise_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/internal/recordtest"
	"github.com/chainrules-go/chainrules/tensor"
)

// benchOp measures op at inputs: the forward pass (Apply), and forward plus the
// pullback of a unit cotangent. GB/s counts the float64 traffic a fused kernel cannot
// avoid: inputs read and output written forward; for the pullback also the cotangent
// read and each input cotangent written. faults/op counts the minor page faults of
// the process over the loop (recordtest.ReportFaults): the pages of fresh outputs that the
// runtime had returned to the system and the kernel maps in again.
func benchOp(b *testing.B, op cr.Op[*tensor.Dense], in ...*tensor.Dense) {
	ids := make([]cr.NodeID, len(in))
	for k := range ids {
		ids[k] = cr.NewNodeID(1, k)
	}
	inBytes := 0
	for _, x := range in {
		inBytes += elemBytes(x.DType()) * x.Size()
	}
	y, _, err := recordtest.Apply1(op, ids, in)
	if err != nil {
		b.Fatal(err)
	}
	outBytes := elemBytes(y.DType()) * y.Size()
	ybar := []*tensor.Dense{tensor.Ones(y.DType(), y.Shape()...)}
	has := []bool{true}
	ys := make([]*tensor.Dense, 1) // one output slot, cleared before each Apply
	b.Run("forward", func(b *testing.B) {
		b.ReportAllocs()
		defer recordtest.ReportFaults(b)()
		for b.Loop() {
			ys[0] = nil
			if _, err := op.Apply(ids, in, ys); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(inBytes+outBytes)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
	})
	b.Run("forward+backward", func(b *testing.B) {
		b.ReportAllocs()
		defer recordtest.ReportFaults(b)()
		var dst []cr.Contribution[*tensor.Dense]
		for b.Loop() {
			ys[0] = nil
			rule, err := op.Apply(ids, in, ys)
			if err != nil {
				b.Fatal(err)
			}
			if dst, err = rule.Pullback(ybar, has, dst[:0]); err != nil {
				b.Fatal(err)
			}
		}
		traffic := 2*(inBytes+outBytes) + outBytes
		b.ReportMetric(float64(traffic)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
	})
}

// BenchmarkExp times exp of 10^3 and 10^6 elements in float64 (BenchmarkExp/n)
// and float32 (BenchmarkExp/float32/n, the native float32 kernel).
func BenchmarkExp(b *testing.B) { benchUnary(b, elementwise.ExpOp) }

// BenchmarkTanh is BenchmarkExp for tanh.
func BenchmarkTanh(b *testing.B) { benchUnary(b, elementwise.TanhOp) }

func benchUnary(b *testing.B, op cr.Op[*tensor.Dense]) {
	for _, dt := range []tensor.DType{tensor.Float64, tensor.Float32} {
		prefix := ""
		if dt != tensor.Float64 {
			prefix = dt.String() + "/"
		}
		for _, n := range []int{1_000, 1_000_000} {
			x := tensor.RandN(rand.New(rand.NewPCG(1, 2)), dt, n)
			b.Run(prefix+fmt.Sprint(n), func(b *testing.B) {
				benchOp(b, op, x)
				benchRecycled(b, op, x)
			})
		}
	}
}

// benchRecycled measures the forward pass of op at x in a loop that hands each
// output back to the buffer pool (tensor.Space.Recycle, as a tape with recycling
// does with the values of the step before), where benchOp's forward drops its
// outputs to the garbage collector. At GOMAXPROCS >= 2 a loop of fresh
// multi-megabyte outputs makes the runtime grow the heap while a collection is
// under way and release (MADV_DONTNEED) as many free pages, which the next
// outputs fault in again; this loop reuses its buffers and pays none of that.
func benchRecycled(b *testing.B, op cr.Op[*tensor.Dense], x *tensor.Dense) {
	ids := []cr.NodeID{cr.NewNodeID(1, 0)}
	in := []*tensor.Dense{x}
	ys := make([]*tensor.Dense, 1)
	bytes := elemBytes(x.DType()) * x.Size() * 2
	b.Run("forward-recycled", func(b *testing.B) {
		b.ReportAllocs()
		defer recordtest.ReportFaults(b)()
		for b.Loop() {
			ys[0] = nil
			if _, err := op.Apply(ids, in, ys); err != nil {
				b.Fatal(err)
			}
			tensor.Space{}.Recycle(ys, in)
		}
		b.ReportMetric(float64(bytes)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
	})
}

// elemBytes is the size of an element of dt.
func elemBytes(dt tensor.DType) int {
	switch dt {
	case tensor.Float32:
		return 4
	case tensor.Complex128:
		return 16
	}
	return 8
}

// BenchmarkMulBroadcast multiplies a [rows 1000] matrix by a [1000] row vector.
func BenchmarkMulBroadcast(b *testing.B) {
	for _, rows := range []int{1, 1000} {
		rng := rand.New(rand.NewPCG(1, 2))
		a := tensor.RandN(rng, tensor.Float64, rows, 1000)
		v := tensor.RandN(rng, tensor.Float64, 1000)
		b.Run(fmt.Sprint(rows*1000), func(b *testing.B) { benchOp(b, elementwise.MulOp, a, v) })
	}
}

// benchSecond measures the second-order pullback (PullbackWithTangents) of op at
// inputs with every input tangent and the cotangent's tangent present.
func benchSecond(b *testing.B, op cr.Op[*tensor.Dense], in ...*tensor.Dense) {
	ids := make([]cr.NodeID, len(in))
	for k := range ids {
		ids[k] = cr.NewNodeID(1, k)
	}
	y, rule, err := recordtest.Apply1(op, ids, in)
	if err != nil {
		b.Fatal(err)
	}
	so := rule.(cr.SecondOrderRule[*tensor.Dense])
	ct := cr.Dual[*tensor.Dense]{Value: tensor.Ones(y.DType(), y.Shape()...), Tangent: tensor.Ones(y.DType(), y.Shape()...), HasTangent: true}
	tangentOf := func(id cr.NodeID) (*tensor.Dense, bool) { return in[id.Index()], true }
	ydot, ok, err := recordtest.Forward1(rule, tangentOf)
	if err != nil {
		b.Fatal(err)
	}
	args := cr.SecondOrderArgs[*tensor.Dense]{
		Cotangents: []cr.Dual[*tensor.Dense]{ct},
		Has:        []bool{true},
		Outputs:    []cr.Dual[*tensor.Dense]{{Value: y, Tangent: ydot, HasTangent: ok}},
		TangentOf:  tangentOf,
	}
	b.ReportAllocs()
	var dst []cr.DualContribution[*tensor.Dense]
	for b.Loop() {
		if dst, err = so.PullbackWithTangents(args, dst[:0]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUnaryOps covers the paths of the unary machinery on 100000 elements
// (below the parallel threshold): a slice kernel (sigmoid), a scalar function (sin),
// complex128 (exp), and the second-order pullback (tanh).
func BenchmarkUnaryOps(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := tensor.RandN(rng, tensor.Float64, 100_000)
	z := tensor.RandN(rng, tensor.Complex128, 100_000)
	b.Run("sigmoid", func(b *testing.B) { benchOp(b, elementwise.SigmoidOp, x) })
	b.Run("sin", func(b *testing.B) { benchOp(b, elementwise.SinOp, x) })
	b.Run("exp-complex", func(b *testing.B) { benchOp(b, elementwise.ExpOp, z) })
	b.Run("tanh-second", func(b *testing.B) { benchSecond(b, elementwise.TanhOp, x) })
	b.Run("exp-complex-second", func(b *testing.B) { benchSecond(b, elementwise.ExpOp, z) })
}

// BenchmarkBinaryOps covers the binary machinery on a [100 1000] matrix and a [1000]
// row vector: a run kernel without a pullback kernel (div), a scalar function (pow),
// complex128 (mul), and the second-order pullback (mul, div).
func BenchmarkBinaryOps(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	a := tensor.RandUniform(rng, tensor.Float64, 0.5, 2, 100, 1000)
	v := tensor.RandUniform(rng, tensor.Float64, 0.5, 2, 1000)
	ac := tensor.RandN(rng, tensor.Complex128, 100, 1000)
	vc := tensor.RandN(rng, tensor.Complex128, 1000)
	b.Run("div", func(b *testing.B) { benchOp(b, elementwise.DivOp, a, v) })
	b.Run("pow", func(b *testing.B) { benchOp(b, elementwise.PowOp, a, v) })
	b.Run("mul-complex", func(b *testing.B) { benchOp(b, elementwise.MulOp, ac, vc) })
	b.Run("mul-second", func(b *testing.B) { benchSecond(b, elementwise.MulOp, a, v) })
	b.Run("div-second", func(b *testing.B) { benchSecond(b, elementwise.DivOp, a, v) })
}
