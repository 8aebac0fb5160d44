package reduce

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// bits32 returns the bit patterns of the float32 tensor t (so NaNs compare).
func bits32(t *testing.T, d *tensor.Dense) []uint32 {
	t.Helper()
	require.Equal(t, tensor.Float32, d.DType(), "dtype of %s", d.Describe())
	v := d.Float32s()
	out := make([]uint32, len(v))
	for i, f := range v {
		out[i] = math.Float32bits(f)
	}
	return out
}

// Sum and mean of float32 inputs compute natively (sumSingle) and agree bit for
// bit with the widened op (opkit.ApplyWidened) they replace: output, pullback,
// forward tangent and second-order pullback, over shapes and axes with and
// without keepdim, empty axes lists, empty reductions and strided inputs.
func TestSum32MatchesWidened(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 32))
	cases := []struct {
		shape []int
		axes  []int
		trans bool // feed a transposed (non-contiguous) view
	}{
		{[]int{}, nil, false},
		{[]int{37}, nil, false},
		{[]int{5, 7}, nil, false},
		{[]int{5, 7}, []int{}, false},
		{[]int{5, 7}, []int{0}, false},
		{[]int{5, 7}, []int{-1}, false},
		{[]int{256, 10}, []int{1}, false},
		{[]int{3, 100}, []int{1}, false},
		{[]int{3, 4, 5}, []int{0, 2}, false},
		{[]int{3, 4, 5}, []int{1}, false},
		{[]int{2, 17, 3}, []int{1}, false},
		{[]int{0, 3}, []int{0}, false},
		{[]int{0, 3}, []int{1}, false},
		{[]int{6, 9}, []int{0}, true},
		{[]int{6, 9}, []int{1}, true},
	}
	for _, c := range cases {
		for _, keep := range []bool{false, true} {
			for _, mean := range []bool{false, true} {
				name := fmt.Sprintf("mean=%v/%v/axes%v/keep=%v/trans=%v", mean, c.shape, c.axes, keep, c.trans)
				t.Run(name, func(t *testing.T) {
					var o cr.Op[*tensor.Dense] = SumOp(c.axes, keep)
					if mean {
						o = MeanOp(c.axes, keep)
					}
					x := tensor.RandN(rng, tensor.Float32, c.shape...)
					xdot := tensor.RandN(rng, tensor.Float32, c.shape...)
					if c.trans {
						var err error
						x, err = tensor.RandN(rng, tensor.Float32, c.shape[1], c.shape[0]).Permute(1, 0)
						require.NoError(t, err)
					}
					in := []cr.NodeID{1}
					yn := make([]*tensor.Dense, 1)
					rn, err := o.Apply(in, []*tensor.Dense{x}, yn)
					require.NoError(t, err)
					yw := make([]*tensor.Dense, 1)
					rw, err := opkit.ApplyWidened(o, in, []*tensor.Dense{x}, yw)
					require.NoError(t, err)
					require.Equal(t, yw[0].Shape(), yn[0].Shape())
					require.Equal(t, bits32(t, yw[0]), bits32(t, yn[0]), "output")

					g := tensor.RandN(rng, tensor.Float32, yn[0].Shape()...)
					gd := tensor.RandN(rng, tensor.Float32, yn[0].Shape()...)
					cn, err := rn.Pullback([]*tensor.Dense{g}, []bool{true}, nil)
					require.NoError(t, err)
					cw, err := rw.Pullback([]*tensor.Dense{g}, []bool{true}, nil)
					require.NoError(t, err)
					require.Equal(t, bits32(t, cw[0].Value.Contiguous()), bits32(t, cn[0].Value.Contiguous()), "pullback")

					tan := func(id cr.NodeID) (*tensor.Dense, bool) { return xdot, id == 1 }
					fn, fw := make([]*tensor.Dense, 1), make([]*tensor.Dense, 1)
					hn, hw := make([]bool, 1), make([]bool, 1)
					require.NoError(t, rn.(cr.ForwardRule[*tensor.Dense]).Forward(tan, fn, hn))
					require.NoError(t, rw.(cr.ForwardRule[*tensor.Dense]).Forward(tan, fw, hw))
					require.True(t, hn[0])
					require.Equal(t, bits32(t, fw[0]), bits32(t, fn[0]), "forward")

					a := cr.SecondOrderArgs[*tensor.Dense]{
						Cotangents: []cr.Dual[*tensor.Dense]{{Value: g, Tangent: gd, HasTangent: true}},
						Has:        []bool{true},
						Outputs:    []cr.Dual[*tensor.Dense]{{Value: yn[0], Tangent: fn[0], HasTangent: true}},
						TangentOf:  tan,
					}
					sn, err := rn.(cr.SecondOrderRule[*tensor.Dense]).PullbackWithTangents(a, nil)
					require.NoError(t, err)
					a.Outputs = []cr.Dual[*tensor.Dense]{{Value: yw[0], Tangent: fw[0], HasTangent: true}}
					sw, err := rw.(cr.SecondOrderRule[*tensor.Dense]).PullbackWithTangents(a, nil)
					require.NoError(t, err)
					require.Equal(t, bits32(t, sw[0].Cotangent.Value.Contiguous()), bits32(t, sn[0].Cotangent.Value.Contiguous()), "second order value")
					require.True(t, sn[0].Cotangent.HasTangent)
					require.Equal(t, bits32(t, sw[0].Cotangent.Tangent.Contiguous()), bits32(t, sn[0].Cotangent.Tangent.Contiguous()), "second order tangent")
				})
			}
		}
	}
}

