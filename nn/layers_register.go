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
	}
}
