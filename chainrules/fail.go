package chainrules

// FailOp returns an op named name whose Apply returns err (and no value or rule):
// recorded on a tape, it puts an error found before the real op could be applied
// (an invalid parameter, or an input that a composite's body cannot use) onto the
// tape's sticky error, where the caller of the op sees it as the failure of name.
func FailOp[V any](name string, err error) Op[V] {
	return OpFunc[V]{OpName: name, F: func([]NodeID, []V) (V, ReverseRule[V], error) {
		var zero V
		return zero, nil, err
	}}
}
