package elementwise

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/internal/vmath"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// The activation functions of torch.nn.functional that are elementwise. At their
// kinks the derivatives are PyTorch's one-sided choices, stated on each op, and
// second derivatives there are those of the side chosen.
var (
	// SigmoidOp is the op of Sigmoid: y = 1/(1 + e^-x); y' = y(1 - y), y" = y(1 - y)(1 - 2y). float64 (no overflow for any x) and complex128 (holomorphic).
	SigmoidOp cr.Op[*tensor.Dense]
	// LogSigmoidOp is the op of LogSigmoid: y = log(1/(1 + e^-x)) = min(x, 0) - log1p(e^-|x|); y' = sigmoid(-x), y" = -s(1 - s) with s = sigmoid(x). float64 only; complex input is an error (op name "logsigmoid").
	LogSigmoidOp cr.Op[*tensor.Dense]
	// ReluOp is the op of Relu: y = max(x, 0) (NaN propagates); y' = 1 for x > 0 and 0 otherwise, so relu'(0) = 0 (PyTorch's subgradient); y" = 0. float64 only.
	ReluOp cr.Op[*tensor.Dense]
	// SiluOp is the op of Silu: y = x sigmoid(x); with s = sigmoid(x), y' = s(1 + x(1 - s)), y" = s(1 - s)(2 + x(1 - 2s)). float64 only.
	SiluOp cr.Op[*tensor.Dense]
	// SoftplusOp is the op of Softplus: y = log(1 + e^x) (PyTorch's softplus with beta 1 and threshold 20: y = x where x > 20); y' = sigmoid(x), y" = s(1 - s). float64 only. SoftplusBetaOp takes other parameters.
	SoftplusOp cr.Op[*tensor.Dense]
	// EluOp is the op of Elu: y = x for x > 0 and e^x - 1 for x <= 0 (alpha 1);
	// y' = 1 for x > 0 and e^x for x <= 0 (so y'(0) = 1), y" = 0 for x > 0 and e^x for
	// x <= 0. EluAlphaOp takes other alphas.
	EluOp cr.Op[*tensor.Dense]
	// CeluOp is the op of Celu with alpha 1, which equals Elu with alpha 1.
	// CeluAlphaOp takes other alphas.
	CeluOp cr.Op[*tensor.Dense]
	// SeluOp is the op of Selu: y = scale x for x > 0 and scale alpha (e^x - 1) for
	// x <= 0, with PyTorch's alpha = 1.6732632423543772 and scale = 1.0507009873554805;
	// y' = scale for x > 0 and scale alpha e^x for x <= 0, y" = 0 and scale alpha e^x.
	SeluOp cr.Op[*tensor.Dense]
	// HardshrinkOp is the op of Hardshrink with lambda 0.5: y = x for |x| > lambda
	// and 0 otherwise; y' = 1 and 0, with y'(±lambda) = 0. HardshrinkLambdaOp takes
	// other lambdas.
	HardshrinkOp cr.Op[*tensor.Dense]
	// SoftshrinkOp is the op of Softshrink with lambda 0.5: y = x - lambda for
	// x > lambda, x + lambda for x < -lambda and 0 otherwise; y' = 1 outside
	// [-lambda, lambda] and 0 inside, ends included. SoftshrinkLambdaOp takes other
	// lambdas.
	SoftshrinkOp cr.Op[*tensor.Dense]
	// HardtanhOp is the op of Hardtanh on [-1, 1]: y = min(max(x, -1), 1);
	// y' = 1 strictly inside and 0 elsewhere, ends included (PyTorch's).
	// HardtanhRangeOp takes other ranges.
	HardtanhOp cr.Op[*tensor.Dense]
	// Relu6Op is the op of Relu6: y = min(max(x, 0), 6); y' = 1 on (0, 6) and 0
	// elsewhere (Hardtanh on [0, 6], as PyTorch computes it), under the name "relu6".
	Relu6Op cr.Op[*tensor.Dense]
	// HardsigmoidOp is the op of Hardsigmoid: y = min(max(x/6 + 1/2, 0), 1);
	// y' = 1/6 on (-3, 3) and 0 elsewhere, ends included (PyTorch's).
	HardsigmoidOp cr.Op[*tensor.Dense]
	// MishOp is the op of Mish: y = x tanh(softplus(x)). With t = tanh(softplus(x))
	// and s = sigmoid(x): y' = t + x (1 - t²) s, y" = (1 - t²) s (2 + x (1 - s - 2ts)).
	MishOp cr.Op[*tensor.Dense]
	// RreluOp is the op of Rrelu in evaluation mode with PyTorch's bounds 1/8 and 1/3:
	// the leaky relu with slope (lower + upper)/2, y = x for x >= 0 and slope x
	// otherwise; y' = 1 for x > 0 and slope for x <= 0, y" = 0. (In training mode
	// PyTorch draws random slopes, which a deterministic op cannot reproduce.)
	// RreluBoundsOp takes other bounds.
	RreluOp cr.Op[*tensor.Dense]
	// SoftsignOp is the op of Softsign: y = x/(1 + |x|). float64: y' = 1/(1 + |x|)²,
	// y" = -2 sign(x)/(1 + |x|)³ (0 at x = 0). complex128 (not holomorphic): with
	// r = |z| and u = 1/(1 + r), the Wirtinger derivatives f_z = u - r u²/2 and
	// f_zbar = -z² u²/(2r), and their derivatives; at z = 0, f_z = 1 and the others are
	// 0, PyTorch's value through abs'(0) = 0.
	SoftsignOp cr.Op[*tensor.Dense]
	// TanhshrinkOp is the op of Tanhshrink: y = x - tanh x; y' = tanh² x,
	// y" = 2 tanh x (1 - tanh² x). float64 and complex128 (holomorphic).
	TanhshrinkOp cr.Op[*tensor.Dense]
	// PreluOp is PReLU, y = a for a > 0 and w a otherwise, with a learnable slope w
	// that is either one element or one per channel, the channels being dim 1 of a
	// (PyTorch's layout: w of shape [C] scales a[:, c, ...]). f_a = 1 for a > 0 and w
	// otherwise (so f_a(0) = w), f_w = 0 for a > 0 and a otherwise, f_aw = 0 and 1,
	// f_aa = f_ww = 0; w's cotangent is summed over the other dims and has w's shape.
	// float64 only.
	PreluOp cr.Op[*tensor.Dense]
)

