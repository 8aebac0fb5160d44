// Command gradpenalty trains a critic with a gradient penalty, as in WGAN-GP
// (Gulrajani et al., 2017): a 2-16-16-1 tanh network D(x; w) is fitted so that
//
//	L(w) = mean D(fake) - mean D(real) + lambda mean_i (|grad_x D(xhat_i)| - 1)^2
//
// is small, where xhat_i are random points between real and fake samples. The
// penalty holds D close to 1-Lipschitz, so -L estimates the Wasserstein-1 distance
// between the two clouds. Its gradient with respect to the weights differentiates
// grad_x D, which the loss records on the tape (core.Tape.GradGraph, PyTorch's
// create_graph=True): a second derivative of D, taken by composing the rules of its
// ops. Training runs Adam (package optim) on fresh interpolates at every step.
//
//	go run ./examples/gradpenalty
//
// It prints the loss, the critic's estimate of the distance (the clouds are unit
// Gaussians 3 apart, so W1 = 3) and the mean gradient norm on the interpolates.
package main

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/examples/internal/nets"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/optim"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

const lambda = 10

func main() {
	if _, err := run(os.Stdout, 256, 1000); err != nil {
		fmt.Fprintln(os.Stderr, "gradpenalty:", err)
		os.Exit(1)
	}
}

// cloud returns n samples of a unit Gaussian around (cx, cy) as an [n, 2] tensor.
func cloud(rng *rand.Rand, n int, cx, cy float64) *tensor.Dense {
	xs := make([]float64, 2*n)
	for i := range n {
		xs[2*i], xs[2*i+1] = cx+rng.NormFloat64(), cy+rng.NormFloat64()
	}
	t, _ := tensor.FromFloat64(xs, n, 2)
	return t
}

// between returns eps_i real_i + (1 - eps_i) fake_i with eps_i uniform in [0, 1].
func between(rng *rand.Rand, real, fake *tensor.Dense) *tensor.Dense {
	n := real.Shape()[0]
	r, f := real.Float64s(), fake.Float64s()
	xs := make([]float64, 2*n)
	for i := range n {
		e := rng.Float64()
		xs[2*i], xs[2*i+1] = e*r[2*i]+(1-e)*f[2*i], e*r[2*i+1]+(1-e)*f[2*i+1]
	}
	t, _ := tensor.FromFloat64(xs, n, 2)
	return t
}

// critic records D at the points X ([n, 2]) for the weights p, an [n, 1] node.
func critic(t *hvp.Tape, p []cr.NodeID, X cr.NodeID) cr.NodeID { return nets.TanhMLP(t, p, X) }

// gradNorms records |grad_x D(x_i)| for every row x_i of X (a leaf), an [n] node: the
// gradient of sum_i D(x_i) with respect to X holds every row's gradient, recorded
// on the tape so that the weights' gradient differentiates through it.
func gradNorms(t *hvp.Tape, p []cr.NodeID, X cr.NodeID) cr.NodeID {
	g, err := t.GradGraph(t.Apply(reduce.SumOp(nil, false), critic(t, p, X)), X)
	if err != nil {
		return t.Apply(cr.FailOp[*tensor.Dense]("gradient penalty", err))
	}
	return t.Apply(ew.SqrtOp, t.Apply(reduce.SumOp([]int{1}, false), t.Apply(ew.SquareOp, g[0])))
}

// loss returns L as a function of the critic's parameter set.
func loss(real, fake, xhat *tensor.Dense) hvp.Func {
	return func(t *hvp.Tape, p []cr.NodeID) cr.NodeID {
		mean := reduce.MeanOp(nil, false)
		w := t.Apply(ew.SubOp, t.Apply(mean, critic(t, p, t.Constant(fake))), t.Apply(mean, critic(t, p, t.Constant(real))))
		dev := t.Apply(ew.ShiftOp(-1), gradNorms(t, p, t.Leaf(xhat))) // a leaf: D is differentiated in it
		penalty := t.Apply(ew.ScaleOp(lambda), t.Apply(mean, t.Apply(ew.SquareOp, dev)))
		return t.Apply(ew.AddOp, w, penalty)
	}
}

// measures returns the critic's distance estimate mean D(real) - mean D(fake) and
// the mean gradient norm at xhat.
func measures(params []*tensor.Dense, real, fake, xhat *tensor.Dense) (dist, norm float64, err error) {
	t := core.NewTape[*tensor.Dense](tensor.Space{})
	p := make([]cr.NodeID, len(params))
	for k, v := range params {
		p[k] = t.Leaf(v)
	}
	mean := reduce.MeanOp(nil, false)
	d := t.Apply(ew.SubOp, t.Apply(mean, critic(t, p, t.Constant(real))), t.Apply(mean, critic(t, p, t.Constant(fake))))
	nrm := t.Apply(mean, gradNorms(t, p, t.Leaf(xhat)))
	dv, err := t.Value(d)
	if err != nil {
		return 0, 0, err
	}
	nv, err := t.Value(nrm)
	if err != nil {
		return 0, 0, err
	}
	return dv.Float64s()[0], nv.Float64s()[0], nil
}

// result is what a run found.
type result struct {
	Loss, Distance, GradNorm float64
}

func run(w io.Writer, n, steps int) (*result, error) {
	rng := rand.New(rand.NewPCG(1, 2))
	real, fake := cloud(rng, n, 3, 0), cloud(rng, n, 0, 0)
	var params []*tensor.Dense
	widths := []int{2, 16, 16, 1}
	for l := 0; l+1 < len(widths); l++ {
		wt := tensor.RandN(rng, tensor.Float64, widths[l], widths[l+1])
		params = append(params, tensor.Scale(wt, 1/math.Sqrt(float64(widths[l]))), tensor.New(tensor.Float64, widths[l+1]))
	}
	d0, g0, err := measures(params, real, fake, between(rng, real, fake))
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "critic %v, %d real and %d fake samples, penalty weight %v\n", widths, n, n, lambda)
	fmt.Fprintf(w, "before: distance estimate %.3f, mean |grad D| on interpolates %.3f\n", d0, g0)
	// Adam (lr 1e-2, betas 0.5 and 0.9, as WGAN-GP trains its critic), with fresh
	// interpolates at every step: with fixed ones the critic would be flat there
	// and steep elsewhere. It updates params in place.
	opt, err := optim.NewAdam(params, optim.AdamConfig{LR: 1e-2, Betas: [2]float64{0.5, 0.9}, Eps: 1e-8})
	if err != nil {
		return nil, err
	}
	var last float64
	for step := 1; step <= steps; step++ {
		val, grad, err := hvp.Grad(loss(real, fake, between(rng, real, fake)), params)
		if err != nil {
			return nil, err
		}
		last = val.Float64s()[0]
		if err := opt.Step(grad); err != nil {
			return nil, err
		}
		if step%(steps/5) == 0 {
			fmt.Fprintf(w, "step %4d: loss %8.4f\n", step, last)
		}
	}
	d1, g1, err := measures(params, real, fake, between(rng, real, fake))
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "after %d steps: distance estimate %.3f (W1 of the two clouds: 3), mean |grad D| on fresh interpolates %.3f\n", steps, d1, g1)
	return &result{Loss: last, Distance: d1, GradNorm: g1}, nil
}
