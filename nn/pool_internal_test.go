package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/internal/vmath"
	"github.com/chainrules-go/chainrules/tensor"
)

// The 2x2 stride-2 loop gives the general loop's maxima, indices and sources,
// ties (the first of equal values, -0 and +0 too), NaN (the last NaN) and -Inf
// included, bit for bit, on planes whose odd last row and column no window
// reaches.
func TestMaxPool2x2(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, sz := range [][2]int{{8, 8}, {4, 4}, {5, 7}, {2, 2}, {6, 3}} {
		H, W := sz[0], sz[1]
		oh, ow := H/2, W/2
		planes := 5
		xs := make([]float64, planes*H*W)
		for i := range xs {
			switch r := rng.IntN(12); r {
			case 10:
				xs[i] = math.Copysign(0, -1)
			case 11:
				xs[i] = 0
			case 0:
				xs[i] = math.NaN()
			case 1:
				xs[i] = math.Inf(-1)
			default:
				xs[i] = float64(rng.IntN(3)) // many ties
			}
		}
		var w3 [3][]window
		w3[0] = []window{{0, 1, 1}}
		for j := range oh {
			w3[1] = append(w3[1], window{2 * j, 2*j + 2, 1})
		}
		for j := range ow {
			w3[2] = append(w3[2], window{2 * j, 2*j + 2, 1})
		}
		require.True(t, pairs(w3[1]) && pairs(w3[2]))
		n := planes * oh * ow
		v1, i1, s1 := make([]float64, n), make([]float64, n), make([]int32, n)
		v2, i2, s2 := make([]float64, n), make([]float64, n), make([]int32, n)
		maxPoolLoop(v1, i1, s1, xs, 0, planes, [3]int{1, H, W}, w3)
		maxPool2x2(v2, i2, s2, xs, 0, 2, H, W, oh, ow)
		maxPool2x2(v2, i2, s2, xs, 2, planes, H, W, oh, ow)
		for q := range n {
			require.Equal(t, math.Float64bits(v1[q]), math.Float64bits(v2[q]), "%dx%d output %d: %v, %v", H, W, q, v1[q], v2[q])
		}
		require.Equal(t, i1, i2, "%dx%d", H, W)
		require.Equal(t, s1, s2, "%dx%d", H, W)
	}
	require.False(t, pairs([]window{{0, 2, 1}, {1, 3, 1}}))
	require.False(t, pairs([]window{{0, 2, 2}}))
}

// The pullback of 2x2 windows that tile the input (written whole, window by
// window) is the general scatter's; odd sizes, whose last row or column no
// window reaches, take the general scatter.
func TestMaxPoolTiledPullback(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct {
		shape []int
		tiled bool
	}{{[]int{2, 3, 4, 6}, true}, {[]int{3, 2, 2}, true}, {[]int{4, 16, 8, 8}, true}, {[]int{1, 2, 5, 4}, false}, {[]int{2, 1, 4, 3}, false}} {
		x := tensor.New(tensor.Float64, c.shape...)
		// Leave NaN in the pool's buffer of x's size: every element of
		// the pullback must be written.
		junk := vmath.MakeNoZero[float64](x.Size())
		for i := range junk {
			junk[i] = math.NaN()
		}
		vmath.Put(junk)
		xs := x.Float64s()
		for i := range xs {
			xs[i] = float64(rng.IntN(4)) // ties
		}
		out := make([]*tensor.Dense, 2)
		rule, err := MaxPool2dOp([]int{2}).Apply([]cr.NodeID{1}, []*tensor.Dense{x}, out)
		require.NoError(t, err)
		r := rule.(*maxPoolRule)
		require.Equal(t, c.tiled, r.tiles > 0, "%v", c.shape)
		ybar := tensor.RandN(rng, tensor.Float64, out[0].Shape()...)
		got, err := r.Pullback([]*tensor.Dense{ybar, nil}, []bool{true, false}, nil)
		require.NoError(t, err)
		want, err := r.gatherRule.Pullback([]*tensor.Dense{ybar, nil}, []bool{true, false}, nil)
		require.NoError(t, err)
		require.Len(t, got, 1)
		require.Equal(t, want[0].Value.Shape(), got[0].Value.Shape())
		require.Equal(t, want[0].Value.Float64s(), got[0].Value.Float64s(), "%v", c.shape)
		// A cotangent of the wrong shape is the general rule's error.
		_, err = r.Pullback([]*tensor.Dense{tensor.New(tensor.Float64, 3), nil}, []bool{true, false}, nil)
		require.ErrorIs(t, err, cr.ErrShapeMismatch)
	}
}

// The windowed kernel of the separable linear maps (mapWindows) gives the
// general one's (mapAxis) result, forward and adjoint, along the last axis
// and along an axis with rows after it, with per-row weights, with a uniform
// weight applied by the caller, and with empty rows.
func TestMapWindows(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, c := range []struct{ n, m, outer, inner, k, s int }{{9, 4, 3, 1, 3, 2}, {9, 4, 2, 5, 3, 2}, {5, 8, 2, 1, 3, 2}, {5, 8, 1, 7, 3, 2}, {14, 4, 2, 1, 5, 3}} {
		for _, uniform := range []bool{false, true} {
			a := newAxisMap(c.n, c.m)
			w := 0.25
			for j := range c.m {
				lo := rng.IntN(c.n)
				hi := lo + rng.IntN(min(3, c.n-lo)+1)
				if uniform {
					// The windows of a pooling, padding 1: A^T's rows are windows.
					lo, hi = max(c.s*j-1, 0), min(c.s*j-1+c.k, c.n)
				}
				if !uniform {
					w = rng.Float64()
				}
				a.row(lo, hi, w)
			}
			a.prepare()
			require.True(t, a.win)
			if uniform && c.m < c.n {
				require.NotNil(t, a.t, "A^T windowed")
			}
			x := make([]float64, c.outer*c.n*c.inner)
			y := make([]float64, c.outer*c.m*c.inner)
			for i := range x {
				x[i] = rng.NormFloat64()
			}
			for i := range y {
				y[i] = rng.NormFloat64()
			}
			scale := func(v []float64) []float64 {
				if a.uni {
					for i := range v {
						v[i] *= a.uw
					}
				}
				return v
			}
			for _, adj := range []bool{false, true} {
				src, size := x, len(y)
				if adj {
					src, size = y, len(x)
				}
				want, got := make([]float64, size), make([]float64, size)
				for i := range got {
					got[i] = math.NaN() // every element is written
				}
				mapAxis(a, want, src, c.outer, c.inner, adj)
				mapWindows(a, got, src, c.outer, c.inner, adj, a.uni, 1)
				require.InDeltaSlice(t, want, scale(got), 1e-12, "%+v uniform %v adjoint %v", c, uniform, adj)
				if adj && a.t != nil {
					// The adjoint as the windows of A^T.
					got = make([]float64, size)
					mapWindows(a.t, got, src, c.outer, c.inner, false, a.uni, 1)
					require.InDeltaSlice(t, want, scale(got), 1e-12, "%+v uniform %v: A^T", c, uniform)
				}
			}
		}
	}
}
