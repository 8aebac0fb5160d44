package index

import (
	"math/rand/v2"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

type sample = cr.Sample[*tensor.Dense]

// Register adds the package's op families to reg under their names — "slice",
// "narrow", "select", "diagonal", "gather", "index_select", "scatter_add",
// "concat", "stack", "split", "pad", "flip", "roll", "where", "tril" and "triu" — with sample inputs
// for testing/ruletest. It returns an error wrapping chainrules.ErrInvalidArgument
// for a nil reg, or chainrules.ErrDuplicate if a name is taken; registration stops
// there, and the families added before it stay.
func Register(reg *cr.Registry[*tensor.Dense]) error {
	return cr.RegisterEntries(reg, "index.Register", entries()...)
}

// entries returns the registry entries of the package's op families.
func entries() []cr.Entry[*tensor.Dense] {
	all := tensor.DTypeNames()
	var out []cr.Entry[*tensor.Dense]
	reg := func(name string, arity int, doc string, samples func(rng *rand.Rand) []sample) {
		out = append(out, cr.Entry[*tensor.Dense]{
			Name: name, Arity: arity, DTypes: all, Forward: true, SecondOrder: true, Doc: doc, Samples: samples,
		})
	}
	reg("slice", 1, "x[start:stop:step, ...] with Python's negative indices and clamping", sliceSamples)
	reg("narrow", 1, "x[..., start:start+length, ...] along one axis", narrowSamples)
	reg("select", 1, "x[..., i, ...]: drops an axis at an index", selectSamples)
	reg("diagonal", 1, "diagonal of two axes with an offset, appended as the last axis", diagonalSamples)
	reg("gather", 1, "PyTorch gather along an axis with a fixed integer index", gatherSamples)
	reg("index_select", 1, "slabs at fixed integer indices along an axis", indexSelectSamples)
	reg("scatter_add", 2, "base plus src scattered along an axis by a fixed index (repeats accumulate)", scatterAddSamples)
	reg("concat", cr.Variadic, "inputs joined along an existing axis", concatSamples)
	reg("stack", cr.Variadic, "inputs stacked along a new axis", stackSamples)
	reg("split", 1, "blocks of given sizes along an axis, one multi-output op (views of x)", splitSamples)
	reg("pad", 1, "zero padding before and after each axis", padSamples)
	reg("flip", 1, "reversal along axes", flipSamples)
	reg("roll", 1, "cyclic shift along axes", rollSamples)
	reg("where", 2, "where(mask, a, b) with a fixed broadcasting boolean mask", whereSamples)
	reg("tril", 1, "lower triangle of the last two axes with a diagonal offset (torch.tril)", trilSamples)
	reg("triu", 1, "upper triangle of the last two axes with a diagonal offset (torch.triu)", triuSamples)
	return out
}

func rnd(rng *rand.Rand, dt tensor.DType, shape ...int) *tensor.Dense {
	return tensor.RandN(rng, dt, shape...)
}

const (
	f64  = tensor.Float64
	c128 = tensor.Complex128
)

func sliceSamples(rng *rand.Rand) []sample {
	return []sample{
		{Name: "x[1:, ::2] float64", Op: SliceOp(Range{Start: 1, Stop: End}, Range{Stop: End, Step: 2}), Inputs: []*tensor.Dense{rnd(rng, f64, 4, 5)}},
		{Name: "x[:-1] float64", Op: SliceOp(Range{Stop: -1}), Inputs: []*tensor.Dense{rnd(rng, f64, 6)}},
		{Name: "x[-2:9, :, 1::2] complex128", Op: SliceOp(Range{Start: -2, Stop: 9}, All, Range{Start: 1, Stop: End, Step: 2}), Inputs: []*tensor.Dense{rnd(rng, c128, 3, 4, 5)}},
		{Name: "empty range", Op: SliceOp(Range{Start: 2, Stop: 2}), Inputs: []*tensor.Dense{rnd(rng, f64, 4, 2)}},
		{Name: "size-0 axis", Op: SliceOp(All, Range{Start: 1, Stop: 3}), Inputs: []*tensor.Dense{rnd(rng, c128, 0, 3)}},
		{Name: "scalar", Op: SliceOp(), Inputs: []*tensor.Dense{rnd(rng, f64)}},
	}
}

func narrowSamples(rng *rand.Rand) []sample {
	return []sample{
		{Name: "axis 0 float64", Op: NarrowOp(0, -3, 2), Inputs: []*tensor.Dense{rnd(rng, f64, 4, 3)}},
		{Name: "axis -1 complex128", Op: NarrowOp(-1, 1, 3), Inputs: []*tensor.Dense{rnd(rng, c128, 2, 5)}},
		{Name: "length 0", Op: NarrowOp(1, 2, 0), Inputs: []*tensor.Dense{rnd(rng, f64, 2, 3)}},
	}
}

func selectSamples(rng *rand.Rand) []sample {
	return []sample{
		{Name: "axis 1 index -1 float64", Op: SelectOp(1, -1), Inputs: []*tensor.Dense{rnd(rng, f64, 3, 4)}},
		{Name: "axis 0 complex128", Op: SelectOp(0, 1), Inputs: []*tensor.Dense{rnd(rng, c128, 2, 3, 4)}},
		{Name: "to scalar", Op: SelectOp(0, 2), Inputs: []*tensor.Dense{rnd(rng, c128, 3)}},
		{Name: "size-0 other axis", Op: SelectOp(1, 0), Inputs: []*tensor.Dense{rnd(rng, f64, 0, 2)}},
	}
}

func diagonalSamples(rng *rand.Rand) []sample {
	return []sample{
		{Name: "offset 1 float64", Op: DiagonalOp(1, 0, 1), Inputs: []*tensor.Dense{rnd(rng, f64, 4, 5)}},
		{Name: "offset -1 axes 2,0 complex128", Op: DiagonalOp(-1, 2, 0), Inputs: []*tensor.Dense{rnd(rng, c128, 3, 4, 5)}},
		{Name: "batched axes 1,2", Op: DiagonalOp(0, -2, -1), Inputs: []*tensor.Dense{rnd(rng, f64, 2, 3, 3)}},
		{Name: "offset past corner", Op: DiagonalOp(5, 0, 1), Inputs: []*tensor.Dense{rnd(rng, f64, 3, 3)}},
	}
}

func gatherSamples(rng *rand.Rand) []sample {
	return []sample{
		{Name: "axis 1 repeats float64", Op: GatherOp(1, []int{0, 0, 3, -1, 2, 2}, 3, 2), Inputs: []*tensor.Dense{rnd(rng, f64, 3, 4)}},
		{Name: "axis 0 complex128", Op: GatherOp(0, []int{2, 0, 1, 1, 1, 0}, 2, 3), Inputs: []*tensor.Dense{rnd(rng, c128, 3, 4)}},
		{Name: "3-d axis 1", Op: GatherOp(1, []int{1, 0, 1, 1, 0, 0, 0, 1}, 2, 2, 2), Inputs: []*tensor.Dense{rnd(rng, f64, 2, 3, 2)}},
		{Name: "empty index", Op: GatherOp(0, nil, 0, 2), Inputs: []*tensor.Dense{rnd(rng, f64, 3, 2)}},
	}
}

func indexSelectSamples(rng *rand.Rand) []sample {
	return []sample{
		{Name: "axis 0 repeats float64", Op: IndexSelectOp(0, 3, 0, 3, -1), Inputs: []*tensor.Dense{rnd(rng, f64, 4, 3)}},
		{Name: "axis 1 complex128", Op: IndexSelectOp(1, 2, 0), Inputs: []*tensor.Dense{rnd(rng, c128, 2, 3, 2)}},
		{Name: "no indices", Op: IndexSelectOp(-1), Inputs: []*tensor.Dense{rnd(rng, f64, 2, 3)}},
	}
}

func scatterAddSamples(rng *rand.Rand) []sample {
	return []sample{
		{Name: "axis 0 repeats float64", Op: ScatterAddOp(0, []int{0, 2, 2, 0, 0, 2, 1, -1}, 2, 4), Inputs: []*tensor.Dense{rnd(rng, f64, 3, 4), rnd(rng, f64, 2, 4)}},
		{Name: "axis 1 complex128", Op: ScatterAddOp(1, []int{1, 1, 0, 3}, 2, 2), Inputs: []*tensor.Dense{rnd(rng, c128, 3, 4), rnd(rng, c128, 2, 2)}},
		{Name: "real base complex src", Op: ScatterAddOp(1, []int{2, 2, 0}, 1, 3), Inputs: []*tensor.Dense{rnd(rng, f64, 2, 3), rnd(rng, c128, 1, 3)}},
	}
}

func concatSamples(rng *rand.Rand) []sample {
	return []sample{
		{Name: "axis 0 three inputs float64", Op: ConcatOp(0), Inputs: []*tensor.Dense{rnd(rng, f64, 2, 3), rnd(rng, f64, 1, 3), rnd(rng, f64, 0, 3)}},
		{Name: "axis -1 complex128", Op: ConcatOp(-1), Inputs: []*tensor.Dense{rnd(rng, c128, 2, 2), rnd(rng, c128, 2, 3)}},
		{Name: "mixed dtypes", Op: ConcatOp(1), Inputs: []*tensor.Dense{rnd(rng, f64, 2, 1), rnd(rng, c128, 2, 2)}},
		{Name: "one input", Op: ConcatOp(0), Inputs: []*tensor.Dense{rnd(rng, f64, 3)}},
	}
}

func stackSamples(rng *rand.Rand) []sample {
	return []sample{
		{Name: "axis 1 float64", Op: StackOp(1), Inputs: []*tensor.Dense{rnd(rng, f64, 2, 3), rnd(rng, f64, 2, 3)}},
		{Name: "axis -1 complex128", Op: StackOp(-1), Inputs: []*tensor.Dense{rnd(rng, c128, 3), rnd(rng, c128, 3), rnd(rng, c128, 3)}},
		{Name: "mixed dtypes scalars", Op: StackOp(0), Inputs: []*tensor.Dense{rnd(rng, c128), rnd(rng, f64)}},
	}
}

func splitSamples(rng *rand.Rand) []sample {
	return []sample{
		{Name: "sizes 2,3 float64", Op: SplitOp(0, []int{2, 3}), Inputs: []*tensor.Dense{rnd(rng, f64, 5, 2)}},
		{Name: "axis -1 with an empty block complex128", Op: SplitOp(-1, []int{1, 0, 3}), Inputs: []*tensor.Dense{rnd(rng, c128, 2, 4)}},
		{Name: "middle axis 3-d", Op: SplitOp(1, []int{2, 1, 1}), Inputs: []*tensor.Dense{rnd(rng, f64, 2, 4, 3)}},
		{Name: "one block", Op: SplitOp(0, []int{3}), Inputs: []*tensor.Dense{rnd(rng, c128, 3)}},
	}
}

func padSamples(rng *rand.Rand) []sample {
	return []sample{
		{Name: "2-d float64", Op: PadOp([2]int{1, 0}, [2]int{2, 1}), Inputs: []*tensor.Dense{rnd(rng, f64, 2, 3)}},
		{Name: "complex128", Op: PadOp([2]int{0, 2}), Inputs: []*tensor.Dense{rnd(rng, c128, 3)}},
		{Name: "size-0 axis", Op: PadOp([2]int{1, 1}, [2]int{0, 1}), Inputs: []*tensor.Dense{rnd(rng, f64, 0, 2)}},
	}
}

func flipSamples(rng *rand.Rand) []sample {
	return []sample{
		{Name: "axes 0,1 float64", Op: FlipOp(0, 1), Inputs: []*tensor.Dense{rnd(rng, f64, 3, 4)}},
		{Name: "axis -1 complex128", Op: FlipOp(-1), Inputs: []*tensor.Dense{rnd(rng, c128, 2, 3, 2)}},
		{Name: "no axes", Op: FlipOp(), Inputs: []*tensor.Dense{rnd(rng, f64, 2)}},
	}
}

func rollSamples(rng *rand.Rand) []sample {
	return []sample{
		{Name: "two axes float64", Op: RollOp([]int{1, -5}, []int{0, 1}), Inputs: []*tensor.Dense{rnd(rng, f64, 3, 4)}},
		{Name: "repeated axis complex128", Op: RollOp([]int{2, 5}, []int{-1, -1}), Inputs: []*tensor.Dense{rnd(rng, c128, 2, 5)}},
		{Name: "size-0 axis", Op: RollOp([]int{3}, []int{0}), Inputs: []*tensor.Dense{rnd(rng, f64, 0, 2)}},
	}
}

func whereSamples(rng *rand.Rand) []sample {
	return []sample{
		{Name: "same shape float64", Op: WhereOp([]bool{true, false, false, true, true, false}, 2, 3), Inputs: []*tensor.Dense{rnd(rng, f64, 2, 3), rnd(rng, f64, 2, 3)}},
		{Name: "broadcast complex128", Op: WhereOp([]bool{true, false, true}, 3, 1), Inputs: []*tensor.Dense{rnd(rng, c128, 3, 4), rnd(rng, c128, 4)}},
		{Name: "mixed dtypes broadcast a", Op: WhereOp([]bool{false, true, true, false}, 2, 2), Inputs: []*tensor.Dense{rnd(rng, f64, 1, 2), rnd(rng, c128, 2, 2)}},
	}
}

func trilSamples(rng *rand.Rand) []sample {
	return []sample{
		{Name: "3x4 float64", Op: TrilOp(0), Inputs: []*tensor.Dense{rnd(rng, f64, 3, 4)}},
		{Name: "batched diagonal -1 complex128", Op: TrilOp(-1), Inputs: []*tensor.Dense{rnd(rng, c128, 2, 3, 3)}},
		{Name: "4x3 diagonal 1", Op: TrilOp(1), Inputs: []*tensor.Dense{rnd(rng, f64, 4, 3)}},
		{Name: "diagonal past the corner", Op: TrilOp(-5), Inputs: []*tensor.Dense{rnd(rng, f64, 3, 3)}},
	}
}

func triuSamples(rng *rand.Rand) []sample {
	return []sample{
		{Name: "3x4 float64", Op: TriuOp(0), Inputs: []*tensor.Dense{rnd(rng, f64, 3, 4)}},
		{Name: "batched diagonal 1 complex128", Op: TriuOp(1), Inputs: []*tensor.Dense{rnd(rng, c128, 2, 3, 3)}},
		{Name: "4x3 diagonal -2", Op: TriuOp(-2), Inputs: []*tensor.Dense{rnd(rng, f64, 4, 3)}},
		{Name: "size 0", Op: TriuOp(0), Inputs: []*tensor.Dense{rnd(rng, f64, 0, 3)}},
	}
}
