package reduce_test

import (
	"math/cmplx"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// The variance and standard deviation of a constant slice are exactly 0, whatever
// the rounding of its mean, so std's gradient is the documented 0 (not NaN, not the
// direction of a rounding error), and so is its Hessian-vector product.
func TestMomentsOfConstantSlices(t *testing.T) {
	for _, c := range []complex128{0, 0.1, 3.7, -2.5, 1.0564573117091318e17, -6771.386850060385,
		4.947149946247753e-17, 1e300, -2.2448167767044614e12 + 0.5i, 1 + 1i} {
		for _, n := range []int{1, 2, 3, 6, 7, 9} {
			for _, corr := range []float64{0, 1} {
				if float64(n) <= corr {
					continue
				}
				dt := tensor.Float64
				if imag(c) != 0 {
					dt = tensor.Complex128
				}
				// Two slices along axis 1: rows of the constant.
				x := tensor.Full(dt, c, 2, n)
				for _, std := range []bool{false, true} {
					op := reduce.VarOp([]int{1}, corr, false)
					if std {
						op = reduce.StdOp([]int{1}, corr, false)
					}
					tp := core.NewTape[*tensor.Dense](tensor.Space{})
					l := tp.Leaf(x)
					y := tp.Apply(op, l)
					s := tp.Apply(reduce.SumOp(nil, false), y)
					require.NoError(t, tp.Err())
					v, _ := tp.Value(y)
					require.Equal(t, []float64{0, 0}, v.Float64s(), "%v of %d x %v (correction %v)", op.Name(), n, c, corr)
					g, err := tp.Backward(s)
					require.NoError(t, err)
					gx, _ := g.Of(l)
					tan, err := tp.ForwardTangents(map[cr.NodeID]*tensor.Dense{l: tensor.Ones(dt, 2, n)})
					require.NoError(t, err)
					_, hv, err := tp.BackwardWithTangents(s, tan)
					require.NoError(t, err)
					h, _ := hv.Of(l)
					for _, z := range append(gx.Complex128s(), h.Complex128s()...) {
						if std {
							require.Equal(t, complex128(0), z, "std of %d x %v: gradient and HVP are 0", n, c)
						} else {
							require.False(t, cmplx.IsNaN(z), "var of %d x %v: NaN", n, c)
						}
					}
				}
			}
		}
	}
}
