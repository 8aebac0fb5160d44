package ruletest_test

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

// Tests added for mutants of the checker that its own tests did not catch (see the
// mutation notes of Reliability round 3): each feeds the checker a rule whose one
// mistake only the check under test can see, or a correct rule that a wrong
// tolerance or comparison would reject.

// ---- an unused input and a split contribution: only the structure check sees them ----

// pairRule is the rule of y = sin(x0), an op of two differentiable inputs that
// ignores x1; omit leaves x1's (zero) contribution out, split returns x0's as two
// halves.
type pairRule struct {
	in          []cr.NodeID
	c           float64
	omit, split bool
}

func (r *pairRule) Inputs() []cr.NodeID { return r.in }

func (r *pairRule) Pullback(ybar []float64, _ []bool, dst []cr.Contribution[float64]) ([]cr.Contribution[float64], error) {
	g := r.c * ybar[0]
	if r.split {
		dst = append(dst, cr.Contribution[float64]{Node: r.in[0], Value: g / 2}, cr.Contribution[float64]{Node: r.in[0], Value: g / 2})
	} else {
		dst = append(dst, cr.Contribution[float64]{Node: r.in[0], Value: g})
	}
	if !r.omit {
		dst = append(dst, cr.Contribution[float64]{Node: r.in[1], Value: 0})
	}
	return dst, nil
}

func pairOp(omit, split bool) cr.Op[float64] {
	return cr.OpFunc[float64]{OpName: "sin_of_first", F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
		return math.Sin(x[0]), &pairRule{in: append([]cr.NodeID(nil), in...), c: math.Cos(x[0]), omit: omit, split: split}, nil
	}}
}

// Exactly one contribution per differentiable input: none for x1 (whose true
// cotangent is zero), or two for x0 (which sum to the right one), is a structure
// failure and nothing else.
func TestStructureCountsContributions(t *testing.T) {
	x := []float64{0.7, -0.3}
	require.NoError(t, ruletest.Verify(cr.Float64Space{}, pairOp(false, false), x, ruletest.Config{}))
	for _, c := range []struct {
		name        string
		omit, split bool
		text        string
	}{{"none for x1", true, false, "none for differentiable input x1"}, {"two for x0", false, true, "2 contributions for x0"}} {
		err := ruletest.Verify(cr.Float64Space{}, pairOp(c.omit, c.split), x, ruletest.Config{})
		assert.Equal(t, []string{ruletest.CheckStructure}, failedChecks(t, err), c.name)
		assert.ErrorContains(t, err, c.text, c.name)
	}
}

// ---- a float32 value type: the loosest tolerances of the inputs' dtypes ----

// f32Space is float32 scalars, computed in float32.
type f32Space struct{}

func (f32Space) Zero(float32) float32                     { return 0 }
func (f32Space) One(float32) (float32, error)             { return 1, nil }
func (f32Space) Add(a, b float32) (float32, error)        { return a + b, nil }
func (f32Space) Accumulate(a, b float32) (float32, error) { return a + b, nil }
func (f32Space) Scale(a float32, s float64) float32       { return float32(s) * a }
func (f32Space) Inner(a, b float32) (float64, error)      { return float64(a) * float64(b), nil }
func (f32Space) Clone(v float32) float32                  { return v }
func (f32Space) Shape(float32) []int                      { return nil }
func (f32Space) Size(float32) int                         { return 1 }
func (f32Space) DType(float32) string                     { return "float32" }
func (f32Space) Describe(float32) string                  { return "float32[]" }
func (f32Space) Rand(_ float32, r *rand.Rand) float32     { return float32(r.NormFloat64()) }

type sin32Rule struct {
	in []cr.NodeID
	c  float32
}

func (r *sin32Rule) Inputs() []cr.NodeID { return r.in }
func (r *sin32Rule) Pullback(ybar []float32, _ []bool, dst []cr.Contribution[float32]) ([]cr.Contribution[float32], error) {
	return append(dst, cr.Contribution[float32]{Node: r.in[0], Value: r.c * ybar[0]}), nil
}

