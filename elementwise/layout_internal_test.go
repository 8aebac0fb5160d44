package elementwise

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSameLayoutIsNewLayout checks the fast path of operands of one shape against
// the general construction, on shapes with ones, zeros and every rank up to 4.
func TestSameLayoutIsNewLayout(t *testing.T) {
	dims := []int{0, 1, 2, 3, 5}
	var shapes [][]int
	var gen func(prefix []int)
	gen = func(prefix []int) {
		shapes = append(shapes, append([]int(nil), prefix...))
		if len(prefix) == 4 {
			return
		}
		for _, d := range dims {
			gen(append(prefix, d))
		}
	}
	gen(nil)
	for _, s := range shapes {
		want := newLayout(s, s, s)
		var got layout
		got.same(s)
		require.Equal(t, want.size, got.size, "shape %v", s)
		require.Equal(t, want.shape, got.shape, "shape %v", s)
		require.Equal(t, want.sa, got.sa, "shape %v", s)
		require.Equal(t, want.sb, got.sb, "shape %v", s)
	}
}