// Sigmoid returns the elementwise SigmoidOp of x in a fresh tensor.
func Sigmoid(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(SigmoidOp, x) }

// LogSigmoid returns the elementwise LogSigmoidOp of x in a fresh tensor.
func LogSigmoid(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(LogSigmoidOp, x) }

// Relu returns the elementwise ReluOp of x in a fresh tensor.
func Relu(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(ReluOp, x) }

// Silu returns the elementwise SiluOp of x in a fresh tensor.
func Silu(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(SiluOp, x) }

// Softplus returns the elementwise SoftplusOp of x in a fresh tensor.
func Softplus(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(SoftplusOp, x) }

// Elu returns the elementwise EluOp of x in a fresh tensor.
func Elu(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(EluOp, x) }

// Celu returns the elementwise CeluOp of x in a fresh tensor.
func Celu(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(CeluOp, x) }

// Selu returns the elementwise SeluOp of x in a fresh tensor.
func Selu(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(SeluOp, x) }

// Hardshrink returns the elementwise HardshrinkOp of x in a fresh tensor.
func Hardshrink(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(HardshrinkOp, x) }

// Softshrink returns the elementwise SoftshrinkOp of x in a fresh tensor.
func Softshrink(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(SoftshrinkOp, x) }

// Hardtanh returns the elementwise HardtanhOp of x in a fresh tensor.
func Hardtanh(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(HardtanhOp, x) }

// Relu6 returns the elementwise Relu6Op of x in a fresh tensor.
func Relu6(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(Relu6Op, x) }

// Hardsigmoid returns the elementwise HardsigmoidOp of x in a fresh tensor.
func Hardsigmoid(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(HardsigmoidOp, x) }

// Mish returns the elementwise MishOp of x in a fresh tensor.
func Mish(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(MishOp, x) }

// Rrelu returns the elementwise RreluOp of x in a fresh tensor.
func Rrelu(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(RreluOp, x) }

// Softsign returns the elementwise SoftsignOp of x in a fresh tensor.
func Softsign(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(SoftsignOp, x) }

// Tanhshrink returns the elementwise TanhshrinkOp of x in a fresh tensor.
func Tanhshrink(x *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(TanhshrinkOp, x) }

// Prelu returns PreluOp of a with slopes w in a fresh tensor.
func Prelu(a, w *tensor.Dense) (*tensor.Dense, error) { return cr.Eval(PreluOp, a, w) }