// A correct float32 rule passes with the float32 defaults, which finite
// differences in float32 need (the float64 ones would reject it).
func TestFloat32RuleGetsFloat32Tolerances(t *testing.T) {
	sin32 := cr.OpFunc[float32]{OpName: "sin32", F: func(in []cr.NodeID, x []float32) (float32, cr.Rule[float32], error) {
		return float32(math.Sin(float64(x[0]))), &sin32Rule{in: append([]cr.NodeID(nil), in...), c: float32(math.Cos(float64(x[0])))}, nil
	}}
	assert.NoError(t, ruletest.Verify(f32Space{}, sin32, []float32{0.7}, ruletest.Config{}))
}

// ---- the full Jacobian check and its size bound ----

// nearIDRule is y = x (8 elements) whose pullback is off by 1.5e-6 (relative) in
// one element: within the tolerance of an inner product with unit directions,
// beyond that of the entry itself.
type nearIDRule struct{ in []cr.NodeID }

func (r nearIDRule) Inputs() []cr.NodeID { return r.in }
func (r nearIDRule) Pullback(ybar []*tensor.Dense, _ []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	g := ybar[0].Clone()
	g.Float64s()[0] *= 1 + 1.5e-6
	return append(dst, cr.Contribution[*tensor.Dense]{Node: r.in[0], Value: g}), nil
}

var nearID = cr.OpFunc[*tensor.Dense]{OpName: "near_identity", F: func(in []cr.NodeID, x []*tensor.Dense) (*tensor.Dense, cr.Rule[*tensor.Dense], error) {
	return x[0].Clone(), nearIDRule{in: append([]cr.NodeID(nil), in...)}, nil
}}

// The Jacobian check runs when the elements of the inputs and outputs number at
// most FullJacobianMaxSize (16 here), and compares entries one by one.
func TestFullJacobianRunsUpToItsBound(t *testing.T) {
	x := []*tensor.Dense{randT(tensor.Float64, 8)}
	err := ruletest.Verify(tensor.Space{}, nearID, x, ruletest.Config{FullJacobianMaxSize: 16})
	assert.Equal(t, []string{ruletest.CheckJacobian}, failedChecks(t, err))
	assert.NoError(t, ruletest.Verify(tensor.Space{}, nearID, x, ruletest.Config{FullJacobianMaxSize: 15}))
}

// ---- the forward-adjoint check is exact ----

// A forward tangent off by 1e-9 (relative) agrees with finite differences but not
// with the pullback: only forward-adjoint, which compares two exact products with
// the exact tolerances, sees it.
func TestForwardAdjointUsesTheExactTolerances(t *testing.T) {
	op := sinFirstOrder(nil)
	skewed := cr.OpFunc[float64]{OpName: "sin", F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
		y := make([]float64, 1)
		r, err := op.Apply(in, x, y)
		return y[0], skewedForward{r, math.Cos(x[0]) * (1 + 1e-9)}, err
	}}
	err := ruletest.Verify(cr.Float64Space{}, skewed, []float64{0.7}, ruletest.Config{})
	assert.Equal(t, []string{ruletest.CheckForwardAdjoint}, failedChecks(t, err))
}

type skewedForward struct {
	cr.Rule[float64]
	d float64
}

func (r skewedForward) Forward(tan cr.TangentOf[float64], ydot []float64, has []bool) error {
	xd, ok := tan(r.Inputs()[0])
	ydot[0], has[0] = r.d*xd, ok
	return nil
}

// ---- the directions have unit norm ----

// spyMul is y = a b whose forward rule records the norm of the tangents it gets.
type spyMul struct {
	in    []cr.NodeID
	a, b  float64
	norms *[]float64
}

