package nn

import (
	"math/rand/v2"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// layerEntries returns the entries of the layer ops: linear, the normalisations,
// dropout and scaled_dot_product_attention.
func layerEntries() []cr.Entry[*tensor.Dense] {
	entry := func(name string, arity int, doc string, s func(rng *rand.Rand) samples) cr.Entry[*tensor.Dense] {
		return cr.Entry[*tensor.Dense]{Name: name, Arity: arity, DTypes: realOnly, Forward: true, SecondOrder: true, Doc: doc, Samples: s}
	}
	f64 := func(rng *rand.Rand, s ...int) *tensor.Dense { return tensor.RandN(rng, tensor.Float64, s...) }
	return []cr.Entry[*tensor.Dense]{
		entry("linear", cr.Variadic, "linear (F.linear): x W^T + b, the bias optional",
			func(rng *rand.Rand) samples {
				return samples{
					{Name: "[4 3] W [2 3] b [2]", Op: LinearOp(true), Inputs: inputs(f64(rng, 4, 3), f64(rng, 2, 3), f64(rng, 2))},
					{Name: "[2 2 3] W [4 3] no bias", Op: LinearOp(false), Inputs: inputs(f64(rng, 2, 2, 3), f64(rng, 4, 3))},
					{Name: "[3] W [2 3] b [2]", Op: LinearOp(true), Inputs: inputs(f64(rng, 3), f64(rng, 2, 3), f64(rng, 2))},
				}
			}),
		entry("batch_norm", cr.Variadic, "batch_norm (F.batch_norm) of [N, C, *]: training (batch statistics, updated running statistics as outputs) or evaluation (running statistics)",
			func(rng *rand.Rand) samples {
				rm, rv := f64(rng, 3), tensor.RandUniform(rng, tensor.Float64, 0.5, 2, 3)
				return samples{
					{Name: "[4 3 2] training affine running stats", Op: BatchNormOp(Training(true), Affine(true, true), RunningStats(rm, rv)),
						Inputs: inputs(f64(rng, 4, 3, 2), f64(rng, 3), f64(rng, 3))},
					{Name: "[5 3] training no stats", Op: BatchNormOp(Training(true)), Inputs: inputs(f64(rng, 5, 3))},
					{Name: "[2 3 2 2] training weight momentum 0.3", Op: BatchNormOp(Training(true), Affine(true, false), Momentum(0.3), RunningStats(rm, rv)),
						Inputs: inputs(f64(rng, 2, 3, 2, 2), f64(rng, 3))},
					{Name: "[4 3 2] eval affine", Op: BatchNormOp(Affine(true, true), RunningStats(rm, rv)), Inputs: inputs(f64(rng, 4, 3, 2), f64(rng, 3), f64(rng, 3))},
					{Name: "[2 3] eval", Op: BatchNormOp(RunningStats(rm, rv), NormEps(0.1)), Inputs: inputs(f64(rng, 2, 3))},
				}
			}),
		entry("dropout", 1, "dropout (F.dropout) with a mask drawn once per application from a seed",
			func(rng *rand.Rand) samples {
				return samples{
					{Name: "[4 5] p 0.3 seed 11", Op: DropoutOp(0.3, true, 11), Inputs: inputs(f64(rng, 4, 5))},
					{Name: "[3 2 2] p 0.7 seed 5", Op: DropoutOp(0.7, true, 5), Inputs: inputs(f64(rng, 3, 2, 2))},
					{Name: "[3] eval", Op: DropoutOp(0.5, false, 5), Inputs: inputs(f64(rng, 3))},
					{Name: "[2 2] p 1", Op: DropoutOp(1, true, 5), Inputs: inputs(f64(rng, 2, 2))},
				}
			}),
		entry("scaled_dot_product_attention", 3, "scaled_dot_product_attention (F.scaled_dot_product_attention): softmax(q k^T / sqrt(E) + mask) v, masks additive, boolean or causal",
			func(rng *rand.Rand) samples {
				keep := []bool{true, false, true, true, true, true, false, true, true, true, true, false}
				return samples{
					{Name: "[2 3 4] [2 5 4] [2 5 3]", Op: ScaledDotProductAttentionOp(), Inputs: inputs(f64(rng, 2, 3, 4), f64(rng, 2, 5, 4), f64(rng, 2, 5, 3))},
					{Name: "[4 3] causal", Op: ScaledDotProductAttentionOp(IsCausal()), Inputs: inputs(f64(rng, 4, 3), f64(rng, 4, 3), f64(rng, 4, 2))},
					{Name: "[2 2 3 2] float mask [3 4] broadcast k [2 1 4 2]", Op: ScaledDotProductAttentionOp(AttnMask(f64(rng, 3, 4))),
						Inputs: inputs(f64(rng, 2, 2, 3, 2), f64(rng, 2, 1, 4, 2), f64(rng, 2, 1, 4, 3))},
					{Name: "[2 3 2] bool mask [1 3 4] scale 0.3", Op: ScaledDotProductAttentionOp(AttnBoolMask(keep, 1, 3, 4), AttnScale(0.3)),
						Inputs: inputs(f64(rng, 2, 3, 2), f64(rng, 2, 4, 2), f64(rng, 2, 4, 2))},
					{Name: "[3 2] dropout 0.4", Op: ScaledDotProductAttentionOp(AttnDropout(0.4, 9)), Inputs: inputs(f64(rng, 3, 2), f64(rng, 4, 2), f64(rng, 4, 2))},
				}
			}),
		entry("layer_norm", cr.Variadic, "layer_norm (F.layer_norm) over the trailing normalized_shape, weight and bias optional",
			func(rng *rand.Rand) samples {
				return samples{
					{Name: "[3 4] over [4] affine", Op: LayerNormOp([]int{4}, Affine(true, true)), Inputs: inputs(f64(rng, 3, 4), f64(rng, 4), f64(rng, 4))},
					{Name: "[2 3 2] over [3 2]", Op: LayerNormOp([]int{3, 2}), Inputs: inputs(f64(rng, 2, 3, 2))},
					{Name: "[5] over [5] weight eps 0.1", Op: LayerNormOp([]int{5}, Affine(true, false), NormEps(0.1)), Inputs: inputs(f64(rng, 5), f64(rng, 5))},
				}
			}),
		entry("group_norm", cr.Variadic, "group_norm (F.group_norm) of [N, C, *] in num_groups groups, weight and bias optional",
			func(rng *rand.Rand) samples {
				return samples{
					{Name: "[2 4 3] 2 groups affine", Op: GroupNormOp(2, Affine(true, true)), Inputs: inputs(f64(rng, 2, 4, 3), f64(rng, 4), f64(rng, 4))},
					{Name: "[2 6 2 2] 3 groups bias", Op: GroupNormOp(3, Affine(false, true)), Inputs: inputs(f64(rng, 2, 6, 2, 2), f64(rng, 6))},
				}
			}),
		entry("instance_norm", cr.Variadic, "instance_norm (F.instance_norm) of [N, C, *]: the input's statistics (updated running statistics as outputs) or running ones, weight and bias optional",
			func(rng *rand.Rand) samples {
				return samples{
					{Name: "[2 3 4] affine", Op: InstanceNormOp(Affine(true, true)), Inputs: inputs(f64(rng, 2, 3, 4), f64(rng, 3), f64(rng, 3))},
					{Name: "[2 2 2 3]", Op: InstanceNormOp(), Inputs: inputs(f64(rng, 2, 2, 2, 3))},
					{Name: "[3 2 4] weight running stats", Op: InstanceNormOp(Affine(true, false), RunningStats(f64(rng, 2), tensor.RandUniform(rng, tensor.Float64, 0.5, 2, 2))),
						Inputs: inputs(f64(rng, 3, 2, 4), f64(rng, 2))},
					{Name: "[2 3 2] running stats not input stats, bias", Op: InstanceNormOp(UseInputStats(false), Affine(false, true),
						RunningStats(f64(rng, 3), tensor.RandUniform(rng, tensor.Float64, 0.5, 2, 3))), Inputs: inputs(f64(rng, 2, 3, 2), f64(rng, 3))},
				}
			}),
	}
}
