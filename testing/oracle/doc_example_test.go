package oracle_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/oracle"
)

// The package documentation's test: the vendored PyTorch cases of exp replayed
// against elementwise.ExpOp.
func TestExpOracle(t *testing.T) {
	cases, err := oracle.Load("exp")
	require.NoError(t, err)
	oracle.Replay(t, cases, func(c *oracle.Case) (chainrules.Op[*tensor.Dense], []*tensor.Dense, error) {
		x, err := c.DenseInputs()
		return elementwise.ExpOp, x, err
	})
}