func (r spyMul) Inputs() []cr.NodeID { return r.in }
func (r spyMul) Pullback(ybar []float64, _ []bool, dst []cr.Contribution[float64]) ([]cr.Contribution[float64], error) {
	return append(dst, cr.Contribution[float64]{Node: r.in[0], Value: r.b * ybar[0]}, cr.Contribution[float64]{Node: r.in[1], Value: r.a * ybar[0]}), nil
}
func (r spyMul) Forward(tan cr.TangentOf[float64], ydot []float64, has []bool) error {
	ad, okA := tan(r.in[0])
	bd, okB := tan(r.in[1])
	*r.norms = append(*r.norms, math.Hypot(ad, bd))
	ydot[0], has[0] = r.b*ad+r.a*bd, okA || okB
	return nil
}

// Every direction the checker hands a forward rule, one input at a time or all
// together, has unit norm, so that the absolute tolerances mean the same
// everywhere.
func TestForwardDirectionsHaveUnitNorm(t *testing.T) {
	var norms []float64
	op := cr.OpFunc[float64]{OpName: "mul", F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
		return x[0] * x[1], spyMul{in: append([]cr.NodeID(nil), in...), a: x[0], b: x[1], norms: &norms}, nil
	}}
	require.NoError(t, ruletest.Verify(cr.Float64Space{}, op, []float64{1.3, -0.4}, ruletest.Config{}))
	require.NotEmpty(t, norms)
	for i, n := range norms {
		assert.InDelta(t, 1, n, 1e-12, "forward call %d", i)
	}
}

// ---- the worst element of a failing complex gradient ----

// A failing adjoint check on a complex input reports the worst element of J* ybar
// against the finite-difference gradient, whose imaginary part comes from the
// imaginary unit direction: for exp without its conjugate, got = e^x ybar and want
// = conj(e^x) ybar, of the same modulus.
func TestWorstElementOfAComplexGradient(t *testing.T) {
	err := ruletest.Verify(tensor.Space{}, expOp(func(r *expRule) { r.noConj = true }, true),
		[]*tensor.Dense{randT(tensor.Complex128, 2, 3)}, ruletest.Config{})
	var adj *ruletest.Failure
	for _, f := range failures(t, err) {
		if f.Check == ruletest.CheckAdjointFD {
			adj = f
		}
	}
	require.NotNil(t, adj, "%v", err)
	require.True(t, adj.HasValues, "%v", adj)
	assert.NotZero(t, imag(adj.Want))
	assert.InDelta(t, cmplx.Abs(adj.Got), cmplx.Abs(adj.Want), 1e-6*cmplx.Abs(adj.Got), "%v", adj)
}

// ---- NaN and infinities in comparisons ----

// nanTangentRule is y = x (3 elements) whose forward tangent is NaN in element 0.
type nanTangentRule struct{ in []cr.NodeID }

func (r nanTangentRule) Inputs() []cr.NodeID { return r.in }
func (r nanTangentRule) Pullback(ybar []*tensor.Dense, _ []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	return append(dst, cr.Contribution[*tensor.Dense]{Node: r.in[0], Value: ybar[0]}), nil
}
func (r nanTangentRule) Forward(tan cr.TangentOf[*tensor.Dense], ydot []*tensor.Dense, has []bool) error {
	v, ok := tan(r.in[0])
	if !ok {
		return nil
	}
	d := v.Clone()
	d.Float64s()[0] = math.NaN()
	ydot[0], has[0] = d, true
	return nil
}

// A NaN element of a tangent fails the elementwise comparison with finite
// differences (a NaN difference is the worst), not only the inner products.
func TestNaNElementFailsTheElementwiseComparison(t *testing.T) {
	op := cr.OpFunc[*tensor.Dense]{OpName: "nan_tangent", F: func(in []cr.NodeID, x []*tensor.Dense) (*tensor.Dense, cr.Rule[*tensor.Dense], error) {
		return x[0].Clone(), nanTangentRule{in: append([]cr.NodeID(nil), in...)}, nil
	}}
	err := ruletest.Verify(tensor.Space{}, op, []*tensor.Dense{randT(tensor.Float64, 3)}, ruletest.Config{})
	assert.Contains(t, failedChecks(t, err), ruletest.CheckForwardFD, "%v", err)
}

