package elementwise_test

import (
	"math"
	"math/cmplx"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/internal/recordtest"
	"github.com/chainrules-go/chainrules/tensor"
)

// pointCase is an op at float64 points, with the expected values and first
// derivatives (nil: not checked).
type pointCase struct {
	name   string
	op     cr.Op[*tensor.Dense]
	x      []float64
	y, dy  []float64
	tol    float64 // relative; 0 means 1e-14
	second []float64
}

// TestLogaddexpNoOverflow: log(e^a + e^b) for large, equal and infinite arguments.
func TestLogaddexpNoOverflow(t *testing.T) {
	a, _ := tensor.FromFloat64([]float64{1000, -1000, 0, math.Inf(1), math.Inf(-1)}, 5)
	b, _ := tensor.FromFloat64([]float64{1000, -1001, 0, math.Inf(1), math.Inf(-1)}, 5)
	y, err := elementwise.Logaddexp(a, b)
	require.NoError(t, err)
	want := []float64{1000 + math.Ln2, -1000 + math.Log1p(math.Exp(-1)), math.Ln2, math.Inf(1), math.Inf(-1)}
	for i, w := range want {
		assert.InDelta(t, w, y.Float64s()[i], 1e-12*math.Max(1, math.Abs(w)), "element %d", i)
	}
}

const (
	eulerGamma = 0.57721566490153286060651209008240243
	apery      = 1.2020569031595942853997381615114499 // zeta(3)
)

