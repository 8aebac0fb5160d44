package hvp_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	cr "github.com/chainrules-go/chainrules/chainrules"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// sumOf is f(x) = sum(g(x)).
func sumOf(g cr.Op[*tensor.Dense]) hvp.Func {
	return func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		return t.Apply(reduce.SumOp(nil, false), t.Apply(g, x[0]))
	}
}

// A complex loss is refused by every transform that seeds with 1: the caller must
// take the real part (PyTorch and JAX refuse too).
func TestComplexLossIsRefused(t *testing.T) {
	z, _ := tensor.FromComplex128([]complex128{1 + 1i, 2 - 1i}, 2)
	f := sumOf(ew.SinOp)
	_, _, err := hvp.Grad(f, []*tensor.Dense{z})
	require.ErrorIs(t, err, cr.ErrNonScalarLoss)
	assert.ErrorContains(t, err, "real part")
	_, _, err = hvp.HVP(f, []*tensor.Dense{z}, []*tensor.Dense{z})
	require.ErrorIs(t, err, cr.ErrNonScalarLoss)
	_, err = hvp.NewOperator(f, []*tensor.Dense{z})
	require.ErrorIs(t, err, cr.ErrNonScalarLoss)

	// The real part is a loss.
	re := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID { return t.Apply(ew.RealOp, f(t, x)) }
	_, g, err := hvp.Grad(re, []*tensor.Dense{z})
	require.NoError(t, err)
	assert.Equal(t, tensor.Complex128, g[0].DType())
	// An explicit seed is a VJP, which is allowed.
	_, _, err = hvp.VJP(f, []*tensor.Dense{z}, tensor.ScalarComplex(1))
	require.NoError(t, err)
}

// Inputs the output does not depend on get zeros of their own dtype.
func TestUnusedInputsGetZerosOfTheirDType(t *testing.T) {
	x := vec(1, 2)
	z, _ := tensor.FromComplex128([]complex128{1 + 1i, 2 - 1i, 3}, 3)
	f := func(t *hvp.Tape, in []cr.NodeID) cr.NodeID { return sumOf(ew.SinOp)(t, in[:1]) }
	_, g, err := hvp.Grad(f, []*tensor.Dense{x, z})
	require.NoError(t, err)
	assert.Equal(t, tensor.Complex128, g[1].DType())
	assert.Equal(t, []int{3}, g[1].Shape())
	assert.Equal(t, []complex128{0, 0, 0}, g[1].Complex128s())
	g2, hv, err := hvp.HVP(f, []*tensor.Dense{x, z}, []*tensor.Dense{x, z})
	require.NoError(t, err)
	for _, v := range []*tensor.Dense{g2[1], hv[1]} {
		assert.Equal(t, tensor.Complex128, v.DType())
		assert.Equal(t, []complex128{0, 0, 0}, v.Complex128s())
	}
	_, xbar, err := hvp.VJP(f, []*tensor.Dense{x, z}, tensor.Scalar(1))
	require.NoError(t, err)
	assert.Equal(t, tensor.Complex128, xbar[1].DType())
}

// A nil direction is the zero direction, as documented.
func TestNilDirectionIsZero(t *testing.T) {
	x, y := vec(0.3, -0.7), vec(1.1)
	f := func(t *hvp.Tape, in []cr.NodeID) cr.NodeID {
		return t.Apply(ew.AddOp, sumOf(ew.SinOp)(t, in[:1]), sumOf(ew.ExpOp)(t, in[1:]))
	}
	_, hv, err := hvp.HVP(f, []*tensor.Dense{x, y}, []*tensor.Dense{nil, vec(2)})
	require.NoError(t, err)
	assert.Equal(t, []float64{0, 0}, floats(hv[0]))
	assert.InDelta(t, 2*math.Exp(1.1), floats(hv[1])[0], 1e-14)
	op, err := hvp.NewOperator(f, []*tensor.Dense{x, y})
	require.NoError(t, err)
	hv, err = op.Apply([]*tensor.Dense{nil, nil})
	require.NoError(t, err)
	assert.Equal(t, []float64{0, 0}, floats(hv[0]))
	assert.Equal(t, []float64{0}, floats(hv[1]))
	_, yd, err := hvp.JVP(f, []*tensor.Dense{x, y}, []*tensor.Dense{nil, nil})
	require.NoError(t, err)
	assert.Equal(t, 0.0, yd.AtFloat64())
}