func init() {
	defUnary([]unaryFn{
		{op: &SigmoidOp, name: "sigmoid", dtypes: bothDTypes, dom: anywhere, doc: "y = 1/(1 + e^-x)",
			spec: UnarySpec{Real: Func1[float64]{F: sigmoid, Slice: sigmoidSlice, D1: sigmoidD1[float64], D2: sigmoidD2[float64], Pull: sigmoidPull,
				single: vmath.Sigmoid32, singleD1: sigmoidD1Single, singleD2: sigmoidD2Single},
				Complex: Func1[complex128]{F: csigmoid, D1: sigmoidD1[complex128], D2: sigmoidD2[complex128]}},
			deriv: func(e expr, _, y cr.NodeID) cr.NodeID { return e.mul(y, e.oneMinus(y)) }},
		{op: &LogSigmoidOp, name: "logsigmoid", dtypes: realOnly, dom: anywhere, doc: "y = log sigmoid(x)",
			spec:  UnarySpec{Real: Func1[float64]{F: logSigmoid, Slice: logSigmoidSlice, D1: logSigmoidD1, D2: logSigmoidD2}},
			deriv: func(e expr, x, _ cr.NodeID) cr.NodeID { return e.sigmoid(e.neg(x)) }},
		{op: &ReluOp, name: "relu", dtypes: realOnly, dom: offZero, doc: "y = max(x, 0), relu'(0) = 0",
			spec: UnarySpec{Real: Func1[float64]{F: relu, Slice: reluSlice, D1: reluD1, D2: zero[float64], Pull: reluPull,
				single: reluSingle, singleD1: reluD1Single, singleD2: reluD2Single}},
			step: true},
		{op: &SiluOp, name: "silu", dtypes: realOnly, dom: anywhere, doc: "y = x sigmoid(x)",
			spec: UnarySpec{Real: Func1[float64]{F: silu, Slice: siluSlice, D1: siluD1, D2: siluD2}},
			deriv: func(e expr, x, y cr.NodeID) cr.NodeID {
				s := e.sigmoid(x) // silu' = s (1 + x (1 - s)) = s + y (1 - s)
				return e.add(s, e.mul(y, e.oneMinus(s)))
			}},
		{op: &SoftplusOp, name: "softplus", dtypes: realOnly, dom: anywhere, doc: "y = log(1 + e^(beta x))/beta, linear above the threshold",
			spec: softplusSpec(1, 20),
			extra: func(rng *rand.Rand) []cr.Sample[*tensor.Dense] {
				return []cr.Sample[*tensor.Dense]{{Name: "beta 3, threshold 20", Op: SoftplusBetaOp(3, 20),
					Inputs: []*tensor.Dense{anywhere.draw(rng, tensor.Float64, 2, 3)}}}
			}},
		{name: "threshold", dtypes: realOnly, dom: offZero, doc: "y = x for x > threshold, value otherwise",
			of: ThresholdOp(0.1, 2)},
		{op: &EluOp, name: "elu", dtypes: realOnly, dom: offZero, doc: "y = x for x > 0, alpha (e^x - 1) otherwise",
			of: EluAlphaOp(1)},
		{op: &CeluOp, name: "celu", dtypes: realOnly, dom: offZero, doc: "y = x for x > 0, alpha (e^(x/alpha) - 1) otherwise",
			of: CeluAlphaOp(1)},
		{op: &SeluOp, name: "selu", dtypes: realOnly, dom: offZero, doc: "y = scale elu(x, alpha) with PyTorch's constants",
			spec: eluSpec(seluAlpha, seluScale, 1)},
		{op: &HardshrinkOp, name: "hardshrink", dtypes: realOnly, dom: domain{0.6, 2, true}, doc: "y = x for |x| > lambda, 0 otherwise",
			of: HardshrinkLambdaOp(0.5)},
		{op: &SoftshrinkOp, name: "softshrink", dtypes: realOnly, dom: domain{0.6, 2, true}, doc: "y = x - lambda sign(x) for |x| > lambda, 0 otherwise",
			of: SoftshrinkLambdaOp(0.5)},
		{op: &HardtanhOp, name: "hardtanh", dtypes: realOnly, dom: domain{0.1, 0.9, true}, doc: "y = min(max(x, -1), 1)",
			of: HardtanhRangeOp(-1, 1)},
		{op: &Relu6Op, name: "relu6", dtypes: realOnly, dom: offZero, doc: "y = min(max(x, 0), 6)",
			spec: hardtanhSpec(0, 6)},
		{op: &HardsigmoidOp, name: "hardsigmoid", dtypes: realOnly, dom: anywhere, doc: "y = min(max(x/6 + 1/2, 0), 1)",
			spec: UnarySpec{Real: Func1[float64]{F: hardsigmoid, D1: hardsigmoidD1, D2: zero[float64]}},
			step: true},
		{op: &MishOp, name: "mish", dtypes: realOnly, dom: anywhere, doc: "y = x tanh(softplus(x))",
			spec: UnarySpec{Real: Func1[float64]{F: mish, D1: mishD1, D2: mishD2}},
			// mish' = t + x (1 - t²) s with t = tanh(softplus(x)), s = sigmoid(x), and
			// mish's own softplus, log(1 + e^x) without a threshold.
			deriv: func(e expr, x, _ cr.NodeID) cr.NodeID {
				t := e.ap(TanhOp, e.ap(SoftplusBetaOp(1, math.Inf(1)), x))
				return e.add(t, e.mul(e.mul(x, e.oneMinus(e.square(t))), e.sigmoid(x)))
			}},
		{op: &RreluOp, name: "rrelu", dtypes: realOnly, dom: offZero, doc: "y = x for x > 0, slope x otherwise (evaluation mode)",
			of: RreluBoundsOp(1.0/8, 1.0/3)},
		{op: &SoftsignOp, name: "softsign", dtypes: bothDTypes, dom: offZero, doc: "y = x/(1 + |x|)",
			spec: UnarySpec{
				Real:      Func1[float64]{F: softsign, D1: softsignD1, D2: softsignD2},
				Wirtinger: Wirtinger{F: csoftsign, D1: csoftsignD1, D2: csoftsignD2}},
			deriv: func(e expr, x, _ cr.NodeID) cr.NodeID {
				return e.square(e.recip(e.shift(1, e.ap(AbsOp, x)))) // 1/(1 + |x|)²
			},
			// softsign on complex128: y = z u with u = 1/(1 + r), ydot = u zdot + z udot and
			// udot = -u² Re(conj(s) zdot), s = sgn(z), whose adjoint is
			// xbar = u ybar - u² Re(conj(z) ybar) s.
			vjp: func(e expr, x, _, ybar cr.NodeID) cr.NodeID {
				u := e.recip(e.shift(1, e.ap(AbsOp, x)))
				t := e.real(e.mul(e.conj(x), ybar))
				return e.sub(e.mul(u, ybar), e.mul(e.mul(e.square(u), t), e.ap(SgnOp, x)))
			}},
		{op: &TanhshrinkOp, name: "tanhshrink", dtypes: bothDTypes, dom: anywhere, doc: "y = x - tanh x",
			spec: UnarySpec{
				Real:    Func1[float64]{F: func(x float64) float64 { return x - math.Tanh(x) }, D1: tanhshrinkD1[float64](math.Tanh), D2: tanhshrinkD2[float64](math.Tanh)},
				Complex: Func1[complex128]{F: func(z complex128) complex128 { return z - cmplx.Tanh(z) }, D1: tanhshrinkD1(cmplx.Tanh), D2: tanhshrinkD2(cmplx.Tanh)}},
			deriv: func(e expr, x, _ cr.NodeID) cr.NodeID { return e.square(e.ap(TanhOp, x)) }},
	})
	defBinary([]binaryFn{
		{op: &PreluOp, dtypes: realOnly, doc: "y = a for a > 0, w a otherwise; w per channel (dim 1) or one element",
			of: preluOp{},
			samples: func(rng *rand.Rand) []cr.Sample[*tensor.Dense] {
				s := func(name string, a, w []int) cr.Sample[*tensor.Dense] {
					return cr.Sample[*tensor.Dense]{Name: name, Op: PreluOp,
						Inputs: []*tensor.Dense{offZero.draw(rng, tensor.Float64, a...), anywhere.draw(rng, tensor.Float64, w...)}}
				}
				return []cr.Sample[*tensor.Dense]{s("[3 4] []", []int{3, 4}, nil), s("[2 3 4] [3]", []int{2, 3, 4}, []int{3}),
					s("[] [1]", nil, []int{1}), s("[2 0] [1]", []int{2, 0}, []int{1})}
			}},
	})
}