// flagged is y0 = x and a non-differentiable y1 = [+Inf, k], with k the number of
// Apply calls when counting is set (a non-deterministic primal), else 1.
type flagged struct {
	counting bool
	calls    *int
}

func (flagged) Name() string                    { return "flagged" }
func (flagged) NumOutputs() int                 { return 2 }
func (flagged) Differentiable(int) bool         { return true }
func (flagged) OutputDifferentiable(m int) bool { return m == 0 }
func (o flagged) Apply(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	k := 1.0
	if o.counting {
		*o.calls++
		k = float64(*o.calls)
	}
	flag, err := tensor.FromFloat64([]float64{math.Inf(1), k}, 2)
	if err != nil {
		return nil, err
	}
	y[0], y[1] = x[0].Clone(), flag
	return flaggedRule{in: append([]cr.NodeID(nil), in...), like: x[0]}, nil
}

type flaggedRule struct {
	in   []cr.NodeID
	like *tensor.Dense
}

func (r flaggedRule) Inputs() []cr.NodeID { return r.in }
func (r flaggedRule) Pullback(ybar []*tensor.Dense, has []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	g := tensor.New(tensor.Float64, r.like.Shape()...)
	if has[0] {
		g = ybar[0]
	}
	return append(dst, cr.Contribution[*tensor.Dense]{Node: r.in[0], Value: g}), nil
}

// Equal infinities are equal: an output holding +Inf passes the primal check. And
// an infinite element does not widen the tolerance of the others: a primal that
// changes from call to call next to it fails.
func TestInfiniteElementsInThePrimalCheck(t *testing.T) {
	x := []*tensor.Dense{randT(tensor.Float64, 2)}
	assert.NoError(t, ruletest.Verify(tensor.Space{}, flagged{}, x, ruletest.Config{}))
	calls := 0
	err := ruletest.Verify(tensor.Space{}, flagged{counting: true, calls: &calls}, x, ruletest.Config{})
	assert.Contains(t, failedChecks(t, err), ruletest.CheckPrimal, "%v", err)
}

// cbrtAt0 is cbrt at 0, whose derivative is +Inf: xbar = Inf ybar, ydot = Inf xdot.
type cbrtRule struct{ in []cr.NodeID }

func (r cbrtRule) Inputs() []cr.NodeID { return r.in }
func (r cbrtRule) Pullback(ybar []float64, _ []bool, dst []cr.Contribution[float64]) ([]cr.Contribution[float64], error) {
	return append(dst, cr.Contribution[float64]{Node: r.in[0], Value: math.Inf(1) * ybar[0]}), nil
}
func (r cbrtRule) Forward(tan cr.TangentOf[float64], ydot []float64, has []bool) error {
	xd, ok := tan(r.in[0])
	ydot[0], has[0] = math.Inf(1)*xd, ok
	return nil
}

// The forward-adjoint check compares <ybar, ydot> with <xbar, v>: both are the
// same infinity at a point of infinite slope, which is agreement.
func TestForwardAdjointEqualInfinities(t *testing.T) {
	op := cr.OpFunc[float64]{OpName: "cbrt", F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
		return math.Cbrt(x[0]), cbrtRule{in: append([]cr.NodeID(nil), in...)}, nil
	}}
	err := ruletest.Verify(cr.Float64Space{}, op, []float64{0}, ruletest.Config{NoFiniteDifferences: true})
	assert.NotContains(t, failedChecks(t, err), ruletest.CheckForwardAdjoint, "%v", err)
}

// ---- the fourth order and the orders proven ----

