package nn_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// PyTorch's layer_norm, softmax, log_softmax and causal or scaled attention at
// sizes that reach the vector blocks of their row kernels and the tails
// (testdata/rows_ref.json, written by testdata/gen_rows_ref.py), in float64 and
// in float32: outputs, VJP, JVP and HVP within requireClose's tolerances of
// PyTorch's, in PyTorch's dtypes (the float32 cases run natively in single
// precision).
func TestRowsTorchReference(t *testing.T) {
	ref := loadTorchRef(t, "testdata/rows_ref.json")
	require.NotEmpty(t, ref.Cases)
	dtypes := map[string]int{}
	for _, c := range ref.Cases {
		dtypes[c.Inputs[0].DType]++
		t.Run(strings.ReplaceAll(c.Name, " ", "_"), func(t *testing.T) {
			switch c.Op {
			case "softmax", "log_softmax":
				replayTorch(t, c)
			default:
				op, multi := normRefOp(t, c)
				replayTorchOp(t, c, op, multi)
			}
		})
	}
	require.Positive(t, dtypes["float32"])
	require.Positive(t, dtypes["float64"])
	t.Logf("%d cases from torch %s", len(ref.Cases), ref.Torch)
}
