package optim_test

import (
	"fmt"
	"log"

	cr "github.com/chainrules-go/chainrules/chainrules"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/optim"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// Adam minimises f(x) = sum_i exp(x_i) - c_i x_i, whose minimiser is x_i = ln c_i,
// with gradients from hvp.Grad.
func ExampleAdam() {
	x, _ := tensor.FromFloat64([]float64{1, 1, 1}, 3)
	c, _ := tensor.FromFloat64([]float64{1, 2, 3}, 3)
	params := []*tensor.Dense{x}
	loss := func(t *hvp.Tape, p []cr.NodeID) cr.NodeID {
		cx := t.Apply(ew.MulOp, t.Constant(c), p[0])
		return t.Apply(reduce.SumOp(nil, false), t.Apply(ew.SubOp, t.Apply(ew.ExpOp, p[0]), cx))
	}
	opt, err := optim.NewAdam(params, optim.AdamConfig{LR: 1e-2})
	if err != nil {
		log.Fatal(err)
	}
	for step := 0; step < 2000; step++ {
		_, grads, err := hvp.Grad(loss, params)
		if err != nil {
			log.Fatal(err)
		}
		if err := opt.Step(grads); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Printf("x = %.4f (ln c = [0.0000 0.6931 1.0986])\n", x.Float64s())
	// Output:
	// x = [0.0000 0.6931 1.0986] (ln c = [0.0000 0.6931 1.0986])
}

// A linear warm-up over 3 epochs followed by a cosine decay over 4, as
// SequentialLR runs them.
func ExampleSequentialLR() {
	x, _ := tensor.FromFloat64([]float64{0}, 1)
	opt, err := optim.NewSGD([]*tensor.Dense{x}, optim.SGDConfig{LR: 0.1})
	if err != nil {
		log.Fatal(err)
	}
	warm, err := optim.NewLinearLR(opt, 0.25, 1, 3)
	if err != nil {
		log.Fatal(err)
	}
	decay, err := optim.NewCosineAnnealingLR(opt, 4, 0)
	if err != nil {
		log.Fatal(err)
	}
	sched, err := optim.NewSequentialLR(opt, []*optim.Scheduler{warm, decay}, []int{3})
	if err != nil {
		log.Fatal(err)
	}
	for epoch := 0; epoch < 8; epoch++ {
		fmt.Printf("%.4f ", opt.LR())
		// ... one epoch of opt.Step ...
		if err := sched.Step(); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Println()
	// Output:
	// 0.0250 0.0500 0.0750 0.1000 0.0854 0.0500 0.0146 0.0000
}

// ClipGradNorm scales the gradients so that their joint 2-norm is at most 1.
func ExampleClipGradNorm() {
	g1, _ := tensor.FromFloat64([]float64{3, 0}, 2)
	g2, _ := tensor.FromFloat64([]float64{4}, 1)
	total, err := optim.ClipGradNorm([]*tensor.Dense{g1, g2}, 1, 2)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("norm %.1f, clipped %.4f %.4f\n", total, g1.Float64s(), g2.Float64s())
	// Output:
	// norm 5.0, clipped [0.6000 0.0000] [0.8000]
}

// Batches cuts 5 samples into batches of 2 in a seeded order; the last batch is
// short.
func ExampleBatches() {
	x, _ := tensor.FromFloat64([]float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 5, 2)
	y, _ := tensor.FromFloat64([]float64{0, 10, 20, 30, 40}, 5)
	it, err := optim.NewBatches(x, y, optim.BatchConfig{BatchSize: 2})
	if err != nil {
		log.Fatal(err)
	}
	for it.Next() {
		xb, yb := it.Batch()
		fmt.Println(xb.Shape(), xb.Float64s(), yb.Float64s())
	}
	// Output:
	// [2 2] [0 1 2 3] [0 10]
	// [2 2] [4 5 6 7] [20 30]
	// [1 2] [8 9] [40]
}
