package oracle_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/oracle"
)

// inputsWith resolves every case to op at the case's inputs.
func inputsWith(op cr.Op[*tensor.Dense]) oracle.Resolver {
	return func(c *oracle.Case) (cr.Op[*tensor.Dense], []*tensor.Dense, error) {
		x, err := c.DenseInputs()
		return op, x, err
	}
}

func resolveSum(c *oracle.Case) (cr.Op[*tensor.Dense], []*tensor.Dense, error) {
	axes, keepdim, err := c.ReductionAxes()
	if err != nil {
		return nil, nil, err
	}
	x, err := c.DenseInputs()
	return sumOp(axes, keepdim), x, err
}

func TestReplayCorrectRules(t *testing.T) {
	tests := []struct {
		op      string
		resolve oracle.Resolver
		// replayed is the number of float64 and complex128 cases vendored.
		replayed int
	}{
		{"exp", inputsWith(expOp(false)), 6},
		{"mul", inputsWith(mulOp(false)), 18},
		{"sum", resolveSum, 40},
	}
	for _, tc := range tests {
		t.Run(tc.op, func(t *testing.T) {
			cases, err := oracle.Load(tc.op)
			require.NoError(t, err)
			rep := oracle.Replay(t, cases, tc.resolve)
			assert.Equal(t, tc.replayed, rep.Replayed)
			assert.Equal(t, tc.replayed, rep.Passed)
			assert.Equal(t, len(cases)-tc.replayed, rep.Skipped["dtype float32"]+rep.Skipped["dtype complex64"])
			assert.Empty(t, rep.Unchecked)
		})
	}
}

func TestReplayCatchesWrongRules(t *testing.T) {
	tests := []struct {
		name    string
		op      string
		resolve oracle.Resolver
		want    string // in the error text
		failed  int    // cases that must fail
	}{
		{"exp without conjugate", "exp", inputsWith(expOp(true)), "vjp a", 2}, // complex128 cases with a nonzero imaginary part
		{"mul without the second-order cross term", "mul", inputsWith(mulOp(true)), "hvp", 16},
		{"sum reducing the wrong axes", "sum", func(c *oracle.Case) (cr.Op[*tensor.Dense], []*tensor.Dense, error) {
			x, err := c.DenseInputs()
			all := make([]int, len(c.Inputs[0].Shape))
			for k := range all {
				all[k] = k
			}
			return sumOp(all, false), x, err
		}, "reference cotangent", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cases, err := oracle.Load(tc.op)
			require.NoError(t, err)
			rep, err := oracle.Run(cases, tc.resolve)
			require.Error(t, err)
			assert.ErrorIs(t, err, oracle.ErrMismatch)
			assert.Contains(t, err.Error(), tc.want)
			assert.GreaterOrEqual(t, rep.Replayed-rep.Passed, tc.failed, "%v", rep)
		})
	}
}

func TestSkips(t *testing.T) {
	cases, err := oracle.Load("exp")
	require.NoError(t, err)
	rep, err := oracle.Run(cases, func(c *oracle.Case) (cr.Op[*tensor.Dense], []*tensor.Dense, error) {
		return nil, nil, oracle.Skip("not today")
	})
	require.NoError(t, err)
	assert.Equal(t, 0, rep.Replayed)
	assert.Equal(t, map[string]int{"dtype float32": 3, "dtype complex64": 3, "not today": 6}, rep.Skipped)
	assert.Contains(t, rep.String(), "6 not today")

	// A rule without second order leaves the HVP unchecked, not failed.
	firstOnly := cr.OpFunc[*tensor.Dense]{OpName: "exp", F: func(in []cr.NodeID, x []*tensor.Dense) (*tensor.Dense, cr.Rule[*tensor.Dense], error) {
		y, r, err := expOp(false).Apply(in, x)
		return y, struct {
			cr.Rule[*tensor.Dense]
		}{r}, err
	}}
	rep, err = oracle.Run(cases, inputsWith(firstOnly))
	require.NoError(t, err)
	assert.Equal(t, 6, rep.Passed)
	assert.Equal(t, 6, rep.Unchecked["jvp: no forward rule"])
}

