package core_test

import (
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
)

// here returns "dir/file:line" of its caller, as anomaly sites name it.
func here() string {
	_, file, line, _ := runtime.Caller(1)
	return fmt.Sprintf("%s/%s:%d", filepath.Base(filepath.Dir(file)), filepath.Base(file), line)
}

func anomalyTape(t *testing.T) *core.Tape[float64] {
	tp := newTape()
	require.NoError(t, tp.DetectAnomaly(true))
	require.True(t, tp.AnomalyMode())
	return tp
}

func requireOpError(t *testing.T, err error, op, node, phase, site string) {
	t.Helper()
	require.ErrorIs(t, err, cr.ErrNonFinite)
	var oe *cr.OpError
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, op, oe.Op)
	assert.Equal(t, node, oe.Node.String())
	assert.Equal(t, phase, oe.Phase)
	assert.Contains(t, err.Error(), "recorded at "+site)
}

func TestAnomalyForwardValue(t *testing.T) {
	tp := anomalyTape(t)
	x := tp.Leaf(-1)
	y, site := tp.Apply(logOp, x), here()
	assert.False(t, y.Valid())
	requireOpError(t, tp.Err(), "log", "%1", "apply", site)

	t.Run("off", func(t *testing.T) {
		tp := newTape()
		y := tp.Apply(logOp, tp.Leaf(-1))
		require.NoError(t, tp.Err(), "without anomaly mode NaN is recorded silently")
		v, _ := tp.Value(y)
		assert.True(t, math.IsNaN(v))
	})
	t.Run("leaf and constant", func(t *testing.T) {
		tp := anomalyTape(t)
		tp.Leaf(1)
		_, site := tp.Constant(math.Inf(1)), here()
		requireOpError(t, tp.Err(), core.ConstantName, "%1", "apply", site)
	})
}

func TestAnomalyBackward(t *testing.T) {
	// y = sin(sqrt(x)) at x = 0: finite values, but sqrt's pullback gives an infinite
	// cotangent to x.
	tp := anomalyTape(t)
	x := tp.Leaf(0)
	s, site := tp.Apply(sqrtOp, x), here()
	y := tp.Apply(sinOp, s)
	require.NoError(t, tp.Err())
	_, err := tp.Backward(y)
	requireOpError(t, err, "sqrt", "%1", "pullback", site)
	assert.ErrorContains(t, err, "cotangent of input %0")

	tan, err := tp.ForwardTangents(map[cr.NodeID]float64{x: 1})
	requireOpError(t, err, "sqrt", "%1", "forward", site)
	assert.Nil(t, tan)

	t.Run("second order", func(t *testing.T) {
		tan, err := tp.ForwardTangents(nil)
		require.NoError(t, err)
		_, _, err = tp.BackwardWithTangents(y, tan)
		requireOpError(t, err, "sqrt", "%1", "pullback", site)
		_, _, err = tp.BackwardWithTangentsSeed(y, cr.Dual[float64]{Value: 1, Tangent: 1, HasTangent: true}, tan)
		requireOpError(t, err, "sqrt", "%1", "second-order", site)
	})
	t.Run("off", func(t *testing.T) {
		require.NoError(t, tp.DetectAnomaly(false))
		g, err := tp.Backward(y)
		require.NoError(t, err)
		gx, _ := g.Of(x)
		assert.True(t, math.IsInf(gx, 1), "the infinity passes silently")
	})
	t.Run("accumulated overflow", func(t *testing.T) {
		// y = (1e308 x) * (x + 0) at x = 1: both contributions to x are 1e308, their
		// sum is infinite.
		tp := anomalyTape(t)
		x, site := tp.Leaf(1), here()
		y := tp.Apply(mulOp, tp.Apply(scaleOp(1e308), x), tp.Apply(shiftOp(0), x))
		_, err := tp.Backward(y)
		requireOpError(t, err, core.LeafName, "%0", "backward", site)
	})
	t.Run("hook result", func(t *testing.T) {
		tp := anomalyTape(t)
		x, site := tp.Leaf(2), here()
		require.NoError(t, tp.AddHook(x, func(float64) (float64, error) { return math.NaN(), nil }))
		_, err := tp.Backward(tp.Apply(sinOp, x))
		requireOpError(t, err, core.LeafName, "%0", "backward", site)
	})
}

// checkedSpace counts the IsFinite calls, to show that a Space's own check is used.
type checkedSpace struct {
	cr.Float64Space
	calls *int
}

func (s checkedSpace) IsFinite(v float64) bool {
	*s.calls++
	return !math.IsNaN(v) && !math.IsInf(v, 0)
}

// vec is a value type the engine cannot check by itself.
type vec struct{ _ []float64 }

// complexSpace formats values for messages; the engine checks complex128 itself.
type complexSpace struct{ cr.Space[complex128] }

func (complexSpace) Describe(complex128) string { return "complex128[]" }

// vecSpace only needs to exist: DetectAnomaly inspects it and calls nothing.
type vecSpace struct{ cr.Space[vec] }

func TestAnomalyNeedsAChecker(t *testing.T) {
	calls := 0
	tp := core.NewTape[float64](checkedSpace{calls: &calls})
	require.NoError(t, tp.DetectAnomaly(true))
	tp.Apply(sinOp, tp.Leaf(1))
	assert.Equal(t, 2, calls)

	vt := core.NewTape[vec](vecSpace{})
	err := vt.DetectAnomaly(true)
	assert.ErrorIs(t, err, cr.ErrNoRule)
	assert.ErrorContains(t, err, "IsFinite")
	assert.False(t, vt.AnomalyMode())

	ct := core.NewTape[complex128](complexSpace{})
	require.NoError(t, ct.DetectAnomaly(true))
	ct.Leaf(complex(1, math.NaN()))
	assert.ErrorIs(t, ct.Err(), cr.ErrNonFinite)
}
