package linalg_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/einsum"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/linalg"
	"github.com/chainrules-go/chainrules/permute"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/oracle"
)

// The PyTorch oracle cases of the linear-algebra families live in
// testdata/oracle/cases/<op>/<family>.jsonl.gz: the shared tensor-ad-oracles files,
// all four dtypes, gzip compressed, with the upstream licences. Each case is
// replayed with oracle.ReplaySingle: JVP by a forward sweep, VJP by a backward
// sweep, HVP of phi(x) = Re<ybar, f(x)> by a second-order sweep, at the case's own
// tolerances (capped at oracle.SingleTol for float32 and complex64, whose upstream
// tolerances are as loose as atol 1000).
//
// Multi-output ops (cotangents named output_0, output_1, ... or after the
// observable: values, vectors, u, s, vh, uvh) are replayed through a composite
// "observable" op that computes the observed outputs, flattens them and
// concatenates them into one vector; the case's cotangents and JVP references are
// flattened and concatenated the same way, so phi, the VJP and the HVP are those of
// the upstream multi-output case.

// loadFamily reads testdata/oracle/cases/<op>/<family>.jsonl.gz and the
// positional arguments (op_args) of its cases by case ID.
func loadFamily(t *testing.T, op, family string) ([]oracle.Case, map[string][]json.RawMessage) {
	t.Helper()
	path := filepath.Join("testdata", "oracle", "cases", op, family+".jsonl.gz")
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	require.NoError(t, err)
	cases, err := oracle.Parse(zr)
	require.NoError(t, err)
	require.NotEmpty(t, cases)
	zr, err = gzip.NewReader(bytes.NewReader(raw))
	require.NoError(t, err)
	args := map[string][]json.RawMessage{}
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<28)
	for sc.Scan() {
		line := quoteTokens(sc.Bytes())
		var c struct {
			ID   string            `json:"case_id"`
			Args []json.RawMessage `json:"op_args"`
		}
		require.NoError(t, json.Unmarshal(line, &c))
		args[c.ID] = c.Args
	}
	require.NoError(t, sc.Err())
	return cases, args
}

// quoteTokens quotes Python's bare Infinity, -Infinity and NaN tokens (the
// argument decoding only; tensors are decoded by oracle.Parse).
func quoteTokens(b []byte) []byte {
	b = bytes.ReplaceAll(b, []byte("-Infinity"), []byte("\x00"))
	b = bytes.ReplaceAll(b, []byte("Infinity"), []byte(`"Infinity"`))
	b = bytes.ReplaceAll(b, []byte("\x00"), []byte(`"-Infinity"`))
	return bytes.ReplaceAll(b, []byte("NaN"), []byte(`"NaN"`))
}

// number decodes a JSON number or a quoted non-finite token.
func number(raw json.RawMessage) (float64, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		switch s {
		case "Infinity":
			return math.Inf(1), true
		case "-Infinity":
			return math.Inf(-1), true
		}
		return 0, false
	}
	var v float64
	return v, json.Unmarshal(raw, &v) == nil
}

// flatten rewrites the probes of a multi-output case so that the cotangents and
// JVP references named keys become one "value" vector: each flattened, then
// concatenated in order (complex128 if any is complex; a single-precision case's
// references are rounded to its outputs' dtype when replayed).
func flatten(c *oracle.Case, keys []string) error {
	join := func(ts oracle.Tensors) (oracle.Tensors, error) {
		var out oracle.Tensor
		out.DType = "float64"
		for _, k := range keys {
			v, ok := ts.Get(k)
			if !ok {
				return nil, fmt.Errorf("no tensor %q among %v", k, names(ts))
			}
			if v.DType == "complex128" || v.DType == "complex64" {
				out.DType = "complex128"
			}
			out.Data = append(out.Data, v.Data...)
		}
		out.Shape = []int{len(out.Data)}
		return oracle.Tensors{{Name: "value", Tensor: out}}, nil
	}
	for i := range c.Probes {
		p := &c.Probes[i]
		var err error
		if p.Cotangent, err = join(p.Cotangent); err != nil {
			return fmt.Errorf("cotangent: %w", err)
		}
		if len(p.PyTorch.JVP) > 0 {
			if p.PyTorch.JVP, err = join(p.PyTorch.JVP); err != nil {
				return fmt.Errorf("jvp: %w", err)
			}
		}
		p.FD.JVP = nil
	}
	c.Observable.Kind = "identity"
	return nil
}

