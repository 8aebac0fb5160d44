package index_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/oracle"
)

// loadCases reads the vendored PyTorch reference cases of op from testdata,
// vendored from the repository root with
//
//	go run ./testing/oracle/internal/vendor -dst index/testdata -ops diagonal
func loadCases(t *testing.T, op string) []oracle.Case {
	cases, err := oracle.LoadFS(os.DirFS("testdata"), op)
	require.NoError(t, err)
	return cases
}

// TestDiagonalOracle replays PyTorch's torch.diagonal(a, offset, dim1, dim2) cases
// (defaults offset 0, dim1 0, dim2 1, as in PyTorch).
func TestDiagonalOracle(t *testing.T) {
	cases := loadCases(t, "diagonal")
	rep := oracle.ReplaySingle(t, cases, func(c *oracle.Case) (cr.Op[*tensor.Dense], []*tensor.Dense, error) {
		kw := struct {
			Offset int  `json:"offset"`
			Dim1   *int `json:"dim1"`
			Dim2   *int `json:"dim2"`
		}{}
		if err := c.Kwargs(&kw); err != nil {
			return nil, nil, err
		}
		d1, d2 := 0, 1
		if kw.Dim1 != nil {
			d1 = *kw.Dim1
		}
		if kw.Dim2 != nil {
			d2 = *kw.Dim2
		}
		x, err := c.DenseInputs()
		return index.DiagonalOp(kw.Offset, d1, d2), x, err
	})
	require.Positive(t, rep.Passed)
	require.Equal(t, rep.Replayed, rep.Passed)
}
