package hvp

import (
	"errors"

	"gonum.org/v1/gonum/optimize"
)

// newtonMethod is what NewtonCG and LineSearchNewtonCG share besides their options
// and counters: the outcome and figures of the last run, and the plumbing of an
// optimize.Method (Uses, Status, LastIteration, and the end of Run).
type newtonMethod struct {
	status optimize.Status
	err    error
	dim    int
	last   Iteration
	name   string    // the method's name, for a *PanicError
	run    runMethod // the method's loop
}

// runMethod is the loop of a Newton method, run on gonum's goroutine by Run.
type runMethod func(operation chan<- optimize.Task, result <-chan optimize.Task, task optimize.Task) (optimize.Status, error)

var (
	_ optimize.Method = (*NewtonCG)(nil)
	_ optimize.Method = (*LineSearchNewtonCG)(nil)
	_ Reporter        = (*NewtonCG)(nil)
	_ Reporter        = (*LineSearchNewtonCG)(nil)
)

// reset starts a run of the method name, whose loop is run, over dim variables,
// and returns the number of tasks, 1: the Newton methods are sequential.
func (b *newtonMethod) reset(dim int, name string, run runMethod) int {
	b.dim, b.name, b.run = dim, name, run
	b.status, b.err = optimize.NotTerminated, nil
	b.last = Iteration{Iter: -1}
	return 1
}

// Uses implements optimize.Method: the method needs gradients (and HessVec).
func (b *newtonMethod) Uses(has optimize.Available) (optimize.Available, error) {
	if !has.Grad {
		return optimize.Available{}, optimize.ErrMissingGrad
	}
	return optimize.Available{Grad: true}, nil
}

// Run implements optimize.Method: it runs the method's loop from tasks[0] (one
// task: the Newton methods are sequential).
func (b *newtonMethod) Run(operation chan<- optimize.Task, result <-chan optimize.Task, tasks []optimize.Task) {
	b.finish(operation, result, b.name, func() (optimize.Status, error) { return b.run(operation, result, tasks[0]) })
}

// Status implements optimize.Statuser.
func (b *newtonMethod) Status() (optimize.Status, error) { return b.status, b.err }

// LastIteration implements Reporter: the method's figures for its last major
// iteration.
func (b *newtonMethod) LastIteration() Iteration { return b.last }

// errStopped says gonum asked the method to stop.
var errStopped = errors.New("stopped by the caller")

// finish runs a method's loop and ends the conversation with gonum: unless gonum
// stopped it, it records the status, tells gonum the method is done and waits for its
// PostIteration; then it drains result and closes operation. The loop runs on
// gonum's method goroutine, where the caller cannot recover a panic (of HessVec, Err
// or the Linesearcher, the caller's code): it fails with a *PanicError instead.
func (b *newtonMethod) finish(operation chan<- optimize.Task, result <-chan optimize.Task, name string, run func() (optimize.Status, error)) {
	s, err := protectRun(name, run)
	if !errors.Is(err, errStopped) {
		b.status, b.err = s, err
		if err == nil && s == optimize.NotTerminated {
			b.status = optimize.MethodConverge
		}
		operation <- optimize.Task{Op: optimize.MethodDone}
	}
	for range result { // read until gonum closes result, then close operation
	}
	close(operation)
}

// protectRun returns run(), or optimize.Failure and a *PanicError for a panic of run.
// No request to gonum is outstanding when run panics: eval sends a task and waits for
// its result with nothing in between.
func protectRun(name string, run func() (optimize.Status, error)) (s optimize.Status, err error) {
	defer func() {
		if p := recovered(recover(), name, -1); p != nil {
			s, err = optimize.Failure, p
		}
	}()
	return run()
}

// wireProducts sets a Newton method's HessVec, if nil, to obj's product of curvature
// c, and its Err, if nil, to obj.Err.
func wireProducts(obj *Objective, c Curvature, hessVec *HessVecFunc, errFunc *func() error) {
	if *hessVec == nil {
		*hessVec = c.productOf(obj)
	}
	if *errFunc == nil {
		*errFunc = obj.Err
	}
}
