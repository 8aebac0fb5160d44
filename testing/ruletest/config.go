package ruletest

import "math"

// DefaultSeed is the seed used when Config.Seed is zero, so that runs are
// reproducible by default.
const DefaultSeed = 0x5EED

// Config tunes a check. The zero Config is ready to use: every zero field takes the
// default documented on it.
type Config struct {
	// Seed seeds every random direction, cotangent and perturbation. Zero means
	// DefaultSeed. Failures print the seed in use.
	Seed uint64

	// Directions is the number of random directions (and cotangents) per check and
	// input; zero means 2. Each direction costs a constant number of primal and rule
	// evaluations whatever the input size, so the directional checks scale like the
	// op itself. For complex inputs each direction v is also run as i*v.
	Directions int

	// Atol and Rtol are the tolerances of the finite-difference checks: a
	// finite-difference value a and the rule's value b agree when
	//
	//	|a - b| <= Atol + Rtol * scale
	//
	// where scale is the natural size of the compared quantity: max(||a||_inf,
	// ||b||_inf) for vectors, and the sum of |<u, w>|'s Cauchy-Schwarz bounds
	// ||u|| ||w|| for inner products (so that cancellation in a sum does not demand
	// absolute accuracy the difference quotient cannot give). Zero means the dtype
	// default: Rtol 1e-6 and Atol 1e-8 for float64 and complex128 (the 5-point
	// stencil with the default step is accurate to about 1e-10 on smooth functions
	// of unit scale, so these leave two orders of margin), and 1e-2 and 1e-3 for
	// float32 and complex64.
	Atol, Rtol float64

	// ExactAtol and ExactRtol are the tolerances of the checks that need no finite
	// differences (primal, forward-adjoint, hessian-symmetry, linearity,
	// zero-cotangent, repeat, kink), with the same meaning of scale. Zero means
	// Rtol 1e-11 and Atol 1e-13 for float64 and complex128 (a few hundred ulps:
	// these identities only suffer rounding), 1e-4 and 1e-6 for 32-bit types.
	ExactAtol, ExactRtol float64

	// Step is the base finite-difference step: the input is moved by
	// h = Step * sqrt(max(1, max_i |x_i|)) along a unit direction. Zero means 1e-3
	// for 64-bit dtypes and 1e-2 for 32-bit ones. The 5-point stencil
	//
	//	f'(0) ~ (f(-2h) - 8 f(-h) + 8 f(h) - f(2h)) / (12 h)
	//
	// has truncation error h^4 |f^(5)| / 30 and rounding error about 1.5 eps |f| / h;
	// the sum is smallest near h = eps^(1/5), about 7e-4 for float64, where both
	// are near 1e-13 relative. For large inputs forming x + h v itself rounds, with
	// relative error eps |x| / h in the step, so h must grow with |x|; growing like
	// sqrt|x| keeps that error below 1e-9 up to |x| ~ 1e7 while the truncation error
	// of a function whose derivatives do not shrink with |x| (sin at x = 250) stays
	// near 1e-9, where growing like |x| would cost five orders of magnitude.
	Step float64

	// FullJacobianMaxSize enables the jacobian check when the total number of input
	// elements plus output elements is at most this; zero disables it. It costs
	// 4 primal evaluations per real input coordinate and one pullback per real
	// output coordinate, and needs element access.
	FullJacobianMaxSize int

	// NoFiniteDifferences skips the adjoint-fd, jacobian, forward-fd and
	// second-order-fd checks, for ops whose output is not a differentiable function
	// near the given inputs. The exact identities still run.
	NoFiniteDifferences bool

	// MinOrder, with CheckRegistry and VerifyRegistry, fails every differentiable
	// family whose rules are not proven, at some sample, to at least this order of
	// derivative (check "order"): 1 the pullback, 2 the second-order rule, 3 and 4
	// the third and fourth derivatives through the pullback recorded with ops (see
	// Orders). Zero asks for nothing. A family marked NoDerivative is not held to it.
	MinOrder int

	// Kink, if set, declares that the inputs lie at a point where finite differences
	// do not apply (a kink such as relu at 0, a tie in max) and gives the documented
	// one-sided or split rule to check instead. It must be a *Kink[V] of the value
	// type checked. The finite-difference checks are replaced by the kink check; the
	// exact identities still run. It applies to Check and Verify only (a registry's
	// samples should avoid kinks).
	Kink KinkSpec
}

