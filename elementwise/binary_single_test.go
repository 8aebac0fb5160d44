package elementwise

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

// TestArithFloat32Native checks that add, sub, mul, div and tanh_backward of two
// float32 tensors
// run in float32 (an arith32Rule) for the same shapes, the bias add's [b,n]+[n]
// and the other broadcasts: the output is the double-precision result rounded
// once, bit for bit for the four arithmetic ops (a float64 sum, difference, product
// or quotient of two float32 values rounds to the correctly rounded float32 one),
// within a few ulp for tanh_backward, and the rules agree with
// the double-precision ones (ruletest.CheckSingle: pullback, forward tangent and
// second-order rule, each in float32).
func TestArithFloat32Native(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	shapes := []struct {
		name string
		a, b []int
	}{
		{"same", []int{3, 5}, []int{3, 5}},
		{"bias", []int{4, 6}, []int{6}},
		{"bias first", []int{6}, []int{4, 6}},
		{"column", []int{4, 1}, []int{4, 3}},
		{"scalar", []int{3, 4}, []int{}},
		{"outer", []int{3, 1}, []int{1, 4}},
		{"long", []int{2, 700}, []int{700}}, // past the pool's smallest size
	}
	for _, op := range []cr.Op[*tensor.Dense]{AddOp, SubOp, MulOp, DivOp, tanhBackwardOp} {
		for _, sh := range shapes {
			t.Run(op.Name()+"/"+sh.name, func(t *testing.T) {
				a := tensor.RandN(rng, tensor.Float32, sh.a...)
				b := offZero.draw(rng, tensor.Float32, sh.b...)
				ys := make([]*tensor.Dense, 1)
				rule, err := op.Apply([]cr.NodeID{cr.NewNodeID(1, 1), cr.NewNodeID(2, 1)}, []*tensor.Dense{a, b}, ys)
				require.NoError(t, err)
				require.IsType(t, &arith32Rule{}, rule)
				require.Equal(t, tensor.Float32, ys[0].DType())
				wide, err := cr.Eval(op, widen(t, a), widen(t, b))
				require.NoError(t, err)
				require.Equal(t, wide.Shape(), ys[0].Shape())
				for i, w := range wide.Float64s() {
					if op == tanhBackwardOp { // two roundings more in float32
						require.InDelta(t, w, ys[0].Float32s()[i], 4e-7*math.Max(1, math.Abs(w)), "element %d", i)
						continue
					}
					require.Equal(t, math.Float32bits(float32(w)), math.Float32bits(ys[0].Float32s()[i]), "element %d", i)
				}
				ruletest.CheckSingle(t, tensor.Space{}, op, []*tensor.Dense{a, b}, ruletest.SingleConfig{})
			})
		}
	}
}

