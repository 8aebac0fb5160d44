package opkit

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// FullRule is a rule with every form the engine uses: the pullback (Rule), the
// forward tangent (ForwardRule), the second-order pullback (SecondOrderRule) and
// the recorded pullback (PullbackRecorder), so that derivatives of any order go
// through it. chainrules.LinearRule and UnaryLinearRule return one; an op that
// wraps such a rule to add a method (a row-sparse pullback, a storage promise)
// embeds a FullRule, so that the wrapper keeps all four.
type FullRule interface {
	cr.Rule[*tensor.Dense]
	cr.ForwardRule[*tensor.Dense]
	cr.SecondOrderRule[*tensor.Dense]
	cr.PullbackRecorder[*tensor.Dense]
}
