package permute_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/permute"
	"github.com/chainrules-go/chainrules/tensor"
)

// Every layout op is linear, with cr.UnaryLinearRule as its rule, so it records its
// pullback (the adjoint layout map as an op) and is differentiable to any order:
// the recipe of notes/RECORDED.md on every registry sample.
func TestRecordedPullbackSamples(t *testing.T) {
	reg := cr.NewRegistry[*tensor.Dense]()
	require.NoError(t, permute.Register(reg))
	checkFamilies(t, reg, rand.New(rand.NewPCG(31, 32)), orderErrors)
}

// orderErrors lists the families of the package whose derivatives stop at some
// order (GradGraph returns an *cr.OrderError there), with that order: none.
var orderErrors = map[string]int{}
