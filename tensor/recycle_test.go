package tensor

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chainrules-go/chainrules/internal/race"
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

// TestRecycleSinglePrecision checks that single-precision storage goes back to the
// pool as double-precision storage does (the pool sorts buffers by 8-byte words):
// float32 and complex64 results of allocNoZero are pooled, and storage of another
// size (an odd float32 capacity, a size between classes) is left to the GC.
func TestRecycleSinglePrecision(t *testing.T) {
	var got []*Dense
	old := recycle
	recycle = func(d *Dense) { got = append(got, d) }
	defer func() { recycle = old }()

	alloc := func(dt DType, n int) *Dense {
		d, err := allocNoZero(dt, n)
		require.NoError(t, err)
		return d
	}
	f := alloc(Float32, 4000)   // 2000 words: the class of 2048
	c := alloc(Complex64, 3000) // 3000 words: the class of 3072
	require.True(t, Space{}.Reusable(f))
	require.True(t, Space{}.Reusable(c))
	oddCap, err := FromFloat32(make([]float32, 4095), 4095) // 2047.5 words
	require.NoError(t, err)
	between, err := FromFloat32(make([]float32, 4000), 4000) // 2000 words: no class
	require.NoError(t, err)
	require.False(t, Space{}.Reusable(oddCap))
	require.False(t, Space{}.Reusable(between))

	Space{}.Recycle([]*Dense{f, c, oddCap, between}, nil)
	require.ElementsMatch(t, []*Dense{f, c}, got)
}

// TestRecycledSingleStorageIsReused checks the whole path: a float32 tensor
// recycled is the storage of the next allocation of its size class, float32 or
// float64.
func TestRecycledSingleStorageIsReused(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector drops pooled buffers at random")
	}
	f, err := allocNoZero(Float32, 4096)
	require.NoError(t, err)
	addr := f.addr()
	Space{}.Recycle([]*Dense{f}, nil)
	var keep []*Dense
	found := false
	for range 4 { // the pool is per P: look among a few
		d, err := allocNoZero(Float64, 2048)
		require.NoError(t, err)
		keep = append(keep, d)
		if d.addr() == addr {
			found = true
			break
		}
	}
	require.True(t, found, "the recycled float32 storage was not reused")
	require.NotEmpty(t, keep)
}
