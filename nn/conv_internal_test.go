package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chainrules-go/chainrules/tensor"
)

// The tiled kernels (tiles of a few output positions, segments of the
// innermost axis cut anywhere) give the untiled result, for every padding
// mode, stride and dilation. The untiled kernels are checked against PyTorch.
func TestConvTiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	cases := []struct {
		x, w []int
		opts []ConvOption
	}{
		{[]int{2, 3, 11}, []int{4, 3, 3}, []ConvOption{Padding(2), PaddingMode(PadReflect)}},
		{[]int{1, 4, 13}, []int{2, 2, 2}, []ConvOption{Stride(3), Dilation(2), Groups(2), Padding(1)}},
		{[]int{2, 2, 5, 7}, []int{3, 2, 3, 3}, []ConvOption{Padding(1), Stride(1, 2)}},
		{[]int{1, 2, 6, 5}, []int{2, 2, 2, 3}, []ConvOption{PaddingSame(), PaddingMode(PadCircular)}},
		{[]int{1, 1, 6, 6}, []int{2, 1, 3, 2}, []ConvOption{Padding(2, 1), PaddingMode(PadReplicate), Dilation(2, 1)}},
		{[]int{1, 2, 3, 4, 5}, []int{2, 2, 2, 2, 2}, []ConvOption{Padding(1), Stride(1, 2, 2)}},
	}
	for k, c := range cases {
		t.Run(fmt.Sprint(k), func(t *testing.T) {
			g, x, w, ybar := convCase(t, rng, tensor.Float64, c.x, c.w, c.opts)
			run := func() [3][]float64 { return convMaps(t, g, x.Float64s(), w.Float64s(), ybar.Float64s()) }
			want := run()
			defer func(e, m int) { colTileElems, minTile = e, m }(colTileElems, minTile)
			for _, tile := range []int{1, 3, 5, 8} {
				colTileElems, minTile = 0, tile
				if tile >= g.pSize() {
					continue
				}
				got := run()
				for i := range got {
					require.InDeltaSlice(t, want[i], got[i], 1e-12, "tile %d map %d", tile, i)
				}
			}
		})
	}
}

// The block kernels (several samples' columns in one tile, one GEMM per block)
// give the per-sample kernels' result, for every padding mode, stride,
// dilation, groups and 1 to 3 spatial axes, with blocks that divide the batch
// and blocks that do not.
func TestConvBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	cases := []struct {
		x, w []int
		opts []ConvOption
	}{
		{[]int{5, 1, 8, 8}, []int{4, 1, 3, 3}, []ConvOption{Padding(1)}},
		{[]int{5, 3, 4, 4}, []int{4, 3, 3, 3}, []ConvOption{Padding(1)}},
		{[]int{4, 3, 11}, []int{4, 3, 3}, []ConvOption{Padding(2), PaddingMode(PadReflect)}},
		{[]int{5, 4, 13}, []int{2, 2, 2}, []ConvOption{Stride(3), Dilation(2), Groups(2), Padding(1)}},
		{[]int{3, 2, 5, 7}, []int{3, 2, 3, 3}, []ConvOption{Padding(1), Stride(1, 2)}},
		{[]int{5, 2, 6, 5}, []int{2, 2, 2, 3}, []ConvOption{PaddingSame(), PaddingMode(PadCircular)}},
		{[]int{4, 1, 6, 6}, []int{2, 1, 3, 2}, []ConvOption{Padding(2, 1), PaddingMode(PadReplicate), Dilation(2, 1)}},
		{[]int{3, 2, 3, 4, 5}, []int{2, 2, 2, 2, 2}, []ConvOption{Padding(1), Stride(1, 2, 2)}},
	}
	defer func(e, m int) { colTileElems, minTile = e, m }(colTileElems, minTile)
	for k, c := range cases {
		t.Run(fmt.Sprint(k), func(t *testing.T) {
			g, x, w, ybar := convCase(t, rng, tensor.Float64, c.x, c.w, c.opts)
			run := func() [3][]float64 { return convMaps(t, g, x.Float64s(), w.Float64s(), ybar.Float64s()) }
			colTileElems, minTile = 0, 1<<30 // one tile per sample
			require.Zero(t, g.blockSamples())
			want := run()
			cols := g.cin * g.kSize() * g.pSize()
			for _, b := range []int{2, 3, g.n} {
				colTileElems = b * cols
				B := g.blockSamples()
				require.True(t, B > 0 && B <= b && (g.n+B-1)/B == (g.n+b-1)/b, "block of %d for %d samples a tile", B, b)
				got := run()
				for i := range got {
					require.InDeltaSlice(t, want[i], got[i], 1e-12, "block %d map %d", b, i)
				}
				// The pullback's sweep computing both adjoints at once.
				xb, wb, err := backBlocks(g, x.Float64s(), w.Float64s(), ybar.Float64s(), B, true, true)
				require.NoError(t, err)
				require.InDeltaSlice(t, want[1], xb, 1e-12, "block %d, both: x", b)
				require.InDeltaSlice(t, want[2], wb, 1e-12, "block %d, both: w", b)
			}
		})
	}
}

