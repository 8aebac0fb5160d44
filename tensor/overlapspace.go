package tensor

import cr "github.com/chainrules-go/chainrules/chainrules"

var _ cr.OverlapSpace[*Dense] = Space{}

// MayOverlap reports whether a and b may share an element: whether the address
// ranges of their elements intersect (chainrules.OverlapSpace). It is exact for
// contiguous tensors; for a strided view it may report true when no element is
// shared, never false when one is. A tensor without elements shares none.
func (Space) MayOverlap(a, b *Dense) bool { return mayOverlap(a, b) }
