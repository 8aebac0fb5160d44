package ruletest

import (
	"errors"
	"fmt"
	"strings"
)

// Names of the checks, as they appear in subtest names and in Failure.Check.
const (
	CheckApply             = "apply"               // Apply returned an error or panicked
	CheckPrimal            = "primal"              // recorded output == fresh evaluation
	CheckStructure         = "structure"           // one contribution per differentiable input, right shape, dtype, NodeID
	CheckAdjointFD         = "adjoint-fd"          // <ybar, J v>_fd == <J^* ybar, v>
	CheckJacobian          = "jacobian"            // full Jacobian by finite differences == pullback rows
	CheckForwardFD         = "forward-fd"          // Forward == J v by finite differences
	CheckForwardAdjoint    = "forward-adjoint"     // <ybar, Forward(v)> == <Pullback(ybar), v>
	CheckSecondOrderFD     = "second-order-fd"     // PullbackWithTangents == d/de Pullback(x + e v, ybar + e ybardot)
	CheckHessianSymmetry   = "hessian-symmetry"    // <u, H v> == <v, H u>
	CheckSecondOrderPrimal = "second-order-primal" // <v, H u> == mixed second difference of the primal
	CheckLinearity         = "linearity"           // Pullback(a y1 + b y2) == a Pullback(y1) + b Pullback(y2)
	CheckZeroCotangent     = "zero-cotangent"      // Pullback(0) == 0
	CheckRepeat            = "repeat"              // two calls give the same result
	CheckMutation          = "mutation"            // inputs, cotangent and earlier results unchanged
	CheckInterfaces        = "interfaces"          // registry flags match the implemented interfaces
	CheckKink              = "kink"                // documented rule at a point where finite differences do not apply
	CheckSamples           = "samples"             // a registry entry supplies sample inputs
	CheckMasked            = "masked"              // ApplyMasked agrees with Apply on the inputs it needs
	CheckRetain            = "retain"              // Apply keeps neither the slice in nor the slice x
	CheckRows              = "rows"                // RowPullback's terms add up to Pullback's cotangent
	CheckSums              = "sums"                // PullbackSum's cotangents are Pullback's, its sums SumOf's
	CheckAbsentOutputs     = "absent-outputs"      // a multi-output rule never reads an absent cotangent
	CheckNoDerivative      = "no-derivative"       // a registry entry marked NoDerivative fails every derivative with ErrNoRule
	CheckRecorded          = "recorded"            // the pullback recorded with ops (RecordPullback) == Pullback
	CheckRecordedSecond    = "recorded-second"     // tangent of the recorded pullback == PullbackWithTangents
	CheckRecordedThird     = "recorded-third"      // third derivative through the recorded pullback == finite differences of PullbackWithTangents
	CheckRecordedFourth    = "recorded-fourth"     // fourth derivative through the recorded pullback == second differences of PullbackWithTangents
	CheckOrder             = "order"               // a registry family is proven to Config.MinOrder
)

// ErrCheckFailed is wrapped by every *Failure, so errors.Is(err, ErrCheckFailed)
// tells a rule that is wrong from a checker that could not run.
var ErrCheckFailed = errors.New("rule check failed")

// Failure describes one failed check. Its Error method names the rule, the check,
// the input, the worst element and both values, and the seed that reproduces it.
type Failure struct {
	// Rule is the op name, followed by the sample name when checking a registry.
	Rule string
	// Check is one of the Check* constants.
	Check string
	// Output names the outputs concerned for a multi-output op, e.g.
	// "y1 float64[2 3]" (output 1's cotangent alone, or its tangent) or
	// "y0 float64[2] and y1 float64[3]" (both cotangents together); it is empty for
	// a single-output op.
	Output string
	// Input names the input (or direction) concerned, e.g. "x1 float64[3 4]", or is
	// empty when the check is about the op as a whole.
	Input string
	// Index is the worst element's index (nil when the compared quantity is a scalar
	// or element access is unavailable); Got is the rule's value there and Want the
	// reference value (finite difference, fresh evaluation, or identity partner).
	Index     []int
	Got, Want complex128
	// HasValues says whether Got and Want are meaningful.
	HasValues bool
	// Detail explains the failure in words; Err is an underlying error, if any.
	Detail string
	Err    error
	// Seed is Config.Seed as used (after defaulting); rerun with it to reproduce.
	Seed uint64
}

// Error formats the failure on one line.
func (f *Failure) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "ruletest: %s: %s", f.Rule, f.Check)
	if f.Output != "" {
		fmt.Fprintf(&b, " [%s]", f.Output)
	}
	if f.Input != "" {
		fmt.Fprintf(&b, " [%s]", f.Input)
	}
	if f.Detail != "" {
		fmt.Fprintf(&b, ": %s", f.Detail)
	}
	if f.HasValues {
		if f.Index != nil {
			fmt.Fprintf(&b, "; worst element %v", f.Index)
		}
		fmt.Fprintf(&b, ": got %s, want %s (diff %.3g)", formatValue(f.Got), formatValue(f.Want), absC(f.Got-f.Want))
	}
	if f.Err != nil {
		fmt.Fprintf(&b, ": %v", f.Err)
	}
	fmt.Fprintf(&b, " (seed %d)", f.Seed)
	return b.String()
}

// Unwrap returns ErrCheckFailed and the underlying error, if any.
func (f *Failure) Unwrap() []error {
	if f.Err != nil {
		return []error{ErrCheckFailed, f.Err}
	}
	return []error{ErrCheckFailed}
}