// TestCataloguePoints checks values and derivatives of the catalogue ops at points
// chosen for their conventions: halves and jumps of the rounding functions, NaN and
// infinities, kinks of the activations, poles of the special functions.
func TestCataloguePoints(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	cases := []pointCase{
		{name: "round halves to even", op: elementwise.RoundOp, x: []float64{0.5, 1.5, 2.5, -0.5, -2.7},
			y: []float64{0, 2, 2, 0, -3}, dy: []float64{0, 0, 0, 0, 0}},
		{name: "round 2 decimals", op: elementwise.RoundDecimalsOp(2), x: []float64{1.234, -0.125, 2.5},
			y: []float64{1.23, -0.12, 2.5}, dy: []float64{0, 0, 0}},
		{name: "round -2 decimals", op: elementwise.RoundDecimalsOp(-2), x: []float64{1234, 250, -351},
			y: []float64{1200, 200, -400}},
		{name: "ceil", op: elementwise.CeilOp, x: []float64{-1.5, 0, 1.2}, y: []float64{-1, 0, 2}, dy: []float64{0, 0, 0}},
		{name: "floor", op: elementwise.FloorOp, x: []float64{-1.5, 0, 1.2}, y: []float64{-2, 0, 1}, dy: []float64{0, 0, 0}},
		{name: "trunc", op: elementwise.TruncOp, x: []float64{-1.5, 0, 1.7}, y: []float64{-1, 0, 1}, dy: []float64{0, 0, 0}},
		{name: "frac keeps the sign", op: elementwise.FracOp, x: []float64{-1.25, 2.5, 3}, y: []float64{-0.25, 0.5, 0}, dy: []float64{1, 1, 1}},
		{name: "sign", op: elementwise.SignOp, x: []float64{-3, 0, 2}, y: []float64{-1, 0, 1}, dy: []float64{0, 0, 0}},
		{name: "nan_to_num", op: elementwise.NanToNumOp, x: []float64{nan, inf, -inf, 1.5},
			y: []float64{0, math.MaxFloat64, -math.MaxFloat64, 1.5}, dy: []float64{0, 0, 0, 1}},
		{name: "nan_to_num values", op: elementwise.NanToNumValuesOp(-1, 5, -5), x: []float64{nan, inf, -inf},
			y: []float64{-1, 5, -5}},
		{name: "sinc at 0 and near it", op: elementwise.SincOp, x: []float64{0, 1e-9, 0.5, 1},
			y: []float64{1, 1, 2 / math.Pi, math.Sin(math.Pi) / math.Pi}, dy: []float64{0, -math.Pi * math.Pi * 1e-9 / 3, -4 / math.Pi, -1},
			second: []float64{-math.Pi * math.Pi / 3, -math.Pi * math.Pi / 3, (16 - 2*math.Pi*math.Pi) / math.Pi, 2}, tol: 1e-12},
		{name: "exp2", op: elementwise.Exp2Op, x: []float64{-1, 0, 10}, y: []float64{0.5, 1, 1024},
			dy: []float64{0.5 * math.Ln2, math.Ln2, 1024 * math.Ln2}},
		{name: "logit clamps with eps", op: elementwise.LogitEpsOp(0.2), x: []float64{0.1, 0.5, 0.95},
			y: []float64{math.Log(0.25), 0, math.Log(4)}, dy: []float64{0, 4, 0}, tol: 1e-15},
		{name: "logit without eps is NaN outside [0, 1]", op: elementwise.LogitOp, x: []float64{-0.5, 0.25},
			y: []float64{nan, math.Log(1.0 / 3)}, dy: []float64{nan, 1 / 0.1875}},
		{name: "elu at its kink", op: elementwise.EluAlphaOp(2), x: []float64{-1, 0, 1},
			y: []float64{2 * math.Expm1(-1), 0, 1}, dy: []float64{2 * math.Exp(-1), 2, 1}, second: []float64{2 * math.Exp(-1), 2, 0}},
		{name: "celu", op: elementwise.CeluAlphaOp(2), x: []float64{-2, 0, 1},
			y: []float64{2 * math.Expm1(-1), 0, 1}, dy: []float64{math.Exp(-1), 1, 1}, second: []float64{math.Exp(-1) / 2, 0.5, 0}},
		{name: "hardshrink ends", op: elementwise.HardshrinkOp, x: []float64{-0.5, 0.5, 0.6, -0.7},
			y: []float64{0, 0, 0.6, -0.7}, dy: []float64{0, 0, 1, 1}},
		{name: "softshrink ends", op: elementwise.SoftshrinkOp, x: []float64{-0.5, 0.5, 0.75, -1},
			y: []float64{0, 0, 0.25, -0.5}, dy: []float64{0, 0, 1, 1}},
		{name: "hardtanh ends", op: elementwise.HardtanhOp, x: []float64{-1, 1, 0.5, 3},
			y: []float64{-1, 1, 0.5, 1}, dy: []float64{0, 0, 1, 0}},
		{name: "relu6 ends", op: elementwise.Relu6Op, x: []float64{0, 6, 3, 7},
			y: []float64{0, 6, 3, 6}, dy: []float64{0, 0, 1, 0}},
		{name: "hardsigmoid ends", op: elementwise.HardsigmoidOp, x: []float64{-3, 3, 0},
			y: []float64{0, 1, 0.5}, dy: []float64{0, 0, 1.0 / 6}},
		{name: "threshold", op: elementwise.ThresholdOp(1, -5), x: []float64{1, 2, 0},
			y: []float64{-5, 2, -5}, dy: []float64{0, 1, 0}},
		{name: "rrelu slope at 0", op: elementwise.RreluBoundsOp(0.1, 0.3), x: []float64{0, -2, 2},
			y: []float64{0, -0.4, 2}, dy: []float64{0.2, 0.2, 1}, tol: 1e-15},
		{name: "softsign", op: elementwise.SoftsignOp, x: []float64{0, 1, -3},
			y: []float64{0, 0.5, -0.75}, dy: []float64{1, 0.25, 1.0 / 16}, second: []float64{0, -0.25, 2.0 / 64}},
		{name: "digamma", op: elementwise.DigammaOp, x: []float64{1, 0.5, -0.5, 0, -2},
			y: []float64{-eulerGamma, -eulerGamma - 2*math.Ln2, 2 - eulerGamma - 2*math.Ln2, math.Inf(-1), nan},
			// psi(-0.5) is near the zero of psi at 1.46 after reflection: a few hundred ulps.
			dy: []float64{math.Pi * math.Pi / 6, math.Pi * math.Pi / 2, math.Pi*math.Pi/2 + 4}, tol: 1e-13},
		{name: "polygamma 2 at 1", op: elementwise.PolygammaOp(2), x: []float64{1},
			y: []float64{-2 * apery}, dy: []float64{math.Pow(math.Pi, 4) / 15}, tol: 1e-14},
		{name: "lgamma", op: elementwise.LgammaOp, x: []float64{0.5, 3, -0.5},
			y:  []float64{0.5 * math.Log(math.Pi), math.Ln2, math.Log(2 * math.Sqrt(math.Pi))},
			dy: []float64{-eulerGamma - 2*math.Ln2, 1.5 - eulerGamma, 2 - eulerGamma - 2*math.Ln2}, tol: 1e-13},
		{name: "mvlgamma outside its domain", op: elementwise.MvlgammaOp(3), x: []float64{1, 2},
			y: []float64{nan, 1.5*math.Log(math.Pi) + 0 + math.Log(math.Sqrt(math.Pi)/2) + 0}, tol: 1e-14},
		{name: "erfcx in the tail", op: elementwise.ErfcxOp, x: []float64{0, 30, 1e10},
			y: []float64{1, 0.018795888861416751, 1 / (1e10 * math.SqrtPi)}, tol: 1e-14},
		{name: "erfinv", op: elementwise.ErfinvOp, x: []float64{0, 0.5},
			y: []float64{0, 0.4769362762044699}, dy: []float64{math.SqrtPi / 2, math.SqrtPi / 2 * math.Exp(0.4769362762044699*0.4769362762044699)}, tol: 1e-14},
		{name: "ndtri", op: elementwise.NdtriOp, x: []float64{0.5, 0.975, 1e-300},
			y: []float64{0, 1.959963984540054, -37.0470962993611992}, tol: 1e-12},
		{name: "log_ndtr tails", op: elementwise.LogNdtrOp, x: []float64{-40, 10},
			y: []float64{-804.6084420137538, -7.61985302416047e-24}, dy: []float64{40.0249688472072637, 7.69459862670641935e-23}, tol: 1e-12},
		{name: "i0 and its derivatives at 0", op: elementwise.I0Op, x: []float64{0, 1},
			y: []float64{1, 1.2660658777520082}, dy: []float64{0, 0.5651591039924851}, second: []float64{0.5, 1.2660658777520082 - 0.5651591039924851}},
		{name: "i1 at 0", op: elementwise.I1Op, x: []float64{0, -1},
			y: []float64{0, -0.5651591039924851}, dy: []float64{0.5, 1.2660658777520082 - 0.5651591039924851}, second: []float64{0, -0.4294114342254467}, tol: 1e-13},
		{name: "i0e large", op: elementwise.I0eOp, x: []float64{1000, 0},
			y: []float64{0.0126172404558912566, 1}, dy: []float64{-6.310198962627115e-06, 0}, tol: 1e-12},
		{name: "i1e at 0", op: elementwise.I1eOp, x: []float64{0}, y: []float64{0}, dy: []float64{0.5}},
		{name: "entr", op: elementwise.EntrOp, x: []float64{0, 1, math.E, -1},
			y: []float64{0, 0, -math.E, math.Inf(-1)}, dy: []float64{math.Inf(1), -1, -2, nan}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkPoints(t, c) })
	}
}

