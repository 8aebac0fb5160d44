package chainrules

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error the project returns wraps one of them, so callers test
// with errors.Is; an *OpError adds the op and the node.
var (
	// ErrNonScalarLoss: a backward pass from an output of more than one element was
	// asked for without a seed cotangent.
	ErrNonScalarLoss = errors.New("output is not a scalar and no seed was given")
	// ErrMissingNode: a NodeID that is not on this tape (a foreign or zero NodeID, or
	// an index past the end).
	ErrMissingNode = errors.New("node is not on this tape")
	// ErrShapeMismatch: values whose shapes (or dtypes) do not fit together.
	ErrShapeMismatch = errors.New("shape mismatch")
	// ErrHVPNotSupported: a second-order sweep reached a rule that has no
	// PullbackWithTangents.
	ErrHVPNotSupported = errors.New("second-order rule (PullbackWithTangents) not supported")
	// ErrNoRule: a rule, or a forward rule, is missing for an op, or an op name is not
	// registered.
	ErrNoRule = errors.New("no rule")
	// ErrGraphFreed: the tape's graph was released with Free.
	ErrGraphFreed = errors.New("graph has been freed")
	// ErrInvalidArgument: a bad parameter (an einsum spec, an axis out of range, a
	// negative size, ...).
	ErrInvalidArgument = errors.New("invalid argument")
	// ErrDuplicate: a registry already holds an op of that name.
	ErrDuplicate = errors.New("duplicate op name")
	// ErrNonFinite: a NaN or an infinity where anomaly checking was asked for.
	ErrNonFinite = errors.New("non-finite value")
)

// OpError reports a failure of one op at one node. Phase says which part failed:
// "apply", "pullback", "forward" or "second-order".
type OpError struct {
	Op    string
	Node  NodeID
	Phase string
	Err   error
}

// Error formats the op, the node, the phase and the underlying error.
func (e *OpError) Error() string {
	if e.Node.Valid() {
		return fmt.Sprintf("chainrules: %s at node %v (%s): %v", e.Op, e.Node, e.Phase, e.Err)
	}
	return fmt.Sprintf("chainrules: %s (%s): %v", e.Op, e.Phase, e.Err)
}

// Unwrap returns the underlying error.
func (e *OpError) Unwrap() error { return e.Err }

// Errorf returns an error that wraps sentinel and formats the rest like fmt.Errorf
// (%w included): Errorf(ErrShapeMismatch, "got %v, want %v", a, b) reads
// "shape mismatch: got [2 3], want [3 2]".
func Errorf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)
}
