package hvp_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	_ "github.com/chainrules-go/chainrules/permute" // every op package registers into tensor.Ops
	"github.com/chainrules-go/chainrules/tensor"
)

// Every op family shipped by the project is registered once (MustRegister panics on a
// duplicate name when the packages are imported together, as here), supplies samples
// for the checker, and has the rules HVP needs.
func TestRegistryIsComplete(t *testing.T) {
	entries := tensor.Ops.Entries()
	required := []string{
		"einsum",
		"sum", "mean", "prod", "amax", "amin", "logsumexp", "var", "std",
		"permute", "transpose", "reshape", "squeeze", "unsqueeze", "broadcast_to", "moveaxis",
		"slice", "narrow", "select", "diagonal", "gather", "index_select", "scatter_add",
		"concat", "stack", "split", "pad", "flip", "roll", "where",
		"neg", "exp", "expm1", "log", "log1p", "sqrt", "rsqrt", "square", "reciprocal", "abs",
		"sin", "cos", "tan", "sinh", "cosh", "tanh", "asin", "acos", "atan", "asinh", "acosh",
		"atanh", "sigmoid", "softplus", "logsigmoid", "relu", "silu", "erf", "conj", "real",
		"imag", "abs2", "angle", "scale", "shift", "pow_scalar",
		"add", "sub", "mul", "div", "pow", "maximum", "minimum", "atan2", "hypot", "xlogy",
	}
	for _, name := range required {
		_, ok := tensor.Ops.Lookup(name)
		assert.True(t, ok, "%s is not registered", name)
	}
	for _, e := range entries {
		assert.NotNil(t, e.Samples, "%s has no samples", e.Name)
		assert.True(t, e.Forward && e.SecondOrder, "%s lacks a forward or second-order rule", e.Name)
		assert.NotEmpty(t, e.DTypes, "%s lists no dtypes", e.Name)
	}
	t.Logf("%d op families: %v", len(entries), tensor.Ops.Names())
}
