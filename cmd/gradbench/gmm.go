package main

import (
	"encoding/json"
	"fmt"
	"math"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/einsum"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/permute"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// The gmm eval (ADBench's Gaussian mixture with the fixes GradBench lists): the
// log posterior of K components in D dimensions over N points x_i,
//
//	f = -N D/2 log 2π + sum_i logsumexp_k(alpha_k + sum(q_k) - |Q_k (x_i - mu_k)|²/2)
//	    - N logsumexp(alpha) + log Wishart prior,
//
// where Q_k is lower triangular with diagonal exp(q_k) and, below it, l_k in
// column-major order, and the log prior is
//
//	sum_k (m sum(q_k) - γ²/2 (|exp(q_k)|² + |l_k|²)) + K (n D log(γ/√2) - log Γ_D(n/2))
//
// with n = D + m + 1. The Jacobian (the gradient with respect to alpha, mu, q
// and l) is the engine's.
func init() {
	modules["gmm"] = map[string]prepare{
		"objective": gmmJob(false),
		"jacobian":  gmmJob(true),
	}
}

type gmmInput struct {
	runs
	D     int         `json:"d"`
	K     int         `json:"k"`
	N     int         `json:"n"`
	X     [][]float64 `json:"x"`
	M     int         `json:"m"`
	Gamma float64     `json:"gamma"`
	Alpha []float64   `json:"alpha"`
	Mu    [][]float64 `json:"mu"`
	Q     [][]float64 `json:"q"`
	L     [][]float64 `json:"l"`
}

// multigammaln is log Γ_p(a) = p(p-1)/4 log π + sum_{j=1}^p log Γ(a + (1-j)/2).
func multigammaln(a float64, p int) float64 {
	s := float64(p*(p-1)) / 4 * math.Log(math.Pi)
	for j := 1; j <= p; j++ {
		lg, _ := math.Lgamma(a + float64(1-j)/2)
		s += lg
	}
	return s
}

// gmmObjective returns the log posterior as a function of (alpha, mu, q, l)
// for the data x (n x d) and the prior's m and gamma.
func gmmObjective(in *gmmInput, x *tensor.Dense) hvp.Func {
	d, k, n := in.D, in.K, in.N
	// lower[i*d + j] is the column of l holding Q[i, j] for i > j, or the index
	// of the zero column appended to l elsewhere.
	tri := d * (d - 1) / 2
	lower := make([]int, d*d)
	pos := 0
	for i := range lower {
		lower[i] = tri
	}
	for j := 0; j < d; j++ {
		for i := j + 1; i < d; i++ {
			lower[i*d+j] = pos
			pos++
		}
	}
	nn := float64(d + in.M + 1)
	g := in.Gamma
	constant := -float64(n*d)/2*math.Log(2*math.Pi) +
		float64(k)*(nn*float64(d)*math.Log(g/math.Sqrt2)-multigammaln(nn/2, d))
	zeros := tensor.New(tensor.Float64, k, 1)
	return func(t *hvp.Tape, p []cr.NodeID) cr.NodeID {
		alpha, mu, q, l := p[0], p[1], p[2], p[3]
		qdiag := t.Apply(elementwise.ExpOp, q)
		sumQ := t.Apply(reduce.SumOp([]int{1}, false), q)
		ls := t.Apply(index.ConcatOp(1), l, t.Constant(zeros))
		ls = t.Apply(permute.ReshapeOp(k, d, d), t.Apply(index.IndexSelectOp(1, lower...), ls))

		xc := t.Apply(elementwise.SubOp,
			t.Apply(permute.ReshapeOp(n, 1, d), t.Constant(x)),
			t.Apply(permute.ReshapeOp(1, k, d), mu))
		lx := t.Apply(elementwise.AddOp,
			t.Apply(elementwise.MulOp, qdiag, xc),
			t.Apply(einsum.Op("kij,nkj->nki"), ls, xc))
		sq := t.Apply(reduce.SumOp([]int{2}, false), t.Apply(elementwise.SquareOp, lx))
		inner := t.Apply(elementwise.SubOp,
			t.Apply(elementwise.AddOp, alpha, sumQ),
			t.Apply(elementwise.ScaleOp(0.5), sq))
		slse := t.Apply(reduce.SumOp(nil, false), t.Apply(reduce.LogSumExpOp([]int{1}, false), inner))
		lseAlpha := t.Apply(reduce.LogSumExpOp(nil, false), alpha)

		// The Wishart prior.
		sqSum := t.Apply(elementwise.AddOp,
			t.Apply(reduce.SumOp(nil, false), t.Apply(elementwise.SquareOp, qdiag)),
			t.Apply(reduce.SumOp(nil, false), t.Apply(elementwise.SquareOp, l)))
		prior := t.Apply(elementwise.SubOp,
			t.Apply(elementwise.ScaleOp(float64(in.M)), t.Apply(reduce.SumOp(nil, false), sumQ)),
			t.Apply(elementwise.ScaleOp(g*g/2), sqSum))

		f := t.Apply(elementwise.SubOp, slse, t.Apply(elementwise.ScaleOp(float64(n)), lseAlpha))
		f = t.Apply(elementwise.AddOp, f, prior)
		return t.Apply(elementwise.ShiftOp(constant), f)
	}
}

func (in *gmmInput) tensors() (x *tensor.Dense, params []*tensor.Dense, err error) {
	d, k, n := in.D, in.K, in.N
	if d < 1 || k < 1 || n < 1 {
		return nil, nil, fmt.Errorf("d = %d, k = %d, n = %d: each must be at least 1", d, k, n)
	}
	if len(in.X) != n {
		return nil, nil, fmt.Errorf("x has %d points, want n = %d", len(in.X), n)
	}
	if len(in.Alpha) != k {
		return nil, nil, fmt.Errorf("alpha has %d elements, want k = %d", len(in.Alpha), k)
	}
	for _, f := range []struct {
		name string
		v    [][]float64
	}{{"mu", in.Mu}, {"q", in.Q}, {"l", in.L}} {
		if len(f.v) != k {
			return nil, nil, fmt.Errorf("%s has %d rows, want k = %d", f.name, len(f.v), k)
		}
	}
	if x, err = matrix("x", in.X, d); err != nil {
		return nil, nil, err
	}
	mu, err := matrix("mu", in.Mu, d)
	if err != nil {
		return nil, nil, err
	}
	q, err := matrix("q", in.Q, d)
	if err != nil {
		return nil, nil, err
	}
	l, err := matrix("l", in.L, d*(d-1)/2)
	if err != nil {
		return nil, nil, err
	}
	return x, []*tensor.Dense{vector(in.Alpha), mu, q, l}, nil
}

func gmmJob(grad bool) prepare {
	return func(input json.RawMessage) (job, error) {
		var in gmmInput
		if err := decode(input, &in); err != nil {
			return job{}, err
		}
		x, params, err := in.tensors()
		if err != nil {
			return job{}, err
		}
		f := gmmObjective(&in, x)
		return scalarJob(in.runs, f, params, grad, func(g []*tensor.Dense) (any, error) {
			return map[string]any{
				"alpha": flat(g[0]),
				"mu":    rows(g[1]),
				"q":     rows(g[2]),
				"l":     rows(g[3]),
			}, nil
		}), nil
	}
}