func names(ts oracle.Tensors) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

// observable returns the composite op that records outs on its inputs and returns
// the outputs flattened and concatenated.
func observable(name string, arity int, outs func(t *core.Tape[*tensor.Dense], x []cr.NodeID) []cr.NodeID) cr.Op[*tensor.Dense] {
	return core.Composite("oracle observable "+name, tensor.Space{}, arity, func(t *core.Tape[*tensor.Dense], x []cr.NodeID) []cr.NodeID {
		ys := outs(t, x)
		flat := make([]cr.NodeID, len(ys))
		for k, y := range ys {
			flat[k] = t.Apply(permute.ReshapeOp(-1), y)
		}
		if len(flat) == 1 {
			return []cr.NodeID{flat[0]}
		}
		return []cr.NodeID{t.Apply(index.ConcatOp(0), flat...)}
	})
}

// multi returns the observable of the outputs picks of a multi-output op.
func multi(op cr.Op[*tensor.Dense], arity int, picks ...int) cr.Op[*tensor.Dense] {
	return observable(op.Name(), arity, func(t *core.Tape[*tensor.Dense], x []cr.NodeID) []cr.NodeID {
		ys := t.ApplyMulti(op, x...)
		out := make([]cr.NodeID, len(picks))
		for k, p := range picks {
			out[k] = ys[p]
		}
		return out
	})
}

// flat returns the observable of a single-output op: its output flattened (the
// cases of PyTorch's *_ex ops name the output output_0).
func flat(op cr.Op[*tensor.Dense], arity int) cr.Op[*tensor.Dense] {
	return observable(op.Name(), arity, func(t *core.Tape[*tensor.Dense], x []cr.NodeID) []cr.NodeID {
		return []cr.NodeID{t.Apply(op, x...)}
	})
}

// hermitianInput returns the composite x -> op(x + x^H): PyTorch's OpInfo tests the
// ops that assume a Hermitian input through gradcheck_wrapper_hermitian_input, and
// the oracle's references are those of the wrapped function (the recorded input is
// the one before the wrapper).
func hermitianInput(op cr.Op[*tensor.Dense]) cr.Op[*tensor.Dense] {
	return core.Composite("hermitian input "+op.Name(), tensor.Space{}, 1, func(t *core.Tape[*tensor.Dense], x []cr.NodeID) []cr.NodeID {
		xh := t.Apply(permute.TransposeOp(-2, -1), x[0])
		if v, err := t.Value(x[0]); err == nil && v.DType().IsComplex() {
			xh = t.Apply(elementwise.ConjOp, xh)
		}
		return []cr.NodeID{t.Apply(op, t.Apply(elementwise.AddOp, x[0], xh))}
	})
}

// absOf records |y| elementwise.
func absOf(t *core.Tape[*tensor.Dense], y cr.NodeID) cr.NodeID { return t.Apply(elementwise.AbsOp, y) }

// family is one replayed family: its case file, the output keys to flatten (nil
// for single-output cases) and the resolver.
type family struct {
	op, file string
	keys     func(c *oracle.Case) []string
	resolve  func(c *oracle.Case, args []json.RawMessage, x []*tensor.Dense) (cr.Op[*tensor.Dense], error)
}

func keys(k ...string) func(*oracle.Case) []string { return func(*oracle.Case) []string { return k } }

func kwBool(c *oracle.Case, name string) (bool, error) {
	m := map[string]json.RawMessage{}
	if err := c.Kwargs(&m); err != nil {
		return false, err
	}
	var b bool
	if raw, ok := m[name]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &b); err != nil {
			return false, err
		}
	}
	return b, nil
}

func kwargs(c *oracle.Case) (map[string]json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	err := c.Kwargs(&m)
	for k, v := range m {
		if string(v) == "null" {
			delete(m, k)
		}
	}
	return m, err
}

// intList decodes an int or a list of ints (nil for null or absent).
func intList(raw json.RawMessage) ([]int, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var v int
	if json.Unmarshal(raw, &v) == nil {
		return []int{v}, nil
	}
	var l []int
	err := json.Unmarshal(raw, &l)
	if l == nil && err == nil {
		l = []int{}
	}
	return l, err
}

