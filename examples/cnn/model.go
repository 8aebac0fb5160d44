package main

import (
	"math/rand/v2"

	cr "github.com/chainrules-go/chainrules/chainrules"
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
//	    nn.Conv2d(1, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),   # [N, 16, 4, 4]
//	    nn.Conv2d(16, 32, 3, padding=1, bias=False), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),  # [N, 32, 2, 2]
//	    nn.Flatten(), nn.Linear(128, 10))
//
// The convolutions have no bias: the batch norm after each subtracts the channel's
// mean, which cancels it (its gradient is zero in training). The parameters are a
// parameter set, a slice of tensors in this order; the running statistics of the
// batch norms are not parameters but state, kept in a norms.
const (
	conv1W = iota // [16, 1, 3, 3]
	norm1W        // [16], batch norm's gamma
	norm1B        // [16], beta
	conv2W        // [32, 16, 3, 3]
	norm2W        // [32]
	norm2B        // [32]
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
// layer, drawn from rng in the order of the layers: Kaiming-uniform with a =
// sqrt(5), U(-1/sqrt(fan_in), 1/sqrt(fan_in)), for the weights and the linear
// layer's bias, and gamma = 1, beta = 0 for the batch norms.
func initParams(rng *rand.Rand) ([]*tensor.Dense, error) {
	p := make([]*tensor.Dense, numParams)
	var err error
	if p[conv1W], _, err = nn.InitConv(rng, 1, channels1, []int{3, 3}, 1, false); err != nil {
		return nil, err
	}
	if p[conv2W], _, err = nn.InitConv(rng, channels1, channels2, []int{3, 3}, 1, false); err != nil {
		return nil, err
	}
	if p[fcW], p[fcB], err = nn.InitLinear(rng, flat, classes, true); err != nil {
		return nil, err
	}
	p[norm1W], p[norm1B] = tensor.Ones(tensor.Float64, channels1), tensor.New(tensor.Float64, channels1)
	p[norm2W], p[norm2B] = tensor.Ones(tensor.Float64, channels2), tensor.New(tensor.Float64, channels2)
	return p, nil
}

// normMode says which statistics the batch norms use.
type normMode int

const (
	// batchStats normalises with the statistics of the batch (training), and leaves
	// the running statistics alone: the output is a deterministic function of the
	// parameters and the batch, which Newton-CG minimises.
	batchStats normMode = iota
	// updateStats normalises with the statistics of the batch, and records the
	// running statistics updated with them (PyTorch's training mode): a step of
	// Adam.
	updateStats
	// runningStats normalises with the running statistics (PyTorch's eval mode).
	runningStats
)

// norms is the state of the two batch norms: their running statistics, and how the
// next recording uses them.
type norms struct {
	Mode     normMode
	Momentum float64          // of the running statistics' update (PyTorch's 0.1)
	Mean     [2]*tensor.Dense // the running means of the two batch norms
	Var      [2]*tensor.Dense // the running variances (unbiased)
	// Under updateStats, the running statistics updated by the last recording
	// (copies, valid after its tape is released); commit makes them current.
	NextMean, NextVar [2]*tensor.Dense
}

// newNorms returns the batch norms' state as PyTorch starts it: means 0, variances
// 1, momentum 0.1.
func newNorms() *norms {
	s := &norms{Mode: updateStats, Momentum: 0.1}
	for i, c := range []int{channels1, channels2} {
		s.Mean[i], s.Var[i] = tensor.New(tensor.Float64, c), tensor.Ones(tensor.Float64, c)
	}
	return s
}

// with returns a copy of s in mode m, which shares its running statistics.
func (s *norms) with(m normMode) *norms {
	c := *s
	c.Mode = m
	return &c
}

// commit makes the statistics of the last updateStats recording current.
func (s *norms) commit() {
	s.Mean, s.Var = s.NextMean, s.NextVar
}

// Ops of the network, made once.
var (
	conv    = nn.Conv2dOp(nn.Padding(1))
	pool    = nn.MaxPool2dOp([]int{2})
	flatten = permute.ReshapeOp(-1, flat)
	linear  = einsum.Op("nk,ok->no")
)

// logits records the network's output [N, 10] for the images x [N, 1, 8, 8] with
// the parameters p, its batch norms as s says: a function of the parameter set, as
// hvp's transforms take.
func logits(t *hvp.Tape, p []cr.NodeID, x cr.NodeID, s *norms) cr.NodeID {
	h := block(t, x, p[conv1W], p[norm1W], p[norm1B], s, 0)
	h = block(t, h, p[conv2W], p[norm2W], p[norm2B], s, 1)
	y := t.Apply(linear, t.Apply(flatten, h), p[fcW])
	return t.Apply(ew.AddOp, y, p[fcB]) // the bias broadcasts over the rows
}

// block records max_pool2d(relu(batch_norm(conv2d(x, w, padding=1))), 2), with the
// k-th batch norm of s.
func block(t *hvp.Tape, x, w, gamma, beta cr.NodeID, s *norms, k int) cr.NodeID {
	h := t.Apply(conv, x, w)
	affine := nn.Affine(true, true)
	switch s.Mode {
	case batchStats:
		h = t.Apply(nn.BatchNormOp(affine, nn.Training(true)), h, gamma, beta)
	case updateStats:
		out := t.ApplyMulti(nn.BatchNormOp(affine, nn.Training(true), nn.Momentum(s.Momentum), nn.RunningStats(s.Mean[k], s.Var[k])), h, gamma, beta)
		h = out[0]
		// The updated statistics are computed when the op is applied; copy them
		// out of the tape, whose storage is recycled when it is released.
		if m, err := t.Value(out[1]); err == nil {
			s.NextMean[k] = m.Clone()
		}
		if v, err := t.Value(out[2]); err == nil {
			s.NextVar[k] = v.Clone()
		}
	default:
		h = t.Apply(nn.BatchNormOp(affine, nn.RunningStats(s.Mean[k], s.Var[k])), h, gamma, beta)
	}
	h = t.Apply(ew.ReluOp, h)
	return t.ApplyMulti(pool, h)[0] // outputs: values, indices
}

// fullBatchStats returns the batch norms' state whose running statistics are those
// of the whole dataset x under the parameters params (the mean and the unbiased
// variance of every channel over x): the statistics the batchStats objective
// normalises with, for evaluation.
func fullBatchStats(params []*tensor.Dense, x *tensor.Dense) (*norms, error) {
	s := newNorms()
	s.Momentum = 1 // running' = the batch's statistics
	model := func(t *hvp.Tape, p []cr.NodeID) cr.NodeID { return logits(t, p, t.Constant(x), s) }
	if _, err := hvp.Eval(model, params); err != nil {
		return nil, err
	}
	s.commit()
	s.Mode, s.Momentum = runningStats, 0.1
	return s, nil
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