// TestArithFloat32Fallbacks checks the ways out of the float32 path: a float64
// cotangent or tangent goes to the widened rule (and still gives a float32
// cotangent), a float32 operand next to a float64 one widens the whole op, and a
// cotangent of the wrong shape is an error wrapping ErrShapeMismatch.
func TestArithFloat32Fallbacks(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	a := tensor.RandN(rng, tensor.Float32, 4, 3)
	b := tensor.RandN(rng, tensor.Float32, 3)
	in := []cr.NodeID{cr.NewNodeID(1, 1), cr.NewNodeID(2, 1)}
	ys := make([]*tensor.Dense, 1)
	rule, err := MulOp.Apply(in, []*tensor.Dense{a, b}, ys)
	require.NoError(t, err)
	require.IsType(t, &arith32Rule{}, rule)

	t.Run("float64 cotangent", func(t *testing.T) {
		g := tensor.RandN(rng, tensor.Float64, 4, 3)
		out, err := rule.Pullback([]*tensor.Dense{g}, []bool{true}, nil)
		require.NoError(t, err)
		require.Len(t, out, 2)
		require.Equal(t, tensor.Float32, out[0].Value.DType())
		require.Equal(t, []int{3}, out[1].Value.Shape())
	})
	t.Run("float64 tangent", func(t *testing.T) {
		ad := tensor.RandN(rng, tensor.Float64, 4, 3)
		tangentOf := func(id cr.NodeID) (*tensor.Dense, bool) { return ad, id == in[0] }
		ydot, has := make([]*tensor.Dense, 1), make([]bool, 1)
		require.NoError(t, rule.(cr.ForwardRule[*tensor.Dense]).Forward(tangentOf, ydot, has))
		require.True(t, has[0])
		require.Equal(t, []int{4, 3}, ydot[0].Shape())
	})
	t.Run("no tangents", func(t *testing.T) {
		rule, err := MulOp.Apply(in, []*tensor.Dense{a, b}, ys) // not widened yet
		require.NoError(t, err)
		g := tensor.RandN(rng, tensor.Float32, 4, 3)
		dual, err := rule.(cr.SecondOrderRule[*tensor.Dense]).PullbackWithTangents(cr.SecondOrderArgs[*tensor.Dense]{
			Cotangents: []cr.Dual[*tensor.Dense]{{Value: g}},
			Has:        []bool{true},
			Outputs:    []cr.Dual[*tensor.Dense]{{Value: ys[0]}},
			TangentOf:  func(cr.NodeID) (*tensor.Dense, bool) { return nil, false },
		}, nil)
		require.NoError(t, err)
		require.Len(t, dual, 2)
		for _, d := range dual {
			require.Equal(t, tensor.Float32, d.Cotangent.Value.DType())
			require.False(t, d.Cotangent.HasTangent) // as the double-precision rule
		}
		require.Nil(t, rule.(*arith32Rule).wide.rule, "the widened rule was made")
	})
	t.Run("wrong cotangent shape", func(t *testing.T) {
		g := tensor.RandN(rng, tensor.Float32, 3, 4)
		_, err := rule.Pullback([]*tensor.Dense{g}, []bool{true}, nil)
		require.ErrorIs(t, err, cr.ErrShapeMismatch)
	})
	t.Run("mixed dtypes widen", func(t *testing.T) {
		r, err := AddOp.Apply(in, []*tensor.Dense{a, widen(t, b)}, ys)
		require.NoError(t, err)
		_, native := r.(*arith32Rule)
		require.False(t, native)
	})
	t.Run("no broadcast", func(t *testing.T) {
		_, err := AddOp.Apply(in, []*tensor.Dense{a, tensor.RandN(rng, tensor.Float32, 4)}, ys)
		require.ErrorIs(t, err, cr.ErrShapeMismatch)
	})
}

// widen returns x as float64.
func widen(t *testing.T, x *tensor.Dense) *tensor.Dense {
	y, err := tensor.AsType(x, tensor.Float64)
	require.NoError(t, err)
	return y
}

// TestMul3Float32Native checks that mul3 of three float32 tensors runs in float32
// (a mul3Rule[float32]), within a few ulp of the double-precision product, with
// rules that agree with the double-precision ones; a float32 input next to float64
// ones widens the op.
func TestMul3Float32Native(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	xs := []*tensor.Dense{tensor.RandN(rng, tensor.Float32, 3, 500), tensor.RandN(rng, tensor.Float32, 3, 500),
		tensor.RandN(rng, tensor.Float32, 3, 500)}
	op := mul3Op{c: -2}
	in := []cr.NodeID{cr.NewNodeID(1, 1), cr.NewNodeID(2, 1), cr.NewNodeID(3, 1)}
	ys := make([]*tensor.Dense, 1)
	rule, err := op.Apply(in, xs, ys)
	require.NoError(t, err)
	require.IsType(t, &mul3Rule[float32]{}, rule)
	require.Equal(t, tensor.Float32, ys[0].DType())
	wide, err := cr.Eval(op, widen(t, xs[0]), widen(t, xs[1]), widen(t, xs[2]))
	require.NoError(t, err)
	for i, w := range wide.Float64s() {
		require.InDelta(t, w, ys[0].Float32s()[i], 4e-7*math.Max(1, math.Abs(w)), "element %d", i)
	}
	ruletest.CheckSingle(t, tensor.Space{}, op, xs, ruletest.SingleConfig{})

	mixed := []*tensor.Dense{xs[0], widen(t, xs[1]), widen(t, xs[2])}
	rule, err = op.Apply(in, mixed, ys)
	require.NoError(t, err)
	_, native := rule.(*mul3Rule[float32])
	require.False(t, native)
	require.Equal(t, tensor.Float64, ys[0].DType()) // promoted, as the widened ops do
}

