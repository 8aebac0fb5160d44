// Package nets holds the small networks the example programs share: a tanh
// multilayer perceptron recorded on a tape, and its parameter set.
package nets

import (
	"math"
	"math/rand/v2"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/einsum"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/tensor"
)

// TanhMLP records the network h_0 = x, h_l = tanh(h_{l-1} W_l + b_l), and a linear
// last layer, on t: x is a batch [n, widths[0]] and p the parameter set
// [W1, b1, W2, b2, ...] (W_l [widths[l-1], widths[l]], b_l [widths[l]]). The output
// is [n, widths[last]].
func TanhMLP(t *core.Tape[*tensor.Dense], p []cr.NodeID, x cr.NodeID) cr.NodeID {
	h := x
	for l := 0; l < len(p); l += 2 {
		h = t.Apply(ew.AddOp, t.Apply(einsum.Op("bi,ij->bj"), h, p[l]), p[l+1])
		if l+2 < len(p) {
			h = t.Apply(ew.TanhOp, h)
		}
	}
	return h
}

// XavierUniform returns a parameter set for TanhMLP with the given widths:
// weights uniform in [-a, a], a = sqrt(6 / (fan_in + fan_out)) (Glorot and Bengio's
// initialisation, PyTorch's xavier_uniform_), and zero biases.
func XavierUniform(rng *rand.Rand, widths []int) []*tensor.Dense {
	var params []*tensor.Dense
	for l := 0; l+1 < len(widths); l++ {
		a := math.Sqrt(6 / float64(widths[l]+widths[l+1]))
		w := make([]float64, widths[l]*widths[l+1])
		for i := range w {
			w[i] = a * (2*rng.Float64() - 1)
		}
		wt, _ := tensor.FromFloat64(w, widths[l], widths[l+1])
		params = append(params, wt, tensor.New(tensor.Float64, widths[l+1]))
	}
	return params
}