// A float64 or complex cotangent and a float64 tangent of a float32 input give
// float32 derivatives equal to the widened rule's.
func TestSum32OtherDTypes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x := tensor.RandN(rng, tensor.Float32, 4, 6)
	o := MeanOp([]int{1}, false)
	in := []cr.NodeID{1}
	yn, yw := make([]*tensor.Dense, 1), make([]*tensor.Dense, 1)
	rn, err := o.Apply(in, []*tensor.Dense{x}, yn)
	require.NoError(t, err)
	rw, err := opkit.ApplyWidened(o, in, []*tensor.Dense{x}, yw)
	require.NoError(t, err)
	for _, dt := range []tensor.DType{tensor.Float64, tensor.Complex128} {
		g := tensor.RandN(rng, dt, 4)
		cn, err := rn.Pullback([]*tensor.Dense{g}, []bool{true}, nil)
		require.NoError(t, err)
		cw, err := rw.Pullback([]*tensor.Dense{g}, []bool{true}, nil)
		require.NoError(t, err)
		require.Equal(t, bits32(t, cw[0].Value.Contiguous()), bits32(t, cn[0].Value.Contiguous()), "pullback of %v", dt)
	}
	xdot := tensor.RandN(rng, tensor.Float64, 4, 6)
	tan := func(cr.NodeID) (*tensor.Dense, bool) { return xdot, true }
	fn, fw := make([]*tensor.Dense, 1), make([]*tensor.Dense, 1)
	require.NoError(t, rn.(cr.ForwardRule[*tensor.Dense]).Forward(tan, fn, make([]bool, 1)))
	require.NoError(t, rw.(cr.ForwardRule[*tensor.Dense]).Forward(tan, fw, make([]bool, 1)))
	require.Equal(t, bits32(t, fw[0]), bits32(t, fn[0]), "forward of a float64 tangent")

	bad := tensor.RandN(rng, tensor.Float32, 5)
	_, err = rn.Pullback([]*tensor.Dense{bad}, []bool{true}, nil)
	require.ErrorIs(t, err, cr.ErrShapeMismatch)
	badTan := func(cr.NodeID) (*tensor.Dense, bool) { return tensor.RandN(rng, tensor.Float32, 6, 4), true }
	require.ErrorIs(t, rn.(cr.ForwardRule[*tensor.Dense]).Forward(badTan, fn, make([]bool, 1)), cr.ErrShapeMismatch)
}

// BenchmarkSum32 times sum and mean of a float32 [256, 1024] matrix over each axis,
// apply and pullback, natively and through the widened op it replaces.
func BenchmarkSum32(b *testing.B) {
	x := tensor.RandN(rand.New(rand.NewPCG(1, 2)), tensor.Float32, 256, 1024)
	paths := []struct {
		name  string
		apply func(o cr.Op[*tensor.Dense], in []cr.NodeID, xs, ys []*tensor.Dense) (cr.Rule[*tensor.Dense], error)
	}{
		{"native", func(o cr.Op[*tensor.Dense], in []cr.NodeID, xs, ys []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
			return o.Apply(in, xs, ys)
		}},
		{"widened", opkit.ApplyWidened},
	}
	for _, mk := range []struct {
		name string
		op   func([]int, bool) cr.Op[*tensor.Dense]
	}{{"sum", SumOp}, {"mean", MeanOp}} {
		for _, axis := range []int{1, 0} {
			o := mk.op([]int{axis}, false)
			for _, path := range paths {
				b.Run(fmt.Sprintf("%s/axis%d/%s", mk.name, axis, path.name), func(b *testing.B) {
					ys := make([]*tensor.Dense, 1)
					var g *tensor.Dense
					b.ReportAllocs()
					for b.Loop() {
						ys[0] = nil
						r, err := path.apply(o, []cr.NodeID{0}, []*tensor.Dense{x}, ys)
						if err != nil {
							b.Fatal(err)
						}
						if g == nil {
							g = tensor.RandN(rand.New(rand.NewPCG(3, 4)), tensor.Float32, ys[0].Shape()...)
						}
						if _, err := r.Pullback([]*tensor.Dense{g}, []bool{true}, nil); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}
