package einsum

import (
	"github.com/chainrules-go/chainrules/internal/vmath"
	"github.com/chainrules-go/chainrules/tensor"
)

// Intermediates of a contraction are short-lived and often large; recycling them
// keeps the allocation rate (and with it the garbage collector's work) down on
// repeated evaluations. They come from, and go back to, the module's buffer pool
// (internal/vmath); results handed to callers come from it too, and go back only
// when their owner (a tape's Release) knows nobody refers to them.

// getBuf returns a slice of length n whose contents are arbitrary.
func getBuf[T tensor.Element](n int) []T { return vmath.MakeNoZero[T](n) }

// putBuf returns a buffer obtained from getBuf to the pool.
func putBuf[T tensor.Element](b []T) { vmath.Put(b) }
