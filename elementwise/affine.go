package elementwise

import cr "github.com/chainrules-go/chainrules/chainrules"

var (
	_ cr.AffineRule = (*unaryRule)(nil)
	_ cr.AffineRule = (*binaryRule)(nil)
)

// Affine reports whether the op is affine (chainrules.AffineRule): scale, shift
// and neg on float64 or holomorphic complex128 input, whose D2 is zero.
func (r *unaryRule) Affine() bool {
	switch r.mode {
	case modeReal:
		return r.op.spec.Real.affine
	case modeHolo:
		return r.op.spec.Complex.affine
	}
	return false
}

// Affine reports whether the op is linear in its operands (chainrules.AffineRule):
// add and sub, f(a, b) = c_a a + c_b b.
func (r *binaryRule) Affine() bool {
	if r.complex {
		return r.cx.fn.Linear
	}
	return r.re.fn.Linear
}

var (
	_ cr.InputTangentsOnly = (*unaryRule)(nil)
	_ cr.InputTangentsOnly = (*binaryRule)(nil)
)

// InputTangentsOnly marks the second-order pullback as reading the input's
// tangent and never the output's (chainrules.InputTangentsOnly).
func (*unaryRule) InputTangentsOnly() {}

// InputTangentsOnly marks the second-order pullback as reading the operands'
// tangents and never the output's (chainrules.InputTangentsOnly).
func (*binaryRule) InputTangentsOnly() {}
