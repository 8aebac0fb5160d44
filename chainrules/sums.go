package chainrules

// CotangentSum is the sum of the elements of a cotangent v,
//
//	s = sum_i v_i,
//
// as a SumPullbackRule and the engine trade it: Value holds s when Known is set,
// and nothing otherwise. The sum is exact in the only sense that matters to the
// rules that read it: it is bit for bit what the Space's SumOf returns for v
// (SumSpace), the value a pullback would get by summing v itself.
type CotangentSum struct {
	Value float64
	Known bool
}

// SumSpace is an optional interface of a Space whose values can carry the sum of
// their elements through a reverse sweep (SumPullbackRule).
type SumSpace[V any] interface {
	// SumOf returns sum_i v_i, rounded as the Space's reduction of v to a single
	// element rounds it (for tensor.Dense: tensor.SumTo(v, shape of 1s)), and
	// true; or false if v's elements are not real float64s, which carry no sum.
	SumOf(v V) (float64, bool)
}

// SumPullbackRule is an optional interface of a single-output Rule whose pullback
// can hand the engine the sums of the cotangents it makes, or use the sum of the
// cotangent it is given instead of computing it.
//
// Two pullbacks in a row show why. Exp's pullback makes xbar_i = y_i ybar_i, and
// can add the xbar_i up in the same pass, at no cost in memory traffic. The
// difference d = x - a with a scalar a (lse's x - max x) has the pullback
// (xbar, abar) = (dbar, -sum_i dbar_i): a second pass over dbar, which that sum
// makes unnecessary.
//
// PullbackSum appends exactly the contributions Pullback(ybar[:1], [true], dst)
// would append, bit for bit, and one CotangentSum per contribution to sums, Known
// only if its Value is SumSpace.SumOf of that contribution. sum is the sum of
// ybar's elements when Known (the engine passes it only if it is SumOf(ybar));
// the rule may use it in place of summing ybar.
//
// The engine (core) calls PullbackSum in place of Pullback in a first-order
// sweep, on a tape without hooks and with a SumSpace. It keeps the sum next to
// the cotangent in the sweep's slot of the node the contribution goes to, and
// forgets it as soon as the slot's value is no longer that contribution alone: a
// second contribution added to it (the sum of two sums rounds differently from
// the sum of the added elements), row-sparse terms added in, a hook's result.
// A sum never outlives the sweep, and never leaves the engine. Other consumers of
// rules (the checker, Define, LinearMap) call Pullback, which stays the
// reference: ruletest checks that the two agree and that the sums are exact.
//
// Like Pullback, PullbackSum never mutates ybar nor the values the rule captured:
// the sums it was given describe ybar as it is.
type SumPullbackRule[V any] interface {
	Rule[V]
	PullbackSum(ybar V, sum CotangentSum, dst []Contribution[V], sums []CotangentSum) ([]Contribution[V], []CotangentSum, error)
}