// BenchmarkBiasAdd32 times the float32 bias add of a dense layer, [256, 256] +
// [256], forward (Apply) and forward with the second-order rule's tangent, and
// its row kernel against the plain Go loop it replaces.
func BenchmarkBiasAdd32(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	x, bias := tensor.RandN(rng, tensor.Float32, 256, 256), tensor.RandN(rng, tensor.Float32, 256)
	in := []cr.NodeID{cr.NewNodeID(1, 1), cr.NewNodeID(2, 1)}
	ys := make([]*tensor.Dense, 1)
	b.Run("apply", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := AddOp.Apply(in, []*tensor.Dense{x, bias}, ys); err != nil {
				b.Fatal(err)
			}
		}
	})
	xs, bs, dst := x.Float32s(), bias.Float32s(), make([]float32, 256*256)
	for _, k := range []struct {
		name string
		run  func(dst, a []float32, sa int, b []float32, sb int)
	}{{"rows/go", addRun[float32]}, {"rows/vmath", addRun32}} {
		b.Run(k.name, func(b *testing.B) {
			b.SetBytes(3 * 4 * int64(len(dst)))
			for b.Loop() {
				for r := 0; r < len(dst); r += 256 {
					k.run(dst[r:r+256], xs[r:], 1, bs, 1)
				}
			}
		})
	}
}

// TestArithFloat32Views checks the float32 ops on views: a transposed operand, a
// broadcast view, and a cotangent and tangents that are broadcast views (as the
// pullback of a sum hands on), against the double-precision op at the same values.
func TestArithFloat32Views(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	base := tensor.RandN(rng, tensor.Float32, 5, 3)
	tr, err := base.Transpose(0, 1) // [3 5], strided
	require.NoError(t, err)
	row := offZero.draw(rng, tensor.Float32, 1, 5)
	bc, err := row.BroadcastTo(3, 5) // stride 0 on the rows
	require.NoError(t, err)
	for _, op := range []cr.Op[*tensor.Dense]{AddOp, SubOp, MulOp, DivOp} {
		t.Run(op.Name(), func(t *testing.T) {
			ys := make([]*tensor.Dense, 1)
			in := []cr.NodeID{cr.NewNodeID(1, 1), cr.NewNodeID(2, 1)}
			rule, err := op.Apply(in, []*tensor.Dense{tr, bc}, ys)
			require.NoError(t, err)
			require.IsType(t, &arith32Rule{}, rule)
			wide, err := cr.Eval(op, widen(t, tr), widen(t, bc))
			require.NoError(t, err)
			for i, w := range wide.Float64s() {
				require.Equal(t, math.Float32bits(float32(w)), math.Float32bits(ys[0].Float32s()[i]), "element %d", i)
			}
			ruletest.CheckSingle(t, tensor.Space{}, op, []*tensor.Dense{tr, bc}, ruletest.SingleConfig{})

			// A uniform cotangent (a broadcast scalar) and broadcast tangents.
			one, err := tensor.Ones(tensor.Float32).BroadcastTo(3, 5)
			require.NoError(t, err)
			dual, err := rule.(cr.SecondOrderRule[*tensor.Dense]).PullbackWithTangents(cr.SecondOrderArgs[*tensor.Dense]{
				Cotangents: []cr.Dual[*tensor.Dense]{{Value: one, Tangent: one, HasTangent: true}},
				Has:        []bool{true},
				Outputs:    []cr.Dual[*tensor.Dense]{{Value: ys[0]}},
				TangentOf:  func(cr.NodeID) (*tensor.Dense, bool) { return one, true },
			}, nil)
			require.NoError(t, err)
			wr, err := op.Apply(in, []*tensor.Dense{widen(t, tr), widen(t, bc)}, make([]*tensor.Dense, 1))
			require.NoError(t, err)
			one64 := widen(t, one)
			want, err := wr.(cr.SecondOrderRule[*tensor.Dense]).PullbackWithTangents(cr.SecondOrderArgs[*tensor.Dense]{
				Cotangents: []cr.Dual[*tensor.Dense]{{Value: one64, Tangent: one64, HasTangent: true}},
				Has:        []bool{true},
				Outputs:    []cr.Dual[*tensor.Dense]{{Value: wide}},
				TangentOf:  func(cr.NodeID) (*tensor.Dense, bool) { return one64, true },
			}, nil)
			require.NoError(t, err)
			for k := range 2 {
				for _, pair := range [][2]*tensor.Dense{{dual[k].Cotangent.Value, want[k].Cotangent.Value}, {dual[k].Cotangent.Tangent, want[k].Cotangent.Tangent}} {
					require.Equal(t, tensor.Float32, pair[0].DType())
					require.Equal(t, pair[1].Shape(), pair[0].Shape())
					got := widen(t, pair[0].Contiguous()).Float64s()
					for i, w := range pair[1].Contiguous().Float64s() {
						require.InDelta(t, w, got[i], 1e-5*math.Max(1, math.Abs(w)), "input %d element %d", k, i)
					}
				}
			}
		})
	}
}
