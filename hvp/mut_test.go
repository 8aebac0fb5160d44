package hvp_test

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/optimize"

	cr "github.com/chainrules-go/chainrules/chainrules"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// Tests added for mutants that survived the package's tests (see the mutation
// notes of Reliability round 3).

// diagQuadratic is f(x) = 1/2 x^T diag(h) x + b^T x with its exact Hessian.
func diagQuadratic(h, b []float64) (optimize.Problem, hvp.HessVecFunc) {
	p := optimize.Problem{
		Func: func(x []float64) float64 {
			f := 0.0
			for i := range x {
				f += 0.5*h[i]*x[i]*x[i] + b[i]*x[i]
			}
			return f
		},
		Grad: func(g, x []float64) {
			for i := range x {
				g[i] = h[i]*x[i] + b[i]
			}
		},
	}
	hv := func(dst, _, v []float64) error {
		for i := range v {
			dst[i] = h[i] * v[i]
		}
		return nil
	}
	return p, hv
}

// A CG step that lands exactly on the trust region's boundary ends the inner
// iteration there (one product), as one that crosses it does: from 0 with
// g = (-3/4, -1) and H = diag(2, 7/16) the first CG step is -g, of length 5/4, the
// radius.
func TestSteihaugStopsAtAStepExactlyOnTheBoundary(t *testing.T) {
	p, hv := diagQuadratic([]float64{2, 0.4375}, []float64{-0.75, -1})
	m := &hvp.NewtonCG{InitialRadius: 1.25, MaxIterations: 1, HessVec: hv}
	res, err := optimize.Minimize(p, []float64{0, 0}, nil, m)
	require.ErrorIs(t, err, optimize.IterationLimit.Err())
	assert.Equal(t, 1, m.CGIterations)
	assert.Equal(t, 1, m.HVPs)
	assert.Equal(t, []float64{0.75, 1}, res.X)
}

// A function that is +Inf at every point but the start leaves no step to take:
// the trust region shrinks to nothing and the method fails with an error wrapping
// ErrNonFinite (as for NaN), not a silent StepConvergence.
func TestTrustRegionPlusInfEverywhereButTheStart(t *testing.T) {
	p := optimize.Problem{
		Func: func(x []float64) float64 {
			if x[0] == 1 {
				return 0
			}
			return math.Inf(1)
		},
		Grad: func(g, _ []float64) { g[0] = -1 },
	}
	hv := func(dst, _, v []float64) error { copy(dst, v); return nil }
	res, err := optimize.Minimize(p, []float64{1}, nil, &hvp.NewtonCG{HessVec: hv})
	require.ErrorIs(t, err, cr.ErrNonFinite)
	assert.Equal(t, optimize.Failure, res.Status)
	assert.Equal(t, []float64{1}, res.X)
}

// A long way down a convex quadratic of tiny curvature (minimum at 10^12) takes
// trust-region steps of 10^10 with rho = 1: that is not unboundedness, which needs a
// direction of non-positive curvature.
func TestTrustRegionLongStepsOnAFlatConvexQuadratic(t *testing.T) {
	p, hv := diagQuadratic([]float64{1e-12}, []float64{-1})
	res, err := optimize.Minimize(p, []float64{0}, &optimize.Settings{MajorIterations: 10000}, &hvp.NewtonCG{HessVec: hv})
	require.NoError(t, err)
	assert.InDelta(t, 1e12, res.X[0], 1)
}

// When the CG step overflows (a curvature too small to invert gives alpha = +Inf,
// and Inf * 0 = NaN: no descent direction), the line search method falls back to
// steepest descent -g.
func TestLineSearchFallsBackToSteepestDescent(t *testing.T) {
	p, hv := diagQuadratic([]float64{1e-310, 1}, []float64{-1, 0})
	m := &hvp.LineSearchNewtonCG{MaxIterations: 1, MaxCGIterations: 1, HessVec: hv}
	res, err := optimize.Minimize(p, []float64{0, 0}, nil, m)
	// Along -g, f is -x0 to within 1e-310 x0^2: the search goes as far as it may.
	require.ErrorIs(t, err, hvp.ErrUnbounded)
	assert.Greater(t, res.X[0], 0.0, "the step goes down, along -g")
	assert.Equal(t, 0.0, res.X[1])
	assert.Less(t, res.F, 0.0)
}

// On f(x) = -x for x < 1 (NaN from 1 on) with a fake curvature 1/4, the Newton
// step 4 leaves the domain; the line search halves back into it, and a point that
// decreases f is accepted without trying the non-finite steps again.
func TestLineSearchDoesNotRetryNonFiniteSteps(t *testing.T) {
	p := optimize.Problem{
		Func: func(x []float64) float64 {
			if x[0] >= 1 {
				return math.NaN()
			}
			return -x[0]
		},
		Grad: func(g, x []float64) {
			g[0] = -1
			if x[0] >= 1 {
				g[0] = math.NaN()
			}
		},
	}
	hv := func(dst, _, v []float64) error { dst[0] = v[0] / 4; return nil }
	m := &hvp.LineSearchNewtonCG{MaxIterations: 1, HessVec: hv}
	res, err := optimize.Minimize(p, []float64{0}, nil, m)
	require.ErrorIs(t, err, optimize.IterationLimit.Err())
	assert.Greater(t, res.X[0], 0.0)
	assert.Less(t, res.X[0], 1.0)
	assert.LessOrEqual(t, m.Rejected, 4, "three steps leave the domain (4, 2, 1); none is tried twice")
}