// KinkSpec is implemented by *Kink[V] only; it lets the non-generic Config carry a
// Kink of any value type.
type KinkSpec interface {
	kinkReason() string
}

// Kink gives the documented derivative of an op at a point where it is not
// differentiable, e.g. relu at 0 whose rule takes the subgradient 0, or max over a
// tie whose rule splits the cotangent evenly between the tied elements. The checker
// draws random cotangents and tangents and compares the rule with these functions.
// At least one of Pullback, JVP and SecondOrder must be set.
//
// The second-order rule is held to the same convention: with no input tangent its
// tangent is
//
//	xbardot_k = J_k^* ybardot,
//
// so when Pullback is set, PullbackWithTangents at (ybar, ybardot) without input
// tangents must give Pullback(ybardot) (a rule whose Pullback takes the subgradient 0
// and whose PullbackWithTangents takes 1 fails). SecondOrder, when set, gives the
// whole documented tangent, second derivatives included.
type Kink[V any] struct {
	// Reason describes the point, for messages ("relu at 0: subgradient 0").
	Reason string
	// Pullback returns the expected cotangents J_k^* ybar of the differentiable
	// inputs, in input order (one value per differentiable input).
	Pullback func(ybar V) ([]V, error)
	// JVP returns the expected output tangent for the input tangents xdot (one per
	// input; non-differentiable inputs get zero tangents).
	JVP func(xdot []V) (V, error)
	// SecondOrder returns the expected tangents of the cotangents
	//
	//	xbardot_k = J_k^* ybardot + sum_j (d/dx_j J_k^* ybar) xdot_j
	//
	// of the differentiable inputs, in input order, for the cotangent ybar, its
	// tangent ybardot and the input tangents xdot (one per input, zero for the
	// non-differentiable ones), with the documented convention for the second
	// derivatives at the kink (relu: zero).
	SecondOrder func(ybar, ybardot V, xdot []V) ([]V, error)
}

func (k *Kink[V]) kinkReason() string { return k.Reason }

// tolerances are the resolved numeric settings for one dtype.
type tolerances struct {
	atol, rtol, exactAtol, exactRtol, step float64
}

// defaultTolerances returns the defaults of a dtype name (see Config).
func defaultTolerances(dtype string) tolerances {
	switch dtype {
	case "float32", "complex64":
		return tolerances{atol: 1e-3, rtol: 1e-2, exactAtol: 1e-6, exactRtol: 1e-4, step: 1e-2}
	default:
		return tolerances{atol: 1e-8, rtol: 1e-6, exactAtol: 1e-13, exactRtol: 1e-11, step: 1e-3}
	}
}

// resolve fills the zero fields of cfg for the widest-tolerance dtype among dtypes.
func (cfg Config) resolve(dtypes []string) (Config, tolerances) {
	tol := defaultTolerances("float64")
	for _, d := range dtypes {
		if t := defaultTolerances(d); t.rtol > tol.rtol {
			tol = t
		}
	}
	if cfg.Seed == 0 {
		cfg.Seed = DefaultSeed
	}
	if cfg.Directions <= 0 {
		cfg.Directions = 2
	}
	set := func(dst *float64, v float64) {
		if v > 0 && !math.IsInf(v, 0) {
			*dst = v
		}
	}
	set(&tol.atol, cfg.Atol)
	set(&tol.rtol, cfg.Rtol)
	set(&tol.exactAtol, cfg.ExactAtol)
	set(&tol.exactRtol, cfg.ExactRtol)
	set(&tol.step, cfg.Step)
	return cfg, tol
}