// SoftplusBetaOp returns the op of PyTorch's softplus with parameters beta and
// threshold:
//
//	y = log(1 + e^(beta x))/beta   where beta x <= threshold,
//	y = x                          where beta x > threshold,
//
// with y' = sigmoid(beta x) and y" = beta s(1 - s), s = sigmoid(beta x), in the first
// region and y' = 1, y" = 0 in the second (the jump of y' at the threshold is
// PyTorch's). beta must be nonzero (Apply reports ErrInvalidArgument otherwise).
// float64 only; the op name is "softplus".
func SoftplusBetaOp(beta, threshold float64) cr.Op[*tensor.Dense] {
	if beta == 0 || beta != beta {
		return cr.FailOp[*tensor.Dense]("softplus", cr.Errorf(cr.ErrInvalidArgument, "softplus: beta must be nonzero, got %v", beta))
	}
	return Unary("softplus", softplusSpec(beta, threshold))
}

// SoftplusBeta returns SoftplusBetaOp(beta, threshold) of x in a fresh tensor.
func SoftplusBeta(x *tensor.Dense, beta, threshold float64) (*tensor.Dense, error) {
	return cr.Eval(SoftplusBetaOp(beta, threshold), x)
}

const (
	seluAlpha = 1.6732632423543772848170429916717
	seluScale = 1.0507009873554804934193349852946
)