// matrixOrd converts a PyTorch ord to a MatrixOrd.
func matrixOrd(raw json.RawMessage) (linalg.MatrixOrd, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		switch s {
		case "fro", "nuc":
			return linalg.MatrixOrd(s), nil
		case "Infinity":
			return linalg.OrdInf, nil
		case "-Infinity":
			return linalg.OrdNegInf, nil
		}
		return "", fmt.Errorf("ord %q", s)
	}
	v, ok := number(raw)
	if !ok {
		return "", fmt.Errorf("ord %s", raw)
	}
	return linalg.MatrixOrd(strconv.FormatFloat(v, 'g', -1, 64)), nil
}

func families() []family {
	one := func(op cr.Op[*tensor.Dense]) func(*oracle.Case, []json.RawMessage, []*tensor.Dense) (cr.Op[*tensor.Dense], error) {
		return func(*oracle.Case, []json.RawMessage, []*tensor.Dense) (cr.Op[*tensor.Dense], error) { return op, nil }
	}
	chol := func(c *oracle.Case, _ []json.RawMessage, _ []*tensor.Dense) (cr.Op[*tensor.Dense], error) {
		upper, err := kwBool(c, "upper")
		return hermitianInput(linalg.CholeskyOp(upper)), err
	}
	cholEx := func(c *oracle.Case, args []json.RawMessage, x []*tensor.Dense) (cr.Op[*tensor.Dense], error) {
		op, err := chol(c, args, x)
		if err != nil {
			return nil, err
		}
		return flat(op, 1), nil
	}
	lufactor := multi(linalg.LUFactorOp(), 1, 0)
	svd := func(f func(t *core.Tape[*tensor.Dense], u, s, vh cr.NodeID) []cr.NodeID) func(*oracle.Case, []json.RawMessage, []*tensor.Dense) (cr.Op[*tensor.Dense], error) {
		return func(c *oracle.Case, _ []json.RawMessage, x []*tensor.Dense) (cr.Op[*tensor.Dense], error) {
			full, err := kwBool(c, "full_matrices")
			if err != nil {
				return nil, err
			}
			// S alone (family "s") does not depend on full_matrices.
			if sh := x[0].Shape(); full && sh[len(sh)-1] != sh[len(sh)-2] && c.Family != "s" {
				return nil, oracle.Skip("svd full_matrices=True of a non-square matrix: the extra columns are not unique, and SVDOp is thin")
			}
			return observable("svd", 1, func(t *core.Tape[*tensor.Dense], x []cr.NodeID) []cr.NodeID {
				ys := t.ApplyMulti(linalg.SVDOp(), x[0])
				return f(t, ys[0], ys[1], ys[2])
			}), nil
		}
	}
	return []family{
		{op: "cholesky", file: "identity", resolve: chol},
		{op: "cholesky_ex", file: "identity", keys: keys("output_0"), resolve: cholEx},
		{op: "det", file: "identity", resolve: one(linalg.DetOp())},
		{op: "slogdet", file: "identity", keys: keys("output_0", "output_1"), resolve: one(multi(linalg.SlogdetOp(), 1, 0, 1))},
		{op: "eigh", file: "values_vectors_abs", keys: keys("values", "vectors"), resolve: one(hermitianInput(observable("eigh", 1, func(t *core.Tape[*tensor.Dense], x []cr.NodeID) []cr.NodeID {
			ys := t.ApplyMulti(linalg.EighOp(), x[0])
			return []cr.NodeID{ys[0], absOf(t, ys[1])}
		})))},
		{op: "eigh", file: "gauge_ill_defined", resolve: one(multi(linalg.EighOp(), 1, 0, 1))},
		{op: "eigvalsh", file: "identity", resolve: one(hermitianInput(linalg.EigvalshOp()))},
		{op: "eig", file: "values_vectors_abs", keys: keys("values", "vectors"), resolve: one(observable("eig", 1, func(t *core.Tape[*tensor.Dense], x []cr.NodeID) []cr.NodeID {
			ys := t.ApplyMulti(linalg.EigOp(), x[0])
			return []cr.NodeID{ys[0], absOf(t, ys[1])}
		}))},
		{op: "eigvals", file: "identity", resolve: one(linalg.EigvalsOp())},
		{op: "inv", file: "identity", resolve: one(linalg.InvOp())},
		{op: "inv_ex", file: "identity", keys: keys("output_0"), resolve: one(flat(linalg.InvOp(), 1))},
		{op: "householder_product", file: "identity", resolve: one(linalg.HouseholderProductOp())},
		{op: "lstsq_grad_oriented", file: "identity", keys: keys("output_0", "output_1"), resolve: func(c *oracle.Case, _ []json.RawMessage, x []*tensor.Dense) (cr.Op[*tensor.Dense], error) {
			kw, err := kwargs(c)
			if err != nil {
				return nil, err
			}
			var driver string
			if raw, ok := kw["driver"]; ok {
				if err := json.Unmarshal(raw, &driver); err != nil {
					return nil, err
				}
			}
			sh := x[0].Shape()
			residuals := sh[len(sh)-2] > sh[len(sh)-1] && driver != "gelsy"
			return observable("lstsq", 2, func(t *core.Tape[*tensor.Dense], x []cr.NodeID) []cr.NodeID {
				ys := t.ApplyMulti(linalg.LstsqOp(), x...)
				if residuals {
					return ys
				}
				// PyTorch's gelsy driver (and m <= n) returns no residuals.
				empty := t.Apply(index.NarrowOp(0, 0, 0), t.Apply(permute.ReshapeOp(-1), ys[0]))
				return []cr.NodeID{ys[0], empty}
			}), nil
		}},
		{op: "lu", file: "identity", keys: keys("output_1", "output_2"), resolve: one(multi(linalg.LUOp(), 1, 1, 2))},
		{op: "lu_factor", file: "identity", keys: keys("output_0"), resolve: one(lufactor)},
		{op: "lu_factor_ex", file: "identity", keys: keys("output_0"), resolve: one(lufactor)},
		{op: "matrix_exp", file: "identity", resolve: one(linalg.MatrixExpOp())},
		{op: "matrix_norm", file: "identity", resolve: func(c *oracle.Case, args []json.RawMessage, _ []*tensor.Dense) (cr.Op[*tensor.Dense], error) {
			if len(args) != 3 {
				return nil, fmt.Errorf("matrix_norm op_args %v", args)
			}
			ord, err := matrixOrd(args[0])
			if err != nil {
				return nil, err
			}
			dims, err := intList(args[1])
			if err != nil || len(dims) != 2 {
				return nil, fmt.Errorf("matrix_norm dims %s: %v", args[1], err)
			}
			var keep bool
			if err := json.Unmarshal(args[2], &keep); err != nil {
				return nil, err
			}
			return linalg.MatrixNormOp(ord, dims[0], dims[1], keep), nil
		}},
		{op: "matrix_power", file: "identity", resolve: func(c *oracle.Case, args []json.RawMessage, _ []*tensor.Dense) (cr.Op[*tensor.Dense], error) {
			var k int
			if len(args) != 1 || json.Unmarshal(args[0], &k) != nil {
				return nil, fmt.Errorf("matrix_power op_args %v", args)
			}
			return linalg.MatrixPowerOp(k), nil
		}},
		{op: "norm", file: "identity", resolve: resolveNorm},
		{op: "pinv", file: "identity", resolve: resolvePinv(false)},
		{op: "pinv_hermitian", file: "identity", resolve: resolvePinv(true)},
		{op: "qr", file: "identity", keys: keys("output_0", "output_1"), resolve: one(multi(linalg.QROp(), 1, 0, 1))},
		{op: "solve", file: "identity", resolve: one(linalg.SolveOp())},
		{op: "solve_ex", file: "identity", keys: keys("output_0"), resolve: one(flat(linalg.SolveOp(), 2))},
		{op: "svd", file: "s", keys: keys("s"), resolve: svd(func(t *core.Tape[*tensor.Dense], u, s, vh cr.NodeID) []cr.NodeID {
			return []cr.NodeID{s}
		})},
		{op: "svd", file: "u_abs", keys: keys("u"), resolve: svd(func(t *core.Tape[*tensor.Dense], u, s, vh cr.NodeID) []cr.NodeID {
			return []cr.NodeID{absOf(t, u)}
		})},
		{op: "svd", file: "vh_abs", keys: keys("s", "vh"), resolve: svd(func(t *core.Tape[*tensor.Dense], u, s, vh cr.NodeID) []cr.NodeID {
			return []cr.NodeID{s, absOf(t, vh)}
		})},
		{op: "svd", file: "uvh_product", keys: keys("s", "uvh"), resolve: svd(func(t *core.Tape[*tensor.Dense], u, s, vh cr.NodeID) []cr.NodeID {
			return []cr.NodeID{s, t.Apply(linalgMatmul(), u, vh)}
		})},
		{op: "svd", file: "gauge_ill_defined", resolve: one(multi(linalg.SVDOp(), 1, 0, 1, 2))},
		{op: "svdvals", file: "identity", resolve: one(linalg.SvdvalsOp())},
		{op: "tensorinv", file: "identity", resolve: func(c *oracle.Case, _ []json.RawMessage, _ []*tensor.Dense) (cr.Op[*tensor.Dense], error) {
			kw, err := kwargs(c)
			if err != nil {
				return nil, err
			}
			var ind int
			if err := json.Unmarshal(kw["ind"], &ind); err != nil {
				return nil, err
			}
			return linalg.TensorinvOp(ind), nil
		}},
		{op: "tensorsolve", file: "identity", resolve: func(c *oracle.Case, _ []json.RawMessage, _ []*tensor.Dense) (cr.Op[*tensor.Dense], error) {
			kw, err := kwargs(c)
			if err != nil {
				return nil, err
			}
			dims, err := intList(kw["dims"])
			return linalg.TensorsolveOp(dims), err
		}},
		{op: "vector_norm", file: "identity", resolve: resolveVectorNorm},
		{op: "cross", file: "identity", resolve: resolveAxis(linalg.CrossOp)},
		{op: "vecdot", file: "identity", resolve: resolveAxis(linalg.VecdotOp)},
		{op: "cond", file: "identity", resolve: one(linalg.CondOp(linalg.Ord2))},
		{op: "vander", file: "identity", resolve: func(c *oracle.Case, _ []json.RawMessage, x []*tensor.Dense) (cr.Op[*tensor.Dense], error) {
			kw, err := kwargs(c)
			if err != nil {
				return nil, err
			}
			n := 0
			if raw, ok := kw["N"]; ok {
				if err := json.Unmarshal(raw, &n); err != nil {
					return nil, err
				}
			}
			return linalg.VanderOp(n), nil
		}},
		{op: "lu_solve", file: "identity", resolve: resolveLUSolve},
	}
}

