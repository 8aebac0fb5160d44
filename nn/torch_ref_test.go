package nn_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/cmplx"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/tensor"
)

// The PyTorch reference of package nn: testdata/torch_ref.json, written once by
// testdata/gen_torch_ref.py (see its doc string) and replayed here without Python.

// num is a JSON number, or one of the strings "nan", "inf", "-inf".
type num float64

func (n *num) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		switch s {
		case "nan":
			*n = num(math.NaN())
		case "inf":
			*n = num(math.Inf(1))
		case "-inf":
			*n = num(math.Inf(-1))
		default:
			return fmt.Errorf("bad number %q", s)
		}
		return nil
	}
	var f float64
	err := json.Unmarshal(b, &f)
	*n = num(f)
	return err
}

type refTensor struct {
	DType string `json:"dtype"`
	Shape []int  `json:"shape"`
	Data  []num  `json:"data"`
	Grad  bool   `json:"grad"`
}

// dense returns the tensor, of the dtype the reference names (the single-precision
// ones are read in double precision and rounded, exactly: the data are their
// values).
func (r refTensor) dense(t *testing.T) *tensor.Dense {
	var d *tensor.Dense
	var err error
	if r.DType == "complex128" || r.DType == "complex64" {
		c := make([]complex128, len(r.Data)/2)
		for i := range c {
			c[i] = complex(float64(r.Data[2*i]), float64(r.Data[2*i+1]))
		}
		d, err = tensor.FromComplex128(c, r.Shape...)
	} else {
		f := make([]float64, len(r.Data))
		for i, v := range r.Data {
			f[i] = float64(v)
		}
		d, err = tensor.FromFloat64(f, r.Shape...)
	}
	require.NoError(t, err)
	switch r.DType {
	case "float32":
		d, err = tensor.AsType(d, tensor.Float32)
	case "complex64":
		d, err = tensor.AsType(d, tensor.Complex64)
	}
	require.NoError(t, err)
	return d
}

type refCase struct {
	Name    string          `json:"name"`
	Op      string          `json:"op"`
	Params  json.RawMessage `json:"params"`
	Inputs  []refTensor     `json:"inputs"`
	Outputs []refTensor     `json:"outputs"`
	Ybar    []refTensor     `json:"ybar"`
	V       []refTensor     `json:"v"`
	VJP     []refTensor     `json:"vjp"`
	JVP     []refTensor     `json:"jvp"`
	HVP     []refTensor     `json:"hvp"`
}

type refParams struct {
	Axis           int        `json:"axis"`
	Reverse        bool       `json:"reverse"`
	Descending     bool       `json:"descending"`
	K              int        `json:"k"`
	Largest        bool       `json:"largest"`
	Keepdim        bool       `json:"keepdim"`
	NumClasses     int        `json:"num_classes"`
	Labels         []int      `json:"labels"`
	Reduction      string     `json:"reduction"`
	LabelSmoothing *float64   `json:"label_smoothing"`
	Weight         []float64  `json:"weight"`
	IgnoreIndex    *int       `json:"ignore_index"`
	Delta          float64    `json:"delta"`
	Lo             float64    `json:"lo"`
	Hi             float64    `json:"hi"`
	PosWeight      *refTensor `json:"pos_weight"`
	BCEWeight      *refTensor `json:"bce_weight"`
}

// lossOptions maps the case's keyword arguments to options.
func (p refParams) lossOptions(t *testing.T) []nn.LossOption {
	var opts []nn.LossOption
	switch p.Reduction {
	case "sum":
		opts = append(opts, nn.WithReduction(nn.ReductionSum))
	case "none":
		opts = append(opts, nn.WithReduction(nn.ReductionNone))
	}
	if p.LabelSmoothing != nil {
		opts = append(opts, nn.LabelSmoothing(*p.LabelSmoothing))
	}
	if p.Weight != nil {
		opts = append(opts, nn.ClassWeights(p.Weight...))
	}
	if p.IgnoreIndex != nil {
		opts = append(opts, nn.IgnoreIndex(*p.IgnoreIndex))
	}
	if p.PosWeight != nil {
		opts = append(opts, nn.PosWeight(p.PosWeight.dense(t)))
	}
	if p.BCEWeight != nil {
		opts = append(opts, nn.Weight(p.BCEWeight.dense(t)))
	}
	return opts
}

