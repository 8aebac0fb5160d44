package writingops_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/examples/writingops"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

func TestSolveAndCumsumPassRuletest(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	a := tensor.RandN(rng, tensor.Float64, 3, 3)
	for i := range 3 {
		a.Float64s()[4*i] += 4 // well conditioned
	}
	ruletest.Check(t, tensor.Space{}, writingops.SolveOp(), []*tensor.Dense{a, tensor.RandN(rng, tensor.Float64, 3, 2)}, ruletest.Config{})
	for _, c := range []struct {
		axis  int
		shape []int
	}{{0, []int{5}}, {0, []int{3, 4}}, {1, []int{3, 4}}, {1, []int{2, 3, 4}}, {-1, []int{2, 3, 4}}} {
		ruletest.Check(t, tensor.Space{}, writingops.CumsumOp(c.axis), []*tensor.Dense{tensor.RandN(rng, tensor.Float64, c.shape...)}, ruletest.Config{})
	}
}

func TestBadInput(t *testing.T) {
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	a := tp.Leaf(tensor.Ones(tensor.Float64, 2, 3))
	tp.Apply(writingops.SolveOp(), a, tp.Leaf(tensor.Ones(tensor.Float64, 2, 1)))
	require.ErrorIs(t, tp.Err(), cr.ErrShapeMismatch)
	require.ErrorContains(t, tp.Err(), "solve")

	tp = core.NewTape[*tensor.Dense](tensor.Space{})
	tp.Apply(writingops.SolveOp(), tp.Leaf(tensor.New(tensor.Float64, 2, 2)), tp.Leaf(tensor.Ones(tensor.Float64, 2, 1)))
	require.ErrorIs(t, tp.Err(), cr.ErrInvalidArgument, "singular matrix")

	tp = core.NewTape[*tensor.Dense](tensor.Space{})
	tp.Apply(writingops.CumsumOp(2), tp.Leaf(tensor.Ones(tensor.Float64, 2, 2)))
	require.ErrorIs(t, tp.Err(), cr.ErrInvalidArgument)
	tp = core.NewTape[*tensor.Dense](tensor.Space{})
	y := tp.Apply(writingops.CumsumOp(1), tp.Leaf(tensor.New(tensor.Float64, 2, 0)))
	require.NoError(t, tp.Err())
	v, _ := tp.Value(y)
	require.Equal(t, []int{2, 0}, v.Shape())
}

func ExampleCumsumOp() {
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	xv, _ := tensor.FromFloat64([]float64{1, 2, 3, 4}, 4)
	x := tp.Leaf(xv)
	y := tp.Apply(writingops.CumsumOp(0), x)
	g, _ := tp.BackwardSeed(y, tensor.Ones(tensor.Float64, 4))
	yv, _ := tp.Value(y)
	gx, _ := g.Of(x)
	fmt.Println(yv.Float64s(), gx.Float64s())
	// Output: [1 3 6 10] [4 3 2 1]
}
