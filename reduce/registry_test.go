package reduce_test

import (
	"testing"

	cr "github.com/chainrules-go/chainrules/chainrules"
	_ "github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

var families = []string{"sum", "mean", "nansum", "nanmean", "prod", "amax", "amin", "logsumexp", "var", "std"}

// TestRules runs the rule checker, first and second order, on every sample of every
// family this package registers.
func TestRules(t *testing.T) {
	reg := cr.NewRegistry[*tensor.Dense]()
	for _, name := range families {
		e, ok := tensor.Ops.Lookup(name)
		if !ok {
			t.Fatalf("%s is not registered", name)
		}
		reg.MustRegister(e)
	}
	ruletest.CheckRegistry(t, tensor.Space{}, reg, ruletest.Config{FullJacobianMaxSize: 64})
}
