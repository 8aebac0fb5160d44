// Package core is the engine of chainrules-go: a tape that records values and the
// rules that differentiate them, and the sweeps that run those rules.
//
// A [Tape] is generic over the value type V and needs only the [chainrules.Space] of
// V, so one engine serves scalar graphs on float64 and tensor graphs on
// *tensor.Dense.
//
//	t := core.NewTape[float64](chainrules.Float64Space{})
//	x := t.Leaf(3)
//	y := t.Apply(square, x) // any chainrules.Op[float64]
//	g, err := t.Backward(y) // scalar output: the seed defaults to 1
//	dx, _ := g.Of(x)        // 6
//
// # Sweeps
//
// NodeIDs are dense in recording order and every input is recorded before the op
// that reads it, so decreasing index order is a topological order of the graph. The
// reverse sweep ([Tape.Backward]) walks it once, iteratively: it runs the pullback of
// every node that the output reaches and that some leaf influences, and adds up the
// contributions of nodes used more than once. The forward sweep
// ([Tape.ForwardTangents]) walks increasing order and computes the JVP of every node
// from leaf tangents. The second-order sweep ([Tape.BackwardWithTangents]) carries
// cotangent/cotangent-tangent pairs through PullbackWithTangents; package hvp builds
// Hessian-vector products from the last two.
//
// # Errors
//
// Recording keeps the first error (the bufio.Writer idiom): after a failure, Apply
// returns the zero NodeID without doing anything, and [Tape.Err] and every sweep
// report the failure. Errors wrap the sentinels of package chainrules and name the op
// and node through *chainrules.OpError.
//
// # Concurrency
//
// A Tape is used from one goroutine at a time. Separate tapes may be used in parallel.
package core
