package nn

import (
	"math/rand/v2"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// poolEntries returns the entries of the pooling and interpolation ops. The max
// pools draw their samples with separated elements, so that no window holds a
// near tie (where the argmax, and so the finite differences, would jump).
func poolEntries() []cr.Entry[*tensor.Dense] {
	entry := func(name, doc string, s func(rng *rand.Rand) samples) cr.Entry[*tensor.Dense] {
		return cr.Entry[*tensor.Dense]{Name: name, Arity: 1, DTypes: realOnly, Forward: true, SecondOrder: true, Doc: doc, Samples: s}
	}
	f64 := func(rng *rand.Rand, s ...int) *tensor.Dense { return tensor.RandN(rng, tensor.Float64, s...) }
	k := func(v ...int) []int { return v }
	return []cr.Entry[*tensor.Dense]{
		entry("max_pool1d", "max_pool1d over (N, C, L) with indices (not differentiable)",
			func(rng *rand.Rand) samples {
				return samples{
					{Name: "[2 2 7] k 3 s 2 p 1", Op: MaxPool1dOp(k(3), PoolStride(2), PoolPadding(1)), Inputs: inputs(separated(rng, 2, 2, 7))},
					{Name: "[2 6] k 2 dilation 2 ceil", Op: MaxPool1dOp(k(2), PoolDilation(2), CeilMode(true)), Inputs: inputs(separated(rng, 2, 6))},
				}
			}),
		entry("max_pool2d", "max_pool2d over (N, C, H, W) with indices (not differentiable)",
			func(rng *rand.Rand) samples {
				return samples{
					{Name: "[1 2 4 4] k 2", Op: MaxPool2dOp(k(2)), Inputs: inputs(separated(rng, 1, 2, 4, 4))},
					{Name: "[2 1 5 5] k 3 s 2 p 1 ceil", Op: MaxPool2dOp(k(3), PoolStride(2), PoolPadding(1), CeilMode(true)), Inputs: inputs(separated(rng, 2, 1, 5, 5))},
					{Name: "[2 5 6] k (2 3) s 1 dilation (2 1)", Op: MaxPool2dOp(k(2, 3), PoolStride(1), PoolDilation(2, 1)), Inputs: inputs(separated(rng, 2, 5, 6))},
				}
			}),
		entry("max_pool3d", "max_pool3d over (N, C, D, H, W) with indices (not differentiable)",
			func(rng *rand.Rand) samples {
				return samples{
					{Name: "[1 2 3 4 4] k 2 s (1 2 2) p 1", Op: MaxPool3dOp(k(2), PoolStride(1, 2, 2), PoolPadding(1)), Inputs: inputs(separated(rng, 1, 2, 3, 4, 4))},
				}
			}),
		entry("adaptive_max_pool1d", "adaptive_max_pool1d over (N, C, L) with indices (not differentiable)",
			func(rng *rand.Rand) samples {
				return samples{
					{Name: "[2 2 7] out 3", Op: AdaptiveMaxPool1dOp(3), Inputs: inputs(separated(rng, 2, 2, 7))},
				}
			}),
		entry("adaptive_max_pool2d", "adaptive_max_pool2d over (N, C, H, W) with indices (not differentiable)",
			func(rng *rand.Rand) samples {
				return samples{
					{Name: "[1 2 5 7] out (2 3)", Op: AdaptiveMaxPool2dOp(2, 3), Inputs: inputs(separated(rng, 1, 2, 5, 7))},
					{Name: "[2 3 3] out 4 (overlapping)", Op: AdaptiveMaxPool2dOp(4), Inputs: inputs(separated(rng, 2, 3, 3))},
				}
			}),
		entry("avg_pool1d", "avg_pool1d over (N, C, L): linear",
			func(rng *rand.Rand) samples {
				return samples{
					{Name: "[2 2 7] k 3 s 2 p 1", Op: AvgPool1dOp(k(3), PoolStride(2), PoolPadding(1)), Inputs: inputs(f64(rng, 2, 2, 7))},
					{Name: "[2 6] k 3 s 2 p 1 ceil no pad count", Op: AvgPool1dOp(k(3), PoolStride(2), PoolPadding(1), CeilMode(true), CountIncludePad(false)), Inputs: inputs(f64(rng, 2, 6))},
				}
			}),
		entry("avg_pool2d", "avg_pool2d over (N, C, H, W): linear",
			func(rng *rand.Rand) samples {
				return samples{
					{Name: "[1 2 4 4] k 2", Op: AvgPool2dOp(k(2)), Inputs: inputs(f64(rng, 1, 2, 4, 4))},
					{Name: "[2 1 5 5] k 3 s 2 p 1 ceil", Op: AvgPool2dOp(k(3), PoolStride(2), PoolPadding(1), CeilMode(true)), Inputs: inputs(f64(rng, 2, 1, 5, 5))},
					{Name: "[2 5 6] k (2 3) p (1 1) divisor 5", Op: AvgPool2dOp(k(2, 3), PoolPadding(1), DivisorOverride(5)), Inputs: inputs(f64(rng, 2, 5, 6))},
				}
			}),
		entry("avg_pool3d", "avg_pool3d over (N, C, D, H, W): linear",
			func(rng *rand.Rand) samples {
				return samples{
					{Name: "[1 2 3 4 4] k 2 s (1 2 2) p 1 no pad count", Op: AvgPool3dOp(k(2), PoolStride(1, 2, 2), PoolPadding(1), CountIncludePad(false)), Inputs: inputs(f64(rng, 1, 2, 3, 4, 4))},
				}
			}),
		entry("adaptive_avg_pool1d", "adaptive_avg_pool1d over (N, C, L): linear",
			func(rng *rand.Rand) samples {
				return samples{
					{Name: "[2 2 7] out 3", Op: AdaptiveAvgPool1dOp(3), Inputs: inputs(f64(rng, 2, 2, 7))},
				}
			}),
		entry("adaptive_avg_pool2d", "adaptive_avg_pool2d over (N, C, H, W): linear",
			func(rng *rand.Rand) samples {
				return samples{
					{Name: "[1 2 5 7] out (2 3)", Op: AdaptiveAvgPool2dOp(2, 3), Inputs: inputs(f64(rng, 1, 2, 5, 7))},
					{Name: "[2 3 3] out 4", Op: AdaptiveAvgPool2dOp(4), Inputs: inputs(f64(rng, 2, 3, 3))},
				}
			}),
	}
}

// interpolateEntries returns the entry of interpolate.
func interpolateEntries() []cr.Entry[*tensor.Dense] {
	f64 := func(rng *rand.Rand, s ...int) *tensor.Dense { return tensor.RandN(rng, tensor.Float64, s...) }
	return []cr.Entry[*tensor.Dense]{{Name: "interpolate", Arity: 1, DTypes: realOnly, Forward: true, SecondOrder: true,
		Doc: "F.interpolate, modes nearest, linear, bilinear and trilinear (align_corners, size or scale_factor): linear",
		Samples: func(rng *rand.Rand) samples {
			return samples{
				{Name: "nearest [1 2 3 4] size (5 7)", Op: InterpolateOp("nearest", InterpSize(5, 7)), Inputs: inputs(f64(rng, 1, 2, 3, 4))},
				{Name: "nearest [2 1 5] scale 0.6", Op: InterpolateOp("nearest", InterpScaleFactor(0.6)), Inputs: inputs(f64(rng, 2, 1, 5))},
				{Name: "bilinear [1 2 3 4] size (5 3)", Op: InterpolateOp("bilinear", InterpSize(5, 3)), Inputs: inputs(f64(rng, 1, 2, 3, 4))},
				{Name: "bilinear [2 1 3 3] scale 1.7 align", Op: InterpolateOp("bilinear", InterpScaleFactor(1.7), AlignCorners(true)), Inputs: inputs(f64(rng, 2, 1, 3, 3))},
				{Name: "linear [2 2 4] size 7", Op: InterpolateOp("linear", InterpSize(7)), Inputs: inputs(f64(rng, 2, 2, 4))},
				{Name: "trilinear [1 1 2 3 2] scale 2", Op: InterpolateOp("trilinear", InterpScaleFactor(2)), Inputs: inputs(f64(rng, 1, 1, 2, 3, 2))},
			}
		}}}
}
