package chainrules

// FailOp returns a single-output op named name whose Apply returns err (and no
// value or rule): recorded on a tape, it puts an error found before the real op
// could be applied (an invalid parameter, or an input that a composite's body cannot
// use) onto the tape's sticky error, where the caller of the op sees it as the
// failure of name.
func FailOp[V any](name string, err error) Op[V] { return FailOpN[V](name, 1, err) }

// FailOpN is FailOp for an op with n outputs, so that a recorder's ApplyMulti
// returns n (zero) NodeIDs, as many as the real op would.
func FailOpN[V any](name string, n int, err error) Op[V] {
	return failOp[V]{name: name, n: max(n, 1), err: err}
}

type failOp[V any] struct {
	name string
	n    int
	err  error
}

func (o failOp[V]) Name() string                              { return o.name }
func (o failOp[V]) NumOutputs() int                           { return o.n }
func (o failOp[V]) Apply([]NodeID, []V, []V) (Rule[V], error) { return nil, o.err }