func checkPoints(t *testing.T, c pointCase) {
	t.Helper()
	x, err := tensor.FromFloat64(c.x, len(c.x))
	require.NoError(t, err)
	y, rule, err := recordtest.Apply1(c.op, []cr.NodeID{cr.NewNodeID(1, 0)}, []*tensor.Dense{x})
	require.NoError(t, err)
	tol := c.tol
	if tol == 0 {
		tol = 1e-14
	}
	near := func(what string, got, want []float64) {
		for i := range want {
			if math.IsNaN(want[i]) {
				assert.True(t, math.IsNaN(got[i]), "%s at %v: got %v, want NaN", what, c.x[i], got[i])
				continue
			}
			assert.True(t, got[i] == want[i] || math.Abs(got[i]-want[i]) <= tol*math.Abs(want[i]),
				"%s at %v: got %v, want %v", what, c.x[i], got[i], want[i])
		}
	}
	if c.y != nil {
		near("value", y.Float64s(), c.y)
	}
	if c.dy != nil {
		cs, err := recordtest.Pullback1(rule, tensor.Ones(tensor.Float64, len(c.x)), nil)
		require.NoError(t, err)
		near("derivative", cs[0].Value.Float64s(), c.dy)
	}
	if c.second != nil {
		ones := tensor.Ones(tensor.Float64, len(c.x))
		cs, err := recordtest.SecondOrder1(rule, y, cr.Dual[*tensor.Dense]{Value: ones},
			func(cr.NodeID) (*tensor.Dense, bool) { return ones, true }, nil)
		require.NoError(t, err)
		near("second derivative", cs[0].Cotangent.Tangent.Float64s(), c.second)
	}
}

