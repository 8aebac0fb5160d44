// Command cnn trains a small convolutional network on scikit-learn's 8x8 handwritten
// digits (1797 images; testdata/digits.csv.gz) and reports its accuracy on a held-out
// fifth of them (stratified, drawn from the seed). The network, as PyTorch would
// write it, is
//
//	conv2d(1→16, 3x3, padding 1), batch_norm, relu, max_pool2d(2)    [N, 16, 4, 4]
//	conv2d(16→32, 3x3, padding 1), batch_norm, relu, max_pool2d(2)   [N, 32, 2, 2]
//	flatten, linear(128→10)                                           [N, 10]
//
// with PyTorch's default initialisation (seeded), written as a Go function of its
// parameter set (model.go): no layer objects, the parameters are a slice of tensors
// that hvp differentiates and optim updates, and the batch norms' running statistics
// a state beside them.
//
// It is trained twice from the same start:
//
//   - with Adam on shuffled minibatches of 64 (optim.Adam, optim.Batches), the
//     learning rate on a cosine to 0 (optim.CosineAnnealingLR), the batch norms in
//     training mode (batch statistics, running statistics updated with momentum 0.1),
//     with a progress line of the epoch, the loss, the accuracy and the time left;
//   - with the project's second-order method, trust-region Newton-CG (hvp.Minimize
//     with hvp.NewtonCG), on the mean cross-entropy of the whole training set, its
//     curvature the Gauss-Newton matrix J^T H J of the logits (hvp.NewModelObjective),
//     or the exact Hessian with -curvature hessian. The batch norms normalise with
//     the statistics of the whole training set, which are a deterministic function of
//     the parameters, so the objective is an ordinary function with exact gradients
//     and curvature through the statistics; for evaluation the running statistics
//     are the training set's under the final parameters.
//
// The test accuracy is measured with the batch norms in evaluation mode (the running
// statistics).
//
//	go run ./examples/cnn                   # 30 epochs of Adam, then 20 Newton-CG iterations
//	go run ./examples/cnn -epochs 10        # quicker
//	go run ./examples/cnn -newton 0         # Adam only
//	go run ./examples/cnn -out DIR          # where to write cnn-*.png
//
// It prints the final training and test accuracy of both, and writes cnn-curves.png
// (loss and accuracy per epoch of Adam), cnn-methods.png (training loss and test
// accuracy of Adam and Newton-CG against time) and cnn-confusion.png (the confusion
// matrix of Adam's network on the test set).
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"time"

	"gonum.org/v1/gonum/optimize"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/optim"
	"github.com/chainrules-go/chainrules/tensor"
)

func main() {
	cfg := defaultConfig
	flag.StringVar(&cfg.Data, "data", cfg.Data, "the digits CSV (gzip)")
	flag.IntVar(&cfg.Epochs, "epochs", cfg.Epochs, "epochs of Adam")
	flag.IntVar(&cfg.BatchSize, "batch", cfg.BatchSize, "minibatch size of Adam")
	flag.Float64Var(&cfg.LR, "lr", cfg.LR, "learning rate of Adam")
	flag.IntVar(&cfg.NewtonIters, "newton", cfg.NewtonIters, "Newton-CG iterations (0: no Newton-CG)")
	flag.StringVar(&cfg.Curvature, "curvature", cfg.Curvature, "Newton-CG curvature: gn (Gauss-Newton) or hessian")
	flag.Float64Var(&cfg.Radius, "radius", cfg.Radius, "first trust-region radius of Newton-CG")
	flag.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "seed of the split, the initialisation and the batches")
	flag.StringVar(&cfg.Out, "out", cfg.Out, "directory for the PNG plots (empty: no plots)")
	flag.Parse()
	cfg.Terminal = isTerminal(os.Stdout)
	res, err := run(os.Stdout, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "cnn:", err)
		os.Exit(1)
	}
	if cfg.Out != "" {
		if err := writePlots(cfg.Out, res); err != nil {
			fmt.Fprintln(os.Stderr, "cnn:", err)
			os.Exit(1)
		}
	}
}

