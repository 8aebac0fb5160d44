// Package core is the engine of chainrules-go: a tape that records values and the
// rules that differentiate them, and the sweeps that run those rules.
//
// Where to start: to differentiate a function of tensors, write it as an
// hvp.Func (it records its ops on a tape) and call hvp.Grad for its value and
// gradient, or hvp.Eval for its value alone; hvp also gives VJP, JVP, HVP, Hessian,
// Jacobian and Minimize. The ops are in packages elementwise, reduce, einsum,
// permute, index, nn and linalg (PyTorch's names: XxxOp, applied with
// tape.Apply(op, inputs...)), and package ops assembles their registry. Package
// core is the engine (Tape: Leaf, Apply, Backward, GradGraph) and package
// chainrules the protocol an op implements (Op, Rule); the README's "Writing an
// op" shows the four ways to add one.
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
// Hessian-vector products from the last two. The first- and second-order reverse
// sweeps are one loop, which carries the pairs only in the second.
//
// # Errors
//
// Recording keeps the first error (the bufio.Writer idiom): after a failure, Apply
// returns the zero NodeID without doing anything, and [Tape.Err] and every sweep
// report the failure. Errors wrap the sentinels of package chainrules and name the op
// and node through *chainrules.OpError.
//
// # Features
//
//   - No-grad scope: [Tape.NoGrad] and [Tape.SetGradEnabled] record values without
//     their rules (detached nodes: no gradient flows through, no residual is kept).
//   - Hooks: [Tape.AddHook] transforms a node's complete cotangent during a reverse
//     sweep (gradient clipping); [Tape.AddDualHook] also serves the second-order
//     sweep, so Hessian-vector products differentiate the hooked gradient.
//   - Anomaly mode: [Tape.DetectAnomaly] checks every value, tangent and cotangent
//     for NaN and infinities and names the op, the node and the file:line where it
//     was recorded.
//   - Ops with several outputs: [Tape.ApplyMulti] records any op (eigh, qr, split,
//     topk; a single-output op too) as one NodeID per output; [Tape.Apply] records
//     a single-output op. The sweeps see one kind of op: its rule runs once per
//     sweep, at its last output, with the cotangents of all outputs (one slot for
//     a single-output op, in a buffer reused from op to op); an output nobody used
//     has an absent cotangent that is never materialised, and non-differentiable
//     outputs (indices) are constants.
//   - Composite ops: [Composite] defines an op by a function that records other
//     ops (one output, or several with [Outputs]); its three rules come from that
//     recording, kept or recomputed ([Recompute]), and the op shows as one node.
//   - Ops from a primal and a pullback written with ops: [Define]. The forward
//     tangent comes from transposing the recorded pullback, the second-order rule
//     from a forward sweep through it, seeded with the output tangents of the
//     forward sweep.
//   - Derivatives of any order: [Tape.GradGraph] (and [Tape.GradGraphSeed],
//     [Tape.GradGraphSeeds]) records the reverse sweep itself on the tape, each op's
//     pullback recorded with ops (chainrules.PullbackRecorder), so gradients are
//     nodes that any sweep can differentiate again (PyTorch's create_graph). Ops
//     made with Define and Composite record theirs from their pullback or body.
//   - Checkpointing: [Tape.Checkpoint] records a sub-function as one node and
//     recomputes its intermediates in each sweep, to first and second order (it is
//     the recomputing composite).
//   - DOT export: [Tape.WriteDOT] draws the graph for Graphviz.
//   - Linearize and transpose: [Linearize] returns the JVP at a point as a
//     [LinearMap] that reuses the recorded rules; its Transpose is the VJP.
//
// # Concurrency
//
// A Tape, and the Gradients, Tangents and LinearMap it produces, are used from one
// goroutine at a time: recording and sweeping mutate the tape's scratch buffers.
// Separate tapes share no mutable state and may be used in parallel goroutines (the
// tape tags that tell tapes apart are issued atomically); a chainrules.Registry is
// safe for concurrent use, so one registry may serve the tapes of many goroutines
// while entries and overrides are added. Rules, hooks and checkpointed functions
// run on the goroutine that runs the sweep. go test -race ./core/ checks this.
package core