// TestSgnComplex checks sgn on complex128: z/|z|, 0 at 0 with a zero cotangent.
func TestSgnComplex(t *testing.T) {
	z, err := tensor.FromComplex128([]complex128{3 + 4i, 0}, 2)
	require.NoError(t, err)
	y, rule, err := recordtest.Apply1(elementwise.SgnOp, []cr.NodeID{cr.NewNodeID(1, 0)}, []*tensor.Dense{z})
	require.NoError(t, err)
	assert.InDelta(t, 0, cmplx.Abs(y.Complex128s()[0]-(0.6+0.8i)), 1e-15)
	assert.Equal(t, complex128(0), y.Complex128s()[1])
	cs, err := recordtest.Pullback1(rule, tensor.Ones(tensor.Complex128, 2), nil)
	require.NoError(t, err)
	assert.Equal(t, complex128(0), cs[0].Value.Complex128s()[1])
}

// TestBinaryTiesAndNaN: the cotangent routing of fmax, fmin, clamp_max, clamp_min
// and copysign at ties, NaN and zeros (PyTorch's masks).
func TestBinaryTiesAndNaN(t *testing.T) {
	nan := math.NaN()
	a, _ := tensor.FromFloat64([]float64{1, 2, nan, 3, 0}, 5)
	b, _ := tensor.FromFloat64([]float64{1, nan, 2, 0, -1}, 5)
	for _, c := range []struct {
		name   string
		op     cr.Op[*tensor.Dense]
		y      []float64
		ga, gb []float64
	}{
		{"fmax", elementwise.FmaxOp, []float64{1, 2, 2, 3, 0}, []float64{1, 1, 0, 1, 1}, []float64{0, 0, 1, 0, 0}},
		{"fmin", elementwise.FminOp, []float64{1, 2, 2, 0, -1}, []float64{1, 1, 0, 0, 0}, []float64{0, 0, 1, 1, 1}},
		{"clamp_max", elementwise.ClampMaxOp, []float64{1, nan, nan, 0, -1}, []float64{1, 0, 0, 0, 0}, []float64{0, 0, 0, 1, 1}},
		{"clamp_min", elementwise.ClampMinOp, []float64{1, nan, nan, 3, 0}, []float64{1, 0, 0, 1, 1}, []float64{0, 0, 0, 0, 0}},
		{"copysign", elementwise.CopysignOp, []float64{1, 2, nan, 3, math.Copysign(0, -1)}, []float64{1, 1, nan, 1, 0}, []float64{0, 0, 0, 0, 0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			y, rule, err := recordtest.Apply1(c.op, []cr.NodeID{cr.NewNodeID(1, 0), cr.NewNodeID(1, 1)}, []*tensor.Dense{a, b})
			require.NoError(t, err)
			cs, err := recordtest.Pullback1(rule, tensor.Ones(tensor.Float64, 5), nil)
			require.NoError(t, err)
			same := func(got, want []float64) {
				for i := range want {
					assert.True(t, got[i] == want[i] || (got[i] != got[i] && want[i] != want[i]), "element %d: got %v, want %v", i, got[i], want[i])
				}
			}
			same(y.Float64s(), c.y)
			same(cs[0].Value.Float64s(), c.ga)
			same(cs[1].Value.Float64s(), c.gb)
		})
	}
}

// TestPreluChannels: w of shape [C] scales dim 1; any other shape is an error.
func TestPreluChannels(t *testing.T) {
	a, _ := tensor.FromFloat64([]float64{-1, 2, -3, 4, -5, 6, -7, 8}, 2, 2, 2)
	w, _ := tensor.FromFloat64([]float64{0.5, 2}, 2)
	y, err := elementwise.Prelu(a, w)
	require.NoError(t, err)
	assert.Equal(t, []float64{-0.5, 2, -6, 4, -2.5, 6, -14, 8}, y.Float64s())
	_, rule, err := recordtest.Apply1(elementwise.PreluOp, []cr.NodeID{cr.NewNodeID(1, 0), cr.NewNodeID(1, 1)}, []*tensor.Dense{a, w})
	require.NoError(t, err)
	cs, err := recordtest.Pullback1(rule, tensor.Ones(tensor.Float64, 2, 2, 2), nil)
	require.NoError(t, err)
	assert.Equal(t, []int{2}, cs[1].Value.Shape())
	assert.Equal(t, []float64{-1 - 5, -3 - 7}, cs[1].Value.Float64s())
	bad, _ := tensor.FromFloat64([]float64{1, 2, 3}, 3)
	_, err = elementwise.Prelu(a, bad)
	require.ErrorIs(t, err, cr.ErrShapeMismatch)
}