// EluAlphaOp returns the op of PyTorch's elu(x, alpha): y = x for x > 0 and
// alpha (e^x - 1) for x <= 0; y' = 1 and alpha e^x (y'(0) = alpha, PyTorch's),
// y" = 0 and alpha e^x. The op name is "elu".
func EluAlphaOp(alpha float64) cr.Op[*tensor.Dense] { return Unary("elu", eluSpec(alpha, 1, 1)) }

// CeluAlphaOp returns the op of PyTorch's celu(x, alpha): y = x for x > 0 and
// alpha (e^(x/alpha) - 1) for x <= 0; y' = 1 and e^(x/alpha), y" = 0 and
// e^(x/alpha)/alpha. alpha must be nonzero (Apply reports ErrInvalidArgument
// otherwise). The op name is "celu".
func CeluAlphaOp(alpha float64) cr.Op[*tensor.Dense] {
	if alpha == 0 || alpha != alpha {
		return cr.FailOp[*tensor.Dense]("celu", cr.Errorf(cr.ErrInvalidArgument, "celu: alpha must be nonzero, got %v", alpha))
	}
	return Unary("celu", eluSpec(alpha, 1, 1/alpha))
}

// eluSpec is PyTorch's elu kernel: y = scale x for x > 0 and
// scale alpha (e^(in x) - 1) for x <= 0.
func eluSpec(alpha, scale, in float64) UnarySpec {
	return UnarySpec{Deriv: eluDeriv(alpha, scale, in), Real: Func1[float64]{
		F: func(x float64) float64 {
			if x > 0 {
				return scale * x
			}
			return scale * alpha * math.Expm1(in*x)
		},
		D1: func(x, _ float64) float64 {
			if x > 0 {
				return scale
			}
			return scale * alpha * in * math.Exp(in*x)
		},
		D2: func(x, _ float64) float64 {
			if x > 0 {
				return 0
			}
			return scale * alpha * in * in * math.Exp(in*x)
		}}}
}

// HardshrinkLambdaOp returns the op of PyTorch's hardshrink(x, lambd): y = 0 for
// -lambd <= x <= lambd and x otherwise (so x everywhere for a negative lambd);
// y' = 0 and 1. The op name is "hardshrink".
func HardshrinkLambdaOp(lambd float64) cr.Op[*tensor.Dense] {
	inside := func(x float64) bool { return x >= -lambd && x <= lambd }
	return Unary("hardshrink", piecewiseLinear("hardshrink", UnarySpec{Real: Func1[float64]{
		F: func(x float64) float64 {
			if inside(x) {
				return 0
			}
			return x
		},
		D1: func(x, _ float64) float64 { return float01(!inside(x)) },
		D2: zero[float64]}}))
}

// SoftshrinkLambdaOp returns the op of PyTorch's softshrink(x, lambd): y = x - lambd
// for x > lambd, x + lambd for x < -lambd and 0 otherwise; y' = 1 outside
// [-lambd, lambd] and 0 inside. lambd must not be negative (Apply reports
// ErrInvalidArgument otherwise, as PyTorch does). The op name is "softshrink".
func SoftshrinkLambdaOp(lambd float64) cr.Op[*tensor.Dense] {
	if lambd < 0 || lambd != lambd {
		return cr.FailOp[*tensor.Dense]("softshrink", cr.Errorf(cr.ErrInvalidArgument, "softshrink: lambda must be >= 0, got %v", lambd))
	}
	return Unary("softshrink", piecewiseLinear("softshrink", UnarySpec{Real: Func1[float64]{
		F: func(x float64) float64 {
			switch {
			case x > lambd:
				return x - lambd
			case x < -lambd:
				return x + lambd
			case x != x:
				return x
			}
			return 0
		},
		D1: func(x, _ float64) float64 { return float01(x > lambd || x < -lambd) },
		D2: zero[float64]}}))
}

// HardtanhRangeOp returns the op of PyTorch's hardtanh(x, min_val, max_val):
// y = min(max(x, min_val), max_val); y' = 1 for min_val < x < max_val and 0
// elsewhere. The op name is "hardtanh".
func HardtanhRangeOp(minVal, maxVal float64) cr.Op[*tensor.Dense] {
	return Unary("hardtanh", hardtanhSpec(minVal, maxVal))
}

