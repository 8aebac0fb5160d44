package core

// SetGradEnabled turns gradient recording on or off and returns the previous
// setting. While it is off, Apply, Record and Checkpoint still compute and record
// values (so later ops can read them), but they drop the rules: the nodes are
// detached, like constants. No gradient or tangent flows through them, and the
// values an op's rule captured (its residuals) are not kept alive by the tape.
// Leaf still records leaves. The setting belongs to the tape; it is on for a new
// tape.
func (t *Tape[V]) SetGradEnabled(enabled bool) (previous bool) {
	previous = !t.noGrad
	t.noGrad = !enabled
	return previous
}

// GradEnabled reports whether the tape records rules (see SetGradEnabled).
func (t *Tape[V]) GradEnabled() bool { return !t.noGrad }

// NoGrad runs f with gradient recording off (PyTorch's torch.no_grad()) and then
// restores the previous setting, also when f panics. Typical uses are evaluation
// passes and parameter updates recorded on the same tape as the model.
func (t *Tape[V]) NoGrad(f func()) {
	prev := t.SetGradEnabled(false)
	defer t.SetGradEnabled(prev)
	f()
}