// The float32 kernels (per-sample tiles, short tiles and blocks of samples)
// agree with the float64 kernels at the same values, to float32's rounding:
// they are the same code over the other element type, with the float32 GEMM.
func TestConvKernelsFloat32(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	cases := []struct {
		x, w []int
		opts []ConvOption
	}{
		{[]int{5, 3, 4, 4}, []int{4, 3, 3, 3}, []ConvOption{Padding(1)}},
		{[]int{4, 3, 11}, []int{4, 3, 3}, []ConvOption{Padding(2), PaddingMode(PadReflect)}},
		{[]int{5, 4, 13}, []int{2, 2, 2}, []ConvOption{Stride(3), Dilation(2), Groups(2), Padding(1)}},
		{[]int{3, 2, 3, 4, 5}, []int{2, 2, 2, 2, 2}, []ConvOption{Padding(1), Stride(1, 2, 2)}},
		{[]int{2, 3, 6, 6}, []int{2, 3, 1, 1}, nil}, // identity im2col
	}
	defer func(e, m int) { colTileElems, minTile = e, m }(colTileElems, minTile)
	for k, c := range cases {
		t.Run(fmt.Sprint(k), func(t *testing.T) {
			g, x, w, ybar := convCase(t, rng, tensor.Float32, c.x, c.w, c.opts)
			wide := func(v *tensor.Dense) []float64 { d, _ := tensor.AsType(v, tensor.Float64); return d.Float64s() }
			want := convMaps(t, g, wide(x), wide(w), wide(ybar))
			cols := g.cin * g.kSize() * g.pSize()
			for _, s := range []struct{ elems, tile int }{{1 << 17, 64}, {0, 1 << 30}, {0, 3}, {2 * cols, 1 << 30}} {
				colTileElems, minTile = s.elems, s.tile
				got := convMaps(t, g, x.Float32s(), w.Float32s(), ybar.Float32s())
				for i := range got {
					require.Len(t, got[i], len(want[i]))
					for j, v := range got[i] {
						require.InDelta(t, want[i][j], float64(v), 1e-5*(1+math.Abs(want[i][j])), "tiles %v map %d element %d", s, i, j)
					}
				}
			}
		})
	}
}

// The float32 block kernels' im2col and col2im by shifted runs
// (vmath.ShiftRows32, ShiftSum32) and their products cut into column strips
// give the gather table's and the whole products' results bit for bit, at 1
// and 2 goroutines, for "same" convolutions in 1 to 3 spatial axes, rows of 16
// positions and more and fewer, dilation, groups and an even kernel; the
// geometries whose rows are not shifted runs (a stride, reflect padding, a
// narrower output) have none.
func TestConvBlockRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	cases := []struct {
		x, w []int
		opts []ConvOption
		runs bool
	}{
		{[]int{6, 3, 4, 4}, []int{4, 3, 3, 3}, []ConvOption{Padding(1)}, true},
		{[]int{5, 2, 8, 8}, []int{3, 2, 3, 3}, []ConvOption{Padding(1)}, true},
		{[]int{7, 2, 5, 7}, []int{3, 2, 3, 3}, []ConvOption{PaddingSame()}, true},
		{[]int{5, 2, 6, 6}, []int{4, 2, 3, 3}, []ConvOption{PaddingSame(), Dilation(2)}, true},
		{[]int{5, 3, 4, 4}, []int{4, 3, 2, 2}, []ConvOption{PaddingSame()}, true},
		{[]int{6, 4, 9}, []int{4, 2, 3}, []ConvOption{Padding(1), Groups(2)}, true},
		{[]int{4, 2, 3, 4, 5}, []int{2, 2, 3, 3, 3}, []ConvOption{Padding(1)}, true},
		{[]int{5, 2, 8, 8}, []int{3, 2, 3, 3}, []ConvOption{Padding(1), Stride(2)}, false},
		{[]int{5, 2, 6, 6}, []int{3, 2, 3, 3}, []ConvOption{Padding(1), PaddingMode(PadReflect)}, false},
		{[]int{5, 2, 6, 6}, []int{3, 2, 3, 3}, nil, false},
	}
	defer func(e, m, c int, off bool) { colTileElems, minTile, blockCols, runsOff = e, m, c, off }(colTileElems, minTile, blockCols, runsOff)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for k, c := range cases {
		t.Run(fmt.Sprint(k), func(t *testing.T) {
			g, x, w, ybar := convCase(t, rng, tensor.Float32, c.x, c.w, c.opts)
			require.Equal(t, c.runs, g.shiftedRuns() != nil)
			colTileElems, minTile = g.n*g.cin*g.kSize()*g.pSize(), 1<<30 // one block of every sample
			B := g.blockSamples()
			require.Equal(t, g.n, B)
			maps := func() [5][]float32 {
				m := convMaps(t, g, x.Float32s(), w.Float32s(), ybar.Float32s())
				xb, wb, err := backBlocks(g, x.Float32s(), w.Float32s(), ybar.Float32s(), B, true, true)
				require.NoError(t, err)
				return [5][]float32{m[0], m[1], m[2], xb, wb}
			}
			runsOff, blockCols = true, 1<<30
			want := maps()
			runsOff = false
			for _, procs := range []int{1, 2} {
				runtime.GOMAXPROCS(procs)
				// Strips of 40 columns leave a narrower last strip.
				for _, strip := range []int{256, 40, 16} {
					blockCols = strip
					got := maps()
					for i := range got {
						require.Equal(t, want[i], got[i], "procs %d strips %d map %d", procs, strip, i)
					}
				}
			}
		})
	}
}