// trigScaled is trigOps(false) with the fourth derivative of sin off by the factor
// 1 + delta: the pullback of -cos is (1 + delta) sin.
func trigScaled(delta float64) cr.Op[float64] {
	f64 := cr.Float64Space{}
	var mul cr.Op[float64]
	mul = core.Define(core.Def[float64]{Name: "mul", Space: f64, Arity: 2,
		Primal: func(x []float64) ([]float64, error) { return []float64{x[0] * x[1]}, nil },
		Pullback: func(t *core.Tape[float64], x, _, ybar []cr.NodeID) []cr.NodeID {
			return []cr.NodeID{t.Apply(mul, ybar[0], x[1]), t.Apply(mul, ybar[0], x[0])}
		}})
	var trig func(k int) cr.Op[float64]
	trig = func(k int) cr.Op[float64] {
		k %= 4
		return core.Define(core.Def[float64]{Name: [...]string{"sin", "cos", "neg_sin", "neg_cos"}[k], Space: f64, Arity: 1,
			Primal: func(x []float64) ([]float64, error) {
				s, c := math.Sincos(x[0])
				return []float64{[...]float64{s, c, -s, -c}[k]}, nil
			},
			Pullback: func(t *core.Tape[float64], x, _, ybar []cr.NodeID) []cr.NodeID {
				g := t.Apply(mul, t.Apply(trig(k+1), x[0]), ybar[0])
				if k == 3 {
					g = t.Apply(mul, t.Constant(1+delta), g)
				}
				return []cr.NodeID{g}
			}})
	}
	return trig(0)
}

// The fourth derivative is held to ten times rtol (the nested differences lose
// accuracy), not looser: an error of 1e-3 fails recorded-fourth alone.
func TestRecordedFourthTolerance(t *testing.T) {
	f64 := cr.Float64Space{}
	require.NoError(t, ruletest.Verify(f64, trigScaled(0), []float64{0.7}, ruletest.Config{}))
	err := ruletest.Verify(f64, trigScaled(1e-3), []float64{0.7}, ruletest.Config{})
	assert.Equal(t, []string{ruletest.CheckRecordedFourth}, failedChecks(t, err))
}

// Orders reports, per family, the highest order whose checks all pass: 0 when the
// pullback fails, 1 when the second-order rule does, 2 without a recorded pullback,
// 3 when the fourth derivative through it fails, 4 when all pass.
func TestOrdersStopBelowTheFirstFailure(t *testing.T) {
	for _, c := range []struct {
		name            string
		op              cr.Op[float64]
		forward, second bool
		want            int
	}{
		{"sign flip", sinFirstOrder(func(r *scalarRule) { r.signFlip = true }), false, false, 0},
		{"wrong second order", sinOp(func(r *scalarRule) { r.wrongSecond = true }), true, true, 1},
		{"no recorded pullback", sinOp(nil), true, true, 2},
		{"wrong fourth", trigOps(true), true, true, 3},
		{"right to order 4", trigOps(false), true, true, 4},
	} {
		reg := cr.NewRegistry[float64]()
		op := c.op
		require.NoError(t, reg.Register(cr.Entry[float64]{Name: "sin", Arity: 1, DTypes: []string{"float64"}, Forward: c.forward, SecondOrder: c.second,
			Samples: func(*rand.Rand) []cr.Sample[float64] {
				return []cr.Sample[float64]{{Op: op, Inputs: []float64{0.7}}}
			}}))
		assert.Equal(t, map[string]int{"sin": c.want}, ruletest.Orders[float64](cr.Float64Space{}, reg, ruletest.Config{}), c.name)
	}
}

// Directions 0 means the default, 2: the checker makes the same calls as with
// Directions 2, more than with 1.
func TestDefaultDirections(t *testing.T) {
	calls := func(d int) int {
		var norms []float64
		op := cr.OpFunc[float64]{OpName: "mul", F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
			return x[0] * x[1], spyMul{in: append([]cr.NodeID(nil), in...), a: x[0], b: x[1], norms: &norms}, nil
		}}
		require.NoError(t, ruletest.Verify(cr.Float64Space{}, op, []float64{1.3, -0.4}, ruletest.Config{Directions: d}))
		return len(norms)
	}
	assert.Equal(t, calls(2), calls(0))
	assert.Less(t, calls(1), calls(0))
}

// ---- a value type without element access ----