// refOp returns our op for a case: a single-output op, or a multi-output one.
func refOp(t *testing.T, c refCase) (cr.Op[*tensor.Dense], cr.Op[*tensor.Dense]) {
	var p refParams
	require.NoError(t, json.Unmarshal(c.Params, &p))
	switch c.Op {
	case "softmax":
		return nn.SoftmaxOp(p.Axis), nil
	case "log_softmax":
		return nn.LogSoftmaxOp(p.Axis), nil
	case "cross_entropy":
		return nn.CrossEntropyOp(p.Labels, p.lossOptions(t)...), nil
	case "cross_entropy_probs":
		return nn.CrossEntropyProbsOp(p.lossOptions(t)...), nil
	case "nll_loss":
		return nn.NLLLossOp(p.Labels, p.lossOptions(t)...), nil
	case "mse_loss":
		return nn.MSELossOp(p.lossOptions(t)...), nil
	case "huber_loss":
		return nn.HuberLossOp(p.Delta, p.lossOptions(t)...), nil
	case "binary_cross_entropy_with_logits":
		return nn.BCEWithLogitsOp(p.lossOptions(t)...), nil
	case "cumsum":
		return nn.CumsumOp(p.Axis), nil
	case "cumprod":
		return nn.CumprodOp(p.Axis), nil
	case "logcumsumexp":
		return nn.LogCumsumExpOp(p.Axis), nil
	case "linear_scan":
		if p.Reverse {
			return nn.ReverseLinearScanOp(p.Axis), nil
		}
		return nn.LinearScanOp(p.Axis), nil
	case "matmul":
		return nn.MatmulOp, nil
	case "clamp":
		return nn.ClampOp(p.Lo, p.Hi), nil
	case "clamp_tensor":
		return nn.ClampTensorOp, nil
	case "sort":
		return nil, nn.SortOp(p.Axis, p.Descending)
	case "topk":
		return nil, nn.TopKOp(p.K, p.Axis, p.Largest)
	case "argmax":
		return nn.ArgmaxOp(p.Axis, p.Keepdim), nil
	case "argmin":
		return nn.ArgminOp(p.Axis, p.Keepdim), nil
	case "one_hot":
		return nn.OneHotOp(p.NumClasses), nil
	}
	t.Fatalf("no op for %q", c.Op)
	return nil, nil
}

// singleTol is the absolute and relative tolerance of a single-precision
// reference (PyTorch's float32 arithmetic against ours, double precision rounded
// once), the cap of oracle.SingleTol.
const singleTol = 1e-4

// requireClose compares elementwise: |got - want| <= 1e-12 + 1e-9 |want|
// (singleTol + singleTol |want| for a float32 or complex64 want), NaN matching
// NaN and infinities matching exactly.
func requireClose(t *testing.T, want, got *tensor.Dense, what string) {
	t.Helper()
	require.NotNil(t, got, what)
	require.Equal(t, want.Shape(), got.Shape(), what)
	require.Equal(t, want.DType(), got.DType(), what)
	atol, rtol := 1e-12, 1e-9
	if want.DType().IsSingle() {
		atol, rtol = singleTol, singleTol
	}
	w, g := tensor.Space{}.Elements(want), tensor.Space{}.Elements(got)
	for i := range w {
		a, b := w[i], g[i]
		if cmplx.IsNaN(a) || cmplx.IsNaN(b) {
			require.True(t, cmplx.IsNaN(a) && cmplx.IsNaN(b), "%s element %d: want %v, got %v", what, i, a, b)
			continue
		}
		if cmplx.IsInf(a) || cmplx.IsInf(b) {
			require.Equal(t, a, b, "%s element %d", what, i)
			continue
		}
		require.LessOrEqual(t, cmplx.Abs(a-b), atol+rtol*cmplx.Abs(a), "%s element %d: want %v, got %v", what, i, a, b)
	}
}