// linalgMatmul is the batched matrix product as an op.
func linalgMatmul() cr.Op[*tensor.Dense] {
	return core.Composite("matmul", tensor.Space{}, 2, func(t *core.Tape[*tensor.Dense], x []cr.NodeID) []cr.NodeID {
		return []cr.NodeID{t.Apply(einsum.Op("...ij,...jk->...ik"), x...)}
	})
}

func resolveAxis(mk func(int) cr.Op[*tensor.Dense]) func(*oracle.Case, []json.RawMessage, []*tensor.Dense) (cr.Op[*tensor.Dense], error) {
	return func(c *oracle.Case, _ []json.RawMessage, _ []*tensor.Dense) (cr.Op[*tensor.Dense], error) {
		kw, err := kwargs(c)
		if err != nil {
			return nil, err
		}
		dim := -1
		if raw, ok := kw["dim"]; ok {
			if err := json.Unmarshal(raw, &dim); err != nil {
				return nil, err
			}
		}
		return mk(dim), nil
	}
}

func resolvePinv(hermitian bool) func(*oracle.Case, []json.RawMessage, []*tensor.Dense) (cr.Op[*tensor.Dense], error) {
	return func(c *oracle.Case, _ []json.RawMessage, _ []*tensor.Dense) (cr.Op[*tensor.Dense], error) {
		kw, err := kwargs(c)
		if err != nil {
			return nil, err
		}
		opt := linalg.PinvOptions{Hermitian: hermitian}
		if raw, ok := kw["rtol"]; ok {
			v, ok := number(raw)
			if !ok {
				return nil, fmt.Errorf("pinv rtol %s", raw)
			}
			opt.Rtol = v
			if v == 0 {
				opt.Rtol = -1
			}
		}
		if hermitian {
			return hermitianInput(linalg.PinvOp(opt)), nil
		}
		return linalg.PinvOp(opt), nil
	}
}

