package hvp_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

func TestNewtonCGRosenbrock(t *testing.T) {
	for _, n := range []int{2, 10, 100} {
		obj := hvp.NewObjective(rosenbrock, n)
		x0 := make([]float64, n)
		for i := range x0 {
			x0[i] = -1.2
			if i%2 == 1 {
				x0[i] = 1
			}
		}
		method := &hvp.NewtonCG{HessVec: obj.HessVec}
		res, err := optimize.Minimize(obj.Problem(), x0, nil, method)
		require.NoError(t, err)
		require.NoError(t, obj.Err())
		assert.Contains(t, []optimize.Status{optimize.GradientThreshold, optimize.StepConvergence, optimize.FunctionConvergence}, res.Status)
		for i, xi := range res.X {
			require.InDelta(t, 1, xi, 1e-6, "x[%d] with n = %d", i, n)
		}
		assert.Less(t, res.F, 1e-12)
		assert.Positive(t, method.HVPs)
		t.Logf("n=%d: %d iterations, %d func, %d grad, %d HVPs, %d rejected", n,
			res.Stats.MajorIterations, res.Stats.FuncEvaluations, res.Stats.GradEvaluations, method.HVPs, method.Rejected)
	}
}

func TestNewtonCGNegativeCurvature(t *testing.T) {
	// f(x, y) = x^4/4 - x^2/2 + y^2 starts at a saddle point's neighbourhood
	// (x = 1e-3), where H has a negative eigenvalue; CG must leave along it.
	f := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID { return t.Apply(doubleWellOp{}, x[0]) }
	obj := hvp.NewObjective(f, 2)
	res, err := optimize.Minimize(obj.Problem(), []float64{1e-3, 0.5}, nil, &hvp.NewtonCG{HessVec: obj.HessVec})
	require.NoError(t, err)
	assert.InDelta(t, 1, math.Abs(res.X[0]), 1e-7)
	assert.InDelta(t, 0, res.X[1], 1e-7)
}

func TestObjectiveErrorsBecomeNaN(t *testing.T) {
	obj := hvp.NewObjective(rosenbrock, 3)
	assert.True(t, math.IsNaN(obj.Func([]float64{1, 2})))
	assert.ErrorIs(t, obj.Err(), cr.ErrShapeMismatch)
	_, err := optimize.Minimize(obj.Problem(), []float64{1, 2}, nil, &hvp.NewtonCG{HessVec: obj.HessVec})
	assert.Error(t, err)

	missing := &hvp.NewtonCG{}
	_, err = optimize.Minimize(hvp.NewObjective(rosenbrock, 2).Problem(), []float64{0, 0}, nil, missing)
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
}

func TestObjectiveHessMatchesClosedForm(t *testing.T) {
	x := []float64{0.3, -0.7, 1.1, 0.2}
	_, want := rosenbrockDerivs(x)
	obj := hvp.NewObjective(rosenbrock, len(x))
	p := obj.Problem()
	grad := make([]float64, len(x))
	p.Grad(grad, x)
	g, _ := rosenbrockDerivs(x)
	assertClose(t, g, grad, 1e-13, "gradient")
	h := newSym(len(x))
	p.Hess(h, x)
	for i := range x {
		for j := range x {
			assert.InDelta(t, want[i][j], h.At(i, j), 1e-11)
		}
	}
	assert.Equal(t, 1, obj.Recordings, "Func, Grad and Hess at one point share one recording")
}

func TestEmptyInputsAreErrors(t *testing.T) {
	sum := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID { return t.Apply(reduce.SumOp(nil, false), x[0]) }
	_, err := hvp.Hessian(sum, []*tensor.Dense{tensor.New(tensor.Float64, 0)})
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
	_, err = hvp.Jacobian(sum, []*tensor.Dense{tensor.New(tensor.Float64, 0, 3)})
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
	for _, shape := range [][]int{{0}, {2, -1}} {
		obj := hvp.NewObjective(sum, shape...)
		assert.True(t, math.IsNaN(obj.Func(nil)))
		assert.ErrorIs(t, obj.Err(), cr.ErrInvalidArgument)
		h := mat.NewSymDense(1, nil)
		obj.Hess(h, []float64{1})
		assert.True(t, math.IsNaN(h.At(0, 0)))
	}
}
