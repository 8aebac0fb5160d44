package hvp_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/optimize"

	cr "github.com/chainrules-go/chainrules/chainrules"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/reduce"
)

// sumSqrt is f(x) = sum(sqrt(x)), whose infimum is at the edge of its domain.
func sumSqrt(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
	return t.Apply(reduce.SumOp(nil, false), t.Apply(ew.SqrtOp, x[0]))
}

// withDeadline runs f and fails the test if it does not return within d (a method
// that loops forever would otherwise hang the test binary).
func withDeadline(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("did not return within %v", d)
	}
}

// Both Newton methods fail, and soon, when the minimum is at the edge of the domain:
// the line search backtracks below its non-finite trial points instead of letting the
// Wolfe search push the step back out (it used to loop without end).
func TestNewtonMethodsStopAtTheEdgeOfTheDomain(t *testing.T) {
	for _, method := range []optimize.Method{&hvp.NewtonCG{}, &hvp.LineSearchNewtonCG{}} {
		obj := hvp.NewObjective(sumSqrt, 2)
		settings := &optimize.Settings{GradEvaluations: 100000}
		var res *optimize.Result
		var err error
		withDeadline(t, 20*time.Second, func() {
			res, err = hvp.Minimize(obj, []float64{1, 4}, settings, method)
		})
		require.ErrorIs(t, err, cr.ErrNonFinite, "%T", method)
		assert.Equal(t, optimize.Failure, res.Status, "%T", method)
		assert.Less(t, res.Stats.GradEvaluations, 2000, "%T", method)
		assert.Positive(t, res.X[0], "%T: the last point is in the domain", method)
	}
}

// stuckSearch is a Linesearcher that never accepts a step and always asks for step 1.
type stuckSearch struct{}

func (stuckSearch) Init(float64, float64, float64) optimize.Operation {
	return optimize.FuncEvaluation | optimize.GradEvaluation
}

func (stuckSearch) Iterate(float64, float64) (optimize.Operation, float64, error) {
	return optimize.FuncEvaluation | optimize.GradEvaluation, 1, nil
}

// A line search that never ends is cut short: its best point (here the Newton step
// of a quadratic, its minimum) is taken as after a failed search.
func TestLineSearchNewtonCGBoundsTheTrials(t *testing.T) {
	obj := hvp.NewObjective(sumOf(ew.SquareOp), 2)
	m := &hvp.LineSearchNewtonCG{Linesearcher: stuckSearch{}}
	var res *optimize.Result
	var err error
	withDeadline(t, 20*time.Second, func() {
		res, err = hvp.Minimize(obj, []float64{1, 2}, nil, m)
	})
	require.NoError(t, err)
	assert.Equal(t, optimize.GradientThreshold, res.Status)
	assert.Equal(t, []float64{0, 0}, res.X)
	assert.Positive(t, m.Rejected)
	assert.Less(t, res.Stats.GradEvaluations, 1000)
}

// Minimize refuses a nil objective with an error, not a panic.
func TestMinimizeNilObjective(t *testing.T) {
	res, err := hvp.Minimize(nil, []float64{1, 2}, nil, &hvp.NewtonCG{})
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
	assert.Nil(t, res)
}

// As ExampleMinimize, with the line-search method: it fails too, with the same
// error, where the trust-region method fails.
func ExampleLineSearchNewtonCG_edgeOfTheDomain() {
	f := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID { // sum(sqrt(x)): no minimum inside the domain
		return t.Apply(reduce.SumOp(nil, false), t.Apply(ew.SqrtOp, x[0]))
	}
	obj := hvp.NewObjective(f, 2)
	res, err := hvp.Minimize(obj, []float64{1, 4}, nil, &hvp.LineSearchNewtonCG{})
	fmt.Println(res.Status)
	fmt.Println(err)
	// Output:
	// Failure
	// non-finite value: hvp: the function value at a trial point is NaN, and at every shorter step down to the rounding of x
}
