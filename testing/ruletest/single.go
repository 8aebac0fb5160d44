package ruletest

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

// Widener is the method a Space needs for the single-precision checks of
// CheckSingle: Widen returns v converted exactly to double precision (float32
// elements to float64, complex64 to complex128), and v itself, or a copy, when it
// already is double precision. tensor.Space has it.
type Widener[V any] interface {
	Widen(v V) (V, error)
}

// SingleConfig configures CheckSingle.
type SingleConfig struct {
	// Config configures the double-precision check of the op at the widened inputs
	// (finite differences and every other check of Check, in float64) and seeds the
	// random cotangents and tangents of the comparison.
	Config
	// SkipDouble skips that double-precision check, for callers that run it
	// themselves (a registry test that checks every sample in float64 anyway).
	SkipDouble bool
	// Rtol and Atol are the tolerances of the comparison of each single-precision
	// result a (widened exactly) with the double-precision one b:
	//
	//	||a - b||_2 <= Atol sqrt(n) + Rtol max(||a||_2, ||b||_2)
	//
	// for results of n elements. Zero means Rtol 1e-4 and Atol 1e-6: float32's unit
	// roundoff is u = 2^-24 = 6e-8, so this leaves room for a few hundred roundings
	// (a pullback that sums a few hundred terms, a second-order rule that subtracts
	// nearly equal terms), while a wrong rule, a missed conjugate or a term computed
	// in the wrong dtype is off by O(1).
	Rtol, Atol float64
}

// CheckSingle checks the single-precision rules of op at inputs (float32 or
// complex64 values, or some of them double) against the same rules in double
// precision: the inputs are widened exactly, and then
//
//   - double: the op passes Check at the widened inputs (finite differences in
//     float64, the adjoint, forward and second-order identities, ...), unless
//     cfg.SkipDouble;
//   - single-primal: each output in single precision is of the single-precision
//     dtype of the double-precision output (float32 for float64, complex64 for
//     complex128) and agrees with it to cfg's tolerances;
//   - single-pullback: for random single-precision cotangents, Pullback gives a
//     cotangent of each input's own dtype that agrees with the double-precision
//     Pullback of the widened cotangents;
//   - single-forward and single-second-order: likewise Forward for random
//     tangents, and PullbackWithTangents (both members of each pair), when the
//     double-precision rule implements them (the single-precision one must then
//     too).
//
// So a single-precision rule is right exactly when its double-precision twin is,
// up to rounding: the finite differences run where they are accurate. The space
// must implement Widener. Failures are reported through t; VerifySingle returns
// them instead.
func CheckSingle[V any](t testing.TB, space cr.Space[V], op cr.Op[V], inputs []V, cfg SingleConfig) {
	t.Helper()
	if err := VerifySingle(space, op, inputs, cfg); err != nil {
		t.Errorf("%s in single precision: %v", op.Name(), err)
	}
}

// VerifySingle is CheckSingle returning the failures, joined with errors.Join,
// each wrapping ErrCheckFailed (nil if every check passed).
func VerifySingle[V any](space cr.Space[V], op cr.Op[V], inputs []V, cfg SingleConfig) error {
	w, ok := space.(Widener[V])
	if !ok {
		return fmt.Errorf("%w: the space has no Widen method (ruletest.Widener)", ErrCheckFailed)
	}
	if cfg.Rtol == 0 {
		cfg.Rtol = 1e-4
	}
	if cfg.Atol == 0 {
		cfg.Atol = 1e-6
	}
	s := single[V]{space: space, w: w, cfg: cfg}
	wide, err := s.widenAll(inputs)
	if err != nil {
		return err
	}
	var errs []error
	if !cfg.SkipDouble {
		if err := Verify(space, op, wide, cfg.Config); err != nil {
			errs = append(errs, fmt.Errorf("at the widened inputs: %w", err))
		}
	}
	errs = append(errs, s.compare(op, inputs, wide)...)
	return errors.Join(errs...)
}

// single holds the state of one VerifySingle.
type single[V any] struct {
	space cr.Space[V]
	w     Widener[V]
	cfg   SingleConfig
}

func (s *single[V]) widenAll(v []V) ([]V, error) {
	out := make([]V, len(v))
	for k, x := range v {
		var err error
		if out[k], err = s.w.Widen(x); err != nil {
			return nil, fmt.Errorf("%w: widening input %d: %w", ErrCheckFailed, k, err)
		}
	}
	return out, nil
}

