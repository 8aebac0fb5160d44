package nn

import (
	"math"
	"slices"
	"strconv"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// Reduction says how a loss combines its per-element (or per-sample) terms l_i, as
// PyTorch's reduction argument does.
type Reduction int

const (
	// ReductionMean averages the terms: sum_i l_i / n, or, for the class-label
	// losses with class weights or ignored labels, sum_i l_i / sum_i w_{y_i}
	// (PyTorch's weighted mean). It is the zero value and PyTorch's default. The
	// mean of no terms is NaN, as in PyTorch.
	ReductionMean Reduction = iota
	// ReductionSum adds the terms; the sum of no terms is 0.
	ReductionSum
	// ReductionNone returns the terms themselves.
	ReductionNone
)

// String returns PyTorch's name of the reduction: "mean", "sum" or "none".
func (r Reduction) String() string {
	switch r {
	case ReductionMean:
		return "mean"
	case ReductionSum:
		return "sum"
	case ReductionNone:
		return "none"
	}
	return "Reduction(" + strconv.Itoa(int(r)) + ")"
}

// LossOption configures a loss op. An option that the op does not take (PosWeight
// for mse_loss) makes the op's Apply fail with an error wrapping
// chainrules.ErrInvalidArgument, as does a bad value (a negative label smoothing).
type LossOption func(*lossConfig)

// option bits, to tell which options a loss was given.
const (
	optReduction = 1 << iota
	optSmoothing
	optClassWeights
	optIgnore
	optWeight
	optPosWeight
)

var optNames = map[int]string{optReduction: "reduction", optSmoothing: "label smoothing", optClassWeights: "class weights",
	optIgnore: "ignore index", optWeight: "weight", optPosWeight: "pos_weight"}

type lossConfig struct {
	set          int
	reduction    Reduction
	smoothing    float64
	classWeights []float64
	ignore       int
	weight       *tensor.Dense
	posWeight    *tensor.Dense
}

// WithReduction sets the reduction (ReductionMean if not given).
func WithReduction(r Reduction) LossOption {
	return func(c *lossConfig) { c.reduction, c.set = r, c.set|optReduction }
}

// LabelSmoothing mixes the targets of cross_entropy with the uniform distribution:
// with C classes, the target distribution t becomes (1 - eps) t + eps/C, for class
// labels and for probability targets alike (PyTorch's label_smoothing). eps lies in
// [0, 1].
func LabelSmoothing(eps float64) LossOption {
	return func(c *lossConfig) { c.smoothing, c.set = eps, c.set|optSmoothing }
}

// ClassWeights gives cross_entropy and nll_loss one non-negative weight per class
// (PyTorch's weight): the term of a sample of class c is scaled by w_c, and the
// mean divides by the sum of the weights of the samples' labels.
func ClassWeights(w ...float64) LossOption {
	w = slices.Clone(w)
	return func(c *lossConfig) { c.classWeights, c.set = w, c.set|optClassWeights }
}

// IgnoreIndex makes cross_entropy and nll_loss skip the samples whose label is
// label (PyTorch's ignore_index): their terms are zero, they receive no gradient
// and the mean does not count them. PyTorch ignores the label -100 by default;
// here no label is ignored unless this option is given, and a label outside
// [0, C) is an error.
func IgnoreIndex(label int) LossOption {
	return func(c *lossConfig) { c.ignore, c.set = label, c.set|optIgnore }
}

// Weight scales the elementwise terms of binary_cross_entropy_with_logits by w,
// which broadcasts to the input's shape (PyTorch's weight; a float32 w is widened
// exactly). w is a parameter: it receives no gradient.
func Weight(w *tensor.Dense) LossOption {
	return func(c *lossConfig) { c.weight, c.set = widened(w), c.set|optWeight }
}

// PosWeight weighs the positive part of binary_cross_entropy_with_logits by p,
// which broadcasts to the input's shape (PyTorch's pos_weight, one weight per class
// along the last axis): the term becomes
//
//	l = (1 - y) x + (1 + (p - 1) y) log(1 + exp(-x)).
//
// p is a parameter (a float32 p is widened exactly): it receives no gradient.
func PosWeight(p *tensor.Dense) LossOption {
	return func(c *lossConfig) { c.posWeight, c.set = widened(p), c.set|optPosWeight }
}

func newLossConfig(opts []LossOption) *lossConfig {
	c := &lossConfig{}
	for _, o := range opts {
		if o != nil {
			o(c)
		}
	}
	return c
}

// check returns an error if c holds an option outside allowed or a bad value.
func (c *lossConfig) check(name string, allowed int) error {
	for bit := 1; bit <= optPosWeight; bit <<= 1 {
		if c.set&bit != 0 && allowed&bit == 0 {
			return cr.Errorf(cr.ErrInvalidArgument, "%s takes no %s option", name, optNames[bit])
		}
	}
	if c.reduction < ReductionMean || c.reduction > ReductionNone {
		return cr.Errorf(cr.ErrInvalidArgument, "%s: unknown reduction %v", name, c.reduction)
	}
	if !(c.smoothing >= 0 && c.smoothing <= 1) {
		return cr.Errorf(cr.ErrInvalidArgument, "%s: label smoothing %v is outside [0, 1]", name, c.smoothing)
	}
	for k, w := range c.classWeights {
		if !(w >= 0) || math.IsInf(w, 0) {
			return cr.Errorf(cr.ErrInvalidArgument, "%s: class weight %d is %v; weights are finite and non-negative", name, k, w)
		}
	}
	if c.set&optWeight != 0 && c.weight == nil || c.set&optPosWeight != 0 && c.posWeight == nil {
		return cr.Errorf(cr.ErrInvalidArgument, "%s: nil weight tensor", name)
	}
	for _, w := range []*tensor.Dense{c.weight, c.posWeight} {
		if w != nil && w.DType() != tensor.Float64 {
			return cr.Errorf(cr.ErrInvalidArgument, "%s: weight tensor is %s; weights are float64", name, w.Describe())
		}
	}
	return nil
}

// reduceTerms records the reduction of the loss terms l.
func reduceTerms(t *tape, l cr.NodeID, r Reduction) cr.NodeID {
	switch r {
	case ReductionSum:
		return t.Apply(reduce.SumOp(nil, false), l)
	case ReductionNone:
		return l
	}
	return t.Apply(reduce.MeanOp(nil, false), l)
}

// lossComposite returns the composite op name of arity 2 whose body checks the
// options and the inputs, then records terms(input, target) and its reduction.
func lossComposite(name string, c *lossConfig, allowed int, sameShape bool,
	terms func(t *tape, x, y cr.NodeID, xv *tensor.Dense) cr.NodeID) cr.Op[*tensor.Dense] {
	return withSingle(core.Composite(name, tensor.Space{}, 2, func(t *tape, in []cr.NodeID) []cr.NodeID {
		err := c.check(name, allowed)
		xv, _ := t.Value(in[0])
		yv, _ := t.Value(in[1])
		if err == nil {
			err = checkInputs(name, []*tensor.Dense{xv, yv}, 2)
		}
		if err == nil && sameShape && !slices.Equal(xv.Shape(), yv.Shape()) {
			err = cr.Errorf(cr.ErrShapeMismatch, "%s: input is %s, target is %s; they have the same shape", name, xv.Describe(), yv.Describe())
		}
		if err != nil {
			return []cr.NodeID{t.Apply(cr.FailOp[*tensor.Dense](name, err), in...)}
		}
		return []cr.NodeID{reduceTerms(t, terms(t, in[0], in[1], xv), c.reduction)}
	}))
}

// MSELossOp returns PyTorch's mse_loss of an input x and a target y (arity 2, both
// differentiable), which broadcast together:
//
//	l_i = |x_i - y_i|^2,   reduced by the reduction option (mean by default).
//
// It is a composite of sub, abs2 and a reduction, so its rules are theirs: with
// lbar the cotangent of the terms, xbar = 2 (x - y) lbar and the target's cotangent
// is its negative (summed over the axes it was broadcast along); the second-order
// rule is exact. Complex input is allowed (the squared modulus |x - y|^2, whose
// gradient is 2 (x - y) lbar under PyTorch's convention); PyTorch itself has no
// complex mse_loss. Options: WithReduction.
func MSELossOp(opts ...LossOption) cr.Op[*tensor.Dense] {
	return lossComposite("mse_loss", newLossConfig(opts), optReduction, false,
		func(t *tape, x, y cr.NodeID, _ *tensor.Dense) cr.NodeID {
			return t.Apply(elementwise.Abs2Op, t.Apply(elementwise.SubOp, x, y))
		})
}

// HuberLossOp returns PyTorch's huber_loss with threshold delta > 0 of an input x and
// a target y (float64, both differentiable, broadcasting together): with d = x - y,
//
//	l_i = d_i^2 / 2                     if |d_i| < delta
//	l_i = delta (|d_i| - delta / 2)     otherwise,
//
// reduced by the reduction option. dl/dd = clamp(d, -delta, delta) (continuous),
// and d^2 l/dd^2 = 1 where |d| < delta and 0 elsewhere (PyTorch's convention at
// |d| = delta). A composite of sub, the elementwise Huber function and a reduction.
// A delta that is not positive is an error wrapping chainrules.ErrInvalidArgument.
// Options: WithReduction.
func HuberLossOp(delta float64, opts ...LossOption) cr.Op[*tensor.Dense] {
	const name = "huber_loss"
	c := newLossConfig(opts)
	huber := elementwise.Unary("huber", elementwise.UnarySpec{
		Real: elementwise.Func1[float64]{
			F: func(d float64) float64 {
				if a := math.Abs(d); a < delta {
					return d * d / 2
				}
				return delta * (math.Abs(d) - delta/2)
			},
			D1: func(d, _ float64) float64 { return max(-delta, min(d, delta)) },
			D2: func(d, _ float64) float64 {
				if math.Abs(d) < delta {
					return 1
				}
				return 0
			},
		},
		// l'(d) = clamp(d, -delta, delta), itself differentiable to every order.
		Deriv: func(r cr.Recorder[*tensor.Dense], d, _ cr.NodeID) (cr.NodeID, error) {
			return r.Apply(ClampOp(-delta, delta), d), nil
		},
	})
	return lossComposite(name, c, optReduction, false, func(t *tape, x, y cr.NodeID, _ *tensor.Dense) cr.NodeID {
		if !(delta > 0) || math.IsInf(delta, 1) {
			return t.Apply(cr.FailOp[*tensor.Dense](name, cr.Errorf(cr.ErrInvalidArgument, "delta %v is not a positive number", delta)), x)
		}
		return t.Apply(huber, t.Apply(elementwise.SubOp, x, y))
	})
}

// BCEWithLogitsOp returns PyTorch's binary_cross_entropy_with_logits of logits x and
// targets y (float64, same shape, both differentiable), in the stable form
//
//	l_i = (1 - y_i) x_i + softplus(-x_i),   softplus(-x) = max(-x, 0) + log1p(exp(-|x|)),
//
// which equals -(y log sigmoid(x) + (1 - y) log(1 - sigmoid(x))) without overflow
// for any x. With PosWeight(p) the term is (1 - y) x + (1 + (p - 1) y) softplus(-x),
// and with Weight(w) it is multiplied by w; then the reduction applies. The rules
// (of the composite's elementwise functions):
//
//	dl/dx = sigmoid(x) - y                     (with p: (1 - y) - (1 + (p-1) y) sigmoid(-x))
//	dl/dy = -x                                 (with p: -x + (p - 1) softplus(-x))
//	d2l/dx2 = sigmoid(x) sigmoid(-x),  d2l/dxdy = -1,  d2l/dy2 = 0    (times 1 + (p-1) y, and
//	                                           d2l/dxdy = -1 - (p-1) sigmoid(-x), with p)
//
// Options: WithReduction, Weight, PosWeight.
func BCEWithLogitsOp(opts ...LossOption) cr.Op[*tensor.Dense] {
	const name = "binary_cross_entropy_with_logits"
	c := newLossConfig(opts)
	return lossComposite(name, c, optReduction|optWeight|optPosWeight, true, func(t *tape, x, y cr.NodeID, xv *tensor.Dense) cr.NodeID {
		if err := checkReal(name, xv); err != nil {
			return t.Apply(cr.FailOp[*tensor.Dense](name, err), x)
		}
		l := t.Apply(bceOp, x, y)
		if c.posWeight != nil {
			pm1, err := tensor.Sub(c.posWeight, tensor.Scalar(1))
			if err != nil {
				return t.Apply(cr.FailOp[*tensor.Dense](name, err), x)
			}
			l = t.Apply(elementwise.AddOp, l, t.Apply(elementwise.MulOp, t.Constant(pm1), t.Apply(bcePosOp, x, y)))
		}
		if c.weight != nil {
			l = t.Apply(elementwise.MulOp, l, t.Constant(c.weight))
		}
		if v, err := t.Value(l); err == nil && !slices.Equal(v.Shape(), xv.Shape()) {
			return t.Apply(cr.FailOp[*tensor.Dense](name, cr.Errorf(cr.ErrShapeMismatch,
				"weights broadcast the input %s to %s", xv.Describe(), v.Describe())), x)
		}
		return l
	})
}

// softplusNeg returns softplus(-x) = log(1 + exp(-x)) without overflow.
func softplusNeg(x float64) float64 { return max(-x, 0) + math.Log1p(math.Exp(-math.Abs(x))) }

// sigmoid returns 1 / (1 + exp(-x)) without overflow.
func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

var (
	// bceOp is f(x, y) = (1 - y) x + softplus(-x), the term of
	// binary_cross_entropy_with_logits.
	bceOp = elementwise.Binary("bce_with_logits", elementwise.BinarySpec{
		Real: elementwise.Func2[float64]{
			F: func(x, y float64) float64 { return (1-y)*x + softplusNeg(x) },
			D1: func(x, y, _ float64) (float64, float64) {
				return sigmoid(x) - y, -x
			},
			D2: func(x, _, _ float64) (float64, float64, float64) {
				return sigmoid(x) * sigmoid(-x), -1, 0
			},
		},
		// f_x = sigmoid(x) - y, f_y = -x.
		Partials: func(r cr.Recorder[*tensor.Dense], x, y, _ cr.NodeID) (cr.NodeID, cr.NodeID, error) {
			return r.Apply(elementwise.SubOp, r.Apply(elementwise.SigmoidOp, x), y), r.Apply(elementwise.NegOp, x), nil
		},
	})
	// bcePosOp is h(x, y) = y softplus(-x), the term that pos_weight - 1 scales.
	bcePosOp = elementwise.Binary("bce_with_logits_pos", elementwise.BinarySpec{
		Real: elementwise.Func2[float64]{
			F: func(x, y float64) float64 { return y * softplusNeg(x) },
			D1: func(x, y, _ float64) (float64, float64) {
				return -y * sigmoid(-x), softplusNeg(x)
			},
			D2: func(x, y, _ float64) (float64, float64, float64) {
				return y * sigmoid(x) * sigmoid(-x), -sigmoid(-x), 0
			},
		},
		// h_x = -y sigmoid(-x) = y (sigmoid(x) - 1), h_y = softplus(-x) = -logsigmoid(x).
		Partials: func(r cr.Recorder[*tensor.Dense], x, y, _ cr.NodeID) (cr.NodeID, cr.NodeID, error) {
			hx := r.Apply(elementwise.MulOp, y, r.Apply(elementwise.ShiftOp(-1), r.Apply(elementwise.SigmoidOp, x)))
			return hx, r.Apply(elementwise.NegOp, r.Apply(elementwise.LogSigmoidOp, x)), nil
		},
	})
)

// MSELoss evaluates MSELossOp(opts...) at (x, y) without a tape.
func MSELoss(x, y *tensor.Dense, opts ...LossOption) (*tensor.Dense, error) {
	return cr.Eval(MSELossOp(opts...), x, y)
}

// HuberLoss evaluates HuberLossOp(delta, opts...) at (x, y) without a tape.
func HuberLoss(x, y *tensor.Dense, delta float64, opts ...LossOption) (*tensor.Dense, error) {
	return cr.Eval(HuberLossOp(delta, opts...), x, y)
}

// BCEWithLogits evaluates BCEWithLogitsOp(opts...) at (x, y) without a tape.
func BCEWithLogits(x, y *tensor.Dense, opts ...LossOption) (*tensor.Dense, error) {
	return cr.Eval(BCEWithLogitsOp(opts...), x, y)
}
