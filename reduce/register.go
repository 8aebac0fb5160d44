package reduce

import (
	"math/rand/v2"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// Register adds the package's op families to reg under their names — "sum",
// "mean", "nansum", "nanmean", "prod", "amax", "amin", "logsumexp", "var" and
// "std" — with sample inputs for testing/ruletest. It returns an error wrapping
// chainrules.ErrInvalidArgument for a nil reg, or chainrules.ErrDuplicate if a name
// is taken; registration stops there, and the families added before it stay.
func Register(reg *cr.Registry[*tensor.Dense]) error {
	return cr.RegisterEntries(reg, "reduce.Register", entries()...)
}

// entries returns the registry entries of the package's op families.
func entries() []cr.Entry[*tensor.Dense] {
	type sample = cr.Sample[*tensor.Dense]
	type maker = func(...int) *tensor.Dense
	var out []cr.Entry[*tensor.Dense]
	reg := func(name, doc string, dtypes []string, samples func(f, c maker) []sample) {
		out = append(out, cr.Entry[*tensor.Dense]{
			Name: name, Arity: 1, DTypes: dtypes, Forward: true, SecondOrder: true, Doc: doc,
			Samples: func(rng *rand.Rand) []sample {
				f := func(shape ...int) *tensor.Dense { return tensor.RandN(rng, tensor.Float64, shape...) }
				c := func(shape ...int) *tensor.Dense { return tensor.RandN(rng, tensor.Complex128, shape...) }
				return samples(f, c)
			},
		})
	}
	both, real := tensor.DTypeNames(), tensor.RealDTypeNames()
	in := func(x *tensor.Dense) []*tensor.Dense { return []*tensor.Dense{x} }
	// axisSamples covers one axis, two non-adjacent axes (the copying path, on complex
	// input when the family takes it), all axes with keepdim, a negative axis, a
	// scalar and a size-0 input.
	axisSamples := func(mk func([]int, bool) cr.Op[*tensor.Dense], f, c maker, complexOK bool) []sample {
		x3 := f(2, 3, 4)
		if complexOK {
			x3 = c(2, 3, 4)
		}
		return []sample{
			{Name: "axis 1", Op: mk([]int{1}, false), Inputs: in(f(3, 4))},
			{Name: "axes 0,2 keepdim", Op: mk([]int{0, 2}, true), Inputs: in(x3)},
			{Name: "axis -2 of 3-d", Op: mk([]int{-2}, false), Inputs: in(x3)},
			{Name: "all keepdim", Op: mk(nil, true), Inputs: in(f(3, 1, 2))},
			{Name: "scalar", Op: mk(nil, false), Inputs: in(f())},
			{Name: "size 0 kept", Op: mk([]int{1}, false), Inputs: in(f(0, 3))},
		}
	}
	withZeros := func(x *tensor.Dense, idx ...[]int) *tensor.Dense {
		for _, i := range idx {
			x.Set(0, i...)
		}
		return x
	}
	// The families over axes: axisSamples, and the samples of extra if it is set.
	for _, fam := range []struct {
		name, doc string
		dtypes    []string
		op        func([]int, bool) cr.Op[*tensor.Dense]
		extra     func(f, c maker) []sample
	}{
		{"sum", "sum over axes", both, SumOp, func(f, _ maker) []sample {
			return []sample{{Name: "empty reduced", Op: SumOp([]int{0}, false), Inputs: in(f(0, 3))}}
		}},
		{"mean", "mean over axes", both, MeanOp, nil},
		{"nansum", "sum over axes, NaN counted as zero", real, NanSumOp, nil},
		{"nanmean", "mean over axes of the elements that are not NaN", real, NanMeanOp, nil},
		{"prod", "product over axes (zeros handled without division)", both, ProdOp, func(f, c maker) []sample {
			return []sample{
				{Name: "one zero", Op: ProdOp([]int{1}, false), Inputs: in(withZeros(f(3, 4), []int{1, 2}))},
				{Name: "two zeros", Op: ProdOp([]int{1}, false), Inputs: in(withZeros(f(3, 4), []int{1, 0}, []int{1, 3}))},
				{Name: "complex zeros", Op: ProdOp(nil, false), Inputs: in(withZeros(c(2, 3), []int{0, 1}, []int{1, 1}))},
				{Name: "empty reduced", Op: ProdOp([]int{0}, true), Inputs: in(f(0, 3))},
			}
		}},
		{"amax", "maximum over axes (ties split the gradient evenly)", real, MaxOp, func(f, _ maker) []sample {
			return []sample{{Name: "whole vector (row-sparse pullback)", Op: MaxOp(nil, false), Inputs: in(f(7))}}
		}},
		{"amin", "minimum over axes (ties split the gradient evenly)", real, MinOp, func(f, _ maker) []sample {
			return []sample{{Name: "whole vector (row-sparse pullback)", Op: MinOp(nil, false), Inputs: in(f(7))}}
		}},
		{"logsumexp", "log of the sum of exponentials over axes, stable for large inputs", real, LogSumExpOp, func(f, _ maker) []sample {
			return []sample{{Name: "spread", Op: LogSumExpOp([]int{0}, false), Inputs: in(tensor.Scale(f(5, 2), 4))}}
		}},
	} {
		reg(fam.name, fam.doc, fam.dtypes, func(f, c maker) []sample {
			s := axisSamples(fam.op, f, c, slices.Contains(fam.dtypes, "complex128"))
			if fam.extra != nil {
				s = append(s, fam.extra(f, c)...)
			}
			return s
		})
	}
	moments := func(mk func([]int, float64, bool) cr.Op[*tensor.Dense]) func(f, c maker) []sample {
		return func(f, c maker) []sample {
			return []sample{
				{Name: "axis 1 unbiased", Op: mk([]int{1}, 1, false), Inputs: in(f(3, 4))},
				{Name: "axes 0,2 biased keepdim complex", Op: mk([]int{0, 2}, 0, true), Inputs: in(c(2, 3, 4))},
				{Name: "all, correction 0.5", Op: mk(nil, 0.5, false), Inputs: in(f(5))},
				{Name: "axis -1 complex, correction -1", Op: mk([]int{-1}, -1, false), Inputs: in(c(3, 4))},
			}
		}
	}
	reg("var", "variance over axes with a correction (complex input, real output)", both, moments(VarOp))
	reg("std", "standard deviation over axes with a correction", both, moments(StdOp))
	return out
}
