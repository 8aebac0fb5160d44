package elementwise_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/internal/recordtest"
	"github.com/chainrules-go/chainrules/tensor"
)

// TestIncompleteSpecs: a spec that lacks a derivative, or defines complex input
// twice, gives an op whose Apply reports ErrInvalidArgument (never a panic).
func TestIncompleteSpecs(t *testing.T) {
	f := func(x float64) float64 { return x }
	d := func(x, _ float64) float64 { return 1 }
	fc := func(z complex128) complex128 { return z }
	dc := func(z, _ complex128) complex128 { return 1 }
	g := func(a, b float64) float64 { return a }
	x := tensor.Ones(tensor.Float64, 2)
	for name, op := range map[string]cr.Op[*tensor.Dense]{
		"no D2":          elementwise.Unary("u", elementwise.UnarySpec{Real: elementwise.Func1[float64]{F: f, D1: d}}),
		"no complex D1":  elementwise.Unary("u", elementwise.UnarySpec{Complex: elementwise.Func1[complex128]{F: fc, D2: dc}}),
		"empty name":     elementwise.Unary("", elementwise.UnarySpec{Real: elementwise.Func1[float64]{F: f, D1: d, D2: d}}),
		"complex twice":  elementwise.Unary("u", elementwise.UnarySpec{Complex: elementwise.Func1[complex128]{F: fc, D1: dc, D2: dc}, ComplexToReal: elementwise.ComplexToReal{F: func(complex128) float64 { return 0 }, Grad: func(complex128) (float64, float64) { return 0, 0 }, Hess: func(complex128) (float64, float64, float64) { return 0, 0, 0 }}}),
		"promote alone":  elementwise.Unary("u", elementwise.UnarySpec{Real: elementwise.Func1[float64]{F: f, D1: d, D2: d}, Promote: true}),
		"binary no D2":   elementwise.Binary("b", elementwise.BinarySpec{Real: elementwise.Func2[float64]{F: g, D1: func(a, b, y float64) (float64, float64) { return 1, 0 }}}),
		"binary no name": elementwise.Binary("", elementwise.BinarySpec{}),
	} {
		t.Run(name, func(t *testing.T) {
			ids := []cr.NodeID{cr.NewNodeID(1, 0), cr.NewNodeID(1, 1)}
			xs := []*tensor.Dense{x, x}
			_, _, err := recordtest.Apply1(op, ids[:1], xs[:1])
			require.ErrorIs(t, err, cr.ErrInvalidArgument)
		})
	}
}

// TestUndefinedDTypes: input of a dtype the spec leaves out is an error naming the op.
func TestUndefinedDTypes(t *testing.T) {
	realOnly := elementwise.Unary("realonly", elementwise.UnarySpec{Real: elementwise.Func1[float64]{
		F: math.Sin, D1: func(x, _ float64) float64 { return math.Cos(x) }, D2: func(_, y float64) float64 { return -y }}})
	complexOnly := elementwise.Unary("complexonly", elementwise.UnarySpec{Complex: elementwise.Func1[complex128]{
		F: func(z complex128) complex128 { return 2 * z }, D1: func(_, _ complex128) complex128 { return 2 }, D2: func(_, _ complex128) complex128 { return 0 }}})
	id := []cr.NodeID{cr.NewNodeID(1, 0)}
	_, _, err := recordtest.Apply1(realOnly, id, []*tensor.Dense{tensor.New(tensor.Complex128, 2)})
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
	assert.Contains(t, err.Error(), "realonly")
	_, _, err = recordtest.Apply1(complexOnly, id, []*tensor.Dense{tensor.New(tensor.Float64, 2)})
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
	assert.Contains(t, err.Error(), "complexonly")
}

// TestRealToComplexSpec: an incomplete RealToComplex, or one next to Real or
// Complex, gives an op whose Apply reports ErrInvalidArgument.
func TestRealToComplexSpec(t *testing.T) {
	rc := elementwise.RealToComplex{F: func(a, b float64) complex128 { return complex(a, b) },
		D1: func(_, _ float64, _ complex128) (complex128, complex128) { return 1, 1i }}
	full := rc
	full.D2 = func(_, _ float64, _ complex128) (complex128, complex128, complex128) { return 0, 0, 0 }
	x := tensor.Ones(tensor.Float64, 2)
	ids := []cr.NodeID{cr.NewNodeID(1, 0), cr.NewNodeID(1, 1)}
	for name, spec := range map[string]elementwise.BinarySpec{
		"no D2": {RealToComplex: rc},
		"with Real": {RealToComplex: full, Real: elementwise.Func2[float64]{F: func(a, _ float64) float64 { return a },
			D1: func(_, _, _ float64) (float64, float64) { return 1, 0 },
			D2: func(_, _, _ float64) (float64, float64, float64) { return 0, 0, 0 }}},
	} {
		_, _, err := recordtest.Apply1(elementwise.Binary("rc", spec), ids, []*tensor.Dense{x, x})
		require.ErrorIs(t, err, cr.ErrInvalidArgument, name)
	}
	y, _, err := recordtest.Apply1(elementwise.Binary("rc", elementwise.BinarySpec{RealToComplex: full}), ids, []*tensor.Dense{x, x})
	require.NoError(t, err)
	assert.Equal(t, []complex128{1 + 1i, 1 + 1i}, y.Complex128s())
}
