package einsum_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chainrules-go/chainrules/einsum"
)

// A plan reports the spec it was made from, its output shape and its cost.
func TestPlanDescribesItself(t *testing.T) {
	p, err := einsum.NewPlan("ij,jk->ik", []int{2, 3}, []int{3, 5})
	require.NoError(t, err)
	assert.Equal(t, "ij,jk->ik", p.Spec())
	assert.Equal(t, []int{2, 5}, p.OutShape())
	assert.Positive(t, p.Flops())
}