// FlattenTo writes zeros for a nil tensor, whatever dst held.
func TestFlattenToZeroesNilTensors(t *testing.T) {
	l, err := hvp.NewLayout([]int{2}, []int{3})
	require.NoError(t, err)
	dst := []float64{9, 9, 9, 9, 9}
	b, err := tensor.FromFloat64([]float64{1, 2, 3}, 3)
	require.NoError(t, err)
	require.NoError(t, l.FlattenTo(dst, []*tensor.Dense{nil, b}))
	assert.Equal(t, []float64{0, 0, 1, 2, 3}, dst)
}

// The Jacobian of a linear map with fewer inputs than outputs (built column by
// column with forward sweeps) is its matrix.
func TestJacobianOfATallLinearMap(t *testing.T) {
	a, err := tensor.FromFloat64([]float64{1, 2, 3, 4, 5, 6}, 3, 2)
	require.NoError(t, err)
	f := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		return t.Apply(reduce.SumOp([]int{1}, false), t.Apply(ew.MulOp, t.Constant(a), x[0]))
	}
	x, err := tensor.FromFloat64([]float64{0.5, -1}, 2)
	require.NoError(t, err)
	j, err := hvp.Jacobian(f, []*tensor.Dense{x})
	require.NoError(t, err)
	r, c := j.Dims()
	require.Equal(t, [2]int{3, 2}, [2]int{r, c})
	for i := range 3 {
		for k := range 2 {
			assert.Equal(t, a.Float64s()[i*2+k], j.At(i, k), "J[%d, %d]", i, k)
		}
	}
}

// Inner is the real inner product Re sum conj(a) b: <i, i> = 1.
func TestInnerConjugatesComplexNodes(t *testing.T) {
	ci, err := tensor.FromComplex128([]complex128{1i})
	require.NoError(t, err)
	f := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		a := t.Constant(ci)
		return t.Apply(ew.MulOp, x[0], hvp.Inner(t, []cr.NodeID{a}, []cr.NodeID{a}))
	}
	y, g, err := hvp.Grad(f, []*tensor.Dense{tensor.Scalar(2)})
	require.NoError(t, err)
	assert.Equal(t, []float64{2}, y.Float64s())
	assert.Equal(t, []float64{1}, g[0].Float64s())
}

// gate is the identity whose forward tangent fails once two sweeps are inside it
// at the same time, so that two batch workers fail together.
type gate struct{ b *barrier }

type barrier struct {
	mu   sync.Mutex
	n    int
	both chan struct{}
}

func (b *barrier) arrive() {
	b.mu.Lock()
	b.n++
	if b.n == 2 {
		close(b.both)
	}
	b.mu.Unlock()
	select {
	case <-b.both:
	case <-time.After(10 * time.Second):
	}
}

func (gate) Name() string    { return "gate" }
func (gate) NumOutputs() int { return 1 }
func (g gate) Apply(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	y[0] = x[0]
	return gateRule{in: in[0], b: g.b}, nil
}

type gateRule struct {
	in cr.NodeID
	b  *barrier
}

func (r gateRule) Inputs() []cr.NodeID { return []cr.NodeID{r.in} }
func (r gateRule) Pullback(ybar []*tensor.Dense, _ []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	return append(dst, cr.Contribution[*tensor.Dense]{Node: r.in, Value: ybar[0]}), nil
}
func (r gateRule) Forward(tan cr.TangentOf[*tensor.Dense], _ []*tensor.Dense, _ []bool) error {
	v, _ := tan(r.in)
	r.b.arrive()
	return fmt.Errorf("gate failed on the direction starting %v", v.Float64s()[0])
}

// When several workers of a batch fail, the error names the first failing
// direction, as the sequential loop would.
func TestApplyBatchNamesTheFirstFailingDirection(t *testing.T) {
	b := &barrier{both: make(chan struct{})}
	f := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		return t.Apply(reduce.SumOp(nil, false), t.Apply(ew.Abs2Op, t.Apply(gate{b}, x[0])))
	}
	op, err := hvp.NewOperator(f, []*tensor.Dense{tensor.Ones(tensor.Float64, 2)})
	require.NoError(t, err)
	op.Workers = 2
	dirs := [][]*tensor.Dense{{tensor.Ones(tensor.Float64, 2)}, {tensor.Scale(tensor.Ones(tensor.Float64, 2), 2)}}
	_, err = op.ApplyBatch(dirs)
	require.Error(t, err)
	assert.ErrorContains(t, err, "direction 0:")
	assert.False(t, errors.Is(err, cr.ErrShapeMismatch))
}

// JVPOf takes one direction per input: fewer is an error naming the op and the
// counts.
func TestJVPOfDirectionCount(t *testing.T) {
	f := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		return t.Apply(reduce.SumOp(nil, false), t.Apply(ew.MulOp, x[0], x[1]))
	}
	g := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		return hvp.JVPOf(f)(t, x, x[:1])
	}
	_, _, err := hvp.Grad(g, []*tensor.Dense{tensor.Ones(tensor.Float64, 2), tensor.Ones(tensor.Float64, 2)})
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
	assert.ErrorContains(t, err, "1 directions for 2 inputs")
}