// vec is a float64 vector whose space has no element access (no
// ruletest.ElementSpace): the checker compares norms.
type vec []float64

type vecSpace struct{}

func (vecSpace) Zero(v vec) vec            { return make(vec, len(v)) }
func (vecSpace) One(v vec) (vec, error)    { return nil, cr.ErrNonScalarLoss }
func (vecSpace) Add(a, b vec) (vec, error) { return vecSpace{}.Accumulate(slicesClone(a), b) }
func (vecSpace) Accumulate(a, b vec) (vec, error) {
	for i := range a {
		a[i] += b[i]
	}
	return a, nil
}
func (vecSpace) Scale(a vec, s float64) vec {
	out := make(vec, len(a))
	for i, v := range a {
		out[i] = s * v
	}
	return out
}
func (vecSpace) Inner(a, b vec) (float64, error) {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s, nil
}
func (vecSpace) Clone(v vec) vec       { return slicesClone(v) }
func (vecSpace) Shape(v vec) []int     { return []int{len(v)} }
func (vecSpace) Size(v vec) int        { return len(v) }
func (vecSpace) DType(vec) string      { return "float64" }
func (vecSpace) Describe(v vec) string { return "vec" }
func (vecSpace) Rand(v vec, r *rand.Rand) vec {
	out := make(vec, len(v))
	for i := range out {
		out[i] = r.NormFloat64()
	}
	return out
}

func slicesClone(v vec) vec { return append(vec(nil), v...) }

// twiceRule is y = 2 x with a pullback offset by off in every element.
type twiceRule struct {
	in  []cr.NodeID
	off float64
}

func (r twiceRule) Inputs() []cr.NodeID { return r.in }
func (r twiceRule) Pullback(ybar []vec, _ []bool, dst []cr.Contribution[vec]) ([]cr.Contribution[vec], error) {
	g := vecSpace{}.Scale(ybar[0], 2)
	for i := range g {
		g[i] += r.off
	}
	return append(dst, cr.Contribution[vec]{Node: r.in[0], Value: g}), nil
}

// Without element access the absolute tolerance grows with sqrt(n), the norm of a
// vector of n elements each within it: a pullback of the zero cotangent that is
// 5e-13 in each of 100 elements (norm 5e-12) is not zero within ExactAtol 1e-13.
func TestNormComparisonAbsoluteTolerance(t *testing.T) {
	twice := func(off float64) cr.Op[vec] {
		return cr.OpFunc[vec]{OpName: "twice", F: func(in []cr.NodeID, x []vec) (vec, cr.Rule[vec], error) {
			return vecSpace{}.Scale(x[0], 2), twiceRule{in: append([]cr.NodeID(nil), in...), off: off}, nil
		}}
	}
	x := []vec{vecSpace{}.Rand(make(vec, 100), rng())}
	require.NoError(t, ruletest.Verify(vecSpace{}, twice(0), x, ruletest.Config{}))
	require.NoError(t, ruletest.Verify(vecSpace{}, twice(5e-15), x, ruletest.Config{}), "within 1e-13 sqrt(100)")
	err := ruletest.Verify(vecSpace{}, twice(5e-13), x, ruletest.Config{})
	assert.Equal(t, []string{ruletest.CheckZeroCotangent}, failedChecks(t, err))
}

// ---- contracts: masked ops, retained slices, kinks ----

// omitMul is maskedMul whose masked rule, when a is not needed, also leaves out b's
// contribution. At a = 0 that contribution is zero, so only the count shows it.
type omitMul struct{ maskedMul }

func (o omitMul) ApplyMasked(in []cr.NodeID, x, y []float64, need []bool) (cr.Rule[float64], error) {
	r, err := o.maskedMul.ApplyMasked(in, x, y, need)
	if err == nil && !need[0] {
		r.(*maskedMulRule).need = []bool{false, false}
	}
	return r, err
}

