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

// The PyTorch reference of the layer ops: testdata/norm_ref.json, written once by
// testdata/gen_norm_ref.py and replayed with the helpers of torch_ref_test.go
// (replayTorchOp).

type normRefParams struct {
	Training        bool       `json:"training"`
	Weight          bool       `json:"weight"`
	Bias            bool       `json:"bias"`
	Momentum        float64    `json:"momentum"`
	Eps             float64    `json:"eps"`
	RunningMean     *refTensor `json:"running_mean"`
	RunningVar      *refTensor `json:"running_var"`
	NormalizedShape []int      `json:"normalized_shape"`
	NumGroups       int        `json:"num_groups"`
	Causal          bool       `json:"causal"`
	Mask            *refTensor `json:"mask"`
	BoolMask        []bool     `json:"bool_mask"`
	BoolShape       []int      `json:"bool_shape"`
	Scale           float64    `json:"scale"`
	UseInputStats   *bool      `json:"use_input_stats"`
}

// normRefOp returns our op for a case: a single-output op, or a multi-output one.
func normRefOp(t *testing.T, c refCase) (op, multi cr.Op[*tensor.Dense]) {
	var p normRefParams
	require.NoError(t, json.Unmarshal(c.Params, &p))
	aff := []nn.NormOption{nn.Affine(p.Weight, p.Bias), nn.NormEps(p.Eps)}
	switch c.Op {
	case "batch_norm":
		opts := append(aff, nn.Training(p.Training), nn.Momentum(p.Momentum))
		if p.RunningMean != nil {
			opts = append(opts, nn.RunningStats(p.RunningMean.dense(t), p.RunningVar.dense(t)))
		}
		if p.Training && p.RunningMean != nil {
			return nil, nn.BatchNormOp(opts...)
		}
		return nn.BatchNormOp(opts...), nil
	case "layer_norm":
		return nn.LayerNormOp(p.NormalizedShape, aff...), nil
	case "group_norm":
		return nn.GroupNormOp(p.NumGroups, aff...), nil
	case "instance_norm":
		opts := append(aff, nn.Momentum(p.Momentum))
		use := p.UseInputStats == nil || *p.UseInputStats
		if !use {
			opts = append(opts, nn.UseInputStats(false))
		}
		if p.RunningMean != nil {
			opts = append(opts, nn.RunningStats(p.RunningMean.dense(t), p.RunningVar.dense(t)))
			if use {
				return nil, nn.InstanceNormOp(opts...)
			}
		}
		return nn.InstanceNormOp(opts...), nil
	case "linear":
		return nn.LinearOp(p.Bias), nil
	case "attention":
		var opts []nn.AttentionOption
		if p.Causal {
			opts = append(opts, nn.IsCausal())
		}
		if p.Mask != nil {
			opts = append(opts, nn.AttnMask(p.Mask.dense(t)))
		}
		if p.BoolMask != nil {
			opts = append(opts, nn.AttnBoolMask(p.BoolMask, p.BoolShape...))
		}
		if p.Scale != 0 {
			opts = append(opts, nn.AttnScale(p.Scale))
		}
		return nn.ScaledDotProductAttentionOp(opts...), nil
	}
	t.Fatalf("no op for %q", c.Op)
	return nil, nil
}

func TestNormTorchReference(t *testing.T) {
	ref := loadTorchRef(t, "testdata/norm_ref.json")
	require.NotEmpty(t, ref.Cases)
	ops := map[string]bool{}
	for _, c := range ref.Cases {
		ops[c.Op] = true
		t.Run(strings.ReplaceAll(c.Name, " ", "_"), func(t *testing.T) {
			op, multi := normRefOp(t, c)
			replayTorchOp(t, c, op, multi)
		})
	}
	require.Len(t, ops, 6)
	t.Logf("%d cases of %d ops from torch %s", len(ref.Cases), len(ops), ref.Torch)
}
