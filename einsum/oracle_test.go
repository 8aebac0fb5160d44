package einsum

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/oracle"
)

// The oracle has no einsum cases of its own; these replay PyTorch's references for
// ops that are einsums: mul (broadcast product, "...,...->...") and
// linalg.multi_dot (a matrix chain). The case files are vendored under
// testdata/oracle with their licences (go run ./testing/oracle/internal/vendor
// -dst einsum/testdata/oracle -ops multi_dot,mul).
func loadOracle(t *testing.T, op string) []oracle.Case {
	cases, err := oracle.LoadFS(os.DirFS("testdata/oracle"), op)
	require.NoError(t, err)
	return cases
}

func TestOracleMul(t *testing.T) {
	rep := oracle.ReplaySingle(t, loadOracle(t, "mul"), func(c *oracle.Case) (cr.Op[*tensor.Dense], []*tensor.Dense, error) {
		x, err := c.DenseInputs()
		return Op("...,...->..."), x, err
	})
	require.Positive(t, rep.Replayed)
}

// multiDotSpec returns the einsum spec of linalg.multi_dot for operands of the given
// ranks (the first and last may be vectors).
func multiDotSpec(ranks []int) string {
	terms := make([]string, len(ranks))
	var out string
	for i, r := range ranks {
		row, col := string(rune('a'+i)), string(rune('a'+i+1))
		switch {
		case r == 1 && i == 0:
			terms[i] = col
		case r == 1:
			terms[i] = row
		default:
			terms[i] = row + col
			if i == 0 {
				out = row
			}
			if i == len(ranks)-1 {
				out += col
			}
		}
	}
	return strings.Join(terms, ",") + "->" + out
}

func TestOracleMultiDot(t *testing.T) {
	rep := oracle.ReplaySingle(t, loadOracle(t, "multi_dot"), func(c *oracle.Case) (cr.Op[*tensor.Dense], []*tensor.Dense, error) {
		x, err := c.DenseInputs()
		if err != nil {
			return nil, nil, err
		}
		ranks := make([]int, len(x))
		for k, v := range x {
			ranks[k] = v.Rank()
		}
		return Op(multiDotSpec(ranks)), x, nil
	})
	require.Positive(t, rep.Replayed)
}