// isTerminal says whether f is a character device, where the progress line is
// rewritten in place.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// config is what the flags choose.
type config struct {
	Data        string
	TestFrac    float64 // the held-out fraction of every class
	Limit       int     // use only the first Limit samples (0: all)
	Epochs      int
	BatchSize   int
	LR          float64
	NewtonIters int     // 0: no Newton-CG
	NewtonCG    int     // the most CG iterations per Newton step
	Curvature   string  // "gn" or "hessian"
	Radius      float64 // the first trust-region radius of Newton-CG
	Seed        uint64
	Out         string
	Terminal    bool // rewrite the progress line in place (\r) instead of a line per epoch
}

var defaultConfig = config{
	Data: "examples/cnn/testdata/digits.csv.gz", TestFrac: 0.2, Epochs: 30, BatchSize: 64, LR: 1e-2,
	NewtonIters: 20, NewtonCG: 30, Curvature: "gn", Radius: 1, Seed: 1, Out: ".",
}

// epoch holds the figures of one epoch of Adam.
type epoch struct {
	Loss      float64 // the mean minibatch loss over the epoch
	TrainAcc  float64 // the accuracy on the minibatches, as they were seen
	TestAcc   float64 // the test accuracy at the end of the epoch
	TestLoss  float64 // the test loss at the end of the epoch
	Elapsed   time.Duration
	Evaluated time.Duration // time spent evaluating the test set (not training)
}

// point is one iterate of Newton-CG.
type point struct {
	Iter     int
	Loss     float64
	TestAcc  float64
	Elapsed  time.Duration
	HVPs, CG int
}

// result is the trained network of one method.
type result struct {
	Method     string
	Params     []*tensor.Dense
	Norms      *norms  // the batch norms' running statistics, for evaluation
	TrainAcc   float64 // on the whole training set, at the end
	TestAcc    float64
	Iterations int           // Adam steps, or Newton-CG iterations
	HVPs       int           // Newton-CG's curvature products
	Elapsed    time.Duration // wall time, without the test set's evaluations
	CPU        time.Duration // processor time of the process (user + system, all threads), likewise; 0 if unknown
}

// outcome is what a run found.
type outcome struct {
	Train, Test *dataset
	Epochs      []epoch
	Adam        result
	Newton      *result // nil without Newton-CG
	Trace       []point
	Confusion   [classes][classes]int // Adam's test set: [true][predicted]
}

func run(w io.Writer, cfg config) (*outcome, error) {
	if cfg.Epochs < 1 || cfg.BatchSize < 1 || cfg.NewtonIters < 0 || !(cfg.TestFrac > 0 && cfg.TestFrac < 1) {
		return nil, fmt.Errorf("bad configuration: %d epochs, batch %d, %d Newton iterations, test fraction %g (want at least 1, 1, 0, and in (0, 1))",
			cfg.Epochs, cfg.BatchSize, cfg.NewtonIters, cfg.TestFrac)
	}
	if _, err := curvatureOf(cfg.Curvature); err != nil {
		return nil, err
	}
	pixels, labels, err := loadDigits(cfg.Data)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 1))
	train, test := split(pixels, labels, cfg.TestFrac, cfg.Limit, rng)
	if train.Len() < 2 || test.Len() < 1 {
		return nil, fmt.Errorf("%d training and %d test images: too few", train.Len(), test.Len())
	}
	params, err := initParams(rng)
	if err != nil {
		return nil, err
	}
	layout, err := hvp.LayoutOf(params)
	if err != nil {
		return nil, err
	}
	start := make([]*tensor.Dense, len(params))
	for k, p := range params {
		start[k] = p.Clone()
	}
	out := &outcome{Train: train, Test: test}
	fmt.Fprintf(w, "digits: %d training and %d test images (8x8, stratified split, seed %d)\n", train.Len(), test.Len(), cfg.Seed)
	fmt.Fprintf(w, "network: conv 1→%d, batch norm, relu, pool; conv %d→%d, batch norm, relu, pool; linear %d→%d: %d parameters\n\n",
		channels1, channels1, channels2, flat, classes, layout.Dim())

	if err := trainAdam(w, cfg, params, out); err != nil {
		return nil, err
	}
	_, _, pred, err := evaluate(out.Adam.Params, out.Adam.Norms, test)
	if err != nil {
		return nil, err
	}
	for i, y := range test.Labels {
		out.Confusion[y][pred[i]]++
	}
	if cfg.NewtonIters > 0 {
		if err := trainNewton(w, cfg, start, layout, out); err != nil {
			return nil, err
		}
	}
	fmt.Fprintf(w, "\n%-10s %10s %10s %10s %10s %8s %10s\n", "method", "iterations", "time", "CPU time", "train acc", "test acc", "HVPs")
	for _, r := range []*result{&out.Adam, out.Newton} {
		if r == nil {
			continue
		}
		hvps := "-"
		if r.HVPs > 0 {
			hvps = fmt.Sprint(r.HVPs)
		}
		cpu := "-"
		if r.CPU > 0 {
			cpu = r.CPU.Round(10 * time.Millisecond).String()
		}
		fmt.Fprintf(w, "%-10s %10d %10v %10s %9.2f%% %7.2f%% %10s\n", r.Method, r.Iterations, r.Elapsed.Round(10*time.Millisecond), cpu,
			100*r.TrainAcc, 100*r.TestAcc, hvps)
	}
	return out, nil
}

