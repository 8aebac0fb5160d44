package tensor

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRecycleOverlaps checks which storage Recycle hands back: only ranges that
// overlap no live tensor, each once, and nothing when two dead tensors overlap
// without being the same storage.
func TestRecycleOverlaps(t *testing.T) {
	var got []*Dense
	old := recycle
	recycle = func(d *Dense) { got = append(got, d) }
	defer func() { recycle = old }()

	fresh := func(n int) *Dense { d, _ := allocNoZero(Float64, n); return d }
	// over returns a vector of n elements over s, the whole of s its backing slice.
	over := func(s []float64, n int) *Dense {
		v := &Dense{shape: []int{n}, strides: []int{1}}
		setData(v, s)
		return v
	}
	a, b, c, d := fresh(2048), fresh(2048), fresh(2048), fresh(4096)
	aView, _ := a.Reshape(32, 64) // same storage as a
	bHead := over(b.f64s()[:10], 10)
	dTail := over(d.f64s()[2048:], 10)       // inside d, another poolable range
	small := over(c.f64s()[5:15], 10)        // inside c, too small to pool
	cx, err := allocNoZero(Complex128, 3000) // complex storage
	require.NoError(t, err)
	odd := over(make([]float64, 3000), 3000) // not a class size

	Space{}.Recycle([]*Dense{a, aView, b, c, small, d, dTail, cx, odd, nil}, []*Dense{bHead, nil})
	// a and its view go back once; b overlaps a live view; c and cx go back (a dead
	// view too small to pool is no candidate); d and dTail overlap without being
	// one range, so neither does; odd is not of a size the pool takes.
	require.ElementsMatch(t, []*Dense{a, c, cx}, replaceView(got, aView, a))
}

func replaceView(got []*Dense, view, base *Dense) []*Dense {
	out := make([]*Dense, len(got))
	for i, g := range got {
		if g == view {
			g = base
		}
		out[i] = g
	}
	return out
}

func TestRecycleNothingDead(t *testing.T) {
	called := false
	old := recycle
	recycle = func(*Dense) { called = true }
	defer func() { recycle = old }()
	Space{}.Recycle(nil, []*Dense{New(Float64, 3)})
	require.False(t, called)
}
