package permute

import (
	"math/rand/v2"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// Register adds the package's op families to reg under their names — "permute",
// "transpose", "moveaxis", "reshape", "squeeze", "unsqueeze", "adjoint" and
// "broadcast_to" — with sample inputs for testing/ruletest. It returns an error
// wrapping chainrules.ErrInvalidArgument for a nil reg, or chainrules.ErrDuplicate
// if a name is taken; registration stops there, and the families added before it
// stay.
func Register(reg *cr.Registry[*tensor.Dense]) error {
	return cr.RegisterEntries(reg, "permute.Register", entries()...)
}

// entries returns the registry entries of the package's op families.
func entries() []cr.Entry[*tensor.Dense] {
	type sample = cr.Sample[*tensor.Dense]
	type maker = func(...int) *tensor.Dense
	in := func(x *tensor.Dense) []*tensor.Dense { return []*tensor.Dense{x} }
	families := []struct {
		name, doc string
		// samples returns the family's samples, on inputs from f (float64) and c
		// (complex128).
		samples func(f, c maker) []sample
	}{
		{"permute", "permute the axes of a tensor (a view)", func(f, c maker) []sample {
			return []sample{
				{Name: "2-d", Op: PermuteOp(1, 0), Inputs: in(f(3, 4))},
				{Name: "3-d complex", Op: PermuteOp(2, 0, 1), Inputs: in(c(2, 3, 4))},
				{Name: "4-d negative axes", Op: PermuteOp(-1, 1, 0, 2), Inputs: in(f(2, 3, 1, 4))},
				{Name: "size 0", Op: PermuteOp(1, 0), Inputs: in(f(0, 3))},
				{Name: "scalar", Op: PermuteOp(), Inputs: in(f())},
			}
		}},
		{"transpose", "swap two axes (a view)", func(f, c maker) []sample {
			return []sample{
				{Name: "2-d", Op: TransposeOp(0, 1), Inputs: in(f(3, 4))},
				{Name: "3-d complex", Op: TransposeOp(0, -1), Inputs: in(c(2, 3, 4))},
			}
		}},
		{"moveaxis", "move axes to new positions (NumPy's moveaxis)", func(f, c maker) []sample {
			return []sample{
				{Name: "one axis", Op: MoveAxisOp([]int{0}, []int{-1}), Inputs: in(f(2, 3, 4))},
				{Name: "two axes complex", Op: MoveAxisOp([]int{0, 2}, []int{2, 0}), Inputs: in(c(2, 3, 4))},
			}
		}},
		{"reshape", "lay the elements out in a new shape (a view when strides allow)", func(f, c maker) []sample {
			t, _ := f(4, 3).Transpose(0, 1) // a strided input that needs a copy
			return []sample{
				{Name: "split", Op: ReshapeOp(2, -1, 3), Inputs: in(f(4, 3))},
				{Name: "flatten complex", Op: ReshapeOp(-1), Inputs: in(c(2, 3, 2))},
				{Name: "copying", Op: ReshapeOp(12), Inputs: in(t)},
				{Name: "to scalar", Op: ReshapeOp(), Inputs: in(f(1, 1))},
				{Name: "size 0", Op: ReshapeOp(3, 0), Inputs: in(f(0, 3))},
			}
		}},
		{"squeeze", "remove axes of size 1", func(f, c maker) []sample {
			return []sample{
				{Name: "all", Op: SqueezeOp(), Inputs: in(f(1, 3, 1, 2))},
				{Name: "one complex", Op: SqueezeOp(-2), Inputs: in(c(1, 3, 1, 2))},
			}
		}},
		{"unsqueeze", "insert an axis of size 1", func(f, c maker) []sample {
			return []sample{
				{Name: "front", Op: UnsqueezeOp(0), Inputs: in(f(3, 2))},
				{Name: "back complex", Op: UnsqueezeOp(-1), Inputs: in(c(3, 2))},
				{Name: "scalar", Op: UnsqueezeOp(0), Inputs: in(f())},
			}
		}},
		{"adjoint", "conjugate transpose of the last two axes (torch.adjoint, x.mH)", func(f, c maker) []sample {
			return []sample{
				{Name: "2-d", Op: AdjointOp, Inputs: in(f(3, 4))},
				{Name: "batched complex", Op: AdjointOp, Inputs: in(c(2, 3, 2))},
				{Name: "size 0", Op: AdjointOp, Inputs: in(c(0, 3))},
			}
		}},
		{"broadcast_to", "broadcast to a shape (a stride-0 view); pulls back by summing", func(f, c maker) []sample {
			return []sample{
				{Name: "add and stretch", Op: BroadcastToOp(2, 3, 4), Inputs: in(f(3, 1))},
				{Name: "complex", Op: BroadcastToOp(4, 3), Inputs: in(c(3))},
				{Name: "scalar", Op: BroadcastToOp(2, 2), Inputs: in(f())},
				{Name: "to size 0", Op: BroadcastToOp(0, 3), Inputs: in(f(1, 3))},
			}
		}},
	}
	out := make([]cr.Entry[*tensor.Dense], len(families))
	for i, fam := range families {
		out[i] = cr.Entry[*tensor.Dense]{Name: fam.name, Arity: 1, DTypes: tensor.DTypeNames(),
			Forward: true, SecondOrder: true, Doc: fam.doc,
			Samples: func(rng *rand.Rand) []sample {
				f := func(shape ...int) *tensor.Dense { return tensor.RandN(rng, tensor.Float64, shape...) }
				c := func(shape ...int) *tensor.Dense { return tensor.RandN(rng, tensor.Complex128, shape...) }
				return fam.samples(f, c)
			}}
	}
	return out
}