// Evaluation errors reach the caller of gonum's Minimize: the objective's Status
// stops gonum with the objective's error, not gonum's "function value is NaN".
func TestObjectiveFailuresReachTheCaller(t *testing.T) {
	fails := cr.OpFunc[*tensor.Dense]{OpName: "fails", F: func([]cr.NodeID, []*tensor.Dense) (*tensor.Dense, cr.Rule[*tensor.Dense], error) {
		return nil, nil, cr.Errorf(cr.ErrInvalidArgument, "cannot evaluate")
	}}
	for _, method := range []optimize.Method{nil, &optimize.BFGS{}, &optimize.Newton{}, &hvp.NewtonCG{}} {
		obj := hvp.NewObjective(sumOf(fails), 2)
		if m, ok := method.(*hvp.NewtonCG); ok {
			m.HessVec = obj.HessVec
		}
		_, err := optimize.Minimize(obj.Problem(), []float64{1, 2}, nil, method)
		require.ErrorIs(t, err, cr.ErrInvalidArgument, "%T", method)
		assert.ErrorContains(t, err, "cannot evaluate")

		obj = hvp.NewObjective(sumOf(fails), 2)
		res, err := hvp.Minimize(obj, []float64{1, 2}, nil, method)
		require.ErrorIs(t, err, cr.ErrInvalidArgument, "%T", method)
		if res != nil {
			assert.Equal(t, optimize.Failure, res.Status)
		}
	}

	// An op without a forward rule fails the Hessian: gonum's Newton must not
	// report convergence from NaN Hessians.
	noForward := cr.OpFunc[*tensor.Dense]{OpName: "no_forward", F: func(in []cr.NodeID, x []*tensor.Dense) (*tensor.Dense, cr.Rule[*tensor.Dense], error) {
		y, r, err := cr.ApplyOne(ew.SinOp, in, x)
		return y, struct{ cr.Rule[*tensor.Dense] }{r}, err
	}}
	for _, method := range []optimize.Method{&optimize.Newton{}, &hvp.NewtonCG{}} {
		obj := hvp.NewObjective(sumOf(noForward), 2)
		if m, ok := method.(*hvp.NewtonCG); ok {
			m.HessVec = obj.HessVec
		}
		res, err := hvp.Minimize(obj, []float64{1, 2}, nil, method)
		require.ErrorIs(t, err, cr.ErrNoRule, "%T", method)
		assert.ErrorContains(t, err, "no_forward")
		require.NotNil(t, res)
		assert.NotContains(t, []optimize.Status{optimize.GradientThreshold, optimize.MethodConverge,
			optimize.FunctionConvergence, optimize.StepConvergence}, res.Status)
	}
}

// A NaN gradient or Hessian-vector product without an error stops NewtonCG with a
// failure, never a convergence status.
func TestNewtonCGFailsOnNaN(t *testing.T) {
	obj := hvp.NewObjective(rosenbrock, 2)
	nanHV := &hvp.NewtonCG{HessVec: func(dst, x, v []float64) error {
		for i := range dst {
			dst[i] = math.NaN()
		}
		return nil
	}}
	res, err := optimize.Minimize(obj.Problem(), []float64{-1.2, 1}, nil, nanHV)
	require.Error(t, err)
	assert.ErrorContains(t, err, "not finite")
	assert.Equal(t, optimize.Failure, res.Status)

	// sqrt at a negative point: NaN values and gradients without any error.
	nanObj := hvp.NewObjective(sumOf(ew.SqrtOp), 2)
	res, err = optimize.Minimize(nanObj.Problem(), []float64{-1, -2}, nil, &hvp.NewtonCG{HessVec: nanObj.HessVec})
	require.Error(t, err)
	assert.Equal(t, optimize.Failure, res.Status)
}

