package reduce_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/oracle"
)

// loadCases reads the vendored PyTorch reference cases of op from testdata (vendored
// with go run ./testing/oracle/internal/vendor -dst reduce/testdata -ops ...).
func loadCases(t *testing.T, op string) []oracle.Case {
	cases, err := oracle.LoadFS(os.DirFS("testdata"), op)
	require.NoError(t, err)
	return cases
}

// prodPositionalDim gives the reduced axis of the prod cases whose dim upstream
// passes positionally (so the case file does not record it) and whose shapes leave
// it ambiguous, keyed by the case number: PyTorch's sample_inputs_cumprod yields
// args=(dim,) for dim = 0, 1, 2 on (S, S, S) and args=(1,) for its zero-filled
// inputs, and sample_inputs_prod args=(1,) for (3, 3, 3).
var prodPositionalDim = map[string]int{"002": 0, "004": 1, "006": 2, "014": 1, "016": 1, "018": 1, "020": 1, "032": 1}

// caseAxes returns the axes and keepdim of a reduction case: from op_kwargs when
// they name dim, else inferred from the input and output shapes, else (prod) from
// the upstream sample generator.
func caseAxes(c *oracle.Case) ([]int, bool, error) {
	var kw map[string]json.RawMessage
	if err := c.Kwargs(&kw); err != nil {
		return nil, false, err
	}
	if _, ok := kw["dim"]; ok {
		return c.ReductionAxes()
	}
	in, _ := c.Inputs.Get("a")
	out, _ := c.Probes[0].Cotangent.Get("value")
	if axes, keep, ok := oracle.InferReduction(in.Shape, out.Shape); ok {
		return axes, keep, nil
	}
	if dim, ok := prodPositionalDim[c.ID[len(c.ID)-3:]]; ok && c.Op == "prod" {
		return []int{dim}, len(in.Shape) == len(out.Shape), nil
	}
	return nil, false, oracle.Skip("reduced axis not recorded and ambiguous from the shapes")
}

func TestOracle(t *testing.T) {
	simple := map[string]func([]int, bool) cr.Op[*tensor.Dense]{
		"sum": reduce.SumOp, "mean": reduce.MeanOp, "prod": reduce.ProdOp,
		"amax": reduce.MaxOp, "amin": reduce.MinOp,
		"nansum": reduce.NanSumOp, "nanmean": reduce.NanMeanOp,
	}
	for name, mk := range simple {
		t.Run(name, func(t *testing.T) {
			oracle.ReplaySingle(t, loadCases(t, name), func(c *oracle.Case) (cr.Op[*tensor.Dense], []*tensor.Dense, error) {
				x, err := c.DenseInputs()
				if err != nil {
					return nil, nil, err
				}
				axes, keep, err := caseAxes(c)
				if err != nil {
					return nil, nil, err
				}
				return mk(axes, keep), x, nil
			})
		})
	}
	moments := map[string]func([]int, float64, bool) cr.Op[*tensor.Dense]{
		"var": reduce.VarOp, "std": reduce.StdOp, "var_unbiased": reduce.VarOp, "std_unbiased": reduce.StdOp,
	}
	for name, mk := range moments {
		t.Run(name, func(t *testing.T) {
			oracle.ReplaySingle(t, loadCases(t, name), func(c *oracle.Case) (cr.Op[*tensor.Dense], []*tensor.Dense, error) {
				x, err := c.DenseInputs()
				if err != nil {
					return nil, nil, err
				}
				axes, keep, err := c.ReductionAxes()
				if err != nil {
					return nil, nil, err
				}
				// PyTorch's default is the unbiased estimator (correction 1);
				// "unbiased" and "correction" override it.
				var kw struct {
					Correction *float64
					Unbiased   *bool
				}
				if err := c.Kwargs(&kw); err != nil {
					return nil, nil, err
				}
				correction := 1.0
				// var_unbiased and std_unbiased pass unbiased positionally:
				// upstream's sample_inputs_std_var_unbiased yields (S, S) with True
				// and (S,) with False.
				if in, _ := c.Inputs.Get("a"); len(in.Shape) == 1 && (name == "var_unbiased" || name == "std_unbiased") {
					correction = 0
				}
				if kw.Unbiased != nil && !*kw.Unbiased {
					correction = 0
				}
				if kw.Correction != nil {
					correction = *kw.Correction
				}
				return mk(axes, correction, keep), x, nil
			})
		})
	}
}
