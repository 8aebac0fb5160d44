package ops

import (
	"fmt"
	"sync"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/einsum"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/linalg"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/permute"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// registerers are the Register functions of the op packages, in the order
// RegisterAll calls them.
var registerers = []func(*cr.Registry[*tensor.Dense]) error{
	einsum.Register,
	elementwise.Register,
	index.Register,
	linalg.Register,
	nn.Register,
	permute.Register,
	reduce.Register,
}

// RegisterAll adds every built-in op family to reg, package by package. It returns
// an error wrapping chainrules.ErrInvalidArgument for a nil reg, or
// chainrules.ErrDuplicate if reg already holds a family of one of the built-in
// names; registration stops at the first error, and the families added before it
// stay.
func RegisterAll(reg *cr.Registry[*tensor.Dense]) error {
	if reg == nil {
		return cr.Errorf(cr.ErrInvalidArgument, "ops.RegisterAll: nil registry")
	}
	for _, register := range registerers {
		if err := register(reg); err != nil {
			return fmt.Errorf("ops.RegisterAll: %w", err)
		}
	}
	return nil
}

// New returns a fresh registry holding every built-in op family and no overrides.
// Overrides installed on it affect only the tapes (and hvp transforms) that are
// given it, which makes it the registry for tests and custom gradients.
//
// New panics only if two built-in families share a name, a bug in this module that
// its tests rule out.
func New() *cr.Registry[*tensor.Dense] {
	reg := cr.NewRegistry[*tensor.Dense]()
	if err := RegisterAll(reg); err != nil {
		panic(err)
	}
	return reg
}

// defaultRegistry builds the default registry on first use.
var defaultRegistry = sync.OnceValue(New)

// Default returns the process-wide default registry: every built-in op family,
// built on the first call and the same registry at every call. Package hvp records
// on tapes that use it unless given another registry.
//
// Because it is shared, Default().SetOverride changes the rule of a family for every
// tape and hvp transform in the process that uses the default registry, in every
// goroutine, until the override is removed; likewise a family registered on it is
// visible everywhere. To keep a custom gradient local (in a test, or in one part of a
// program) install it on a registry from New and pass that registry explicitly.
func Default() *cr.Registry[*tensor.Dense] { return defaultRegistry() }