// Destinations of the wrong length are not filled in part: Grad and Hess panic as
// gonum's own problems do, HessVec returns an error.
func TestObjectiveDestinationLengths(t *testing.T) {
	obj := hvp.NewObjective(rosenbrock, 3)
	x := []float64{0.1, 0.2, 0.3}
	assert.PanicsWithValue(t, "hvp: Objective.Grad: gradient of length 2 for a point of length 3", func() {
		obj.Grad(make([]float64, 2), x)
	})
	assert.Panics(t, func() { obj.Grad(make([]float64, 4), x) })
	assert.PanicsWithValue(t, "hvp: Objective.Hess: Hessian of dimension 2 for a point of length 3", func() {
		obj.Hess(mat.NewSymDense(2, nil), x)
	})
	err := obj.HessVec(make([]float64, 2), x, []float64{1, 0, 0})
	assert.ErrorIs(t, err, cr.ErrShapeMismatch)
	err = obj.HessVec(make([]float64, 3), x, []float64{1, 0})
	assert.ErrorIs(t, err, cr.ErrShapeMismatch)
	require.NoError(t, obj.Err(), "a caller's mistake is not an evaluation error")
	g := make([]float64, 3)
	obj.Grad(g, x)
	require.NoError(t, obj.Err())
}

// A shape whose size overflows is invalid, not a small objective.
func TestObjectiveShapeOverflow(t *testing.T) {
	obj := hvp.NewObjective(rosenbrock, 2, 3, 7, 0x6DB6DB6DB6DB6DB7)
	assert.True(t, math.IsNaN(obj.Func(make([]float64, 6))))
	assert.ErrorIs(t, obj.Err(), cr.ErrInvalidArgument)
}

// nanMethod reports the starting point with a NaN gradient as its only iterate and
// then says it converged: a stand-in for any method that does not check.
type nanMethod struct{}

func (nanMethod) Init(dim, tasks int) int { return 1 }
func (nanMethod) Uses(has optimize.Available) (optimize.Available, error) {
	return optimize.Available{Grad: true}, nil
}
func (nanMethod) Status() (optimize.Status, error) { return optimize.MethodConverge, nil }
func (nanMethod) Run(operation chan<- optimize.Task, result <-chan optimize.Task, tasks []optimize.Task) {
	task := tasks[0]
	task.Op = optimize.MajorIteration
	task.F = 1
	task.Gradient = []float64{math.NaN(), 0}
	operation <- task
	if r := <-result; r.Op != optimize.PostIteration {
		operation <- optimize.Task{Op: optimize.MethodDone}
	}
	for range result {
	}
	close(operation)
}

// Minimize never passes on a convergence status with a value or gradient that is not
// finite, whatever the method.
func TestMinimizeRejectsNonFiniteResults(t *testing.T) {
	obj := hvp.NewObjective(rosenbrock, 2)
	res, err := optimize.Minimize(obj.Problem(), []float64{1, 2}, nil, nanMethod{})
	require.NoError(t, err)
	require.Equal(t, optimize.MethodConverge, res.Status, "gonum passes it on")

	res, err = hvp.Minimize(obj, []float64{1, 2}, nil, nanMethod{})
	require.ErrorIs(t, err, cr.ErrNonFinite)
	assert.ErrorContains(t, err, "gradient")
	assert.Equal(t, optimize.Failure, res.Status)
}

// Failures reach Minimize's caller with optimize.Failure, never as convergence: the
// minimum of sum(sqrt(x)) is at the edge of its domain, where every trial step of the
// Newton method gives NaN (or an infinite gradient at 0).
func ExampleMinimize() {
	f := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID { // sum(sqrt(x)): no minimum inside the domain
		return t.Apply(reduce.SumOp(nil, false), t.Apply(ew.SqrtOp, x[0]))
	}
	obj := hvp.NewObjective(f, 2)
	res, err := hvp.Minimize(obj, []float64{1, 4}, nil, &hvp.NewtonCG{})
	fmt.Println(res.Status)
	fmt.Println(err)
	// Output:
	// Failure
	// non-finite value: hvp: the function value at a trial point is NaN, and at every shorter step down to the rounding of x
}

