package tensor

import "github.com/chainrules-go/chainrules/chainrules"

// Ops is the default registry of tensor op families. The op packages (einsum,
// reduce, permute, elementwise) register their families here when they are imported,
// with sample inputs for testing/ruletest. A tape that should honour user overrides
// of these rules (custom gradients) is created with
//
//	core.NewTape[*tensor.Dense](tensor.Space{}).UseRegistry(tensor.Ops)
var Ops = chainrules.NewRegistry[*Dense]()
