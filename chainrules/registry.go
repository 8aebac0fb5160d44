package chainrules

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
)

// Variadic is the Arity of an op family that takes any number of inputs.
const Variadic = -1

// Sample is one point at which a checker exercises an op: the op with its parameters
// (of one output or several: split, eigh) and the input values.
type Sample[V any] struct {
	// Name describes the case in test names and messages ("trace ii->", "axis 0").
	Name   string
	Op     Op[V]
	Inputs []V
}

// Entry describes an op family in a Registry.
type Entry[V any] struct {
	// Name is the unique key; the Ops of the family report it from Name().
	Name string
	// Arity is the number of inputs, or Variadic.
	Arity int
	// DTypes lists the element types the family supports ("float64", "complex128").
	DTypes []string
	// Forward and SecondOrder say whether the family's rules implement ForwardRule and
	// SecondOrderRule. testing/ruletest holds the family to its word.
	Forward, SecondOrder bool
	// NoDerivative marks a family that is not differentiable by design (argmax,
	// one_hot: integer-valued outputs, piecewise constant in the inputs). Its ops
	// record and evaluate like any other, but every derivative through them (the
	// pullback and, where Forward and SecondOrder say the rules implement them, the
	// forward tangent and the second-order rule) is an error wrapping ErrNoRule,
	// never a zero. Checkers verify that typed error instead of derivatives.
	NoDerivative bool
	// Doc is a one-line description.
	Doc string
	// Samples returns points at which to check the family's rules; rng makes them
	// reproducible. It may be nil for families registered without samples.
	Samples func(rng *rand.Rand) []Sample[V]
}

// Override replaces an op at recording time: it receives the op the caller asked for
// (with its parameters) and returns the op to apply instead, typically one that
// computes the same primal with a custom rule (a custom gradient, a clipped
// pullback). A tape created with a registry applies the registry's overrides.
type Override[V any] func(op Op[V]) Op[V]

// Registry holds op families by unique name. All methods are safe for concurrent use.
// The zero Registry is empty and ready to use.
type Registry[V any] struct {
	mu        sync.RWMutex
	entries   map[string]Entry[V]
	overrides map[string]Override[V]
	// noverrides is len(overrides), stored under mu when it changes, so that
	// Resolve on a registry without overrides (the common case, once per Apply)
	// costs one atomic load instead of the lock and a map lookup.
	noverrides atomic.Int32
}

// NewRegistry returns an empty registry.
func NewRegistry[V any]() *Registry[V] { return &Registry[V]{} }

// Register adds an entry. It returns an error wrapping ErrDuplicate if the name is
// taken, or ErrInvalidArgument for an empty name or an arity below Variadic.
func (r *Registry[V]) Register(e Entry[V]) error {
	if e.Name == "" {
		return Errorf(ErrInvalidArgument, "registry entry has an empty name")
	}
	if e.Arity < Variadic {
		return Errorf(ErrInvalidArgument, "op %q: arity %d", e.Name, e.Arity)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.entries[e.Name]; ok {
		return Errorf(ErrDuplicate, "op %q is already registered", e.Name)
	}
	if r.entries == nil {
		r.entries = make(map[string]Entry[V])
	}
	e.DTypes = slices.Clone(e.DTypes)
	r.entries[e.Name] = e
	return nil
}

// MustRegister is Register for package initialisation: it panics on error, which
// can only come from the program's own registration code.
func (r *Registry[V]) MustRegister(e Entry[V]) {
	if err := r.Register(e); err != nil {
		panic(err)
	}
}

// Lookup returns the entry of the named family.
func (r *Registry[V]) Lookup(name string) (Entry[V], bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, ok := r.entries[name]
	return e, ok
}

// Names returns the registered names in sorted order.
func (r *Registry[V]) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, 0, len(r.entries))
	for n := range r.entries {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Entries returns the registered entries sorted by name.
func (r *Registry[V]) Entries() []Entry[V] {
	names := r.Names()
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Entry[V], 0, len(names))
	for _, n := range names {
		if e, ok := r.entries[n]; ok {
			out = append(out, e)
		}
	}
	return out
}

// SetOverride installs an override for the named family, replacing any earlier one;
// a nil override removes it. The family must be registered (ErrNoRule otherwise).
func (r *Registry[V]) SetOverride(name string, o Override[V]) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.entries[name]; !ok {
		return Errorf(ErrNoRule, "cannot override %q: no such op is registered", name)
	}
	if o == nil {
		delete(r.overrides, name)
	} else {
		if r.overrides == nil {
			r.overrides = make(map[string]Override[V])
		}
		r.overrides[name] = o
	}
	r.noverrides.Store(int32(len(r.overrides)))
	return nil
}

// Resolve returns the op to apply for op: the result of the override installed for
// its family, or op itself.
func (r *Registry[V]) Resolve(op Op[V]) Op[V] {
	if r.noverrides.Load() == 0 {
		return op
	}
	r.mu.RLock()
	o := r.overrides[op.Name()]
	r.mu.RUnlock()
	if o == nil {
		return op
	}
	if replaced := o(op); replaced != nil {
		return replaced
	}
	return op
}

// RegisterEntries adds entries to reg in order: the body of an op package's Register
// function. who names the caller in errors ("reduce.Register"). It returns an error
// wrapping ErrInvalidArgument for a nil reg, or the first error of Register
// (ErrDuplicate for a taken name); the entries added before it stay.
func RegisterEntries[V any](reg *Registry[V], who string, entries ...Entry[V]) error {
	if reg == nil {
		return Errorf(ErrInvalidArgument, "%s: nil registry", who)
	}
	for _, e := range entries {
		if err := reg.Register(e); err != nil {
			return fmt.Errorf("%s: %w", who, err)
		}
	}
	return nil
}
