package elementwise

import (
	"math/rand/v2"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// binarySamples returns samples of op over the broadcasting patterns that matter:
// equal shapes, a trailing-dims operand, both operands stretched, a scalar, and an
// empty dim; on float64, on complex128, and mixed (promotion) when complex is
// supported. da and db are the operands' domains.
func binarySamples(op cr.Op[*tensor.Dense], complexToo bool, da, db domain) func(*rand.Rand) []cr.Sample[*tensor.Dense] {
	shapes := []struct {
		name string
		a, b []int
	}{
		{"[3 4] [3 4]", []int{3, 4}, []int{3, 4}},
		{"[2 3 4] [4]", []int{2, 3, 4}, []int{4}},
		{"[2 1 3] [4 1]", []int{2, 1, 3}, []int{4, 1}},
		{"[] [3]", nil, []int{3}},
		{"[2 0] [1 0]", []int{2, 0}, []int{1, 0}},
	}
	return func(rng *rand.Rand) []cr.Sample[*tensor.Dense] {
		var s []cr.Sample[*tensor.Dense]
		add := func(name string, ta, tb tensor.DType, a, b []int) {
			s = append(s, cr.Sample[*tensor.Dense]{Name: name, Op: op,
				Inputs: []*tensor.Dense{da.draw(rng, ta, a...), db.draw(rng, tb, b...)}})
		}
		for _, sh := range shapes {
			add("float64 "+sh.name, tensor.Float64, tensor.Float64, sh.a, sh.b)
		}
		if complexToo {
			for _, sh := range shapes[:3] {
				add("complex128 "+sh.name, tensor.Complex128, tensor.Complex128, sh.a, sh.b)
			}
			add("float64 x complex128 [3 4] [4]", tensor.Float64, tensor.Complex128, []int{3, 4}, []int{4})
			add("complex128 x float64 [4] [3 1]", tensor.Complex128, tensor.Float64, []int{4}, []int{3, 1})
		}
		return s
	}
}

// alphaSamples returns samples of an op with a real alpha (on float64, complex128
// and mixed operands) and with a complex one (on complex128 and mixed operands).
func alphaSamples(realAlpha, complexAlpha cr.Op[*tensor.Dense]) func(*rand.Rand) []cr.Sample[*tensor.Dense] {
	return func(rng *rand.Rand) []cr.Sample[*tensor.Dense] {
		var out []cr.Sample[*tensor.Dense]
		add := func(name string, op cr.Op[*tensor.Dense], ta, tb tensor.DType) {
			out = append(out, cr.Sample[*tensor.Dense]{Name: name, Op: op,
				Inputs: []*tensor.Dense{anywhere.draw(rng, ta, 2, 3), anywhere.draw(rng, tb, 3)}})
		}
		add("real alpha, float64", realAlpha, tensor.Float64, tensor.Float64)
		add("real alpha, complex128", realAlpha, tensor.Complex128, tensor.Complex128)
		add("complex alpha, complex128", complexAlpha, tensor.Complex128, tensor.Complex128)
		add("complex alpha, float64 x complex128", complexAlpha, tensor.Float64, tensor.Complex128)
		add("complex alpha, complex128 x float64", complexAlpha, tensor.Complex128, tensor.Float64)
		return out
	}
}

// withExtra appends the samples of extra to those of s.
func withExtra(s, extra func(*rand.Rand) []cr.Sample[*tensor.Dense]) func(*rand.Rand) []cr.Sample[*tensor.Dense] {
	return func(rng *rand.Rand) []cr.Sample[*tensor.Dense] { return append(s(rng), extra(rng)...) }
}
