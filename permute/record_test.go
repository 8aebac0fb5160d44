package permute_test

import (
	"math/rand/v2"
	"testing"

	"github.com/chainrules-go/chainrules/internal/recordtest"
	"github.com/chainrules-go/chainrules/permute"
)

// Every layout op is linear, with cr.UnaryLinearRule as its rule, so it records its
// pullback (the adjoint layout map as an op) and is differentiable to any order:
// the recipe of recordtest.CheckOp on every registry sample.
func TestRecordedPullbackSamples(t *testing.T) {
	recordtest.CheckFamilies(t, permute.Register, rand.New(rand.NewPCG(31, 32)), orderErrors)
}

// orderErrors lists the families of the package whose derivatives stop at some
// order (GradGraph returns an *cr.OrderError there), with that order: none.
var orderErrors = map[string]int{}
