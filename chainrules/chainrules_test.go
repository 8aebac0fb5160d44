package chainrules_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

func TestNodeID(t *testing.T) {
	id := cr.NewNodeID(7, 42)
	assert.Equal(t, 42, id.Index())
	assert.Equal(t, uint32(7), id.Tape())
	assert.True(t, id.Valid())
	assert.Equal(t, "%42", id.String())
	assert.False(t, cr.NodeID(0).Valid())
	assert.Equal(t, "%invalid", cr.NodeID(0).String())
	assert.NotEqual(t, cr.NewNodeID(1, 3), cr.NewNodeID(2, 3), "same index on two tapes")
}

func TestErrorsWrap(t *testing.T) {
	inner := cr.Errorf(cr.ErrShapeMismatch, "got %v, want %v", []int{2, 3}, []int{3, 2})
	assert.EqualError(t, inner, "shape mismatch: got [2 3], want [3 2]")
	err := fmt.Errorf("outer: %w", &cr.OpError{Op: "einsum", Node: cr.NewNodeID(1, 5), Phase: "pullback", Err: inner})
	assert.ErrorIs(t, err, cr.ErrShapeMismatch)
	var oe *cr.OpError
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, "einsum", oe.Op)
	assert.Contains(t, err.Error(), "einsum at node %5 (pullback)")

	boom := errors.New("boom")
	both := cr.Errorf(cr.ErrInvalidArgument, "axis %d: %w", 3, boom)
	assert.ErrorIs(t, both, cr.ErrInvalidArgument)
	assert.ErrorIs(t, both, boom, "Errorf keeps %%w of its arguments")
}

func TestRegistry(t *testing.T) {
	reg := cr.NewRegistry[float64]()
	require.NoError(t, reg.Register(cr.Entry[float64]{Name: "sin", Arity: 1, DTypes: []string{"float64"}, Forward: true}))
	require.NoError(t, reg.Register(cr.Entry[float64]{Name: "add", Arity: 2}))
	require.NoError(t, reg.Register(cr.Entry[float64]{Name: "einsum", Arity: cr.Variadic}))

	tests := []struct {
		name string
		e    cr.Entry[float64]
		want error
	}{
		{"duplicate", cr.Entry[float64]{Name: "sin", Arity: 1}, cr.ErrDuplicate},
		{"empty name", cr.Entry[float64]{Arity: 1}, cr.ErrInvalidArgument},
		{"bad arity", cr.Entry[float64]{Name: "x", Arity: -2}, cr.ErrInvalidArgument},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.ErrorIs(t, reg.Register(tc.e), tc.want)
		})
	}
	assert.Equal(t, []string{"add", "einsum", "sin"}, reg.Names())
	e, ok := reg.Lookup("sin")
	require.True(t, ok)
	assert.True(t, e.Forward)
	assert.False(t, e.SecondOrder)
	_, ok = reg.Lookup("cos")
	assert.False(t, ok)
	assert.Len(t, reg.Entries(), 3)
	assert.Panics(t, func() { reg.MustRegister(cr.Entry[float64]{Name: "add", Arity: 2}) })
}

func TestRegistryOverrideAndResolve(t *testing.T) {
	reg := cr.NewRegistry[float64]()
	require.NoError(t, reg.Register(cr.Entry[float64]{Name: "op", Arity: 1}))
	orig := cr.OpFunc[float64]{OpName: "op"}
	other := cr.OpFunc[float64]{OpName: "other"}
	assert.Equal(t, "op", reg.Resolve(orig).Name())
	assert.ErrorIs(t, reg.SetOverride("missing", func(cr.Op[float64]) cr.Op[float64] { return other }), cr.ErrNoRule)
	require.NoError(t, reg.SetOverride("op", func(cr.Op[float64]) cr.Op[float64] { return other }))
	assert.Equal(t, "other", reg.Resolve(orig).Name())
	require.NoError(t, reg.SetOverride("op", nil))
	assert.Equal(t, "op", reg.Resolve(orig).Name())
	// With two overrides, removing one leaves the other in effect (Resolve's
	// shortcut for a registry without overrides counts them).
	require.NoError(t, reg.Register(cr.Entry[float64]{Name: "op2", Arity: 1}))
	orig2 := cr.OpFunc[float64]{OpName: "op2"}
	require.NoError(t, reg.SetOverride("op", func(cr.Op[float64]) cr.Op[float64] { return other }))
	require.NoError(t, reg.SetOverride("op2", func(cr.Op[float64]) cr.Op[float64] { return other }))
	require.NoError(t, reg.SetOverride("op", nil))
	assert.Equal(t, "op", reg.Resolve(orig).Name())
	assert.Equal(t, "other", reg.Resolve(orig2).Name())
	require.NoError(t, reg.SetOverride("op2", nil))
	assert.Equal(t, "op2", reg.Resolve(orig2).Name())
}

func TestRegistryConcurrent(t *testing.T) {
	reg := cr.NewRegistry[float64]()
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				name := fmt.Sprintf("op%d", i)
				err := reg.Register(cr.Entry[float64]{Name: name, Arity: 1})
				if err != nil && !errors.Is(err, cr.ErrDuplicate) {
					t.Error(err)
				}
				reg.Lookup(name)
				_ = reg.SetOverride(name, func(op cr.Op[float64]) cr.Op[float64] { return op })
				reg.Resolve(cr.OpFunc[float64]{OpName: name})
				if w == 0 {
					reg.Names()
				}
			}
		}()
	}
	wg.Wait()
	assert.Len(t, reg.Names(), 50, "each name registered exactly once")
}

func TestIsDifferentiable(t *testing.T) {
	assert.True(t, cr.IsDifferentiable[float64](cr.OpFunc[float64]{OpName: "x"}, 0))
	assert.False(t, cr.IsDifferentiable[float64](maskOp{}, 1))
	assert.True(t, cr.IsDifferentiable[float64](maskOp{}, 0))
}

type maskOp struct{ cr.OpFunc[float64] }

func (maskOp) Differentiable(k int) bool     { return k == 0 }
func (maskOp) OutputDifferentiable(int) bool { return true }

func TestFloat64Space(t *testing.T) {
	var s cr.Float64Space
	one, err := s.One(5)
	require.NoError(t, err)
	assert.Equal(t, 1.0, one)
	v, _ := s.Add(2, 3)
	assert.Equal(t, 5.0, v)
	v, _ = s.Inner(2, 3)
	assert.Equal(t, 6.0, v)
	assert.Equal(t, -4.0, s.Scale(2, -2))
	assert.Equal(t, 1, s.Size(0))
	assert.Equal(t, "float64", s.DType(0))
}

func TestRegisterEntries(t *testing.T) {
	e := func(name string) cr.Entry[float64] { return cr.Entry[float64]{Name: name, Arity: 1} }
	err := cr.RegisterEntries[float64](nil, "pkg.Register", e("a"))
	if !errors.Is(err, cr.ErrInvalidArgument) || !strings.Contains(err.Error(), "pkg.Register") {
		t.Fatalf("nil registry: %v", err)
	}
	reg := cr.NewRegistry[float64]()
	if err := cr.RegisterEntries(reg, "pkg.Register", e("a"), e("b")); err != nil {
		t.Fatal(err)
	}
	err = cr.RegisterEntries(reg, "pkg.Register", e("c"), e("a"), e("d"))
	if !errors.Is(err, cr.ErrDuplicate) || !strings.Contains(err.Error(), "pkg.Register") {
		t.Fatalf("duplicate: %v", err)
	}
	if got := reg.Names(); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("names %v: registration stops at the first error", got)
	}
}
