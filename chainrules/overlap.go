package chainrules

// OverlapSpace is an optional interface of a Space whose values may share storage
// (views, a cotangent passed on unchanged). MayOverlap reports whether a and b may
// share an element; it may report true for values that share none (a strided
// view's address range interleaved with another's), never false for values that
// share one.
//
// With it, the engine can tell that a cotangent a rule with FreshStorage returned
// is storage made for that call, which nothing else refers to, and accumulate into
// it (and add row-sparse terms into it) in place instead of copying it first.
type OverlapSpace[V any] interface {
	MayOverlap(a, b V) bool
}