// fail returns a failure of check.
func fail(check, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrCheckFailed, check, fmt.Sprintf(format, args...))
}

// close returns a failure of check unless the single-precision value a, widened,
// agrees with the double-precision b, and a has the single-precision dtype that
// goes with b's (wantDType, when not empty).
func (s *single[V]) close(check, what string, a, b V, wantDType string) error {
	if wantDType != "" && s.space.DType(a) != wantDType {
		return fail(check, "%s is %s, want dtype %s", what, s.space.Describe(a), wantDType)
	}
	aw, err := s.w.Widen(a)
	if err != nil {
		return fail(check, "widening %s: %v", what, err)
	}
	d, err := s.space.Add(aw, s.space.Scale(b, -1))
	if err != nil {
		return fail(check, "%s: %s against %s: %v", what, s.space.Describe(a), s.space.Describe(b), err)
	}
	norm := func(v V) float64 {
		ip, _ := s.space.Inner(v, v)
		return math.Sqrt(ip)
	}
	nd, na, nb := norm(d), norm(aw), norm(b)
	tol := s.cfg.Atol*math.Sqrt(float64(s.space.Size(b))) + s.cfg.Rtol*max(na, nb)
	if !(nd <= tol) {
		return fail(check, "%s: single precision differs from double by %.3g (norms %.3g and %.3g, tolerance %.3g)", what, nd, na, nb, tol)
	}
	return nil
}

// singleDType returns the dtype name of the single-precision twin of dtype d.
func singleDType(d string) string {
	switch d {
	case "float64":
		return "float32"
	case "complex128":
		return "complex64"
	}
	return d
}

// compare runs the single-* checks.
func (s *single[V]) compare(op cr.Op[V], x32, x64 []V) []error {
	n, m := len(x32), op.NumOutputs()
	in := make([]cr.NodeID, n)
	for k := range in {
		in[k] = cr.NewNodeID(1, k+1)
	}
	y32, y64 := make([]V, m), make([]V, m)
	r32, err := op.Apply(in, x32, y32)
	if err != nil {
		return []error{fail("single-primal", "Apply in single precision: %v", err)}
	}
	r64, err := op.Apply(in, x64, y64)
	if err != nil {
		return []error{fail("single-primal", "Apply at the widened inputs: %v", err)}
	}
	var errs []error
	for j := range m {
		if err := s.close("single-primal", fmt.Sprintf("output %d", j), y32[j], y64[j], singleDType(s.space.DType(y64[j]))); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return errs
	}
	seed := s.cfg.Seed
	if seed == 0 {
		seed = DefaultSeed
	}
	rng := rand.New(rand.NewPCG(seed, 0x51))
	// Cotangents and tangents are drawn in single precision and widened, so that
	// both rules see the same values.
	has := make([]bool, m)
	ybar32, ybar64 := make([]V, m), make([]V, m)
	for j := range m {
		has[j] = cr.IsOutputDifferentiable(op, j)
		if has[j] {
			ybar32[j] = s.space.Rand(y32[j], rng)
			if ybar64[j], err = s.w.Widen(ybar32[j]); err != nil {
				return []error{fail("single-pullback", "widening a cotangent: %v", err)}
			}
		}
	}
	if !anyTrue(has) {
		return nil
	}
	c32, err32 := r32.Pullback(ybar32, has, nil)
	c64, err64 := r64.Pullback(ybar64, has, nil)
	if err32 != nil || err64 != nil {
		return []error{fail("single-pullback", "Pullback: %v (single), %v (double)", err32, err64)}
	}
	errs = append(errs, s.contributions("single-pullback", x32, in, c32, c64)...)

	xdot32, xdot64 := make([]V, n), make([]V, n)
	for k := range n {
		xdot32[k] = s.space.Rand(x32[k], rng)
		if xdot64[k], err = s.w.Widen(xdot32[k]); err != nil {
			return append(errs, fail("single-forward", "widening a tangent: %v", err))
		}
	}
	tangents := func(xdot []V) cr.TangentOf[V] {
		return func(id cr.NodeID) (V, bool) {
			k := id.Index() - 1
			if k < 0 || k >= n || !cr.IsDifferentiable(op, k) {
				var zero V
				return zero, false
			}
			return xdot[k], true
		}
	}
	if f64, ok := r64.(cr.ForwardRule[V]); ok {
		f32, ok := r32.(cr.ForwardRule[V])
		if !ok {
			return append(errs, fail("single-forward", "the double-precision rule has Forward, the single-precision one not"))
		}
		ydot32, ydot64 := make([]V, m), make([]V, m)
		h32, h64 := make([]bool, m), make([]bool, m)
		err32, err64 := f32.Forward(tangents(xdot32), ydot32, h32), f64.Forward(tangents(xdot64), ydot64, h64)
		if err32 != nil || err64 != nil {
			return append(errs, fail("single-forward", "Forward: %v (single), %v (double)", err32, err64))
		}
		for j := range m {
			switch {
			case h32[j] && h64[j]:
				if err := s.close("single-forward", fmt.Sprintf("tangent of output %d", j), ydot32[j], ydot64[j], singleDType(s.space.DType(ydot64[j]))); err != nil {
					errs = append(errs, err)
				}
			case h32[j] != h64[j]:
				errs = append(errs, fail("single-forward", "output %d has a tangent in one precision only (single %v, double %v)", j, h32[j], h64[j]))
			}
		}
	}
	if _, ok := r64.(cr.SecondOrderRule[V]); ok {
		if _, ok := r32.(cr.SecondOrderRule[V]); !ok {
			return append(errs, fail("single-second-order", "the double-precision rule has PullbackWithTangents, the single-precision one not"))
		}
		dual := func(ybar []V) []cr.Dual[V] {
			d := make([]cr.Dual[V], m)
			for j := range m {
				if has[j] {
					d[j] = cr.Dual[V]{Value: ybar[j], Tangent: ybar[j], HasTangent: true}
				}
			}
			return d
		}
		d32, err32 := cr.PullbackWithTangentsOf(r32, y32, dual(ybar32), has, tangents(xdot32), nil)
		d64, err64 := cr.PullbackWithTangentsOf(r64, y64, dual(ybar64), has, tangents(xdot64), nil)
		if err32 != nil || err64 != nil {
			return append(errs, fail("single-second-order", "PullbackWithTangents: %v (single), %v (double)", err32, err64))
		}
		v32, t32 := splitDual(d32)
		v64, t64 := splitDual(d64)
		errs = append(errs, s.contributions("single-second-order (cotangents)", x32, in, v32, v64)...)
		errs = append(errs, s.contributions("single-second-order (tangents)", x32, in, t32, t64)...)
	}
	return errs
}

