package oracle

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

//go:embed all:testdata/cases
var vendored embed.FS

// casesDir is the root of the vendored case files inside vendored.
const casesDir = "testdata/cases"

// ErrNoCases is wrapped by Load when no case file is vendored for an op.
var ErrNoCases = errors.New("no vendored oracle cases")

// Case is one reference case: an op at some inputs, with probes.
type Case struct {
	// ID is the upstream case_id, e.g. "exp_f64_identity_001".
	ID string `json:"case_id"`
	// Op is the upstream (PyTorch OpInfo) op name; Family the case family.
	Op     string `json:"op"`
	Family string `json:"family"`
	// DType is the dtype of the case: float32, float64, complex64 or complex128.
	DType string `json:"dtype"`
	// ExpectedBehavior is "success", or "error" when an error is the right answer.
	ExpectedBehavior string `json:"expected_behavior"`
	// Comparison holds the tolerances (or, for error cases, the reason code).
	Comparison Comparison `json:"comparison"`
	// Inputs are the op's inputs in the upstream order ("a", "b", ...).
	Inputs Tensors `json:"inputs"`
	// Observable names the function of the output that the references
	// differentiate; "identity" is the output itself.
	Observable struct {
		Kind string `json:"kind"`
	} `json:"observable"`
	// OpKwargs are the op's keyword arguments as upstream JSON (nil if none), e.g.
	// {"dim": [0, -1], "keepdim": true}. Decode them with Kwargs.
	OpKwargs json.RawMessage `json:"op_kwargs,omitempty"`
	// Probes are the directions and references.
	Probes []Probe `json:"probes"`
}

// Comparison is the tolerance block of a case.
type Comparison struct {
	FirstOrder  *Tolerance `json:"first_order,omitempty"`
	SecondOrder *Tolerance `json:"second_order,omitempty"`
	// Kind is "expect_error" for error cases, with ReasonCode saying why.
	Kind       string `json:"kind,omitempty"`
	ReasonCode string `json:"reason_code,omitempty"`
}

// Tolerance is an allclose tolerance: |a - e| <= Atol + Rtol * max(|a|, |e|).
type Tolerance struct {
	Kind string  `json:"kind"`
	Atol float64 `json:"atol"`
	Rtol float64 `json:"rtol"`
}

// Probe is one direction with its reference derivatives.
type Probe struct {
	ID string `json:"probe_id"`
	// Cotangent holds ybar under the key "value" (the output); Direction holds v
	// under the input names.
	Cotangent Tensors `json:"cotangent"`
	Direction Tensors `json:"direction"`
	// PyTorch holds PyTorch's autograd results: JVP under "value", VJP and HVP under
	// the input names (HVP may be absent).
	PyTorch References `json:"pytorch_ref"`
	// FD holds central-difference references (second order, step in Step).
	FD struct {
		Method       string  `json:"method"`
		StencilOrder int     `json:"stencil_order"`
		Step         float64 `json:"step"`
		JVP          Tensors `json:"jvp"`
		HVP          Tensors `json:"hvp"`
	} `json:"fd_ref"`
}

// References are PyTorch's derivatives at a probe.
type References struct {
	JVP Tensors `json:"jvp"`
	VJP Tensors `json:"vjp"`
	HVP Tensors `json:"hvp"`
}

// Tensor is one tensor of a case: dtype, row-major shape and data, complex numbers
// decoded from [re, im] pairs.
type Tensor struct {
	DType string
	Shape []int
	Data  []complex128
}