func hardtanhSpec(lo, hi float64) UnarySpec {
	return piecewiseLinear("hardtanh", UnarySpec{Real: Func1[float64]{
		F: func(x float64) float64 {
			if x != x {
				return x
			}
			return math.Min(math.Max(x, lo), hi)
		},
		D1: func(x, _ float64) float64 { return float01(x > lo && x < hi) },
		D2: zero[float64]}})
}

// RreluBoundsOp returns the op of PyTorch's rrelu(x, lower, upper) in evaluation
// mode: the leaky relu with slope (lower + upper)/2 (see RreluOp). The op name is
// "rrelu".
func RreluBoundsOp(lower, upper float64) cr.Op[*tensor.Dense] {
	slope := (lower + upper) / 2
	return Unary("rrelu", piecewiseLinear("rrelu", UnarySpec{Real: Func1[float64]{
		F: func(x float64) float64 {
			if x > 0 {
				return x
			}
			return slope * x
		},
		D1: func(x, _ float64) float64 {
			if x > 0 {
				return 1
			}
			return slope
		},
		D2: zero[float64]}}))
}

// ThresholdOp returns the op of PyTorch's threshold(x, threshold, value): y = x for
// x > threshold and value otherwise; y' = 1 for x > threshold and 0 otherwise,
// y" = 0. The op name is "threshold".
func ThresholdOp(threshold, value float64) cr.Op[*tensor.Dense] {
	return Unary("threshold", piecewiseLinear("threshold", UnarySpec{Real: Func1[float64]{
		F: func(x float64) float64 {
			if x > threshold || x != x {
				return x
			}
			return value
		},
		D1: func(x, _ float64) float64 { return float01(x > threshold) },
		D2: zero[float64]}}))
}

func hardsigmoid(x float64) float64 {
	if x != x {
		return x
	}
	return math.Min(math.Max(x/6+0.5, 0), 1)
}

func hardsigmoidD1(x, _ float64) float64 {
	if x > -3 && x < 3 {
		return 1.0 / 6
	}
	return 0
}

// mishT returns tanh(softplus(x)) and sigmoid(x).
func mishT(x float64) (t, s float64) { return math.Tanh(softplus(x)), sigmoid(x) }

func mish(x float64) float64 { return x * math.Tanh(softplus(x)) }

func mishD1(x, _ float64) float64 {
	t, s := mishT(x)
	return t + x*(1-t*t)*s
}

func mishD2(x, _ float64) float64 {
	t, s := mishT(x)
	return (1 - t*t) * s * (2 + x*(1-s-2*t*s))
}

func softsign(x float64) float64 { return x / (1 + math.Abs(x)) }

func softsignD1(x, _ float64) float64 {
	d := 1 + math.Abs(x)
	return 1 / (d * d)
}

func softsignD2(x, _ float64) float64 {
	d := 1 + math.Abs(x)
	return -2 * sign(x, 0) / (d * d * d)
}

func csoftsign(z complex128) complex128 { return z / complex(1+cmplx.Abs(z), 0) }

// softsignParts returns, for f = z u with u = 1/(1 + r) and r = |z|, the first and
// second Wirtinger derivatives of u, from those of r:
// r_z = conj(z)/(2r), r_zbar = z/(2r), r_zz = -conj(z)²/(4r³), r_zzbar = 1/(4r),
// r_zbarzbar = -z²/(4r³); u_z = -r_z u², u_zz = -r_zz u² + 2 r_z² u³, and likewise.
func softsignParts(z complex128) (u, uz, uzb, uzz, uzzb, uzbzb complex128) {
	r := cmplx.Abs(z)
	u = complex(1/(1+r), 0)
	zc := cmplx.Conj(z)
	rz, rzb := zc/complex(2*r, 0), z/complex(2*r, 0)
	r3 := complex(4*r*r*r, 0)
	rzz, rzzb, rzbzb := -zc*zc/r3, complex(1/(4*r), 0), -z*z/r3
	u2, u3 := u*u, u*u*u
	uz, uzb = -rz*u2, -rzb*u2
	uzz = -rzz*u2 + 2*rz*rz*u3
	uzzb = -rzzb*u2 + 2*rz*rzb*u3
	uzbzb = -rzbzb*u2 + 2*rzb*rzb*u3
	return
}

func csoftsignD1(z, _ complex128) (complex128, complex128) {
	if z == 0 {
		return 1, 0
	}
	u, uz, uzb, _, _, _ := softsignParts(z)
	return u + z*uz, z * uzb
}

