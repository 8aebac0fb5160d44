package ops_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/einsum"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/linalg"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/ops"
	"github.com/chainrules-go/chainrules/permute"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

var registerers = map[string]func(*cr.Registry[*tensor.Dense]) error{
	"einsum":      einsum.Register,
	"elementwise": elementwise.Register,
	"index":       index.Register,
	"linalg":      linalg.Register,
	"nn":          nn.Register,
	"permute":     permute.Register,
	"reduce":      reduce.Register,
}

// The default registry is the union of the op packages' registrations, each family
// registered by exactly one package.
func TestDefaultIsTheUnionOfThePackages(t *testing.T) {
	owner := map[string]string{}
	for pkg, register := range registerers {
		reg := cr.NewRegistry[*tensor.Dense]()
		require.NoError(t, register(reg), pkg)
		require.NotEmpty(t, reg.Names(), pkg)
		for _, name := range reg.Names() {
			if prev, ok := owner[name]; ok {
				t.Errorf("%s is registered by both %s and %s", name, prev, pkg)
			}
			owner[name] = pkg
		}
	}
	assert.Len(t, ops.Default().Names(), len(owner))
	for name := range owner {
		_, ok := ops.Default().Lookup(name)
		assert.True(t, ok, "%s is missing from the default registry", name)
	}
}

func TestDefaultIsShared(t *testing.T) {
	assert.Same(t, ops.Default(), ops.Default())
}

// New returns independent registries: an override on one is not seen by another or
// by the default registry.
func TestNewIsPrivate(t *testing.T) {
	a, b := ops.New(), ops.New()
	require.NotSame(t, a, b)
	require.NotSame(t, a, ops.Default())
	assert.Equal(t, ops.Default().Names(), a.Names())

	require.NoError(t, a.SetOverride("sin", func(cr.Op[*tensor.Dense]) cr.Op[*tensor.Dense] { return elementwise.CosOp }))
	assert.Equal(t, "cos", a.Resolve(elementwise.SinOp).Name())
	assert.Equal(t, "sin", b.Resolve(elementwise.SinOp).Name())
	assert.Equal(t, "sin", ops.Default().Resolve(elementwise.SinOp).Name())
}

func TestRegisterErrors(t *testing.T) {
	assert.ErrorIs(t, ops.RegisterAll(nil), cr.ErrInvalidArgument)
	for pkg, register := range registerers {
		assert.ErrorIs(t, register(nil), cr.ErrInvalidArgument, pkg)
		reg := cr.NewRegistry[*tensor.Dense]()
		require.NoError(t, register(reg), pkg)
		assert.ErrorIs(t, register(reg), cr.ErrDuplicate, pkg)
	}
	reg := cr.NewRegistry[*tensor.Dense]()
	require.NoError(t, reg.Register(cr.Entry[*tensor.Dense]{Name: "sum", Arity: 1}))
	err := ops.RegisterAll(reg)
	assert.ErrorIs(t, err, cr.ErrDuplicate)
	assert.ErrorContains(t, err, "reduce.Register")
}