// convCase draws x and w of the given shapes and dtype, the geometry of their
// convolution with opts, and a cotangent ybar of its output's shape.
func convCase(t *testing.T, rng *rand.Rand, dt tensor.DType, xs, ws []int, opts []ConvOption) (g *convGeom, x, w, ybar *tensor.Dense) {
	x, w = tensor.RandN(rng, dt, xs...), tensor.RandN(rng, dt, ws...)
	g, err := newConvOp(len(xs)-2, modeConv, opts).spec.convGeom("conv", len(xs)-2, x, w)
	require.NoError(t, err)
	return g, x, w, tensor.RandN(rng, dt, g.yShape()...)
}

// convMaps returns conv(x, w), convT(ybar, w) and convW(x, ybar) in E.
func convMaps[E floating](t *testing.T, g *convGeom, x, w, ybar []E) [3][]E {
	y, err := conv(g, x, w)
	require.NoError(t, err)
	xb, err := convT(g, ybar, w)
	require.NoError(t, err)
	wb, err := convW(g, x, ybar)
	require.NoError(t, err)
	return [3][]E{y, xb, wb}
}

// The implicit-GEMM kernels of stride-1 zero-padded convolutions (conv_shift.go)
// give the tiles' result, in float64 and float32, for 1 to 3 spatial axes,
// dilation, asymmetric and no padding, one sample and several, and at 1 and 2
// goroutines; geometries they do not cover (other padding modes, strides,
// groups, a wide grid wasting too much) keep the tiles.
func TestConvShift(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	cases := []struct {
		x, w  []int
		opts  []ConvOption
		shift bool
	}{
		{[]int{3, 5, 20, 18}, []int{4, 5, 3, 3}, []ConvOption{Padding(1)}, true},
		{[]int{1, 3, 17, 19}, []int{2, 3, 3, 3}, []ConvOption{Padding(1)}, true},
		{[]int{2, 2, 300}, []int{3, 2, 5}, []ConvOption{Padding(2)}, true},
		{[]int{2, 3, 290}, []int{3, 3, 4}, []ConvOption{PaddingSame(), Dilation(3)}, true},
		{[]int{2, 2, 22, 21}, []int{3, 2, 2, 3}, []ConvOption{PaddingSame(), Dilation(2, 1)}, true},
		{[]int{2, 2, 24, 20}, []int{3, 2, 3, 2}, []ConvOption{PaddingValid()}, true},
		{[]int{2, 2, 4, 16, 18}, []int{3, 2, 3, 3, 3}, []ConvOption{Padding(1, 1, 1)}, true},
		{[]int{2, 2, 20, 18}, []int{4, 2, 3, 3}, []ConvOption{Padding(1), PaddingMode(PadReflect)}, false},
		{[]int{2, 2, 40, 36}, []int{4, 2, 3, 3}, []ConvOption{Padding(1), Stride(2)}, false},
		{[]int{2, 4, 20, 18}, []int{4, 2, 3, 3}, []ConvOption{Padding(1), Groups(2)}, false},
		{[]int{1, 2, 70, 4}, []int{4, 2, 3, 3}, []ConvOption{Padding(1)}, false}, // a grid 6 wide for 4 outputs
	}
	defer func(off bool) { shiftOff = off }(shiftOff)
	for k, c := range cases {
		for _, procs := range []int{1, 2} {
			t.Run(fmt.Sprintf("%d/procs=%d", k, procs), func(t *testing.T) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				g, x, w, ybar := convCase(t, rng, tensor.Float64, c.x, c.w, c.opts)
				require.Zero(t, g.blockSamples())
				shiftOff = false
				require.Equal(t, c.shift, g.shift() != nil, "implicit GEMM taken")
				got := convMaps(t, g, x.Float64s(), w.Float64s(), ybar.Float64s())
				x32, _ := tensor.AsType(x, tensor.Float32)
				w32, _ := tensor.AsType(w, tensor.Float32)
				y32, _ := tensor.AsType(ybar, tensor.Float32)
				got32 := convMaps(t, g, x32.Float32s(), w32.Float32s(), y32.Float32s())
				shiftOff = true
				want := convMaps(t, g, x.Float64s(), w.Float64s(), ybar.Float64s())
				for i := range got {
					require.InDeltaSlice(t, want[i], got[i], 1e-11, "map %d", i)
					require.Len(t, got32[i], len(want[i]))
					for j, v := range got32[i] {
						require.InDelta(t, want[i][j], float64(v), 1e-4*(1+math.Abs(want[i][j])), "float32 map %d element %d", i, j)
					}
				}
			})
		}
	}
}
