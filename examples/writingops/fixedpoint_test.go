package writingops_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/examples/writingops"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

// contraction returns a random n x n matrix of norm at most 1/2.
func contraction(rng *rand.Rand, n int) *tensor.Dense {
	w := tensor.RandN(rng, tensor.Float64, n, n)
	for i := range w.Float64s() {
		w.Float64s()[i] *= 0.5 / float64(n)
	}
	return w
}

// The implicit-function pullback passes the checker: gradients, forward tangents
// and second-order rule against finite differences of the iterated primal.
func TestFixedPointPassesRuletest(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{1, 3, 5} {
		ruletest.Check(t, tensor.Space{}, writingops.FixedPointOp(),
			[]*tensor.Dense{contraction(rng, n), tensor.RandN(rng, tensor.Float64, n, 1)}, ruletest.Config{})
	}
}

func TestFixedPointValueAndErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	w, x := contraction(rng, 4), tensor.RandN(rng, tensor.Float64, 4, 1)
	y, err := cr.Eval(writingops.FixedPointOp(), w, x)
	require.NoError(t, err)
	for i := range 4 { // y = tanh(W y + x)
		s := x.Float64s()[i]
		for j := range 4 {
			s += w.Float64s()[i*4+j] * y.Float64s()[j]
		}
		require.InDelta(t, math.Tanh(s), y.Float64s()[i], 1e-15)
	}
	_, err = cr.Eval(writingops.FixedPointOp(), w, tensor.Ones(tensor.Float64, 3, 1))
	require.ErrorIs(t, err, cr.ErrShapeMismatch)
	_, err = cr.Eval(writingops.FixedPointOp(), tensor.New(tensor.Float64), x)
	require.ErrorIs(t, err, cr.ErrShapeMismatch)
	// W = -3 I: the iteration y <- tanh(-3 y + x) oscillates.
	big := tensor.New(tensor.Float64, 2, 2)
	big.Float64s()[0], big.Float64s()[3] = -3, -3
	_, err = cr.Eval(writingops.FixedPointOp(), big, tensor.Ones(tensor.Float64, 2, 1))
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
}

// A one-dimensional fixed point y = tanh(w y + x), whose derivatives are known in
// closed form: dy/dx = d / (1 - w d) with d = 1 - y², and dy/dw = y dy/dx.
func ExampleFixedPointOp() {
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	wv, _ := tensor.FromFloat64([]float64{0.5}, 1, 1)
	xv, _ := tensor.FromFloat64([]float64{0.3}, 1, 1)
	w, x := tp.Leaf(wv), tp.Leaf(xv)
	y := tp.Apply(writingops.FixedPointOp(), w, x)
	g, err := tp.BackwardSeed(y, tensor.Ones(tensor.Float64, 1, 1))
	if err != nil {
		fmt.Println(err)
		return
	}
	yv, _ := tp.Value(y)
	gw, _ := g.Of(w)
	gx, _ := g.Of(x)
	yy := yv.Float64s()[0]
	d := 1 - yy*yy
	fmt.Printf("y = %.6f = tanh(0.5 y + 0.3): %.6f\n", yy, math.Tanh(0.5*yy+0.3))
	fmt.Printf("dy/dx = %.6f (closed form %.6f)\n", gx.Float64s()[0], d/(1-0.5*d))
	fmt.Printf("dy/dw = %.6f (closed form %.6f)\n", gw.Float64s()[0], yy*d/(1-0.5*d))
	// Output:
	// y = 0.500832 = tanh(0.5 y + 0.3): 0.500832
	// dy/dx = 1.197870 (closed form 1.197870)
	// dy/dw = 0.599932 (closed form 0.599932)
}