// crossEntropy returns the mean cross-entropy of the network on the images x with
// the labels, as a function of the parameter set; the logits' values are handed to
// seen, if not nil, while the tape holds them. The batch norms use the statistics s
// says.
func crossEntropy(x *tensor.Dense, labels []int, s *norms, seen func(*tensor.Dense)) hvp.Func {
	ce := nn.CrossEntropyOp(labels)
	return func(t *hvp.Tape, p []cr.NodeID) cr.NodeID {
		y := logits(t, p, t.Constant(x), s)
		if seen != nil {
			if v, err := t.Value(y); err == nil {
				seen(v)
			}
		}
		return t.Apply(ce, y)
	}
}

// trainAdam trains params in place with Adam on minibatches of the training set,
// printing a progress line, and fills out.Epochs and out.Adam.
func trainAdam(w io.Writer, cfg config, params []*tensor.Dense, out *outcome) error {
	train, test := out.Train, out.Test
	batches, err := optim.NewBatches(train.X, train.Y, optim.BatchConfig{BatchSize: cfg.BatchSize, Shuffle: true, Seed: cfg.Seed})
	if err != nil {
		return err
	}
	opt, err := optim.NewAdam(params, optim.AdamConfig{LR: cfg.LR})
	if err != nil {
		return err
	}
	// The learning rate falls from LR to 0 over the run on a cosine
	// (torch.optim.lr_scheduler.CosineAnnealingLR, stepped once per epoch).
	schedule, err := optim.NewCosineAnnealingLR(opt, cfg.Epochs, 0)
	if err != nil {
		return err
	}
	bar := &progress{w: w, terminal: cfg.Terminal, epochs: cfg.Epochs, steps: cfg.Epochs * batches.Len()}
	labels := make([]int, cfg.BatchSize)
	bn := newNorms() // training mode: batch statistics, running ones updated
	began, cpu0 := time.Now(), cpuTime()
	var evaluating, cpuEval time.Duration // spent on the test set, not counted in the ETA
	steps := 0
	var grad hvp.Gradient // each step's gradient in the memory of the one before
	for e := range cfg.Epochs {
		var lossSum float64
		right, seen := 0, 0
		for batches.Next() {
			xb, yb := batches.Batch()
			labels = labels[:0]
			for _, v := range yb.Float64s() {
				labels = append(labels, int(v))
			}
			count := func(logits *tensor.Dense) {
				for i, c := range argmax(logits) {
					if c == labels[i] {
						right++
					}
				}
			}
			// grads lives until the next step's gradient, which reuses its memory.
			loss, grads, err := grad.Grad(crossEntropy(xb, labels, bn, count), params)
			if err != nil {
				return err
			}
			bn.commit()
			if err := opt.Step(grads); err != nil {
				return err
			}
			l := loss.Float64s()[0]
			lossSum += l * float64(len(labels))
			seen += len(labels)
			steps++
			bar.step(e, steps, lossSum/float64(seen), float64(right)/float64(seen), time.Since(began)-evaluating)
		}
		if err := schedule.Step(); err != nil {
			return err
		}
		ev, cpuEv := time.Now(), cpuTime()
		testLoss, testAcc, _, err := evaluate(params, bn.with(runningStats), test)
		if err != nil {
			return err
		}
		evaluating += time.Since(ev)
		cpuEval += cpuTime() - cpuEv
		out.Epochs = append(out.Epochs, epoch{Loss: lossSum / float64(seen), TrainAcc: float64(right) / float64(seen),
			TestAcc: testAcc, TestLoss: testLoss, Elapsed: time.Since(began), Evaluated: evaluating})
		bar.epoch(e, out.Epochs[e], time.Since(began)-evaluating)
	}
	elapsed, cpu := time.Since(began), cpuTime()-cpu0-cpuEval
	eval := bn.with(runningStats)
	_, trainAcc, _, err := evaluate(params, eval, train)
	if err != nil {
		return err
	}
	last := out.Epochs[len(out.Epochs)-1]
	// The method's time leaves out the test set's evaluations, as Newton-CG's does.
	out.Adam = result{Method: "Adam", Params: params, Norms: eval, TrainAcc: trainAcc, TestAcc: last.TestAcc, Iterations: steps,
		Elapsed: elapsed - evaluating, CPU: cpu}
	fmt.Fprintf(w, "Adam: %d epochs (%d steps of batch %d, lr %g on a cosine to 0) in %v of training (%v with the test set's evaluations): train accuracy %.2f%%, test accuracy %.2f%%\n",
		cfg.Epochs, steps, cfg.BatchSize, cfg.LR, (elapsed - evaluating).Round(10*time.Millisecond), elapsed.Round(10*time.Millisecond), 100*trainAcc, 100*last.TestAcc)
	return nil
}

