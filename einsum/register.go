package einsum

import (
	"math/rand/v2"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// Register adds the einsum family to reg under Name, with sample inputs for
// testing/ruletest. It returns an error wrapping chainrules.ErrInvalidArgument for a
// nil reg, or chainrules.ErrDuplicate if the name is taken.
func Register(reg *cr.Registry[*tensor.Dense]) error {
	return cr.RegisterEntries(reg, "einsum.Register", entry())
}

// entry returns the registry entry of the einsum family.
func entry() cr.Entry[*tensor.Dense] {
	return cr.Entry[*tensor.Dense]{
		Name:        Name,
		Arity:       cr.Variadic,
		DTypes:      tensor.DTypeNames(),
		Forward:     true,
		SecondOrder: true,
		Doc:         "n-ary tensor contraction by a NumPy einsum spec",
		Samples:     samples,
	}
}

// sampleCase is one spec with operand shapes; complex marks which operands are
// complex128.
type sampleCase struct {
	name    string
	spec    string
	shapes  [][]int
	complex []bool
}

var sampleCases = []sampleCase{
	{"matmul", "ij,jk->ik", [][]int{{2, 3}, {3, 4}}, nil},
	{"matmul implicit", "ij,jk", [][]int{{3, 2}, {2, 2}}, nil},
	{"trace", "ii->", [][]int{{3, 3}}, nil},
	{"diagonal", "ii->i", [][]int{{3, 3}}, nil},
	{"diagonal times vector", "iij,j->ij", [][]int{{2, 2, 3}, {3}}, nil},
	{"sum within operand", "ijk,k->i", [][]int{{2, 3, 2}, {2}}, nil},
	{"transpose", "ij->ji", [][]int{{2, 3}}, nil},
	{"scalar output", "ij,ij->", [][]int{{2, 3}, {2, 3}}, nil},
	{"scalar operand", ",ij->ij", [][]int{{}, {2, 2}}, nil},
	{"hadamard of three", "i,i,i->i", [][]int{{4}, {4}, {4}}, nil},
	{"ellipsis broadcast", "...ij,...jk->...ik", [][]int{{2, 1, 2, 3}, {3, 3, 2}}, nil},
	{"ellipsis summed", "i...->i", [][]int{{2, 3, 2}}, nil},
	{"size-0 label", "ij,jk->ik", [][]int{{2, 0}, {0, 3}}, nil},
	{"batched", "bij,bjk->bik", [][]int{{2, 2, 3}, {2, 3, 2}}, nil},
	{"tensor network", "abc,cde,efa,bdf->", [][]int{{2, 2, 3}, {3, 2, 2}, {2, 2, 2}, {2, 2, 2}}, nil},
	{"complex matmul", "ij,jk->ik", [][]int{{2, 3}, {3, 2}}, []bool{true, true}},
	{"complex trace", "ii->", [][]int{{3, 3}}, []bool{true}},
	{"mixed real complex", "ij,jk,k->i", [][]int{{2, 3}, {3, 2}, {2}}, []bool{false, true, false}},
	{"complex ellipsis diagonal", "...ii->...i", [][]int{{2, 3, 3}}, []bool{true}},
}

func samples(rng *rand.Rand) []cr.Sample[*tensor.Dense] {
	out := make([]cr.Sample[*tensor.Dense], 0, len(sampleCases))
	for _, c := range sampleCases {
		in := make([]*tensor.Dense, len(c.shapes))
		for k, sh := range c.shapes {
			dt := tensor.Float64
			if k < len(c.complex) && c.complex[k] {
				dt = tensor.Complex128
			}
			in[k] = tensor.RandN(rng, dt, sh...)
		}
		out = append(out, cr.Sample[*tensor.Dense]{Name: c.name + " " + c.spec, Op: Op(c.spec), Inputs: in})
	}
	return out
}
