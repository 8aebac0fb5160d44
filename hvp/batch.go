package hvp

import (
	"fmt"
	"runtime"
	"sync/atomic"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// WithWorkers returns the transforms of the default registry (those of the
// package-level functions) with Workers n; see Transforms.WithWorkers. For example
// WithWorkers(1).Hessian(f, x) computes the columns one after another on one tape.
func WithWorkers(n int) Transforms { return defaults().WithWorkers(n) }

// WithWorkers returns the transforms whose Operators (and Hessian) spread a batch of
// Hessian-vector products over at most n goroutines; see Operator.Workers. n <= 0
// means the default, min(k, GOMAXPROCS) for a batch of k products, and n = 1 runs
// every batch on the calling goroutine, on one tape.
func (tr Transforms) WithWorkers(n int) Transforms {
	tr.workers = max(n, 0)
	return tr
}

// ApplyBatch returns the Hessian-vector products H v_i for the k = len(vs)
// directions vs[i] (each one direction per input, nil meaning zero), spread over up
// to W = min(k, Workers) goroutines (Workers <= 0: W = min(k, GOMAXPROCS)):
//
//	out[i] = H vs[i],  i = 0, ..., k-1.
//
// The tape of an Operator serves one sweep at a time, so each extra worker owns a
// recording of its own of f at x, made by calling f again on that worker's goroutine
// the first time it has taken a direction and kept for later batches (at most W-1
// extra tapes); a recording costs about one forward pass, less than one product. The
// calling goroutine starts on the Operator's own tape at once, and the workers take
// the directions in order as they become free. ApplyBatch waits for the directions
// taken, not for a worker that has not started: one that starts only after every
// direction has been taken (its core busy with another process) finds none left and
// ends without recording f, so a batch that the calling goroutine finishes alone
// costs no recording.
//
// The products are bit-identical to k calls of Apply: the same sweeps on identical
// recordings. f must therefore be safe to call from several goroutines at once, as
// it is when it records only on the tape it is given and only reads the data it
// captures; a panic in f on a worker is re-raised on the calling goroutine.
//
// An error names the first failing direction, as the sequential loop would: "hvp:
// direction i: ...", wrapping the chainrules sentinel of the cause (a direction
// with the wrong number of tensors: chainrules.ErrInvalidArgument; one of the
// wrong shape: chainrules.ErrShapeMismatch). k = 0 returns an empty result.
//
// # Threads
//
// Go runs goroutines on at most GOMAXPROCS threads, so GOMAXPROCS (runtime.GOMAXPROCS
// or the GOMAXPROCS environment variable) bounds the parallelism of a batch, and
// Workers (or Transforms.WithWorkers) caps the workers below it; Workers = 1 is the
// sequential loop. The kernels inside each sweep are parallel on their own, with no
// setting but GOMAXPROCS: package tensor's GEMM (internal/gemm) splits a product of
// m*n*k >= 2^21 multiply-adds over runtime.GOMAXPROCS(0) goroutines, and package
// elementwise splits a kernel over tensors of at least 2^17 elements into pieces of
// at least 2^16. Within a batch those goroutines share the same GOMAXPROCS threads
// with the workers instead of adding threads, so nothing is oversubscribed at the OS
// level, but each split product packs its shared operand once per slab for nothing
// when the workers already fill every core. Products routed to gonum's BLAS by
// tensor.UseBLAS64 use that BLAS's own threads (for OpenBLAS, OPENBLAS_NUM_THREADS),
// which GOMAXPROCS does not bound: set them to 1 when a batch already uses every core.
func (o *Operator) ApplyBatch(vs [][]*tensor.Dense) ([][]*tensor.Dense, error) {
	out := make([][]*tensor.Dense, len(vs))
	err := o.spread(len(vs), func(op *Operator, _, i int) error {
		hv, err := op.Apply(vs[i])
		out[i] = hv
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("hvp: %w", err)
	}
	return out, nil
}

// ApplyBatchFlat stores the products H v[i] in dst[i] for the k = len(v) directions
// v[i], in the flat view of the inputs' Layout (each of length Layout().Dim(), as in
// ApplyFlat), spread over goroutines as ApplyBatch does and bit-identical to k calls
// of ApplyFlat. len(dst) must be k (an error wrapping chainrules.ErrShapeMismatch
// otherwise); the directions are not copied (their float32 parts excepted, as in
// ApplyFlat), and no dst[i] may overlap a direction.
func (o *Operator) ApplyBatchFlat(dst, v [][]float64) error {
	if len(dst) != len(v) {
		return cr.Errorf(cr.ErrShapeMismatch, "hvp: %d destinations for %d directions", len(dst), len(v))
	}
	l, err := o.Layout()
	if err != nil {
		return err
	}
	err = o.spread(len(v), func(op *Operator, _, i int) error { return flatApply(l, dst[i], v[i], op.Apply) })
	if err != nil {
		return fmt.Errorf("hvp: %w", err)
	}
	return nil
}

// workerCount returns the number of goroutines for a batch of k products.
func (o *Operator) workerCount(k int) int {
	w := o.Workers
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	return max(min(w, k), 1)
}

// spread calls fn(op, w, i) for every i in [0, k), on up to workerCount(k)
// goroutines (GOMAXPROCS read at each call): worker 0 is the calling goroutine with
// op = o, worker w > 0 a goroutine of its own with o.helpers[w-1], a recording of f
// of its own, made the first time the worker has taken an index. The workers take
// the indices in increasing order from a shared counter and, after the first error
// or panic, skip the indices they take. spread waits for the indices taken, never
// for a worker goroutine that has not started: one that starts after the others
// have taken every index (its core busy with another process) finds none left and
// ends without recording f or touching the Operator. Since every index below a
// taken one has also been taken and run to its end, the error of the smallest
// failing index is the one the sequential loop would meet first, and it is returned
// as "direction i: ..." (the callers prefix their name). A panic of fn or of f on a
// worker is raised again on the calling goroutine once the indices under way are
// done.
func (o *Operator) spread(k int, fn func(op *Operator, w, i int) error) error {
	nw := o.workerCount(k)
	if nw == 1 {
		for i := range k {
			if err := fn(o, 0, i); err != nil {
				return fmt.Errorf("direction %d: %w", i, err)
			}
		}
		return nil
	}
	for len(o.helpers) < nw-1 {
		o.helpers = append(o.helpers, nil)
	}
	var (
		stop   atomic.Bool
		failed = make([]int, nw) // failed[w]: the index worker w failed at, or -1
		errs   = make([]error, nw)
		panics = make([]any, nw)
	)
	for w := range failed {
		failed[w] = -1
	}
	// run runs index i on worker w; each worker's slots are written by it alone,
	// and read by the caller after forEachClaimed. It recovers a panic of fn.
	run := func(w, i int) {
		if stop.Load() {
			return
		}
		defer func() {
			if p := recover(); p != nil {
				panics[w] = p
				stop.Store(true)
			}
		}()
		op := o
		if w > 0 {
			h, err := o.helper(w - 1)
			if err != nil {
				errs[w] = fmt.Errorf("recording f again for batch worker %d: %w", w, err)
				stop.Store(true)
				return
			}
			op = h
		}
		if err := fn(op, w, i); err != nil {
			failed[w], errs[w] = i, err
			stop.Store(true)
		}
	}
	forEachClaimed(k, nw, run)
	for _, p := range panics {
		if p != nil {
			panic(p)
		}
	}
	first, err := -1, error(nil)
	for w, i := range failed {
		if i >= 0 && (first < 0 || i < first) {
			first, err = i, errs[w]
		}
	}
	if first >= 0 {
		return fmt.Errorf("direction %d: %w", first, err)
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	if o.grad == nil {
		for _, op := range o.helpers {
			if op != nil && op.grad != nil {
				o.grad = op.grad
				break
			}
		}
	}
	return nil
}

// helper returns the recording of batch worker j+1, recording f at x the first time.
// Each worker touches only its own slot.
func (o *Operator) helper(j int) (*Operator, error) {
	if op := o.helpers[j]; op != nil {
		return op, nil
	}
	op, err := o.remake()
	if err != nil {
		return nil, err
	}
	op.Workers = 1
	o.helpers[j] = op
	return op, nil
}
