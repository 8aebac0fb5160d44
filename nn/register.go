package nn

import (
	"math"
	"math/rand/v2"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// Register adds the families of package nn to reg, with samples for
// testing/ruletest: softmax, log_softmax, the losses (cross_entropy,
// cross_entropy_probs, nll_loss, mse_loss, huber_loss,
// binary_cross_entropy_with_logits), the scans (cumsum, cumprod, logcumsumexp,
// linear_scan), matmul, clamp, clamp_tensor, sort and topk; the convolutions
// (conv1d/2d/3d, conv_transpose1d/2d/3d, conv1d/2d/3d_weight_grad); the pools
// (max_pool1d/2d/3d, avg_pool1d/2d/3d, adaptive_avg_pool1d/2d,
// adaptive_max_pool1d/2d) and interpolate; the layers (linear, batch_norm,
// layer_norm, group_norm, instance_norm, dropout, scaled_dot_product_attention);
// and argmax, argmin and one_hot, which are not differentiable by design (chainrules.Entry's
// NoDerivative: testing/ruletest checks that differentiating them is an error
// wrapping chainrules.ErrNoRule). It returns an error wrapping
// chainrules.ErrInvalidArgument for a nil reg, or chainrules.ErrDuplicate if a name
// is taken.
func Register(reg *cr.Registry[*tensor.Dense]) error {
	entries := slices.Concat(softmaxEntries(), catalogueEntries(), convEntries(), poolEntries(), interpolateEntries(), layerEntries())
	return cr.RegisterEntries(reg, "nn.Register", append(entries, noDerivativeEntries()...)...)
}

var (
	realOnly = tensor.RealDTypeNames()
	bothDTs  = tensor.DTypeNames()
)

type samples = []cr.Sample[*tensor.Dense]

func inputs(x ...*tensor.Dense) []*tensor.Dense { return x }

// catalogueEntries returns the entries of the ops PyTorch users expect beyond
// softmax. Samples stay away from kinks and ties (finite differences do not
// apply there); the kinks are tested on their own.
func catalogueEntries() []cr.Entry[*tensor.Dense] {
	entry := func(name string, arity int, dts []string, doc string, s func(rng *rand.Rand) samples) cr.Entry[*tensor.Dense] {
		return cr.Entry[*tensor.Dense]{Name: name, Arity: arity, DTypes: dts, Forward: true, SecondOrder: true, Doc: doc, Samples: s}
	}
	f64 := func(rng *rand.Rand, s ...int) *tensor.Dense { return tensor.RandN(rng, tensor.Float64, s...) }
	c128 := func(rng *rand.Rand, s ...int) *tensor.Dense { return tensor.RandN(rng, tensor.Complex128, s...) }
	unif := func(rng *rand.Rand, s ...int) *tensor.Dense {
		return tensor.RandUniform(rng, tensor.Float64, 0, 1, s...)
	}
	return []cr.Entry[*tensor.Dense]{
		entry("cross_entropy", 1, realOnly, "cross_entropy of logits with class labels (label smoothing, class weights, ignore index)",
			func(rng *rand.Rand) samples {
				return samples{
					{Name: "[4 5] mean", Op: CrossEntropyOp([]int{0, 4, 2, 1}), Inputs: inputs(f64(rng, 4, 5))},
					{Name: "[4 5] sum smoothing", Op: CrossEntropyOp([]int{3, 3, 0, 1}, WithReduction(ReductionSum), LabelSmoothing(0.2)), Inputs: inputs(f64(rng, 4, 5))},
					{Name: "[4 5] none weights ignore", Op: CrossEntropyOp([]int{0, -100, 2, 1}, WithReduction(ReductionNone),
						ClassWeights(1, 2, 0.5, 3, 1), IgnoreIndex(-100), LabelSmoothing(0.1)), Inputs: inputs(f64(rng, 4, 5))},
					{Name: "[5] one sample", Op: CrossEntropyOp([]int{2}), Inputs: inputs(f64(rng, 5))},
					{Name: "[2 3 2] k-dim", Op: CrossEntropyOp([]int{0, 2, 1, 1}, ClassWeights(0.5, 1, 2)), Inputs: inputs(f64(rng, 2, 3, 2))},
				}
			}),
		entry("cross_entropy_probs", 2, realOnly, "cross_entropy of logits with target probabilities (differentiable in both)",
			func(rng *rand.Rand) samples {
				return samples{
					{Name: "[4 5] mean", Op: CrossEntropyProbsOp(), Inputs: inputs(f64(rng, 4, 5), unif(rng, 4, 5))},
					{Name: "[4 5] none weights smoothing", Op: CrossEntropyProbsOp(WithReduction(ReductionNone), ClassWeights(1, 2, 0.5, 3, 1),
						LabelSmoothing(0.3)), Inputs: inputs(f64(rng, 4, 5), unif(rng, 4, 5))},
					{Name: "[2 3 2] sum", Op: CrossEntropyProbsOp(WithReduction(ReductionSum)), Inputs: inputs(f64(rng, 2, 3, 2), unif(rng, 2, 3, 2))},
				}
			}),
		entry("nll_loss", 1, realOnly, "nll_loss of log-probabilities with class labels (class weights, ignore index)",
			func(rng *rand.Rand) samples {
				return samples{
					{Name: "[4 5] mean", Op: NLLLossOp([]int{0, 4, 2, 1}), Inputs: inputs(f64(rng, 4, 5))},
					{Name: "[4 5] none weights ignore", Op: NLLLossOp([]int{0, 4, 2, 1}, ClassWeights(1, 2, 0.5, 3, 1), IgnoreIndex(4),
						WithReduction(ReductionNone)), Inputs: inputs(f64(rng, 4, 5))},
					{Name: "[2 3 2] weighted mean", Op: NLLLossOp([]int{0, 2, 1, 1}, ClassWeights(0.5, 1, 2)), Inputs: inputs(f64(rng, 2, 3, 2))},
				}
			}),
		entry("mse_loss", 2, bothDTs, "mse_loss: |x - y|^2, reduced",
			func(rng *rand.Rand) samples {
				return samples{
					{Name: "[3 4] mean", Op: MSELossOp(), Inputs: inputs(f64(rng, 3, 4), f64(rng, 3, 4))},
					{Name: "complex sum", Op: MSELossOp(WithReduction(ReductionSum)), Inputs: inputs(c128(rng, 3, 4), c128(rng, 3, 4))},
					{Name: "broadcast none", Op: MSELossOp(WithReduction(ReductionNone)), Inputs: inputs(f64(rng, 3, 4), f64(rng, 4))},
				}
			}),
		entry("huber_loss", 2, realOnly, "huber_loss with threshold delta",
			func(rng *rand.Rand) samples {
				x, y := f64(rng, 3, 4), f64(rng, 3, 4)
				awayFrom(x, y, 0.8)
				return samples{
					{Name: "[3 4] delta 0.8 mean", Op: HuberLossOp(0.8), Inputs: inputs(x, y)},
					{Name: "[3 4] delta 0.8 none", Op: HuberLossOp(0.8, WithReduction(ReductionNone)), Inputs: inputs(x, y)},
				}
			}),
		entry("binary_cross_entropy_with_logits", 2, realOnly, "binary_cross_entropy_with_logits, stable (weight, pos_weight)",
			func(rng *rand.Rand) samples {
				big := tensor.Scale(f64(rng, 2, 3), 40)
				return samples{
					{Name: "[3 4] mean", Op: BCEWithLogitsOp(), Inputs: inputs(f64(rng, 3, 4), unif(rng, 3, 4))},
					{Name: "pos_weight weight sum", Op: BCEWithLogitsOp(PosWeight(tensor.RandUniform(rng, tensor.Float64, 0.5, 3, 4)),
						Weight(tensor.RandUniform(rng, tensor.Float64, 0.5, 2, 3, 1)), WithReduction(ReductionSum)), Inputs: inputs(f64(rng, 3, 4), unif(rng, 3, 4))},
					{Name: "large logits none", Op: BCEWithLogitsOp(WithReduction(ReductionNone)), Inputs: inputs(big, unif(rng, 2, 3))},
				}
			}),
		entry("cumsum", 1, bothDTs, "cumulative sum along an axis (from the start, or from the end)",
			func(rng *rand.Rand) samples {
				return samples{
					{Name: "[3 4] last axis", Op: CumsumOp(-1), Inputs: inputs(f64(rng, 3, 4))},
					{Name: "[3 4 2] axis 1 complex", Op: CumsumOp(1), Inputs: inputs(c128(rng, 3, 4, 2))},
					{Name: "[3 4] reverse axis 0", Op: ReverseCumsumOp(0), Inputs: inputs(f64(rng, 3, 4))},
				}
			}),
		entry("cumprod", 1, bothDTs, "cumulative product along an axis, exact with zeros",
			func(rng *rand.Rand) samples {
				z := f64(rng, 3, 4)
				z.Set(0, 0, 1)
				z.Set(0, 2, 0)
				z.Set(0, 2, 2)
				return samples{
					{Name: "[3 4] last axis", Op: CumprodOp(-1), Inputs: inputs(f64(rng, 3, 4))},
					{Name: "[3 4] zeros", Op: CumprodOp(1), Inputs: inputs(z)},
					{Name: "[4 2 2] axis 0 complex", Op: CumprodOp(0), Inputs: inputs(c128(rng, 4, 2, 2))},
				}
			}),
		entry("logcumsumexp", 1, realOnly, "log of the cumulative sum of exp along an axis, stable",
			func(rng *rand.Rand) samples {
				large := f64(rng, 3, 5)
				large.Set(700, 1, 2)
				large.Set(-700, 2, 0)
				return samples{
					{Name: "[3 5] last axis", Op: LogCumsumExpOp(-1), Inputs: inputs(f64(rng, 3, 5))},
					{Name: "[3 5] large entries", Op: LogCumsumExpOp(1), Inputs: inputs(large)},
					{Name: "[4 2 3] axis 0", Op: LogCumsumExpOp(0), Inputs: inputs(f64(rng, 4, 2, 3))},
				}
			}),
		entry("linear_scan", 2, bothDTs, "first-order linear recurrence h_j = a_j h_{j-1} + b_j along an axis (or from the end)",
			func(rng *rand.Rand) samples {
				return samples{
					{Name: "[3 4] last axis", Op: LinearScanOp(-1), Inputs: inputs(f64(rng, 3, 4), f64(rng, 3, 4))},
					{Name: "[2 4 3] reverse axis 1 complex", Op: ReverseLinearScanOp(1), Inputs: inputs(c128(rng, 2, 4, 3), c128(rng, 2, 4, 3))},
					{Name: "real a, complex b", Op: LinearScanOp(0), Inputs: inputs(f64(rng, 4, 2), c128(rng, 4, 2))},
				}
			}),
		entry("matmul", 2, bothDTs, "matmul (a @ b) with PyTorch's rules for 1-D operands and batch broadcasting",
			func(rng *rand.Rand) samples {
				return samples{
					{Name: "[2 3] @ [3 4]", Op: MatmulOp, Inputs: inputs(f64(rng, 2, 3), f64(rng, 3, 4))},
					{Name: "[3] @ [3]", Op: MatmulOp, Inputs: inputs(f64(rng, 3), f64(rng, 3))},
					{Name: "[3] @ [2 3 4]", Op: MatmulOp, Inputs: inputs(f64(rng, 3), f64(rng, 2, 3, 4))},
					{Name: "[2 2 3] @ [3] complex", Op: MatmulOp, Inputs: inputs(c128(rng, 2, 2, 3), c128(rng, 3))},
					{Name: "[2 1 2 3] @ [3 3 4] broadcast", Op: MatmulOp, Inputs: inputs(f64(rng, 2, 1, 2, 3), f64(rng, 3, 3, 4))},
				}
			}),
		entry("clamp", 1, realOnly, "clamp(x, min, max) with scalar bounds; the gradient passes where min <= x <= max",
			func(rng *rand.Rand) samples {
				x := f64(rng, 3, 4)
				awayFrom(x, tensor.Scalar(-0.5), 0)
				awayFrom(x, tensor.Scalar(0.7), 0)
				return samples{{Name: "[3 4] in [-0.5, 0.7]", Op: ClampOp(-0.5, 0.7), Inputs: inputs(x)}}
			}),
		entry("clamp_tensor", 3, realOnly, "clamp(x, min, max) with broadcasting tensor bounds",
			func(rng *rand.Rand) samples {
				x := f64(rng, 3, 4)
				lo := tensor.RandUniform(rng, tensor.Float64, -1.5, -0.2, 4)
				hi := tensor.RandUniform(rng, tensor.Float64, 0.2, 1.5, 3, 1)
				awayFrom(x, lo, 0)
				awayFrom(x, hi, 0)
				return samples{{Name: "[3 4] bounds [4] and [3 1]", Op: ClampTensorOp, Inputs: inputs(x, lo, hi)}}
			}),
		entry("sort", 1, realOnly, "stable sort along an axis: (values, indices), the indices not differentiable",
			func(rng *rand.Rand) samples {
				return samples{
					{Name: "[3 5] last axis", Op: SortOp(-1, false), Inputs: inputs(separated(rng, 3, 5))},
					{Name: "[4 3] axis 0 descending", Op: SortOp(0, true), Inputs: inputs(separated(rng, 4, 3))},
				}
			}),
		entry("topk", 1, realOnly, "the k largest or smallest along an axis: (values, indices), the indices not differentiable",
			func(rng *rand.Rand) samples {
				return samples{
					{Name: "[3 5] k 2 largest", Op: TopKOp(2, -1, true), Inputs: inputs(separated(rng, 3, 5))},
					{Name: "[4 3] k 3 smallest axis 0", Op: TopKOp(3, 0, false), Inputs: inputs(separated(rng, 4, 3))},
				}
			}),
	}
}

// noDerivativeEntries returns the entries of the index-valued ops, marked
// NoDerivative. Their rules implement every rule interface (each method returns
// the typed error), so Forward and SecondOrder are set: a forward sweep or a
// Hessian-vector product through them fails with ErrNoRule too.
func noDerivativeEntries() []cr.Entry[*tensor.Dense] {
	entry := func(name, doc string, s func(rng *rand.Rand) samples) cr.Entry[*tensor.Dense] {
		return cr.Entry[*tensor.Dense]{Name: name, Arity: 1, DTypes: realOnly, Forward: true, SecondOrder: true,
			NoDerivative: true, Doc: doc, Samples: s}
	}
	f64 := func(rng *rand.Rand, s ...int) *tensor.Dense { return tensor.RandN(rng, tensor.Float64, s...) }
	labels := func(rng *rand.Rand, c int, s ...int) *tensor.Dense {
		t := tensor.New(tensor.Float64, s...)
		for i := range t.Float64s() {
			t.Float64s()[i] = float64(rng.IntN(c))
		}
		return t
	}
	return []cr.Entry[*tensor.Dense]{
		entry("argmax", "argmax along an axis (keepdim or not): integer positions, not differentiable",
			func(rng *rand.Rand) samples {
				return samples{
					{Name: "[3 4] last axis", Op: ArgmaxOp(-1, false), Inputs: inputs(f64(rng, 3, 4))},
					{Name: "[3 4 2] axis 1 keepdim", Op: ArgmaxOp(1, true), Inputs: inputs(f64(rng, 3, 4, 2))},
				}
			}),
		entry("argmin", "argmin along an axis (keepdim or not): integer positions, not differentiable",
			func(rng *rand.Rand) samples {
				return samples{
					{Name: "[3 4] axis 0", Op: ArgminOp(0, false), Inputs: inputs(f64(rng, 3, 4))},
					{Name: "[5] keepdim", Op: ArgminOp(0, true), Inputs: inputs(f64(rng, 5))},
				}
			}),
		entry("one_hot", "one_hot of integer labels (given or inferred number of classes), not differentiable",
			func(rng *rand.Rand) samples {
				return samples{
					{Name: "[4] 5 classes", Op: OneHotOp(5), Inputs: inputs(labels(rng, 5, 4))},
					{Name: "[2 3] inferred classes", Op: OneHotOp(-1), Inputs: inputs(labels(rng, 4, 2, 3))},
				}
			}),
	}
}

// awayFrom moves the elements of x that lie within 0.05 of b + delta or b - delta
// (b broadcast to x) 0.1 further, so that no sample sits on a kink.
func awayFrom(x, b *tensor.Dense, delta float64) {
	bb, err := b.BroadcastTo(x.Shape()...)
	if err != nil {
		return
	}
	xs, bs := x.Float64s(), bb.Float64s()
	for i := range xs {
		for _, k := range []float64{bs[i] + delta, bs[i] - delta} {
			if d := xs[i] - k; math.Abs(d) < 0.05 {
				xs[i] = k + math.Copysign(0.1, d)
			}
		}
	}
}

// separated returns a tensor whose elements differ pairwise by at least 0.2: a
// random permutation of evenly spaced values with small noise, so that no sample
// of sort or topk sits near a tie.
func separated(rng *rand.Rand, shape ...int) *tensor.Dense {
	t := tensor.New(tensor.Float64, shape...)
	d := t.Float64s()
	for i, p := range rng.Perm(len(d)) {
		d[i] = 0.3*(float64(p)-float64(len(d))/2) + 0.05*rng.Float64()
	}
	return t
}
