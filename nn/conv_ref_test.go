package nn_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/tensor"
)

// The PyTorch reference of the convolutions: testdata/conv_ref.json, written by
// testdata/gen_conv_ref.py, replayed with the helpers of torch_ref_test.go.

// intsOrString is a Python int, tuple of ints or string argument.
type intsOrString struct {
	ints []int
	str  string
}

func (v *intsOrString) UnmarshalJSON(b []byte) error {
	var n int
	if json.Unmarshal(b, &n) == nil {
		v.ints = []int{n}
		return nil
	}
	if json.Unmarshal(b, &v.str) == nil {
		return nil
	}
	return json.Unmarshal(b, &v.ints)
}

type convParams struct {
	ND            int          `json:"nd"`
	Transposed    bool         `json:"transposed"`
	Stride        intsOrString `json:"stride"`
	Padding       intsOrString `json:"padding"`
	Dilation      intsOrString `json:"dilation"`
	OutputPadding intsOrString `json:"output_padding"`
	Groups        int          `json:"groups"`
	PaddingMode   string       `json:"padding_mode"`
}

// convRefOp returns our op for a case, with PyTorch's arguments as options.
func convRefOp(t *testing.T, c refCase) cr.Op[*tensor.Dense] {
	var p convParams
	require.NoError(t, json.Unmarshal(c.Params, &p))
	opts := []nn.ConvOption{nn.Stride(p.Stride.ints...), nn.Dilation(p.Dilation.ints...), nn.Groups(p.Groups)}
	switch p.Padding.str {
	case "same":
		opts = append(opts, nn.PaddingSame())
	case "valid":
		opts = append(opts, nn.PaddingValid())
	case "":
		opts = append(opts, nn.Padding(p.Padding.ints...))
	default:
		t.Fatalf("padding %q", p.Padding.str)
	}
	if p.Transposed {
		opts = append(opts, nn.OutputPadding(p.OutputPadding.ints...))
		return []func(...nn.ConvOption) cr.Op[*tensor.Dense]{nil, nn.ConvTranspose1dOp, nn.ConvTranspose2dOp, nn.ConvTranspose3dOp}[p.ND](opts...)
	}
	opts = append(opts, nn.PaddingMode(nn.PadMode(p.PaddingMode)))
	return []func(...nn.ConvOption) cr.Op[*tensor.Dense]{nil, nn.Conv1dOp, nn.Conv2dOp, nn.Conv3dOp}[p.ND](opts...)
}

func TestConvTorchReference(t *testing.T) {
	ref := loadTorchRef(t, "testdata/conv_ref.json")
	require.NotEmpty(t, ref.Cases)
	for _, c := range ref.Cases {
		t.Run(strings.ReplaceAll(c.Name, " ", "_"), func(t *testing.T) {
			op := convRefOp(t, c)
			require.Equal(t, c.Op, op.Name())
			replayTorchOp(t, c, op, nil)
		})
	}
	t.Logf("%d cases from torch %s", len(ref.Cases), ref.Torch)
}