const errorCase = `{"case_id": "boom_f64_001", "op": "boom", "dtype": "float64", "expected_behavior": "error",  "comparison": {"kind": "expect_error", "reason_code": "nondifferentiable_point"}, "family": "x",  "inputs": {"a": {"dtype": "float64", "shape": [2], "order": "row_major", "data": [1, 2]}},  "observable": {"kind": "identity"}, "probes": []}`

func TestErrorCases(t *testing.T) {
	cases, err := oracle.Parse(strings.NewReader(errorCase + "\n\n"))
	require.NoError(t, err)
	require.Len(t, cases, 1)
	failing := cr.OpFunc[*tensor.Dense]{OpName: "boom", F: func([]cr.NodeID, []*tensor.Dense) (*tensor.Dense, cr.Rule[*tensor.Dense], error) {
		return nil, nil, cr.Errorf(cr.ErrInvalidArgument, "not differentiable here")
	}}
	rep, err := oracle.Run(cases, inputsWith(failing))
	assert.NoError(t, err)
	assert.Equal(t, 1, rep.Passed)
	// An op that succeeds where an error is expected fails the case.
	rep, err = oracle.Run(cases, inputsWith(expOp(false)))
	assert.ErrorIs(t, err, oracle.ErrMismatch)
	assert.Equal(t, 0, rep.Passed)
}

func TestParse(t *testing.T) {
	tests := []struct {
		name, text, err string
	}{
		{"bad json", "{", "line 1"},
		{"wrong data length", `{"inputs": {"a": {"dtype": "float64", "shape": [3], "order": "row_major", "data": [1]}}}`, "shape mismatch"},
		{"bad order", `{"inputs": {"a": {"dtype": "float64", "shape": [1], "order": "col_major", "data": [1]}}}`, "order"},
		{"bad complex", `{"inputs": {"a": {"dtype": "complex128", "shape": [1], "order": "row_major", "data": [[1, "x"]]}}}`, "element 0"},
		// 2*3*7*7905747460161236407 wraps around to 6 in int arithmetic.
		{"overflowing shape", `{"inputs": {"a": {"dtype": "float64", "shape": [2, 3, 7, 7905747460161236407], "order": "row_major", "data": [1, 2, 3, 4, 5, 6]}}}`, "more elements than an int"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := oracle.Parse(strings.NewReader(tc.text))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.err)
		})
	}
	cs, err := oracle.Parse(strings.NewReader(`{"inputs": {"b": {"dtype": "complex128", "shape": [2], "order": "row_major", "data": [[1, 2], [3, -4]]}, "a": {"dtype": "float64", "shape": [], "order": "row_major", "data": [5]}}}`))
	require.NoError(t, err)
	require.Len(t, cs[0].Inputs, 2)
	assert.Equal(t, "b", cs[0].Inputs[0].Name, "document order is kept")
	assert.Equal(t, []complex128{1 + 2i, 3 - 4i}, cs[0].Inputs[0].Data)
	x, err := cs[0].DenseInputs()
	require.NoError(t, err)
	assert.Equal(t, tensor.Complex128, x[0].DType())
	assert.Equal(t, []float64{5}, x[1].Float64s())
}

func TestLoad(t *testing.T) {
	_, err := oracle.Load("no_such_op")
	assert.True(t, errors.Is(err, oracle.ErrNoCases))
	assert.Subset(t, oracle.Ops(), []string{"exp", "mul", "sum"})
}

