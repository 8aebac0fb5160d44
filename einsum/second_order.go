package einsum

import cr "github.com/chainrules-go/chainrules/chainrules"

var _ cr.InputTangentsOnly = (*rule)(nil)

// InputTangentsOnly marks the rule's second-order pullback, the product rule, as
// reading the operands' tangents and never the output's
// (chainrules.InputTangentsOnly).
func (*rule) InputTangentsOnly() {}