// UnmarshalJSON decodes {"dtype", "shape", "order": "row_major", "data"}.
func (t *Tensor) UnmarshalJSON(b []byte) error {
	var raw struct {
		DType string            `json:"dtype"`
		Shape []int             `json:"shape"`
		Order string            `json:"order"`
		Data  []json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if raw.Order != "" && raw.Order != "row_major" {
		return cr.Errorf(cr.ErrInvalidArgument, "tensor order %q", raw.Order)
	}
	n, err := tensor.ShapeSize(raw.Shape...)
	if err != nil {
		return err
	}
	if len(raw.Data) != n {
		return cr.Errorf(cr.ErrShapeMismatch, "%d data elements for shape %v", len(raw.Data), raw.Shape)
	}
	t.DType, t.Shape, t.Data = raw.DType, raw.Shape, make([]complex128, n)
	for i, d := range raw.Data {
		if len(d) > 0 && d[0] == '[' {
			var pair []json.RawMessage
			if err := json.Unmarshal(d, &pair); err != nil {
				return fmt.Errorf("oracle: element %d: %w", i, err)
			}
			if len(pair) != 2 {
				return fmt.Errorf("oracle: element %d: complex pair of %d numbers", i, len(pair))
			}
			re, err := parseElement(pair[0])
			if err != nil {
				return fmt.Errorf("oracle: element %d: %w", i, err)
			}
			im, err := parseElement(pair[1])
			if err != nil {
				return fmt.Errorf("oracle: element %d: %w", i, err)
			}
			t.Data[i] = complex(re, im)
			continue
		}
		x, err := parseElement(d)
		if err != nil {
			return fmt.Errorf("oracle: element %d: %w", i, err)
		}
		t.Data[i] = complex(x, 0)
	}
	return nil
}

// Dense converts t to a *tensor.Dense of dtype float64 or complex128. float32
// and complex64 data are widened; other dtypes are an error.
func (t Tensor) Dense() (*tensor.Dense, error) {
	shape := t.Shape
	if shape == nil {
		shape = []int{}
	}
	switch t.DType {
	case "float64", "float32":
		re := make([]float64, len(t.Data))
		for i, z := range t.Data {
			re[i] = real(z)
		}
		return tensor.FromFloat64(re, shape...)
	case "complex128", "complex64":
		return tensor.FromComplex128(slices.Clone(t.Data), shape...)
	}
	return nil, cr.Errorf(cr.ErrInvalidArgument, "unsupported dtype %q", t.DType)
}

// Named is a tensor with its name in a case ("a", "value").
type Named struct {
	Name string
	Tensor
}

// Tensors is a JSON object of tensors decoded in document order, so that inputs
// keep the upstream argument order.
type Tensors []Named

// UnmarshalJSON decodes an object of tensors, keeping the key order.
func (ts *Tensors) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		*ts = nil
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return cr.Errorf(cr.ErrInvalidArgument, "tensor map is not an object")
	}
	out := Tensors{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		name, _ := tok.(string)
		var t Tensor
		if err := dec.Decode(&t); err != nil {
			return fmt.Errorf("oracle: tensor %q: %w", name, err)
		}
		out = append(out, Named{Name: name, Tensor: t})
	}
	*ts = out
	return nil
}

// Get returns the tensor of the given name.
func (ts Tensors) Get(name string) (Tensor, bool) {
	for _, t := range ts {
		if t.Name == name {
			return t.Tensor, true
		}
	}
	return Tensor{}, false
}

// DenseInputs converts the case's inputs, in order, to tensors.
func (c *Case) DenseInputs() ([]*tensor.Dense, error) {
	out := make([]*tensor.Dense, len(c.Inputs))
	for k, in := range c.Inputs {
		d, err := in.Dense()
		if err != nil {
			return nil, fmt.Errorf("oracle: case %s input %s: %w", c.ID, in.Name, err)
		}
		out[k] = d
	}
	return out, nil
}

// Kwargs decodes the case's op_kwargs into v (a pointer to a struct or map). It
// leaves v untouched when the case has none.
func (c *Case) Kwargs(v any) error {
	if len(c.OpKwargs) == 0 {
		return nil
	}
	if err := json.Unmarshal(c.OpKwargs, v); err != nil {
		return cr.Errorf(cr.ErrInvalidArgument, "case %s: op_kwargs: %v", c.ID, err)
	}
	return nil
}

// Parse decodes a JSON Lines stream of cases (one case per line; blank lines are
// ignored). Tensor elements may be the bare tokens NaN, Infinity and -Infinity that
// Python's json module writes for non-finite floats.
func Parse(r io.Reader) ([]Case, error) {
	var cases []Case
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 1<<28)
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var c Case
		if err := json.Unmarshal(quoteNonFinite(b), &c); err != nil {
			return nil, fmt.Errorf("oracle: line %d: %w", line, err)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("oracle: %w", err)
	}
	return cases, nil
}

// Load returns the vendored cases of op (the upstream op name, e.g. "exp",
// "sum"), from testdata/cases/<op>/identity.jsonl.gz. It returns an error wrapping
// ErrNoCases if the op is not vendored.
func Load(op string) ([]Case, error) {
	sub, err := fs.Sub(vendored, "testdata")
	if err != nil {
		return nil, fmt.Errorf("oracle: %w", err)
	}
	return LoadFS(sub, op)
}

// LoadFS returns the cases of op from cases/<op>/identity.jsonl.gz in fsys: the
// layout the vendoring command writes, so a package that vendored its own cases
// (go run ./testing/oracle/internal/vendor -dst PKG/testdata -ops ...) loads them
// with LoadFS(os.DirFS("testdata"), op). It returns an error wrapping ErrNoCases if
// the file is missing.
func LoadFS(fsys fs.FS, op string) ([]Case, error) {
	f, err := fsys.Open(path.Join("cases", op, "identity.jsonl.gz"))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("oracle: %w for %q (vendor them with go run ./testing/oracle/internal/vendor -ops %s)", ErrNoCases, op, op)
		}
		return nil, fmt.Errorf("oracle: %w", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("oracle: %s: %w", op, err)
	}
	defer zr.Close()
	return Parse(zr)
}

// Ops lists the ops whose cases are vendored, sorted.
func Ops() []string {
	entries, err := fs.ReadDir(vendored, casesDir)
	if err != nil {
		return nil
	}
	var ops []string
	for _, e := range entries {
		if e.IsDir() {
			ops = append(ops, e.Name())
		}
	}
	return ops
}