func resolveVectorNorm(c *oracle.Case, _ []json.RawMessage, x []*tensor.Dense) (cr.Op[*tensor.Dense], error) {
	kw, err := kwargs(c)
	if err != nil {
		return nil, err
	}
	ord := 2.0
	if raw, ok := kw["ord"]; ok {
		v, ok := number(raw)
		if !ok {
			return nil, fmt.Errorf("vector_norm ord %s", raw)
		}
		ord = v
	}
	dims, err := intList(kw["dim"])
	if err != nil {
		return nil, err
	}
	if dims != nil && len(dims) == 0 {
		dims = nil // PyTorch: dim=[] reduces over every dim, as dim=None
	}
	var keep bool
	if raw, ok := kw["keepdim"]; ok {
		if err := json.Unmarshal(raw, &keep); err != nil {
			return nil, err
		}
	}
	return linalg.VectorNormOp(ord, dims, keep), nil
}

// resolveNorm maps torch.linalg.norm(A, ord=None, dim=None, keepdim=False) to a
// vector or matrix norm by PyTorch's rules.
func resolveNorm(c *oracle.Case, args []json.RawMessage, x []*tensor.Dense) (cr.Op[*tensor.Dense], error) {
	kw, err := kwargs(c)
	if err != nil {
		return nil, err
	}
	ordRaw, hasOrd := kw["ord"]
	if len(args) > 0 && string(args[0]) != "null" {
		ordRaw, hasOrd = args[0], true
	}
	dims, err := intList(kw["dim"])
	if err != nil {
		return nil, err
	}
	var keep bool
	if raw, ok := kw["keepdim"]; ok {
		if err := json.Unmarshal(raw, &keep); err != nil {
			return nil, err
		}
	}
	r := x[0].Rank()
	matrix := len(dims) == 2 || (dims == nil && hasOrd && r == 2)
	switch {
	case !hasOrd && dims == nil:
		return linalg.VectorNormOp(2, nil, keep), nil
	case matrix:
		ord := linalg.OrdFro
		if hasOrd {
			if ord, err = matrixOrd(ordRaw); err != nil {
				return nil, err
			}
		}
		if dims == nil {
			dims = []int{0, 1}
		}
		return linalg.MatrixNormOp(ord, dims[0], dims[1], keep), nil
	}
	ord := 2.0
	if hasOrd {
		v, ok := number(ordRaw)
		if !ok {
			return nil, fmt.Errorf("norm ord %s", ordRaw)
		}
		ord = v
	}
	return linalg.VectorNormOp(ord, dims, keep), nil
}

