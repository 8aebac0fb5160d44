package elementwise

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// The binary ops. They broadcast like NumPy (tensor.BroadcastShapes; ErrShapeMismatch
// otherwise), and each input's cotangent is summed over the axes it was broadcast
// along (tensor.SumTo), so it has the input's shape:
//
//	abar = SumTo(conj(f_a) ybar, shape(a)),  bbar = SumTo(conj(f_b) ybar, shape(b)),
//	ydot = f_a adot + f_b bdot,
//	abardot = SumTo(conj(f_a) ybardot + conj(f_aa adot + f_ab bdot) ybar, shape(a)),
//
// and likewise bbardot with (f_b, f_ab adot + f_bb bdot). Ops defined for complex128
// promote a float64 operand when the other is complex, and the float64 operand
// receives the real part of its cotangent; the others return an error wrapping
// chainrules.ErrInvalidArgument for complex input.
var (
	// AddOp is y = a + b: f_a = f_b = 1. float64 and complex128.
	AddOp = Binary("add", addSpec)
	// SubOp is y = a - b: f_a = 1, f_b = -1. float64 and complex128.
	SubOp = Binary("sub", subSpec)
	// MulOp is y = a b: f_a = b, f_b = a, f_ab = 1. float64 and complex128.
	MulOp = Binary("mul", mulSpec)
	// DivOp is y = a/b: f_a = 1/b, f_b = -y/b; f_ab = -1/b², f_bb = 2y/b². float64
	// and complex128; division by zero follows IEEE 754.
	DivOp = Binary("div", divSpec)
	// PowOp is y = a^b: f_a = b a^(b-1), f_b = y log a; f_aa = b(b-1) a^(b-2),
	// f_ab = a^(b-1)(1 + b log a), f_bb = y log² a. Like PyTorch, f_a is 0 where
	// b = 0 and f_b is 0 where a = 0 and Re b >= 0. float64 (math.Pow: NaN for a < 0
	// and non-integer b) and complex128 (principal branch).
	PowOp = Binary("pow", powSpec)
	// MaximumOp is y = max(a, b), NaN if either is NaN: the larger input gets the
	// cotangent; at a tie a = b each gets half of it (PyTorch's rule, f_a = f_b =
	// 1/2); second derivatives are 0. float64 only.
	MaximumOp = Binary("maximum", maximumSpec)
	// MinimumOp is y = min(a, b), with the tie rule of MaximumOp. float64 only.
	MinimumOp = Binary("minimum", minimumSpec)
	// Atan2Op is y = atan2(a, b), the angle of b + ia: f_a = b/r², f_b = -a/r²
	// (r² = a² + b²), f_aa = -2ab/r⁴, f_ab = (a² - b²)/r⁴, f_bb = 2ab/r⁴; all taken as
	// 0 at a = b = 0. float64 only.
	Atan2Op = Binary("atan2", atan2Spec)
	// HypotOp is y = sqrt(a² + b²) without overflow: f_a = a/y, f_b = b/y,
	// f_aa = b²/y³, f_ab = -ab/y³, f_bb = a²/y³; all taken as 0 at a = b = 0 (the
	// subgradient of Abs). float64 only.
	HypotOp = Binary("hypot", hypotSpec)
	// XlogyOp is y = a log b, with y = 0 where a = 0 and b is not NaN: f_a = log b
	// (0 where a = 0 and b <= 0, PyTorch's mask), f_b = a/b, f_ab = 1/b, f_bb = -a/b². float64
	// only.
	XlogyOp = Binary("xlogy", xlogySpec)
)

// Add returns a + b, broadcast, in a fresh tensor.
func Add(a, b *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(AddOp, a, b) }

// Sub returns a - b, broadcast, in a fresh tensor.
func Sub(a, b *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(SubOp, a, b) }

// Mul returns a b, broadcast, in a fresh tensor.
func Mul(a, b *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(MulOp, a, b) }

// Div returns a/b, broadcast, in a fresh tensor.
func Div(a, b *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(DivOp, a, b) }

// Pow returns a^b, broadcast, in a fresh tensor.
func Pow(a, b *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(PowOp, a, b) }

// Maximum returns max(a, b), broadcast, in a fresh tensor.
func Maximum(a, b *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(MaximumOp, a, b) }

// Minimum returns min(a, b), broadcast, in a fresh tensor.
func Minimum(a, b *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(MinimumOp, a, b) }

// Atan2 returns atan2(a, b), broadcast, in a fresh tensor.
func Atan2(a, b *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(Atan2Op, a, b) }

// Hypot returns sqrt(a² + b²), broadcast, in a fresh tensor.
func Hypot(a, b *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(HypotOp, a, b) }

// Xlogy returns a log b, broadcast, in a fresh tensor.
func Xlogy(a, b *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(XlogyOp, a, b) }