func csoftsignD2(z, _ complex128) (complex128, complex128, complex128) {
	if z == 0 {
		return 0, 0, 0
	}
	_, uz, uzb, uzz, uzzb, uzbzb := softsignParts(z)
	return 2*uz + z*uzz, uzb + z*uzzb, z * uzbzb
}

func tanhshrinkD1[T tensor.Element](tanh func(T) T) func(x, y T) T {
	return func(x, _ T) T { t := tanh(x); return t * t }
}

func tanhshrinkD2[T tensor.Element](tanh func(T) T) func(x, y T) T {
	return func(x, _ T) T { t := tanh(x); return 2 * t * (1 - t*t) }
}

// preluCore is PReLU with NumPy broadcasting; preluOp aligns w with dim 1 first.
var preluCore = Binary("prelu", BinarySpec{Real: Func2[float64]{
	F: func(a, w float64) float64 {
		if a > 0 {
			return a
		}
		return w * a
	},
	D1: func(a, w, _ float64) (float64, float64) {
		if a > 0 {
			return 1, 0
		}
		return w, a
	},
	D2: func(a, _, _ float64) (float64, float64, float64) {
		if a > 0 {
			return 0, 0, 0
		}
		return 0, 1, 0
	}}})

// preluOp applies preluCore to a and a view of w that broadcasts along dim 1 of a,
// and gives w's cotangent (and reads its tangent) in w's own shape.
type preluOp struct{}

func (preluOp) Name() string { return "prelu" }

func (preluOp) NumOutputs() int { return 1 }

func (o preluOp) Apply(in []cr.NodeID, xs, ys []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if len(xs) != 2 || len(in) != 2 || xs[0] == nil || xs[1] == nil {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "prelu: want 2 inputs")
	}
	if hasSingle(xs) {
		return applySingle(o, in, xs, ys)
	}
	if err := opkit.CheckDTypes("prelu", xs); err != nil {
		return nil, err
	}
	a, w := xs[0], xs[1]
	var view []int // w's shape as the core sees it
	switch {
	case w.Size() == 1:
		view = []int{}
	case w.Rank() == 1 && a.Rank() >= 2 && w.Shape()[0] == a.Shape()[1]:
		view = make([]int, a.Rank()-1)
		for k := range view {
			view[k] = 1
		}
		view[0] = w.Shape()[0]
	default:
		return nil, cr.Errorf(cr.ErrShapeMismatch, "prelu: weight %s is neither one element nor one per channel (dim 1) of input %s", w.Describe(), a.Describe())
	}
	wv, err := w.Reshape(view...)
	if err != nil {
		return nil, err
	}
	rule, err := preluCore.Apply(in, []*tensor.Dense{a, wv}, ys)
	if err != nil {
		return nil, err
	}
	return &preluRule{inner: rule.(*binaryRule), wShape: slices.Clone(w.Shape()), view: view}, nil
}

type preluRule struct {
	inner        *binaryRule
	wShape, view []int
}

func (r *preluRule) Inputs() []cr.NodeID { return r.inner.Inputs() }

// toView reads w's tangent in the core's shape.
func (r *preluRule) toView(tangentOf cr.TangentOf[*tensor.Dense]) cr.TangentOf[*tensor.Dense] {
	w := r.inner.in[1]
	return func(id cr.NodeID) (*tensor.Dense, bool) {
		t, ok := tangentOf(id)
		if !ok || id != w || t == nil || !slices.Equal(t.Shape(), r.wShape) {
			return t, ok // a wrongly shaped tangent is reported by the core
		}
		v, err := t.Reshape(r.view...)
		if err != nil {
			return t, ok
		}
		return v, true
	}
}

func (r *preluRule) back(t *tensor.Dense) (*tensor.Dense, error) {
	if t == nil {
		return nil, nil
	}
	return t.Reshape(r.wShape...)
}

func (r *preluRule) Pullback(ybar []*tensor.Dense, has []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	n := len(dst)
	dst, err := r.inner.Pullback(ybar, has, dst)
	if err != nil {
		return dst, err
	}
	dst[n+1].Value, err = r.back(dst[n+1].Value)
	return dst, err
}

func (r *preluRule) Forward(tangentOf cr.TangentOf[*tensor.Dense], ydot []*tensor.Dense, has []bool) error {
	return r.inner.Forward(r.toView(tangentOf), ydot, has)
}

