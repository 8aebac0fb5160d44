package ops_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/einsum"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// singleRef is a tensor of testdata/single_ref.json: complex data interleaved.
type singleRef struct {
	DType string    `json:"dtype"`
	Shape []int     `json:"shape"`
	Data  []float64 `json:"data"`
}

func (r singleRef) dense(t *testing.T) *tensor.Dense {
	t.Helper()
	var d *tensor.Dense
	var err error
	switch r.DType {
	case "float32":
		v := make([]float32, len(r.Data))
		for i, x := range r.Data {
			v[i] = float32(x)
		}
		d, err = tensor.FromFloat32(v, r.Shape...)
	case "float64":
		d, err = tensor.FromFloat64(r.Data, r.Shape...)
	case "complex64":
		v := make([]complex64, len(r.Data)/2)
		for i := range v {
			v[i] = complex(float32(r.Data[2*i]), float32(r.Data[2*i+1]))
		}
		d, err = tensor.FromComplex64(v, r.Shape...)
	case "complex128":
		v := make([]complex128, len(r.Data)/2)
		for i := range v {
			v[i] = complex(r.Data[2*i], r.Data[2*i+1])
		}
		d, err = tensor.FromComplex128(v, r.Shape...)
	default:
		t.Fatalf("dtype %q", r.DType)
	}
	require.NoError(t, err)
	return d
}

// singleRefOps are the ops of the reference cases by key.
var singleRefOps = map[string]cr.Op[*tensor.Dense]{
	"exp": elementwise.ExpOp, "tanh": elementwise.TanhOp, "add": elementwise.AddOp,
	"mul": elementwise.MulOp, "sum1": reduce.SumOp([]int{1}, false), "matmul": einsum.Op("ij,jk->ik"),
}

// PyTorch's float32 and complex64 computations (testdata/single_ref.json, written by
// testdata/gen_single_ref.py with torch 1.13): the output with PyTorch's dtype
// (promotion included: float32 with float64 gives float64, with complex64
// complex64), the VJP, the JVP and, for real cases, the HVP, to float32
// accuracy (rtol and atol 1e-5 against PyTorch's own float32 rounding).
func TestSinglePrecisionTorchReference(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "single_ref.json"))
	require.NoError(t, err)
	var ref struct {
		Cases []struct {
			Name, Op  string
			Inputs    []singleRef
			Output    singleRef
			Cotangent singleRef
			VJP       []singleRef
			Tangents  []singleRef
			JVP       singleRef
			HVP       []singleRef
		}
	}
	require.NoError(t, json.Unmarshal(b, &ref))
	require.Len(t, ref.Cases, 10)
	const tol = 1e-5
	near := func(what string, got, want *tensor.Dense) {
		t.Helper()
		if assert.Equal(t, want.DType(), got.DType(), what) {
			idx, a, w, _ := tensor.MaxDiff(got, want)
			assert.True(t, tensor.EqualApprox(got, want, tol, tol), "%s: %v at %v, PyTorch %v", what, a, idx, w)
		}
	}
	for _, c := range ref.Cases {
		op := singleRefOps[c.Op]
		require.NotNil(t, op, c.Op)
		n := len(c.Inputs)
		in := make([]cr.NodeID, n)
		x := make([]*tensor.Dense, n)
		v := make(map[cr.NodeID]*tensor.Dense, n)
		for k := range c.Inputs {
			in[k] = cr.NewNodeID(1, k+1)
			x[k] = c.Inputs[k].dense(t)
			v[in[k]] = c.Tangents[k].dense(t)
		}
		y := make([]*tensor.Dense, 1)
		r, err := op.Apply(in, x, y)
		require.NoError(t, err, c.Name)
		near(c.Name+": output", y[0], c.Output.dense(t))
		ybar := c.Cotangent.dense(t)
		cs, err := r.Pullback([]*tensor.Dense{ybar}, []bool{true}, nil)
		require.NoError(t, err, c.Name)
		require.Len(t, cs, n, c.Name)
		for k, ct := range cs {
			near(c.Name+": vjp", ct.Value, c.VJP[k].dense(t))
		}
		tangentOf := func(id cr.NodeID) (*tensor.Dense, bool) { d, ok := v[id]; return d, ok }
		ydot, has := make([]*tensor.Dense, 1), make([]bool, 1)
		require.NoError(t, r.(cr.ForwardRule[*tensor.Dense]).Forward(tangentOf, ydot, has), c.Name)
		require.True(t, has[0], c.Name)
		near(c.Name+": jvp", ydot[0], c.JVP.dense(t))
		if len(c.HVP) == 0 {
			continue
		}
		d, err := cr.PullbackWithTangentsOf(r, y, []cr.Dual[*tensor.Dense]{{Value: ybar}}, []bool{true}, tangentOf, nil)
		require.NoError(t, err, c.Name)
		for k, dc := range d {
			h := c.HVP[k].dense(t)
			if !dc.Cotangent.HasTangent {
				near(c.Name+": hvp", tensor.New(h.DType(), h.Shape()...), h)
				continue
			}
			near(c.Name+": hvp", dc.Cotangent.Tangent, h)
		}
	}
}