// evaluate returns the mean cross-entropy, the accuracy and the predicted classes
// of the network on d, its batch norms as s says (their running statistics, for
// evaluation).
func evaluate(params []*tensor.Dense, s *norms, d *dataset) (loss, acc float64, pred []int, err error) {
	f := crossEntropy(d.X, d.Labels, s, func(y *tensor.Dense) { pred = argmax(y) })
	v, err := hvp.Eval(f, params) // no gradients: a tape in no-grad mode
	if err != nil {
		return 0, 0, nil, err
	}
	return v.Float64s()[0], accuracy(pred, d.Labels), pred, nil
}

// trainNewton minimises the mean cross-entropy of the whole training set from the
// parameters start with trust-region Newton-CG, and fills out.Newton and out.Trace.
func trainNewton(w io.Writer, cfg config, start []*tensor.Dense, layout hvp.Layout, out *outcome) error {
	train, test := out.Train, out.Test
	// The batch norms normalise with the statistics of the whole training set, a
	// deterministic function of the parameters: the objective is a plain function of
	// them, with exact gradients and curvature through the statistics.
	full := newNorms().with(batchStats)
	model := func(t *hvp.Tape, p []cr.NodeID) cr.NodeID { return logits(t, p, t.Constant(train.X), full) }
	obj := hvp.NewModelObjective(model, hvp.CrossEntropyLoss(train.Labels), layout)
	curvature, err := curvatureOf(cfg.Curvature)
	if err != nil {
		return err
	}
	method := &hvp.NewtonCG{MaxCGIterations: cfg.NewtonCG, InitialRadius: cfg.Radius, Curvature: curvature}
	x0, err := layout.Flatten(start)
	if err != nil {
		return err
	}
	// The recorder evaluates the test accuracy at every iterate, off the clock.
	rec := &testRecorder{layout: layout, train: train, test: test, method: method}
	settings := &optimize.Settings{
		GradientThreshold: 1e-6,
		MajorIterations:   cfg.NewtonIters + 1, // gonum counts the start
		Recorder:          rec,
	}
	fmt.Fprintf(w, "\nNewton-CG (%s curvature, at most %d CG iterations a step) on the cross-entropy of the %d training images:\n",
		map[hvp.Curvature]string{hvp.GaussNewtonCurvature: "Gauss-Newton", hvp.HessianCurvature: "exact Hessian"}[method.Curvature],
		cfg.NewtonCG, train.Len())
	rec.w = w
	rec.began, rec.cpuBegan = time.Now(), cpuTime()
	res, err := hvp.Minimize(obj, x0, settings, method)
	if err != nil {
		return err
	}
	elapsed, cpu := time.Since(rec.began)-rec.evaluating, cpuTime()-rec.cpuBegan-rec.cpuEval
	params, err := layout.Unflatten(res.X)
	if err != nil {
		return err
	}
	// For evaluation, the running statistics are those of the whole training set:
	// the ones the network was trained with.
	eval, err := fullBatchStats(params, train.X)
	if err != nil {
		return err
	}
	_, trainAcc, _, err := evaluate(params, eval, train)
	if err != nil {
		return err
	}
	_, testAcc, _, err := evaluate(params, eval, test)
	if err != nil {
		return err
	}
	out.Newton = &result{Method: "Newton-CG", Params: params, Norms: eval, TrainAcc: trainAcc, TestAcc: testAcc,
		Iterations: res.Stats.MajorIterations - 1, HVPs: method.HVPs, Elapsed: elapsed, CPU: cpu}
	out.Trace = rec.points
	fmt.Fprintf(w, "Newton-CG: %v after %d iterations (%d curvature products, %d rejected steps) in %v: loss %.4g, train accuracy %.2f%%, test accuracy %.2f%%\n",
		res.Status, res.Stats.MajorIterations-1, method.HVPs, method.Rejected, elapsed.Round(10*time.Millisecond), res.F, 100*trainAcc, 100*testAcc)
	return nil
}

