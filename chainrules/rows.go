package chainrules

// RowContribution is a pullback term that is zero outside a few slices of the
// input along its first axis (its rows): the cotangent of Node gets
//
//	xbar[Rows[k], ...] += Value[k, ...]   for k = 0, ..., len(Rows)-1,
//
// repeated rows adding up. Value has the input's shape with the first axis of
// length len(Rows). A lookup of 4 rows of a 10^6-row table contributes 4 rows, not
// a 10^6-row tensor of zeros.
type RowContribution[V any] struct {
	Node  NodeID
	Rows  []int
	Value V
}

// RowPullbackRule is an optional interface of a Rule whose pullback touches
// few rows of an input: index_select along the first axis, embedding lookups.
// RowPullback appends the same terms as Pullback, with the terms that are row-sparse
// given as RowContributions and the others as Contributions. The engine calls it,
// when its Space is a RowSpace, in place of Pullback in a first-order sweep; it keeps
// the rows apart and adds them into a dense cotangent only when one is needed (the
// node's own pullback, a hook, anomaly checks, or a caller reading the gradient
// with Of). Other consumers of rules (the checker, Define, LinearMap) call Pullback,
// which stays the reference: ruletest checks that the two agree.
type RowPullbackRule[V any] interface {
	Rule[V]
	RowPullback(ybar []V, has []bool, dst []Contribution[V], rows []RowContribution[V]) ([]Contribution[V], []RowContribution[V], error)
}

// RowSpace is an optional interface of a Space whose values have rows (a first
// axis), for row-sparse cotangents (RowPullbackRule).
type RowSpace[V any] interface {
	// CheckRows returns nil if v can be added into the rows of a value shaped like
	// like: every row in range, and v shaped like like with its first axis of
	// length len(rows) and a dtype that like's cotangent can hold. Otherwise it
	// returns an error wrapping ErrShapeMismatch or ErrInvalidArgument.
	CheckRows(like V, rows []int, v V) error
	// AddRows returns acc with v[k] added into its row rows[k] for every k. It
	// may overwrite acc, which the engine owns; v passed CheckRows against acc.
	AddRows(acc V, rows []int, v V) (V, error)
	// CoalesceRows returns the distinct rows of parts in increasing order and, for
	// each, the sum of the slices the parts hold for it: the compact form of a
	// cotangent that is the sum of row-sparse terms shaped like like.
	CoalesceRows(like V, parts []RowContribution[V]) (rows []int, v V, err error)
}
