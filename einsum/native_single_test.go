package einsum_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/einsum"
	"github.com/chainrules-go/chainrules/tensor"
)

// TestSingleContractsOnSingleGEMM checks that a single-precision einsum contracts
// in single precision, on the float32 (complex64) GEMM: its product is the one
// tensor.MatMul computes on the same operands bit for bit, not the
// double-precision product rounded once, and its dtype is the operands'.
func TestSingleContractsOnSingleGEMM(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 9))
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Complex64} {
		a := tensor.RandN(rng, dt, 33, 517)
		b := tensor.RandN(rng, dt, 517, 29)
		got, err := einsum.Eval("ij,jk->ik", a, b)
		require.NoError(t, err)
		require.Equal(t, dt, got.DType())
		want, err := tensor.MatMul(a, b)
		require.NoError(t, err)
		assert.True(t, tensor.EqualApprox(want, got, 0, 0), "%v: einsum differs from MatMul", dt)

		// The widened product rounded once differs from the single-precision GEMM
		// somewhere: the comparison above can tell the two paths apart.
		double := map[tensor.DType]tensor.DType{tensor.Float32: tensor.Float64, tensor.Complex64: tensor.Complex128}[dt]
		a64, _ := tensor.AsType(a, double)
		b64, _ := tensor.AsType(b, double)
		wide, err := tensor.MatMul(a64, b64)
		require.NoError(t, err)
		rounded, _ := tensor.AsType(wide, dt)
		assert.False(t, tensor.EqualApprox(rounded, got, 0, 0), "%v: the single-precision GEMM equals the rounded double one everywhere", dt)
		assert.True(t, tensor.EqualApprox(rounded, got, 1e-4, 1e-4), "%v: accumulation error beyond GEMM's", dt)
	}
}

// TestSingleEinsumGradientIsSingle records a single-precision einsum on a tape
// and checks that its cotangents, tangents and recorded pullbacks stay in the
// operands' precision.
func TestSingleEinsumGradientIsSingle(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 9))
	for _, c := range []struct {
		spec   string
		dtypes []tensor.DType
		shapes [][]int
	}{
		{"ij,jk->ik", []tensor.DType{tensor.Float32, tensor.Float32}, [][]int{{3, 4}, {4, 5}}},
		{"bij,bjk->bik", []tensor.DType{tensor.Complex64, tensor.Complex64}, [][]int{{2, 3, 4}, {2, 4, 2}}},
		{"ij,jk->ik", []tensor.DType{tensor.Float32, tensor.Complex64}, [][]int{{3, 4}, {4, 5}}},
		{"ii,i->i", []tensor.DType{tensor.Float32, tensor.Float32}, [][]int{{3, 3}, {3}}},
	} {
		t.Run(c.spec, func(t *testing.T) {
			tp := core.NewTape[*tensor.Dense](tensor.Space{})
			ids := make([]cr.NodeID, len(c.shapes))
			for k, sh := range c.shapes {
				ids[k] = tp.Leaf(tensor.RandN(rng, c.dtypes[k], sh...))
			}
			y := tp.Apply(einsum.Op(c.spec), ids...)
			yv, err := tp.Value(y)
			require.NoError(t, err)
			require.True(t, yv.DType().IsSingle(), "output %v", yv.DType())
			seed := tensor.RandN(rng, yv.DType(), yv.Shape()...)
			g, err := tp.BackwardSeed(y, seed)
			require.NoError(t, err)
			gg, err := tp.GradGraphSeed(y, tp.Constant(seed), ids...)
			require.NoError(t, err)
			for k, id := range ids {
				v, ok := g.Of(id)
				require.True(t, ok)
				assert.Equal(t, c.dtypes[k], v.DType(), "cotangent %d", k)
				rv, err := tp.Value(gg[k])
				require.NoError(t, err)
				assert.Equal(t, c.dtypes[k], rv.DType(), "recorded cotangent %d", k)
				assert.True(t, tensor.EqualApprox(v, rv, 1e-5, 1e-5), "recorded cotangent %d", k)
			}
		})
	}
}
