package chainrules

import (
	"math/rand/v2"
)

// Space is the linear structure of a value type V: tangents and cotangents of a V
// are Vs. The engine needs Zero, One, Add, Accumulate and Clone; the checker in
// testing/ruletest needs the rest.
//
// Methods never mutate their arguments, except that Accumulate may reuse the storage
// of its first argument.
type Space[V any] interface {
	// Zero returns the additive identity shaped like v.
	Zero(like V) V
	// One returns the value 1 shaped like v. It is the default seed of a backward pass
	// from a scalar output, so it is only required to work for Size(like) == 1.
	One(like V) (V, error)
	// Add returns a + b in new storage.
	Add(a, b V) (V, error)
	// Accumulate returns acc + b and may overwrite acc's storage (never b's).
	Accumulate(acc, b V) (V, error)
	// Scale returns s * a in new storage.
	Scale(a V, s float64) V
	// Inner returns the real inner product Re sum_i conj(a_i) b_i. It is the product
	// under which pullbacks are adjoints of JVPs.
	Inner(a, b V) (float64, error)
	// Clone returns a copy of v that shares no storage with it.
	Clone(v V) V
	// Rand returns a value shaped like v with independent standard normal entries
	// (real and imaginary parts each N(0, 1/2) for complex values, so E|z|^2 = 1).
	Rand(like V, rng *rand.Rand) V
	// Shape returns the shape of v (nil or empty for a scalar).
	Shape(v V) []int
	// Size returns the number of elements of v.
	Size(v V) int
	// DType names the element type of v ("float64", "complex128").
	DType(v V) string
	// Describe formats v briefly for error messages, e.g. "float64[3 4]".
	Describe(v V) string
}

// LayoutSpace is an optional interface of a Space: SameLayout reports whether a and b
// have the same shape and dtype, as comparing Shape and DType would, without building
// shapes. The engine checks the layout of every cotangent a rule returns, so a Space
// on a hot path implements it.
type LayoutSpace[V any] interface {
	SameLayout(a, b V) bool
}

// Float64Space is the Space of plain float64 scalars: the value type of scalar graphs
// such as examples/eager.
type Float64Space struct{}

var _ Space[float64] = Float64Space{}

// Zero returns 0.
func (Float64Space) Zero(float64) float64 { return 0 }

// One returns 1.
func (Float64Space) One(float64) (float64, error) { return 1, nil }

// Add returns a + b.
func (Float64Space) Add(a, b float64) (float64, error) { return a + b, nil }

// Accumulate returns acc + b.
func (Float64Space) Accumulate(acc, b float64) (float64, error) { return acc + b, nil }

// Scale returns s * a.
func (Float64Space) Scale(a, s float64) float64 { return s * a }

// Inner returns a * b.
func (Float64Space) Inner(a, b float64) (float64, error) { return a * b, nil }

// Clone returns v.
func (Float64Space) Clone(v float64) float64 { return v }

// Rand returns a standard normal sample.
func (Float64Space) Rand(_ float64, rng *rand.Rand) float64 { return rng.NormFloat64() }

// Shape returns nil: a float64 is a scalar.
func (Float64Space) Shape(float64) []int { return nil }

// Size returns 1.
func (Float64Space) Size(float64) int { return 1 }

// DType returns "float64".
func (Float64Space) DType(float64) string { return "float64" }

// SameLayout returns true: every float64 is a scalar.
func (Float64Space) SameLayout(_, _ float64) bool { return true }

// Describe returns "float64[]".
func (Float64Space) Describe(float64) string { return "float64[]" }

// A Recycler is an optional interface of a Space whose values' storage can be
// reused. Recycle hands the storage of the values in dead back to the Space's
// allocator, so that later values are made in it instead of in new memory, except
// storage that overlaps the storage of a value in live, or of another value in
// dead that is not the same storage. The engine calls it when a tape is released
// (core.Tape.Release), with the values nothing can refer to any more in dead and
// every other value it knows of in live.
//
// Reusable reports whether v's storage is of a kind Recycle would reuse (large
// enough to pool, say): the engine collects only such values as dead, so that a
// graph of small values pays no bookkeeping for storage nobody would reuse.
type Recycler[V any] interface {
	Recycle(dead, live []V)
	Reusable(v V) bool
}

// FreshStorage is an optional interface of a Rule. A rule that implements it
// promises that each output its op returned with it, and each value its methods
// return (the cotangents of Pullback, the tangents of Forward, the pairs of
// PullbackWithTangents), is in storage made for that call, or is a view of a value
// the rule was given (an input, an output, a cotangent, a tangent); never storage
// that something keeps for later, such as a cache in the op or in the rule, or a
// tensor the op captured. The engine may then reuse that storage once no result
// refers to it (core.Tape.Release, core.Tape.RecycleSweeps); the storage of a
// rule without FreshStorage is never reused.
type FreshStorage interface {
	FreshStorage()
}
