package nn_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// PyTorch's float32 and complex64 computations of the nn ops
// (testdata/single_ref.json, written by testdata/gen_single_ref.py: the cases of
// the four double-precision references, drawn and differentiated by torch in
// single precision): each is replayed in single precision with the resolver of its
// double-precision twin, outputs, VJP, JVP and HVP within singleTol (absolute and
// relative) of PyTorch's, in PyTorch's dtypes.
func TestSinglePrecisionTorchReference(t *testing.T) {
	raw, err := os.ReadFile("testdata/single_ref.json")
	require.NoError(t, err)
	var ref struct {
		Torch string               `json:"torch"`
		Files map[string][]refCase `json:"files"`
	}
	require.NoError(t, json.Unmarshal(raw, &ref))
	resolve := map[string]func(t *testing.T, c refCase) (op, multi cr.Op[*tensor.Dense]){
		"torch": refOp,
		"norm":  normRefOp,
		"conv":  func(t *testing.T, c refCase) (op, multi cr.Op[*tensor.Dense]) { return convRefOp(t, c), nil },
		"pool":  poolRefOp,
	}
	require.Len(t, ref.Files, len(resolve))
	n := 0
	for file, cases := range ref.Files {
		require.NotEmpty(t, cases, file)
		for _, c := range cases {
			for _, in := range c.Inputs {
				require.True(t, in.DType == "float32" || in.DType == "complex64", "%s/%s: input of dtype %s", file, c.Name, in.DType)
			}
			t.Run(file+"/"+strings.ReplaceAll(c.Name, " ", "_"), func(t *testing.T) {
				op, multi := resolve[file](t, c)
				replayTorchOp(t, c, op, multi)
			})
			n++
		}
	}
	t.Logf("%d single-precision cases from torch %s", n, ref.Torch)
}