// curvatureOf returns the curvature the -curvature flag names.
func curvatureOf(name string) (hvp.Curvature, error) {
	switch strings.ToLower(name) {
	case "gn", "gauss-newton":
		return hvp.GaussNewtonCurvature, nil
	case "hessian":
		return hvp.HessianCurvature, nil
	}
	return 0, fmt.Errorf("unknown curvature %q (gn or hessian)", name)
}

// testRecorder is an optimize.Recorder that keeps every iterate of Newton-CG with
// its test accuracy, and prints a line per iteration; the time it takes is kept
// apart (evaluating) so that it does not count as the method's.
type testRecorder struct {
	w          io.Writer
	layout     hvp.Layout
	train      *dataset // whose statistics the batch norms take for evaluation
	test       *dataset
	method     *hvp.NewtonCG
	began      time.Time
	evaluating time.Duration
	cpuBegan   time.Duration // the process's processor time at the start
	cpuEval    time.Duration // processor time of the evaluations
	points     []point
	next       int // the next iteration to keep
}

func (r *testRecorder) Init() error { return nil }

func (r *testRecorder) Record(loc *optimize.Location, op optimize.Operation, stats *optimize.Stats) error {
	// gonum counts the starting point as a major iteration, and records the result
	// once more after the last one (PostIteration), as hvp.Trace reads them.
	iter := stats.MajorIterations - 1
	if op != optimize.MajorIteration && (op != optimize.PostIteration || iter < r.next) {
		return nil
	}
	r.next = iter + 1
	ev, cpuEv := time.Now(), cpuTime()
	params, err := r.layout.Unflatten(loc.X)
	if err != nil {
		return err
	}
	eval, err := fullBatchStats(params, r.train.X)
	if err != nil {
		return err
	}
	_, acc, _, err := evaluate(params, eval, r.test)
	if err != nil {
		return err
	}
	p := point{Iter: iter, Loss: loc.F, TestAcc: acc, Elapsed: ev.Sub(r.began) - r.evaluating}
	radius := math.NaN()
	if it := r.method.LastIteration(); it.Iter == iter && iter > 0 {
		p.HVPs, p.CG, radius = it.HVPs, it.CGIterations, it.Radius
	}
	r.add(p, infNorm(loc.Gradient), radius)
	r.evaluating += time.Since(ev)
	r.cpuEval += cpuTime() - cpuEv
	return nil
}

// add keeps p and prints it.
func (r *testRecorder) add(p point, gradNorm, radius float64) {
	r.points = append(r.points, p)
	fmt.Fprintf(r.w, "  iteration %3d  loss %.4e  |g|∞ %.2e  radius %8.3g  CG %3d  test accuracy %6.2f%%  %v\n",
		p.Iter, p.Loss, gradNorm, radius, p.CG, 100*p.TestAcc, p.Elapsed.Round(10*time.Millisecond))
}

func infNorm(g []float64) float64 {
	m := 0.0
	for _, v := range g {
		m = math.Max(m, math.Abs(v))
	}
	return m
}
