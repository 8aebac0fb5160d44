package main

import (
	"encoding/json"
	"fmt"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// The lstm eval (ADBench's LSTM): l layers of an LSTM with diagonal weights on
// b-bit characters. Layer i has the weight w_i and bias u_i (rows 2i and 2i+1
// of main_params, 4b each) and the state h_i, c_i (rows 2i, 2i+1 of state).
// At each time step the input x = sequence[t] * extra[0] goes through the
// layers,
//
//	g = (x, h_i, x, h_i) * w_i + u_i    (elementwise, 4b)
//	c_i = c_i σ(g_f) + σ(g_in) tanh(g_c),  h_i = σ(g_out) tanh(c_i),  x = h_i,
//
// with (g_f, g_in, g_out, g_c) the four quarters of g, and predicts
// y_t = x * extra[1] + extra[2]. The objective is the mean log-likelihood of
// the next characters,
//
//	f = -1/((c-1) b) sum_t sequence[t+1] · (y_t - log(2 + sum_j exp(y_tj))),
//
// where the 2 inside the logarithm is ADBench's (its C++ logsumexp starts the
// sum at 2, and the Python versions call sum(..., 2)); GradBench's golden
// implementation keeps it.
//
// and the Jacobian its gradient with respect to main_params and extra_params
// (row-major, concatenated), from hvp.Grad through the c-1 steps.
func init() {
	modules["lstm"] = map[string]prepare{
		"objective": lstmJob(false),
		"jacobian":  lstmJob(true),
	}
}

type lstmInput struct {
	runs
	Main     [][]float64 `json:"main_params"`
	Extra    [][]float64 `json:"extra_params"`
	State    [][]float64 `json:"state"`
	Sequence [][]float64 `json:"sequence"`
}

// lstmObjective returns f(main_params, extra_params) for l layers, the initial
// state (rows of b) and the sequence (c rows of b).
func lstmObjective(l, b int, state, seq []*tensor.Dense, gold *tensor.Dense) hvp.Func {
	c := len(seq)
	scale := -1 / float64((c-1)*b)
	return func(t *hvp.Tape, p []cr.NodeID) cr.NodeID {
		w := make([]cr.NodeID, 2*l)
		for i := range w {
			w[i] = t.Apply(index.SelectOp(0, i), p[0])
		}
		var extra [3]cr.NodeID
		for i := range extra {
			extra[i] = t.Apply(index.SelectOp(0, i), p[1])
		}
		s := make([]cr.NodeID, 2*l)
		for i := range s {
			s[i] = t.Constant(state[i])
		}
		preds := make([]cr.NodeID, 0, c-1)
		for step := 0; step < c-1; step++ {
			x := t.Apply(elementwise.MulOp, t.Constant(seq[step]), extra[0])
			for i := 0; i < l; i++ {
				h, cell := s[2*i], s[2*i+1]
				g := t.Apply(index.ConcatOp(0), x, h, x, h)
				g = t.Apply(elementwise.AddOp, t.Apply(elementwise.MulOp, g, w[2*i]), w[2*i+1])
				q := index.ApplySplit(t, g, 0, b, b, b, b)
				forget := t.Apply(elementwise.SigmoidOp, q[0])
				in := t.Apply(elementwise.SigmoidOp, q[1])
				out := t.Apply(elementwise.SigmoidOp, q[2])
				change := t.Apply(elementwise.TanhOp, q[3])
				cell = t.Apply(elementwise.AddOp, t.Apply(elementwise.MulOp, cell, forget), t.Apply(elementwise.MulOp, in, change))
				h = t.Apply(elementwise.MulOp, out, t.Apply(elementwise.TanhOp, cell))
				s[2*i], s[2*i+1] = h, cell
				x = h
			}
			preds = append(preds, t.Apply(elementwise.AddOp, t.Apply(elementwise.MulOp, x, extra[1]), extra[2]))
		}
		y := t.Apply(index.StackOp(0), preds...)
		sumExp := t.Apply(reduce.SumOp([]int{1}, true), t.Apply(elementwise.ExpOp, y))
		norm := t.Apply(elementwise.SubOp, y, t.Apply(elementwise.LogOp, t.Apply(elementwise.ShiftOp(2), sumExp)))
		total := t.Apply(reduce.SumOp(nil, false), t.Apply(elementwise.MulOp, norm, t.Constant(gold)))
		return t.Apply(elementwise.ScaleOp(scale), total)
	}
}

func lstmJob(grad bool) prepare {
	return func(input json.RawMessage) (job, error) {
		var in lstmInput
		if err := decode(input, &in); err != nil {
			return job{}, err
		}
		if len(in.Main) == 0 || len(in.Main)%2 != 0 {
			return job{}, fmt.Errorf("main_params has %d rows, want 2 per layer", len(in.Main))
		}
		l := len(in.Main) / 2
		if len(in.Sequence) < 2 || len(in.Sequence[0]) == 0 {
			return job{}, fmt.Errorf("sequence has %d rows, want at least 2 non-empty ones", len(in.Sequence))
		}
		b := len(in.Sequence[0])
		main, err := matrix("main_params", in.Main, 4*b)
		if err != nil {
			return job{}, err
		}
		if len(in.Extra) != 3 {
			return job{}, fmt.Errorf("extra_params has %d rows, want 3", len(in.Extra))
		}
		extra, err := matrix("extra_params", in.Extra, b)
		if err != nil {
			return job{}, err
		}
		if len(in.State) != 2*l {
			return job{}, fmt.Errorf("state has %d rows, want 2 per layer (%d)", len(in.State), 2*l)
		}
		state := make([]*tensor.Dense, 2*l)
		for i, r := range in.State {
			if len(r) != b {
				return job{}, fmt.Errorf("state[%d] has %d elements, want %d", i, len(r), b)
			}
			state[i] = vector(r)
		}
		seq := make([]*tensor.Dense, len(in.Sequence))
		for i, r := range in.Sequence {
			if len(r) != b {
				return job{}, fmt.Errorf("sequence[%d] has %d elements, want %d", i, len(r), b)
			}
			seq[i] = vector(r)
		}
		gold, err := matrix("sequence", in.Sequence[1:], b)
		if err != nil {
			return job{}, err
		}
		f := lstmObjective(l, b, state, seq, gold)
		params := []*tensor.Dense{main, extra}
		return scalarJob(in.runs, f, params, grad, func(g []*tensor.Dense) (any, error) {
			return slices.Concat(flat(g[0]), flat(g[1])), nil
		}), nil
	}
}