// A value of -Inf is unbounded below, not an error: gonum stops with
// FunctionNegativeInfinity (and the methods do not panic building gonum's ErrFunc).
func TestNewtonMethodsNegativeInfinity(t *testing.T) {
	for _, start := range [][]float64{{-1}, {1}} {
		for _, method := range []optimize.Method{
			&hvp.NewtonCG{HessVec: identityHV}, &hvp.LineSearchNewtonCG{HessVec: identityHV},
		} {
			p := optimize.Problem{
				Func: func(x []float64) float64 {
					if x[0] < 0 {
						return math.Inf(-1)
					}
					return x[0] * x[0]
				},
				Grad: func(g, x []float64) { g[0] = 2*x[0] + 1 },
			}
			res, err := optimize.Minimize(p, start, nil, method)
			require.NoError(t, err, "%T from %v", method, start)
			assert.Equal(t, optimize.FunctionNegativeInfinity, res.Status, "%T from %v", method, start)
		}
	}
}

func identityHV(dst, _, v []float64) error { copy(dst, v); return nil }

// With the gradient threshold disabled, an exactly stationary point stops both
// methods (no CG step or line search from a zero gradient).
func TestNewtonMethodsZeroGradient(t *testing.T) {
	for _, method := range []optimize.Method{
		&hvp.NewtonCG{GradStopThreshold: math.NaN()}, &hvp.LineSearchNewtonCG{GradStopThreshold: math.NaN()},
	} {
		obj := hvp.NewObjective(rosenbrock, 2)
		res, err := hvp.Minimize(obj, []float64{1, 1}, nil, method)
		require.NoError(t, err, "%T", method)
		assert.Equal(t, optimize.GradientThreshold, res.Status, "%T", method)
		assert.Equal(t, []float64{1, 1}, res.X)
	}
}

// A start point whose value or gradient is not finite fails Minimize, whatever the
// method, with an error wrapping ErrNonFinite (and gonum's ErrFunc or ErrGrad, which
// gonum's own methods return as they are), and the result holds the start point,
// not gonum's zeros.
func TestMinimizeNonFiniteStart(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		name  string
		f     hvp.Func
		x0    []float64
		value bool    // the value is not finite (ErrFunc), else the gradient (ErrGrad)
		atX0  float64 // the value at the start
	}{
		{"NaN in the start point", sumOf(ew.SquareOp), []float64{nan, 1}, true, nan},
		{"+Inf in the start point", sumOf(ew.SquareOp), []float64{inf, 1}, true, inf},
		{"NaN value", sumSqrt, []float64{-1, 4}, true, nan},
		{"infinite gradient", sumSqrt, []float64{0, 4}, false, 2},
	}
	for _, c := range cases {
		for _, method := range []optimize.Method{nil, &optimize.BFGS{}, &hvp.NewtonCG{}, &hvp.LineSearchNewtonCG{}} {
			t.Run(fmt.Sprintf("%s/%T", c.name, method), func(t *testing.T) {
				obj := hvp.NewObjective(c.f, 2)
				res, err := hvp.Minimize(obj, c.x0, nil, method)
				require.ErrorIs(t, err, cr.ErrNonFinite)
				assert.ErrorContains(t, err, "at the start point")
				if c.value {
					assert.ErrorAs(t, err, new(optimize.ErrFunc))
				} else {
					assert.ErrorAs(t, err, new(optimize.ErrGrad))
				}
				require.NotNil(t, res)
				assert.Equal(t, optimize.Failure, res.Status)
				require.Len(t, res.X, 2)
				for i, xi := range c.x0 {
					if math.IsNaN(xi) {
						assert.True(t, math.IsNaN(res.X[i]), "x[%d] = %v", i, res.X[i])
					} else {
						assert.Equal(t, xi, res.X[i], "x[%d]", i)
					}
				}
				if math.IsNaN(c.atX0) {
					assert.True(t, math.IsNaN(res.F), "F = %v", res.F)
				} else {
					assert.Equal(t, c.atX0, res.F)
				}
				if !c.value {
					require.Len(t, res.Gradient, 2)
					assert.True(t, math.IsInf(res.Gradient[0], 1), "the gradient at the start")
				}
			})
		}
	}
}

// Minimize refuses an empty start point with an error; gonum would panic.
func TestMinimizeEmptyStart(t *testing.T) {
	res, err := hvp.Minimize(hvp.NewObjective(rosenbrock, 2), nil, nil, &hvp.NewtonCG{})
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
	assert.Nil(t, res)
}