// splitDual returns the cotangents and the present tangents of d as contributions.
func splitDual[V any](d []cr.DualContribution[V]) (vals, tans []cr.Contribution[V]) {
	for _, c := range d {
		vals = append(vals, cr.Contribution[V]{Node: c.Node, Value: c.Cotangent.Value})
		if c.Cotangent.HasTangent {
			tans = append(tans, cr.Contribution[V]{Node: c.Node, Value: c.Cotangent.Tangent})
		}
	}
	return vals, tans
}

// contributions compares the single- and double-precision contributions input by
// input (summing those that name the same input): each single-precision one must
// have its input's dtype and agree with the double-precision one.
func (s *single[V]) contributions(check string, x32 []V, in []cr.NodeID, c32, c64 []cr.Contribution[V]) []error {
	sum := func(cs []cr.Contribution[V]) (map[int]V, error) {
		out := map[int]V{}
		for _, c := range cs {
			k := c.Node.Index() - 1
			if k < 0 || k >= len(in) || c.Node != in[k] {
				return nil, fmt.Errorf("a contribution names %v, not an input", c.Node)
			}
			if prev, ok := out[k]; ok {
				v, err := s.space.Add(prev, c.Value)
				if err != nil {
					return nil, err
				}
				out[k] = v
				continue
			}
			out[k] = c.Value
		}
		return out, nil
	}
	m32, err32 := sum(c32)
	m64, err64 := sum(c64)
	if err32 != nil || err64 != nil {
		return []error{fail(check, "%v (single), %v (double)", err32, err64)}
	}
	var errs []error
	for k := range x32 {
		a, ok32 := m32[k]
		b, ok64 := m64[k]
		switch {
		case ok32 && ok64:
			if err := s.close(check, fmt.Sprintf("input %d", k), a, b, s.space.DType(x32[k])); err != nil {
				errs = append(errs, err)
			}
		case ok32 != ok64:
			errs = append(errs, fail(check, "input %d gets a contribution in one precision only (single %v, double %v)", k, ok32, ok64))
		}
	}
	return errs
}

func anyTrue(b []bool) bool {
	for _, v := range b {
		if v {
			return true
		}
	}
	return false
}