func TestInferReduction(t *testing.T) {
	tests := []struct {
		name    string
		in, out []int
		axes    []int
		keepdim bool
		ok      bool
	}{
		{"all to scalar", []int{3, 4}, []int{}, []int{0, 1}, false, true},
		{"scalar", []int{}, []int{}, []int{}, true, true},
		{"middle axis", []int{3, 4, 5}, []int{3, 5}, []int{1}, false, true},
		{"two axes", []int{3, 2, 1, 2}, []int{2, 1}, []int{0, 3}, false, true},
		{"keepdim", []int{3, 4, 5}, []int{3, 1, 1}, []int{1, 2}, true, true},
		{"keepdim over size 1 is a no-op", []int{3, 1}, []int{3, 1}, []int{}, true, true},
		{"ambiguous equal dims", []int{2, 2}, []int{2}, nil, false, false},
		{"equivalent size-1 choices", []int{3, 1, 1}, []int{3, 1}, []int{2}, false, true},
		{"impossible", []int{3, 4}, []int{5}, nil, false, false},
		{"grows", []int{3}, []int{3, 1}, nil, false, false},
		{"same rank wrong size", []int{3, 4}, []int{3, 2}, nil, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			axes, keepdim, ok := oracle.InferReduction(tc.in, tc.out)
			assert.Equal(t, tc.ok, ok)
			if tc.ok {
				assert.Equal(t, tc.axes, axes)
				assert.Equal(t, tc.keepdim, keepdim)
			}
		})
	}
}

// TestReductionAxes checks that the axes read from op_kwargs or inferred from the
// shapes produce the reference output shape on every vendored sum case.
func TestReductionAxes(t *testing.T) {
	cases, err := oracle.Load("sum")
	require.NoError(t, err)
	withKwargs := 0
	for i := range cases {
		c := &cases[i]
		if len(c.OpKwargs) > 0 {
			withKwargs++
		}
		axes, keepdim, err := c.ReductionAxes()
		require.NoError(t, err, c.ID)
		x, err := c.DenseInputs()
		require.NoError(t, err)
		y, _, err := sumOp(axes, keepdim).Apply([]cr.NodeID{cr.NewNodeID(1, 0)}, x)
		require.NoError(t, err)
		out, ok := c.Probes[0].Cotangent.Get("value")
		require.True(t, ok)
		assert.Equal(t, out.Shape, y.Shape(), "%s: axes %v keepdim %v", c.ID, axes, keepdim)
	}
	assert.Greater(t, withKwargs, 0)
	assert.Less(t, withKwargs, len(cases))

	bad := &oracle.Case{ID: "bad", Inputs: oracle.Tensors{{Name: "a", Tensor: oracle.Tensor{DType: "float64", Shape: []int{2}}}}, OpKwargs: []byte(`{"dim": 5}`)}
	_, _, err = bad.ReductionAxes()
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
}

// TestParseNonFinite decodes the bare NaN, Infinity and -Infinity tokens that
// Python's json module writes, in real and complex data, and leaves the same words
// alone inside strings.
func TestParseNonFinite(t *testing.T) {
	line := `{"case_id": "NaN, Infinity]", "op": "-Infinity", "inputs": {` +
		`"a": {"dtype": "float64", "shape": [5], "order": "row_major", "data": [NaN, 1.5, Infinity,-Infinity, -2]}, ` +
		`"b": {"dtype": "complex128", "shape": [2], "order": "row_major", "data": [[NaN, -Infinity], [1,Infinity]]}}}`
	cs, err := oracle.Parse(strings.NewReader(line + "\n" + line))
	require.NoError(t, err)
	require.Len(t, cs, 2)
	c := cs[1]
	assert.Equal(t, "NaN, Infinity]", c.ID)
	assert.Equal(t, "-Infinity", c.Op)
	a := c.Inputs[0].Data
	require.Len(t, a, 5)
	assert.True(t, math.IsNaN(real(a[0])))
	assert.Equal(t, []complex128{1.5, complex(math.Inf(1), 0), complex(math.Inf(-1), 0), -2}, a[1:])
	b := c.Inputs[1].Data
	require.Len(t, b, 2)
	assert.True(t, math.IsNaN(real(b[0])))
	assert.True(t, math.IsInf(imag(b[0]), -1))
	assert.Equal(t, complex(1, math.Inf(1)), b[1])

	for name, bad := range map[string]string{
		"quoted word":   `"nan"`,
		"glued token":   `NaNa`,
		"lower case":    `nan`,
		"bad pair":      `[NaN]`,
		"infinity only": `Inf`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := oracle.Parse(strings.NewReader(`{"inputs": {"a": {"dtype": "float64", "shape": [1], "data": [` + bad + `]}}}`))
			assert.Error(t, err)
		})
	}
}