// A masked rule owes exactly one contribution to every needed input, even a zero
// one.
func TestMaskedCheckCountsNeededContributions(t *testing.T) {
	err := ruletest.Verify(cr.Float64Space{}, omitMul{}, []float64{0, -0.4}, ruletest.Config{})
	assert.Equal(t, []string{ruletest.CheckMasked}, failedChecks(t, err))
	assert.ErrorContains(t, err, "returned 0 contributions for x1")
}

// keepInOnlyRule keeps the slice in for Inputs but names its contributions from a
// copy: only Inputs changes when the caller overwrites the slice.
type keepInOnlyRule struct {
	in, ids []cr.NodeID
	c       float64
}

func (r keepInOnlyRule) Inputs() []cr.NodeID { return r.in }
func (r keepInOnlyRule) Pullback(ybar []float64, _ []bool, dst []cr.Contribution[float64]) ([]cr.Contribution[float64], error) {
	return append(dst, cr.Contribution[float64]{Node: r.ids[0], Value: r.c * ybar[0]}), nil
}

// A rule whose Inputs change when the caller reuses the slice it passed to Apply
// fails the retain check.
func TestRetainSeesInputsThatChange(t *testing.T) {
	op := cr.OpFunc[float64]{OpName: "keepinputs", F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
		return math.Sin(x[0]), keepInOnlyRule{in: in, ids: append([]cr.NodeID(nil), in...), c: math.Cos(x[0])}, nil
	}}
	err := ruletest.Verify(cr.Float64Space{}, op, []float64{0.7}, ruletest.Config{})
	assert.Equal(t, []string{ruletest.CheckRetain}, failedChecks(t, err))
}

// reluOne is a first-order relu taking the subgradient 1 at 0.
var reluOne = cr.OpFunc[float64]{OpName: "relu", F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
	d := 0.0
	if x[0] >= 0 {
		d = 1
	}
	return max(x[0], 0), firstOrder[float64]{&scalarRule{in: append([]cr.NodeID(nil), in...), d1: d}}, nil
}}

// At a kink, the pullback is compared with the documented one (here the only
// documented rule, of a first-order op); a documented pullback with too few values
// is a failure, not a panic.
func TestKinkPullbackIsCompared(t *testing.T) {
	kink := &ruletest.Kink[float64]{Reason: "relu at 0: subgradient 0",
		Pullback: func(float64) ([]float64, error) { return []float64{0}, nil }}
	err := ruletest.Verify(cr.Float64Space{}, reluOne, []float64{0}, ruletest.Config{Kink: kink})
	assert.Equal(t, []string{ruletest.CheckKink}, failedChecks(t, err))

	short := &ruletest.Kink[float64]{Reason: "relu at 0",
		Pullback: func(float64) ([]float64, error) { return nil, nil }}
	err = ruletest.Verify(cr.Float64Space{}, reluFirstOrder, []float64{0}, ruletest.Config{Kink: short})
	assert.Equal(t, []string{ruletest.CheckKink}, failedChecks(t, err))
	assert.ErrorContains(t, err, "returned 0 values")
}

// A kink that documents only the pullback leaves the forward rule to the other
// checks; a documented JVP is compared with the forward rule.
func TestKinkJVPOnlyWhenDocumented(t *testing.T) {
	pullbackOnly := &ruletest.Kink[float64]{Reason: "relu at 0: subgradient 0",
		Pullback: func(float64) ([]float64, error) { return []float64{0}, nil }}
	assert.NoError(t, ruletest.Verify(cr.Float64Space{}, reluOp(false), []float64{0}, ruletest.Config{Kink: pullbackOnly}))

	jvpOne := &ruletest.Kink[float64]{Reason: "relu at 0: derivative 1",
		JVP: func(xdot []float64) (float64, error) { return xdot[0], nil }}
	err := ruletest.Verify(cr.Float64Space{}, reluOp(false), []float64{0}, ruletest.Config{Kink: jvpOne})
	assert.Equal(t, []string{ruletest.CheckKink}, failedChecks(t, err))
	assert.ErrorContains(t, err, "Kink.JVP")
}
