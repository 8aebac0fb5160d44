package nn

import (
	"math/rand/v2"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// convEntries returns the registry entries of the convolutions, transposed
// convolutions (two inputs, or three with a bias: arity Variadic) and weight
// gradients, with small samples covering stride, padding, dilation, groups,
// padding modes and bias.
func convEntries() []cr.Entry[*tensor.Dense] {
	f64 := func(rng *rand.Rand, s ...int) *tensor.Dense { return tensor.RandN(rng, tensor.Float64, s...) }
	entry := func(name, doc string, s func(rng *rand.Rand) samples) cr.Entry[*tensor.Dense] {
		return cr.Entry[*tensor.Dense]{Name: name, Arity: cr.Variadic, DTypes: realOnly, Forward: true, SecondOrder: true, Doc: doc, Samples: s}
	}
	return []cr.Entry[*tensor.Dense]{
		entry("conv1d", "F.conv1d(x, weight, bias, stride, padding, dilation, groups) with nn.Conv1d's padding_mode",
			func(rng *rand.Rand) samples {
				return samples{
					{Name: "[2 3 7] k3 bias", Op: Conv1dOp(), Inputs: inputs(f64(rng, 2, 3, 7), f64(rng, 2, 3, 3), f64(rng, 2))},
					{Name: "[1 4 9] stride 2 padding 1 dilation 2 groups 2", Op: Conv1dOp(Stride(2), Padding(1), Dilation(2), Groups(2)),
						Inputs: inputs(f64(rng, 1, 4, 9), f64(rng, 4, 2, 3))},
					{Name: "[2 2 6] reflect padding 2", Op: Conv1dOp(Padding(2), PaddingMode(PadReflect)), Inputs: inputs(f64(rng, 2, 2, 6), f64(rng, 3, 2, 3), f64(rng, 3))},
					{Name: "[1 2 5] circular same k4", Op: Conv1dOp(PaddingSame(), PaddingMode(PadCircular)), Inputs: inputs(f64(rng, 1, 2, 5), f64(rng, 2, 2, 4))},
				}
			}),
		entry("conv2d", "F.conv2d(x, weight, bias, stride, padding, dilation, groups) with nn.Conv2d's padding_mode",
			func(rng *rand.Rand) samples {
				return samples{
					{Name: "[2 2 4 5] k3x2 bias", Op: Conv2dOp(), Inputs: inputs(f64(rng, 2, 2, 4, 5), f64(rng, 3, 2, 3, 2), f64(rng, 3))},
					{Name: "[1 4 5 5] stride 2 padding (1, 0) groups 2", Op: Conv2dOp(Stride(2), Padding(1, 0), Groups(2)),
						Inputs: inputs(f64(rng, 1, 4, 5, 5), f64(rng, 2, 2, 2, 3))},
					{Name: "[1 2 5 4] dilation (2, 1) replicate padding 1", Op: Conv2dOp(Dilation(2, 1), Padding(1), PaddingMode(PadReplicate)),
						Inputs: inputs(f64(rng, 1, 2, 5, 4), f64(rng, 2, 2, 2, 2), f64(rng, 2))},
					{Name: "[2 1 4 4] 1x1", Op: Conv2dOp(), Inputs: inputs(f64(rng, 2, 1, 4, 4), f64(rng, 2, 1, 1, 1))},
					{Name: "[1 2 4 5] same (3, 2) circular", Op: Conv2dOp(PaddingSame(), PaddingMode(PadCircular)),
						Inputs: inputs(f64(rng, 1, 2, 4, 5), f64(rng, 2, 2, 3, 2), f64(rng, 2))},
					{Name: "[1 2 4 4] valid reflect ignored", Op: Conv2dOp(PaddingValid(), PaddingMode(PadReflect)),
						Inputs: inputs(f64(rng, 1, 2, 4, 4), f64(rng, 1, 2, 2, 3))},
					{Name: "[1 1 4 5] reflect padding (2, 1) stride 2", Op: Conv2dOp(Padding(2, 1), Stride(2), PaddingMode(PadReflect)),
						Inputs: inputs(f64(rng, 1, 1, 4, 5), f64(rng, 2, 1, 3, 3))},
				}
			}),
		entry("conv3d", "F.conv3d(x, weight, bias, stride, padding, dilation, groups) with nn.Conv3d's padding_mode",
			func(rng *rand.Rand) samples {
				return samples{
					{Name: "[1 2 3 4 3] k2 bias padding 1", Op: Conv3dOp(Padding(1)), Inputs: inputs(f64(rng, 1, 2, 3, 4, 3), f64(rng, 2, 2, 2, 2, 2), f64(rng, 2))},
					{Name: "[2 2 4 3 3] stride (2, 1, 1) groups 2", Op: Conv3dOp(Stride(2, 1, 1), Groups(2)),
						Inputs: inputs(f64(rng, 2, 2, 4, 3, 3), f64(rng, 2, 1, 2, 2, 1))},
				}
			}),
		entry("conv_transpose1d", "F.conv_transpose1d(x, weight, bias, stride, padding, output_padding, groups, dilation)",
			func(rng *rand.Rand) samples {
				return samples{
					{Name: "[2 3 5] k3 bias", Op: ConvTranspose1dOp(), Inputs: inputs(f64(rng, 2, 3, 5), f64(rng, 3, 2, 3), f64(rng, 2))},
					{Name: "[1 4 3] stride 3 groups 2 dilation 2 output_padding 2", Op: ConvTranspose1dOp(Stride(3), Groups(2), Dilation(2), OutputPadding(2)),
						Inputs: inputs(f64(rng, 1, 4, 3), f64(rng, 4, 1, 2))},
					{Name: "[1 2 4] output_padding below dilation", Op: ConvTranspose1dOp(Dilation(2), OutputPadding(1), Padding(1)),
						Inputs: inputs(f64(rng, 1, 2, 4), f64(rng, 2, 2, 3))},
				}
			}),
		entry("conv_transpose2d", "F.conv_transpose2d(x, weight, bias, stride, padding, output_padding, groups, dilation)",
			func(rng *rand.Rand) samples {
				return samples{
					{Name: "[2 2 3 4] k3 bias", Op: ConvTranspose2dOp(), Inputs: inputs(f64(rng, 2, 2, 3, 4), f64(rng, 2, 3, 3, 3), f64(rng, 3))},
					{Name: "[1 2 3 3] stride (2, 3) padding (1, 0) output_padding (1, 2)", Op: ConvTranspose2dOp(Stride(2, 3), Padding(1, 0), OutputPadding(1, 2)),
						Inputs: inputs(f64(rng, 1, 2, 3, 3), f64(rng, 2, 2, 3, 2))},
					{Name: "[1 4 3 3] groups 2 dilation 2 padding 1 bias", Op: ConvTranspose2dOp(Groups(2), Dilation(2), Padding(1)),
						Inputs: inputs(f64(rng, 1, 4, 3, 3), f64(rng, 4, 1, 2, 3), f64(rng, 2))},
				}
			}),
		entry("conv_transpose3d", "F.conv_transpose3d(x, weight, bias, stride, padding, output_padding, groups, dilation)",
			func(rng *rand.Rand) samples {
				return samples{
					{Name: "[1 2 2 3 2] k2 bias", Op: ConvTranspose3dOp(), Inputs: inputs(f64(rng, 1, 2, 2, 3, 2), f64(rng, 2, 2, 2, 2, 2), f64(rng, 2))},
					{Name: "[1 2 2 2 3] stride 2 padding 1 output_padding 1 groups 2", Op: ConvTranspose3dOp(Stride(2), Padding(1), OutputPadding(1), Groups(2)),
						Inputs: inputs(f64(rng, 1, 2, 2, 2, 3), f64(rng, 2, 1, 3, 2, 2))},
				}
			}),
		entry("conv1d_weight_grad", "the weight gradient of conv1d, wgrad(x, ybar), which conv1d's recorded pullback records", weightGradSamples(1)),
		entry("conv2d_weight_grad", "the weight gradient of conv2d, wgrad(x, ybar), which conv2d's recorded pullback records", weightGradSamples(2)),
		entry("conv3d_weight_grad", "the weight gradient of conv3d, wgrad(x, ybar), which conv3d's recorded pullback records", weightGradSamples(3)),
	}
}

// weightGradSamples returns samples of the weight-gradient op of nd-d
// convolutions, the op that their rules record for the weight's cotangent, at
// the geometries of a few convolutions (padding modes and groups included).
func weightGradSamples(nd int) func(rng *rand.Rand) samples {
	return func(rng *rand.Rand) samples {
		var out samples
		for _, c := range []struct {
			name string
			opts []ConvOption
			cin  int
			k    int
		}{
			{"padding 1 stride 2", []ConvOption{Padding(1), Stride(2)}, 2, 3},
			{"reflect padding 1 groups 2", []ConvOption{Padding(1), PaddingMode(PadReflect), Groups(2)}, 4, 2},
			{"same dilation 2 circular", []ConvOption{PaddingSame(), Dilation(2), PaddingMode(PadCircular)}, 1, 2},
		} {
			xs, ws := []int{2, c.cin}, []int{2, c.cin / max(1, newConvOp(nd, modeConv, c.opts).spec.groups)}
			for range nd {
				xs, ws = append(xs, 7-nd), append(ws, c.k)
			}
			x, w := tensor.RandN(rng, tensor.Float64, xs...), tensor.New(tensor.Float64, ws...)
			g, err := newConvOp(nd, modeConv, c.opts).spec.convGeom("weight_grad samples", nd, x, w)
			if err != nil {
				panic(err) // the table above is ours: a bad geometry is a bug here
			}
			y := tensor.RandN(rng, tensor.Float64, g.yShape()...)
			out = append(out, cr.Sample[*tensor.Dense]{Name: c.name, Op: &convOp{nd: nd, mode: modeWeight, geom: g}, Inputs: inputs(x, y)})
		}
		return out
	}
}