func TestTorchReference(t *testing.T) {
	ref := loadTorchRef(t, "testdata/torch_ref.json")
	require.NotEmpty(t, ref.Cases)
	ops := map[string]bool{}
	for _, c := range ref.Cases {
		ops[c.Op] = true
		t.Run(strings.ReplaceAll(c.Name, " ", "_"), func(t *testing.T) { replayTorch(t, c) })
	}
	t.Logf("%d cases of %d ops from torch %s", len(ref.Cases), len(ops), ref.Torch)
}

// torchRef is a file of PyTorch reference cases (testdata/gen_*_ref.py).
type torchRef struct {
	Torch string    `json:"torch"`
	Cases []refCase `json:"cases"`
}

// loadTorchRef reads the reference cases of path.
func loadTorchRef(t *testing.T, path string) torchRef {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var ref torchRef
	require.NoError(t, json.Unmarshal(raw, &ref))
	return ref
}

func replayTorch(t *testing.T, c refCase) {
	op, multi := refOp(t, c)
	replayTorchOp(t, c, op, multi)
}

// replayTorchOp replays case c with the given op (or multi-output op).
func replayTorchOp(t *testing.T, c refCase, op, multi cr.Op[*tensor.Dense]) {
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	var leaves []cr.NodeID
	ids := make([]cr.NodeID, len(c.Inputs))
	for k, in := range c.Inputs {
		if in.Grad {
			ids[k] = tp.Leaf(in.dense(t))
			leaves = append(leaves, ids[k])
		} else {
			ids[k] = tp.Constant(in.dense(t))
		}
	}
	var outs []cr.NodeID
	if multi != nil {
		outs = tp.ApplyMulti(multi, ids...)
	} else {
		outs = []cr.NodeID{tp.Apply(op, ids...)}
	}
	require.NoError(t, tp.Err())
	for m, want := range c.Outputs {
		got, err := tp.Value(outs[m])
		require.NoError(t, err)
		requireClose(t, want.dense(t), got, fmt.Sprintf("output %d", m))
	}
	if len(c.Ybar) == 0 {
		return
	}
	require.Len(t, c.Ybar, 1, "one differentiable output")
	out, ybar := outs[0], c.Ybar[0].dense(t)
	g, err := tp.BackwardSeed(out, ybar)
	require.NoError(t, err)
	for k, leaf := range leaves {
		got, ok := g.Of(leaf)
		require.True(t, ok, "vjp of input %d", k)
		requireClose(t, c.VJP[k].dense(t), got, fmt.Sprintf("vjp %d", k))
	}
	seeds := map[cr.NodeID]*tensor.Dense{}
	for k, leaf := range leaves {
		seeds[leaf] = c.V[k].dense(t)
	}
	tan, err := tp.ForwardTangents(seeds)
	require.NoError(t, err)
	jvp, ok := tan.Of(out)
	require.True(t, ok, "jvp")
	requireClose(t, c.JVP[0].dense(t), jvp, "jvp")
	_, gt, err := tp.BackwardWithTangentsSeed(out, cr.Dual[*tensor.Dense]{Value: ybar}, tan)
	require.NoError(t, err)
	for k, leaf := range leaves {
		got, ok := gt.Of(leaf)
		if !ok {
			got = tensor.Space{}.Zero(c.HVP[k].dense(t))
		}
		requireClose(t, c.HVP[k].dense(t), got, fmt.Sprintf("hvp %d", k))
	}
}
