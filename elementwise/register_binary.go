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

// binaryEntries returns the registry entries of the broadcasting binary op families.
func binaryEntries() []cr.Entry[*tensor.Dense] {
	var out []cr.Entry[*tensor.Dense]
	for _, b := range []struct {
		op         cr.Op[*tensor.Dense]
		complexToo bool
		da, db     domain
		doc        string
	}{
		{AddOp, true, anywhere, anywhere, "y = a + b, broadcast"},
		{SubOp, true, anywhere, anywhere, "y = a - b, broadcast"},
		{MulOp, true, anywhere, anywhere, "y = a b, broadcast"},
		{DivOp, true, anywhere, offZero, "y = a / b, broadcast"},
		{PowOp, true, positive, anywhere, "y = a^b, broadcast"},
		{MaximumOp, false, anywhere, anywhere, "y = max(a, b), broadcast; ties split 1/2, 1/2"},
		{MinimumOp, false, anywhere, anywhere, "y = min(a, b), broadcast; ties split 1/2, 1/2"},
		{Atan2Op, false, offZero, anywhere, "y = atan2(a, b), broadcast"},
		{HypotOp, false, offZero, anywhere, "y = sqrt(a² + b²), broadcast"},
		{XlogyOp, false, offZero, positive, "y = a log b, broadcast"},
		{LogaddexpOp, true, anywhere, anywhere, "y = log(e^a + e^b), broadcast"},
		{FloatPowerOp, true, positive, anywhere, "y = a^b in double precision, broadcast"},
		{CopysignOp, false, offZero, offZero, "y = |a| with the sign of b, broadcast"},
		{FmaxOp, false, anywhere, anywhere, "y = max(a, b) ignoring NaN, broadcast; ties go to a"},
		{FminOp, false, anywhere, anywhere, "y = min(a, b) ignoring NaN, broadcast; ties go to a"},
		{ClampMaxOp, false, anywhere, anywhere, "y = min(a, b) (clamp_max), broadcast; ties go to a"},
		{ClampMinOp, false, anywhere, anywhere, "y = max(a, b) (clamp_min), broadcast; ties go to a"},
		{LdexpOp, true, anywhere, anywhere, "y = a 2^b, broadcast"},
		{Xlog1pyOp, false, offZero, positive, "y = a log1p(b), broadcast"},
		// |a| < |b| keeps a/b in (-1, 1) away from 0, clear of the jumps of remainder.
		{RemainderOp, false, domain{0.2, 0.8, true}, domain{1, 1.1, true}, "y = a - b floor(a/b), broadcast; f_b = -floor(a/b)"},
		{ComplexOp, false, anywhere, anywhere, "y = a + ib from float64 a, b, broadcast"},
		{PolarOp, false, positive, anywhere, "y = a e^(ib) from float64 a, b, broadcast"},
	} {
		dtypes := realOnly
		if b.complexToo {
			dtypes = bothDTypes
		}
		samples := binarySamples(b.op, b.complexToo, b.da, b.db)
		switch b.op {
		case AddOp:
			samples = withAlpha(samples, AddAlphaOp(-3.125), AddAlphaOp(0.5+2i))
		case SubOp:
			samples = withAlpha(samples, SubAlphaOp(2), SubAlphaOp(-1i))
		case RemainderOp:
			samples = withExtra(samples, func(rng *rand.Rand) []cr.Sample[*tensor.Dense] {
				// a/b in ±(2.09, 2.8): floor(a/b) is 2 or -3.
				return []cr.Sample[*tensor.Dense]{{Name: "|a| > 2|b|", Op: RemainderOp, Inputs: []*tensor.Dense{
					domain{2.3, 2.8, true}.draw(rng, tensor.Float64, 3, 4), domain{1, 1.1, true}.draw(rng, tensor.Float64, 4)}}}
			})
		case PolarOp:
			samples = withExtra(samples, func(rng *rand.Rand) []cr.Sample[*tensor.Dense] {
				return []cr.Sample[*tensor.Dense]{{Name: "negative abs", Op: PolarOp, Inputs: []*tensor.Dense{
					anywhere.draw(rng, tensor.Float64, 3, 4), anywhere.draw(rng, tensor.Float64, 3, 4)}}}
			})
		}
		out = append(out, cr.Entry[*tensor.Dense]{Name: b.op.Name(), Arity: 2, DTypes: dtypes,
			Forward: true, SecondOrder: true, Doc: b.doc, Samples: samples})
	}
	return out
}

// withAlpha adds samples of an op with a real alpha (on float64, complex128 and
// mixed operands) and with a complex one (on complex128 and mixed operands) to s.
func withAlpha(s func(*rand.Rand) []cr.Sample[*tensor.Dense], realAlpha, complexAlpha cr.Op[*tensor.Dense]) func(*rand.Rand) []cr.Sample[*tensor.Dense] {
	return func(rng *rand.Rand) []cr.Sample[*tensor.Dense] {
		out := s(rng)
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