func (r *preluRule) PullbackWithTangents(a cr.SecondOrderArgs[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	n := len(dst)
	a.TangentOf = r.toView(a.TangentOf)
	dst, err := r.inner.PullbackWithTangents(a, dst)
	if err != nil {
		return dst, err
	}
	c := &dst[n+1].Cotangent
	if c.Value, err = r.back(c.Value); err != nil {
		return dst, err
	}
	c.Tangent, err = r.back(c.Tangent)
	return dst, err
}

func sigmoidPull(dst, _, y, yb []float64) {
	y = y[:len(yb)]
	for i, v := range yb {
		dst[i] = (y[i] * (1 - y[i])) * v
	}
}

func sigmoidD1[T tensor.Element](_, y T) T { return y * (1 - y) }

func sigmoidD2[T tensor.Element](_, y T) T { return y * (1 - y) * (1 - 2*y) }

func csigmoid(z complex128) complex128 { return 1 / (1 + cmplx.Exp(-z)) }

// relu keeps NaN (like PyTorch) and maps -0 to 0.
func relu(x float64) float64 {
	if x > 0 || x != x {
		return x
	}
	return 0
}

// reluSlice is relu over a slice (Func1.Slice): max(x, 0), which is relu bit for
// bit (NaN stays NaN, -0 gives +0) and compiles without a branch, where the branch
// of the scalar form mispredicts one element in two on data of random sign.
func reluSlice(dst, x []float64) {
	x = x[:len(dst)]
	for i, v := range x {
		dst[i] = max(v, 0)
	}
}

// Bits of 1 and +Inf, for reluPull.
const (
	oneBits = 0x3ff0000000000000
	infBits = 0x7ff0000000000000
)

// reluPull is relu's pullback (Func1.Pull): reluD1(x) ybar, the product kept
// (0 times a NaN or an infinite cotangent is NaN, times a negative one -0), as the
// generic loop computes it. relu'(x) is found without a branch: the bits of
// max(x, 0) are non-zero and at most those of +Inf exactly when x > 0.
func reluPull(dst, x, _, yb []float64) {
	x = x[:len(dst)]
	yb = yb[:len(dst)]
	for i, v := range yb {
		b := math.Float64bits(max(x[i], 0))
		m := math.Float64frombits(oneBits * ((b | -b) >> 63) * b2u(b <= infBits))
		dst[i] = m * v
	}
}

// b2u is 1 for true and 0 for false (a SETcc, not a branch).
func b2u(c bool) uint64 {
	var u uint64
	if c {
		u = 1
	}
	return u
}

// reluD1 is relu' with the subgradient 0 at 0.
func reluD1(x, _ float64) float64 {
	if x > 0 {
		return 1
	}
	return 0
}

// softplus(x) = log(1 + e^x) = max(x, 0) + log1p(e^-|x|).
func softplus(x float64) float64 { return math.Max(x, 0) + math.Log1p(fastExp(-math.Abs(x))) }

// logSigmoid(x) = -softplus(-x) = min(x, 0) - log1p(e^-|x|).
func logSigmoid(x float64) float64 { return math.Min(x, 0) - math.Log1p(fastExp(-math.Abs(x))) }

func logSigmoidD1(x, _ float64) float64 { return sigmoid(-x) }

func logSigmoidD2(x, _ float64) float64 { s := sigmoid(x); return -s * (1 - s) }

func silu(x float64) float64 { return x * sigmoid(x) }

func siluD1(x, _ float64) float64 {
	s := sigmoid(x)
	return s * (1 + x*(1-s))
}

func siluD2(x, _ float64) float64 {
	s := sigmoid(x)
	return s * (1 - s) * (2 + x*(1-2*s))
}

// softplusSpec is softplus with PyTorch's beta and threshold:
// y = log(1 + e^(beta x))/beta, and y = x where beta x > threshold.
func softplusSpec(beta, threshold float64) UnarySpec {
	lin := func(x float64) bool { return x*beta > threshold }
	return UnarySpec{Deriv: softplusDeriv(beta, threshold), Real: Func1[float64]{
		F: func(x float64) float64 {
			if lin(x) {
				return x
			}
			return softplus(beta*x) / beta
		},
		// F on blocks, with e^-|beta x| from the vector kernel.
		Slice: func(dst, x []float64) {
			expNegAbsChunks(dst, x, beta, func(d, xs []float64) {
				d = d[:len(xs)]
				for i, v := range xs {
					if lin(v) {
						d[i] = v
						continue
					}
					d[i] = (math.Max(beta*v, 0) + math.Log1p(d[i])) / beta
				}
			})
		},
		D1: func(x, _ float64) float64 {
			if lin(x) {
				return 1
			}
			return sigmoid(beta * x)
		},
		D2: func(x, _ float64) float64 {
			if lin(x) {
				return 0
			}
			s := sigmoid(beta * x)
			return beta * s * (1 - s)
		}}}
}