// resolveLUSolve resolves the lu_solve cases. They hold the packed factors LU and
// B but not the pivots (an integer input of PyTorch's sample that the generator
// did not record), so the matrix A = P L U is known only up to P. For each matrix
// of the batch the resolver tries the LAPACK pivot sequences (pivots[j] in
// [j+1, n]) and keeps the one whose JVP at the first probe matches the
// reference; the VJP and HVP references then check the rules independently. A case
// where no sequence matches fails.
func resolveLUSolve(c *oracle.Case, _ []json.RawMessage, x []*tensor.Dense) (cr.Op[*tensor.Dense], error) {
	left, err := kwBool(c, "left")
	if err != nil {
		return nil, err
	}
	adjoint, err := kwBool(c, "adjoint")
	if err != nil {
		return nil, err
	}
	piv, err := recoverPivots(c, x, left, adjoint)
	if err != nil {
		return nil, err
	}
	op := linalg.LUSolveOp(left, adjoint)
	return core.Composite("lu_solve with recovered pivots", tensor.Space{}, 2, func(t *core.Tape[*tensor.Dense], in []cr.NodeID) []cr.NodeID {
		return []cr.NodeID{t.Apply(op, in[0], t.Constant(piv), in[1])}
	}), nil
}

func recoverPivots(c *oracle.Case, x []*tensor.Dense, left, adjoint bool) (*tensor.Dense, error) {
	lu := x[0]
	sh := lu.Shape()
	n := sh[len(sh)-1]
	batch := sh[:len(sh)-2]
	count := 1
	for _, d := range batch {
		count *= d
	}
	piv := tensor.New(tensor.Float64, append(slices.Clone(batch), n)...)
	for j := range n {
		for b := range count {
			piv.Float64s()[b*n+j] = float64(j + 1)
		}
	}
	if n <= 1 || count == 0 || len(c.Probes) == 0 || x[1].Size() == 0 {
		return pivotsLike(piv, lu)
	}
	p := c.Probes[0]
	ref, ok := p.PyTorch.JVP.Get("value")
	if !ok {
		return pivotsLike(piv, lu)
	}
	dirs := make([]*tensor.Dense, 2)
	for k, name := range []string{"a", "b"} {
		d, ok := p.Direction.Get(name)
		if !ok {
			return nil, fmt.Errorf("probe has no direction %q", name)
		}
		var err error
		if dirs[k], err = d.Dense(); err != nil {
			return nil, err
		}
	}
	tol := *c.Comparison.FirstOrder
	if c.DType == "float32" || c.DType == "complex64" {
		// Upstream's single-precision tolerances (atol 10, rtol 100) match
		// every sequence: use the replay's (oracle.SingleTol).
		tol.Atol, tol.Rtol = min(tol.Atol, oracle.SingleTol), min(tol.Rtol, oracle.SingleTol)
	}
	// Each matrix's JVP depends on its own pivots only: choose them one at a time.
	for b := range count {
		found := false
		for _, seq := range pivotSequences(n) {
			for j, v := range seq {
				piv.Float64s()[b*n+j] = float64(v + 1)
			}
			jvp, err := luSolveJVP(lu, piv, x[1], dirs, left, adjoint)
			if err != nil {
				continue
			}
			if matchesBatch(jvp, ref, b, count, tol) {
				found = true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("%w: no pivot sequence reproduces the reference JVP of matrix %d", oracle.ErrMismatch, b)
		}
	}
	return pivotsLike(piv, lu)
}

// pivotsLike returns the pivots piv (float64) in the precision of lu: float32 for
// a single-precision LU (the pivots are exact in it), so that a single-precision
// case stays single precision (tensor.PromoteTypes).
func pivotsLike(piv, lu *tensor.Dense) (*tensor.Dense, error) {
	if lu.DType().IsSingle() {
		return tensor.AsType(piv, tensor.Float32)
	}
	return piv, nil
}

// pivotSequences returns every LAPACK pivot sequence of an n×n factorisation
// (zero-based, seq[j] in [j, n-1]).
func pivotSequences(n int) [][]int {
	out := [][]int{{}}
	for j := range n {
		var next [][]int
		for _, s := range out {
			for v := j; v < n; v++ {
				next = append(next, append(slices.Clone(s), v))
			}
		}
		out = next
	}
	return out
}

func luSolveJVP(lu, piv, b *tensor.Dense, dirs []*tensor.Dense, left, adjoint bool) (*tensor.Dense, error) {
	t := core.NewTape[*tensor.Dense](tensor.Space{})
	l, bb := t.Leaf(lu), t.Leaf(b)
	y := t.Apply(linalg.LUSolveOp(left, adjoint), l, t.Constant(piv), bb)
	if err := t.Err(); err != nil {
		return nil, err
	}
	tan, err := t.ForwardTangents(map[cr.NodeID]*tensor.Dense{l: dirs[0], bb: dirs[1]})
	if err != nil {
		return nil, err
	}
	v, ok := tan.Of(y)
	if !ok {
		return nil, fmt.Errorf("no tangent")
	}
	return v, nil
}

// matchesBatch compares the elements of matrix b of a batch of count matrices.
func matchesBatch(got *tensor.Dense, ref oracle.Tensor, b, count int, tol oracle.Tolerance) bool {
	g := got.AsComplex().Complex128s()
	per := len(g) / count
	for i := b * per; i < (b+1)*per; i++ {
		a, e := g[i], ref.Data[i]
		if cabs(a-e) > tol.Atol+tol.Rtol*math.Max(cabs(a), cabs(e)) || math.IsNaN(real(a)) {
			return false
		}
	}
	return true
}

func cabs(z complex128) float64 { return math.Hypot(real(z), imag(z)) }

// singleRefOff are the single-precision cases whose PyTorch reference is further
// from the exact value than oracle.SingleTol allows, by case ID, with the evidence:
// PyTorch computes them in float32 arithmetic, ours in double precision rounded
// once, so ours is the accurate one.
var singleRefOff = map[string]string{
	// VJP of a at element [4 2]: the reference is 54.2401+94.3732i; torch 1.13
	// in complex128 at the same (complex64) inputs gives 54.234415+94.347022i,
	// which ours (54.234417+94.347023i) matches to 3e-8. The complex64 PyTorch
	// value is off by 2.6e-4 relative (an ill-conditioned product of 4
	// reflectors; upstream's own tolerance for the case is atol 1000, rtol 10).
	"householder_product_c64_identity_008": "PyTorch's complex64 VJP is 2.6e-4 off its complex128 value, which ours matches",
}

// oracleSkips are the vendored cases TestOracle does not replay, by family and
// reason, with their counts (of all four dtypes: the float32 and complex64 cases
// are replayed in single precision, oracle.ReplaySingle).
var oracleSkips = map[string]int{
	// gonum has no complex eigensolver: eig and eigvals take real input only.
	"eig: complex128: eig is float64-only":         8,
	"eig: complex64: eig is float64-only":          8,
	"eigvals: complex128: eigvals is float64-only": 8,
	"eigvals: complex64: eigvals is float64-only":  8,
	"svd: svd full_matrices=True of a non-square matrix: the extra columns are not unique, and SVDOp is thin": 216,
	"householder_product: " + singleRefOff["householder_product_c64_identity_008"]:                            1,
}

// TestOracle replays every vendored family, in all four dtypes (the float32 and
// complex64 cases in single precision, at the cases' tolerances capped at
// oracle.SingleTol). Complex cases of an op that refuses complex input as
// float64-only are skipped with that reason. eigh, eigvalsh, svd, svdvals, pinv,
// lstsq, cond and the singular-value matrix norms take complex input: the expected
// errors of eigh's and svd's gauge-dependent losses are their backward passes
// refusing a cotangent that depends on the vectors' phases. The complex cases of
// eig and eigvals (real input only: gonum has no complex eigensolver) are skipped,
// and so are the cases of oracleSkips.
func TestOracle(t *testing.T) {
	total := oracle.Report{Skipped: map[string]int{}, Unchecked: map[string]int{}}
	for _, f := range families() {
		t.Run(f.op+"/"+f.file, func(t *testing.T) {
			cases, args := loadFamily(t, f.op, f.file)
			for i := range cases {
				c := &cases[i]
				if f.keys != nil && c.ExpectedBehavior == "success" {
					require.NoError(t, flatten(c, f.keys(c)), c.ID)
				}
				// The resolvers record the observable (|V|, U Vh, ...) themselves.
				c.Observable.Kind = "identity"
			}
			rep := oracle.ReplaySingle(t, cases, func(c *oracle.Case) (cr.Op[*tensor.Dense], []*tensor.Dense, error) {
				if why, ok := singleRefOff[c.ID]; ok {
					return nil, nil, oracle.Skip(why)
				}
				x, err := c.DenseInputs()
				if err != nil {
					return nil, nil, err
				}
				op, err := f.resolve(c, args[c.ID], x)
				if err != nil {
					return nil, nil, err
				}
				if (c.DType == "complex128" || c.DType == "complex64") && c.ExpectedBehavior == "success" && !complexOK(f.op, op, x) {
					return nil, nil, oracle.Skip(c.DType + ": " + f.op + " is float64-only")
				}
				return op, x, nil
			})
			require.Positive(t, rep.Replayed, "no case of %s/%s was replayed", f.op, f.file)
			total.Replayed += rep.Replayed
			total.Passed += rep.Passed
			for k, v := range rep.Skipped {
				total.Skipped[f.op+": "+k] += v
			}
			for k, v := range rep.Unchecked {
				total.Unchecked[f.op+": "+k] += v
			}
		})
	}
	t.Log(total)
	require.Equal(t, oracleSkips, total.Skipped, "skipped cases by family and reason")
}

// complexOK reports whether an op supports complex128 input: it is applied once
// without a tape; an error wrapping ErrInvalidArgument that says float64-only means
// no.
func complexOK(family string, op cr.Op[*tensor.Dense], x []*tensor.Dense) bool {
	t := core.NewTape[*tensor.Dense](tensor.Space{})
	ids := make([]cr.NodeID, len(x))
	for k, v := range x {
		ids[k] = t.Constant(v)
	}
	t.Apply(op, ids...)
	err := t.Err()
	return err == nil || !strings.Contains(err.Error(), "float64-only")
}
