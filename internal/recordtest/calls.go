package recordtest

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// Apply1 calls op.Apply with one zeroed output slot and returns the output, the
// rule and the error.
func Apply1(op cr.Op[*tensor.Dense], in []cr.NodeID, x []*tensor.Dense) (*tensor.Dense, cr.Rule[*tensor.Dense], error) {
	y := make([]*tensor.Dense, 1)
	rule, err := op.Apply(in, x, y)
	return y[0], rule, err
}

// Pullback1 pulls the cotangent ybar of the one output back through rule.
func Pullback1(rule cr.Rule[*tensor.Dense], ybar *tensor.Dense, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	return rule.Pullback([]*tensor.Dense{ybar}, []bool{true}, dst)
}

// Forward1 returns the tangent of the one output from rule's Forward, which must
// exist (it panics if rule is not a chainrules.ForwardRule), and whether it is
// present.
func Forward1(rule cr.Rule[*tensor.Dense], tangentOf cr.TangentOf[*tensor.Dense]) (*tensor.Dense, bool, error) {
	ydot, has := make([]*tensor.Dense, 1), make([]bool, 1)
	err := rule.(cr.ForwardRule[*tensor.Dense]).Forward(tangentOf, ydot, has)
	return ydot[0], has[0], err
}

// SecondOrder1 calls rule's PullbackWithTangents for the one output y with the
// cotangent pair ct and the input tangents tangentOf, giving it y's tangent from
// the rule's own Forward, as the engine does.
func SecondOrder1(rule cr.Rule[*tensor.Dense], y *tensor.Dense, ct cr.Dual[*tensor.Dense], tangentOf cr.TangentOf[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	return cr.PullbackWithTangentsOf(rule, []*tensor.Dense{y}, []cr.Dual[*tensor.Dense]{ct}, []bool{true}, tangentOf, dst)
}
