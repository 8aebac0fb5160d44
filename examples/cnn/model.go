package main

import (
	"math/rand/v2"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/einsum"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/permute"
	"github.com/chainrules-go/chainrules/tensor"
)

// The network, as PyTorch would write it:
//
//	nn.Sequential(
//	    nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),   # [N, 16, 4, 4]
//	    nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),  # [N, 32, 2, 2]
//	    nn.Flatten(), nn.Linear(128, 10))
//
// Its parameters are a parameter set, a slice of tensors in this order.
const (
	conv1W = iota // [16, 1, 3, 3]
	conv1B        // [16]
	conv2W        // [32, 16, 3, 3]
	conv2B        // [32]
	fcW           // [10, 128]
	fcB           // [10]
	numParams
)

// Widths of the network.
const (
	channels1, channels2 = 16, 32
	flat                 = channels2 * 2 * 2
	classes              = 10
)

// initParams returns the parameters with PyTorch's default initialisation of each
// layer (Kaiming-uniform with a = sqrt(5): U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for
// weights and biases), drawn from rng in the order of the layers.
func initParams(rng *rand.Rand) ([]*tensor.Dense, error) {
	p := make([]*tensor.Dense, numParams)
	var err error
	if p[conv1W], p[conv1B], err = nn.InitConv(rng, 1, channels1, []int{3, 3}, 1, true); err != nil {
		return nil, err
	}
	if p[conv2W], p[conv2B], err = nn.InitConv(rng, channels1, channels2, []int{3, 3}, 1, true); err != nil {
		return nil, err
	}
	if p[fcW], p[fcB], err = nn.InitLinear(rng, flat, classes, true); err != nil {
		return nil, err
	}
	return p, nil
}

// Ops of the network, made once.
var (
	conv    = nn.Conv2dOp(nn.Padding(1))
	pool    = nn.MaxPool2dOp([]int{2})
	flatten = permute.ReshapeOp(-1, flat)
	linear  = einsum.Op("nk,ok->no")
)

// logits records the network's output [N, 10] for the images x [N, 1, 8, 8] with
// the parameters p: a function of the parameter set, as hvp's transforms take.
func logits(t *hvp.Tape, p []cr.NodeID, x cr.NodeID) cr.NodeID {
	h := block(t, x, p[conv1W], p[conv1B])
	h = block(t, h, p[conv2W], p[conv2B])
	y := t.Apply(linear, t.Apply(flatten, h), p[fcW])
	return t.Apply(ew.AddOp, y, p[fcB]) // the bias broadcasts over the rows
}

// block records max_pool2d(relu(conv2d(x, w, b, padding=1)), 2).
func block(t *hvp.Tape, x, w, b cr.NodeID) cr.NodeID {
	h := t.Apply(ew.ReluOp, t.Apply(conv, x, w, b))
	return t.ApplyMulti(pool, h)[0] // outputs: values, indices
}

// predict returns the network's class for each image of x (the first largest
// logit), recorded without rules.
func predict(params []*tensor.Dense, x *tensor.Dense) ([]int, error) {
	t := core.NewTape[*tensor.Dense](tensor.Space{})
	var out cr.NodeID
	t.NoGrad(func() {
		p := make([]cr.NodeID, len(params))
		for k, v := range params {
			p[k] = t.Constant(v)
		}
		out = logits(t, p, t.Constant(x))
	})
	y, err := t.Value(out)
	if err != nil {
		return nil, err
	}
	return argmax(y), nil
}

// argmax returns the index of the first largest entry of each row of y [N, C].
func argmax(y *tensor.Dense) []int {
	c := y.Shape()[1]
	v := y.Contiguous().Float64s()
	out := make([]int, y.Shape()[0])
	for i := range out {
		row := v[i*c : i*c+c]
		for j := range row {
			if row[j] > row[out[i]] {
				out[i] = j
			}
		}
	}
	return out
}

// accuracy is the fraction of pred that equals labels.
func accuracy(pred, labels []int) float64 {
	if len(labels) == 0 {
		return 0
	}
	right := 0
	for i, y := range labels {
		if pred[i] == y {
			right++
		}
	}
	return float64(right) / float64(len(labels))
}
