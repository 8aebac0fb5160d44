package hvp_test

import (
	"fmt"
	"math"
	"runtime"
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

// sumAll is f(x) = sum(x), unbounded below with zero curvature.
func sumAll(t *hvp.Tape, x []cr.NodeID) cr.NodeID { return t.Apply(reduce.SumOp(nil, false), x[0]) }

// negSquares is f(x) = -|x|^2, unbounded below with negative curvature.
func negSquares(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
	return t.Apply(ew.ScaleOp(-1), t.Apply(reduce.SumOp(nil, false), t.Apply(ew.SquareOp, x[0])))
}

// Both Newton methods stop by themselves on an objective unbounded below, with
// optimize.Failure and an error wrapping ErrUnbounded. gonum's iteration limit only
// keeps a method that does not stop from running for ever; the methods must stop
// long before it (the trust region once its radius reaches 1e10, the line search at
// its searcher's largest step).
func TestNewtonMethodsStopOnUnboundedObjectives(t *testing.T) {
	for _, f := range []struct {
		name string
		f    hvp.Func
	}{{"sum(x)", sumAll}, {"-|x|^2", negSquares}} {
		for _, method := range []optimize.Method{&hvp.NewtonCG{}, &hvp.LineSearchNewtonCG{}} {
			t.Run(fmt.Sprintf("%s/%T", f.name, method), func(t *testing.T) {
				obj := hvp.NewObjective(f.f, 2)
				res, err := hvp.Minimize(obj, []float64{1, 2}, &optimize.Settings{MajorIterations: 1000}, method)
				require.ErrorIs(t, err, hvp.ErrUnbounded)
				require.ErrorIs(t, err, cr.ErrNonFinite)
				assert.Equal(t, optimize.Failure, res.Status)
				assert.Less(t, res.F, -1e10)
				assert.Less(t, res.Stats.MajorIterations, 100)
			})
		}
	}
}

// Without a test of unboundedness that can fire (a largest radius or step below
// 1e10), MaxIterations stops the methods: by default after 200 iterations per
// variable, scipy's maxiter, with optimize.IterationLimit and an error that says so.
// gonum's own limit, far above, only guards the test.
func TestNewtonMethodsIterationLimit(t *testing.T) {
	shortSearch := &optimize.MoreThuente{DecreaseFactor: 1e-4, CurvatureFactor: 0.9, MaximumStep: 1}
	cases := []struct {
		name   string
		method optimize.Method
		f      hvp.Func
		n      int
		want   int // the iterations made
	}{
		{"trust region, default, on sum(x)", &hvp.NewtonCG{MaxRadius: 1}, sumAll, 2, 400},
		{"trust region, default, on -|x|^2", &hvp.NewtonCG{MaxRadius: 1}, negSquares, 3, 600},
		{"line search, default, on sum(x)", &hvp.LineSearchNewtonCG{Linesearcher: shortSearch}, sumAll, 2, 400},
		{"trust region, MaxIterations 5", &hvp.NewtonCG{MaxIterations: 5}, rosenbrock, 2, 5},
		{"line search, MaxIterations 5", &hvp.LineSearchNewtonCG{MaxIterations: 5}, rosenbrock, 2, 5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			obj := hvp.NewObjective(c.f, c.n)
			res, err := hvp.Minimize(obj, rosenbrockStart(c.n), &optimize.Settings{MajorIterations: 10000}, c.method)
			require.ErrorIs(t, err, optimize.IterationLimit.Err())
			assert.ErrorContains(t, err, fmt.Sprintf("made %d iterations (MaxIterations)", c.want))
			assert.Equal(t, optimize.IterationLimit, res.Status)
			assert.LessOrEqual(t, res.Stats.MajorIterations, c.want+1, "the start and at most one iterate per iteration")
		})
	}
}

// A value of -Inf is unbounded below: gonum stops with FunctionNegativeInfinity, and
// Minimize adds an error wrapping ErrUnbounded, whatever the method. -|x|^2
// overflows to -Inf at the start from 1e200, and on the way from 1e140, where the
// line search extrapolates to a step of 1e14.
func TestMinimizeNegativeInfinityIsUnbounded(t *testing.T) {
	cases := []struct {
		x0     []float64
		method optimize.Method
	}{
		{[]float64{1e200, 0}, nil},
		{[]float64{1e200, 0}, &optimize.BFGS{}},
		{[]float64{1e200, 0}, &hvp.NewtonCG{}},
		{[]float64{1e200, 0}, &hvp.LineSearchNewtonCG{}},
		{[]float64{1e140, 0}, &hvp.LineSearchNewtonCG{}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%T from %v", c.method, c.x0), func(t *testing.T) {
			obj := hvp.NewObjective(negSquares, 2)
			res, err := hvp.Minimize(obj, c.x0, nil, c.method)
			require.ErrorIs(t, err, hvp.ErrUnbounded)
			require.ErrorIs(t, err, cr.ErrNonFinite)
			assert.ErrorContains(t, err, "f is -Inf at the result")
			assert.Equal(t, optimize.FunctionNegativeInfinity, res.Status)
			assert.True(t, math.IsInf(res.F, -1))
		})
	}
}

// A panic of a Newton method's HessVec happens on gonum's method goroutine, which
// the caller cannot recover; the method stops with optimize.Failure and a
// *PanicError instead of ending the process.
func TestNewtonMethodPanicsAreErrors(t *testing.T) {
	rows := []int{0, 1}
	outOfRange := func(dst, _, v []float64) error {
		copy(dst, v)
		dst[0] += float64(rows[len(v)]) // index out of range
		return nil
	}
	for _, c := range []struct {
		name   string
		method optimize.Method
	}{
		{"NewtonCG", &hvp.NewtonCG{HessVec: outOfRange}},
		{"LineSearchNewtonCG", &hvp.LineSearchNewtonCG{HessVec: outOfRange}},
	} {
		t.Run(c.name, func(t *testing.T) {
			obj := hvp.NewObjective(rosenbrock, 2)
			res, err := hvp.Minimize(obj, []float64{-1.2, 1}, nil, c.method)
			var pe *hvp.PanicError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, c.name, pe.Where)
			assert.Equal(t, -1, pe.Shard)
			assert.ErrorIs(t, err, cr.ErrInvalidArgument)
			var re runtime.Error
			assert.ErrorAs(t, err, &re)
			assert.ErrorContains(t, err, "hvp: "+c.name+" panicked: runtime error: index out of range [2] with length 2")
			assert.Equal(t, optimize.Failure, res.Status)
			assert.Equal(t, []float64{-1.2, 1}, res.X)
		})
	}
}
