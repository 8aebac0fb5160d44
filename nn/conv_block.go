package nn

import (
	"math"

	"github.com/chainrules-go/chainrules/internal/vmath"
	"github.com/chainrules-go/chainrules/tensor"
)

// The kernels of small images: when a sample's im2col columns are a small part
// of a tile, the tile holds the columns of a block of samples side by side,
//
//	col [cin K, b P]    col[c K + k, i P + p] = xpad[n0 + i, c, window k of position p],
//
// and each of the three maps is ONE GEMM per block instead of one per sample
// (the per-sample GEMM of an 8x8 image is too small to amortise packing its
// other operand, the weight). The GEMM's side of y is then [cout, b P], y's
// block [b, cout, P] with its first two axes swapped: a copy of P-element rows
// either way. im2col itself is a gather through a table of source indices
// (one per element of a sample's columns, padding pointing at zeros past the
// sample), as a small image's rows are too short for copies of segments.

// maxBlockP is the most output positions per sample of the block kernels
// (a 16x16 output); larger images keep the per-sample tiles.
const maxBlockP = 256

// blockSamples returns the samples per block of the block kernels, or 0 when
// the geometry takes the per-sample tiles: empty columns, an identity im2col, a single
// sample, more than maxBlockP positions, or fewer than two samples' columns
// per tile. The blocks are of near-equal sizes.
func (g *convGeom) blockSamples() int {
	rows, P := g.cin*g.kSize(), g.pSize()
	if rows == 0 || P == 0 || g.identity || g.n < 2 || P > maxBlockP || 2*rows*P > colTileElems || g.cin*g.inSize()+P >= math.MaxInt32 {
		return 0
	}
	b := colTileElems / (rows * P)
	nb := (g.n + b - 1) / b
	return (g.n + nb - 1) / nb
}

// gatherTable returns, for row r = c K + k and position p of one sample's
// columns, the index in the sample's input [cin, in] that col[r, p] reads, or
// cin in + p (a zero slot past the sample, one per position, so that col2im's
// additions of a row's padding are not a chain through one slot) for a
// padding element. It is built once per geometry.
func (g *convGeom) gatherTable() []int32 {
	g.tabOnce.Do(func() {
		K, P, inSz := g.kSize(), g.pSize(), g.inSize()
		zeroSlot := int32(g.cin * inSz)
		tab := make([]int32, g.cin*K*P)
		r := 0
		for c := range g.cin {
			for k0 := range g.k[0] {
				for k1 := range g.k[1] {
					for k2 := range g.k[2] {
						row := tab[r*P : (r+1)*P]
						j := 0
						for _, a := range g.idx[0][k0] {
							for _, b := range g.idx[1][k1] {
								for _, s := range g.idx[2][k2] {
									row[j] = zeroSlot + int32(j)
									if a >= 0 && b >= 0 && s >= 0 {
										row[j] = int32(c*inSz) + (a*int32(g.in[1])+b)*int32(g.in[2]) + s
									}
									j++
								}
							}
						}
						r++
					}
				}
			}
		}
		g.tab = tab
	})
	return g.tab
}

// gather writes sample xs [cin, in] into the columns [i P, (i+1) P) of col
// [cin K, t]; xb (cin in + P elements, the last P zero) holds the sample. It
// is not inlined: inside its callers the loop's operands lived on the stack.
//
//go:noinline
func gather[E floating](col []E, t, i int, xs, xb []E, tab []int32, P int) {
	copy(xb, xs)
	if c, ok := any(col).([]float32); ok {
		// float32: 16 values at a time by VPGATHERDD where there is AVX-512.
		vmath.GatherRows32(c[i*P:], t, any(xb).([]float32), tab, len(tab)/P, P)
		return
	}
	for r := range len(tab) / P {
		d, tr := col[r*t+i*P:r*t+i*P+P], tab[r*P:(r+1)*P]
		j := 0
		for ; j+4 <= len(tr); j += 4 {
			t4, d4 := tr[j:j+4:j+4], d[j:j+4:j+4]
			d4[0], d4[1], d4[2], d4[3] = xb[t4[0]], xb[t4[1]], xb[t4[2]], xb[t4[3]]
		}
		for ; j < len(tr); j++ {
			d[j] = xb[tr[j]]
		}
	}
}

// scatter adds the columns [i P, (i+1) P) of col [cin K, t] into the
// positions they were read from (col2im; a row's positions are distinct) and
// writes the sums to xs; xb (cin in + P elements) is scratch. Not inlined, as
// gather.
//
//go:noinline
func scatter[E floating](col []E, t, i int, xs, xb []E, tab []int32, P int) {
	clear(xb)
	for r := range len(tab) / P {
		d, tr := col[r*t+i*P:r*t+i*P+P], tab[r*P:(r+1)*P]
		j := 0
		for ; j+4 <= len(tr); j += 4 {
			t4, d4 := tr[j:j+4:j+4], d[j:j+4:j+4]
			xb[t4[0]] += d4[0]
			xb[t4[1]] += d4[1]
			xb[t4[2]] += d4[2]
			xb[t4[3]] += d4[3]
		}
		for ; j < len(tr); j++ {
			xb[tr[j]] += d[j]
		}
	}
	copy(xs, xb)
}

// swapBlock copies the rows of P elements between a block of y, samples [n0,
// n0 + b) of y [n, c, P], and yb [c, b P]: toBlock true copies y into yb.
func swapBlock[E floating](y, yb []E, n0, b, c, P int, toBlock bool) {
	t := b * P
	for o := range c {
		for i := range b {
			ys, bs := y[((n0+i)*c+o)*P:][:P], yb[o*t+i*P:][:P]
			if toBlock {
				copy(bs, ys)
			} else {
				copy(ys, bs)
			}
		}
	}
}

// forSamples calls f(i, xb) for i in [0, b), in parallel above a threshold
// (vmath.ParallelFor, chunks of at least 16k column elements), with a scratch
// xb of cin in + P elements (the last P zero) per chunk.
func forSamples[E floating](g *convGeom, b int, f func(i int, xb []E)) {
	xsz, per := g.cin*g.inSize(), g.cin*g.kSize()*g.pSize()
	vmath.ParallelFor(b, max(1, 1<<14/per), func(lo, hi int) {
		xb := make([]E, xsz+g.pSize())
		for i := lo; i < hi; i++ {
			f(i, xb)
		}
	})
}

// forBlocks calls f(n0, b, col, yb) for the blocks [n0, n0 + b) of at most B
// samples in order, with the block kernels' two buffers, taken from the pool
// once and given back: col [cin K, b P] for the columns and yb [cout, b P] for
// y's block (its first two axes swapped). It stops at f's first error.
func forBlocks[E floating](g *convGeom, B int, f func(n0, b int, col, yb []E) error) error {
	P := g.pSize()
	col := vmath.MakeNoZero[E](g.cin * g.kSize() * B * P)
	yb := vmath.MakeNoZero[E](g.cout * B * P)
	defer vmath.Put(col)
	defer vmath.Put(yb)
	for n0 := 0; n0 < g.n; n0 += B {
		if err := f(n0, min(B, g.n-n0), col, yb); err != nil {
			return err
		}
	}
	return nil
}

// convBlocks is conv, y = conv(x, w), by blocks of B samples.
func convBlocks[E floating](g *convGeom, x, w []E, B int) ([]E, error) {
	P, ck, cog, xsz := g.pSize(), g.cinG()*g.kSize(), g.coutG(), g.cin*g.inSize()
	tab := g.gatherTable()
	y := vmath.MakeNoZero[E](g.n * g.cout * P) // every element is copied from a GEMM's output
	err := forBlocks(g, B, func(n0, b int, col, yb []E) error {
		t := b * P
		forSamples(g, b, func(i int, xb []E) {
			gather(col, t, i, x[(n0+i)*xsz:(n0+i+1)*xsz], xb, tab, P)
		})
		if err := tensor.GemmBatch(false, false, cog, t, ck, 1, w, ck, cog*ck, col, t, ck*t, 0, yb, t, cog*t, g.groups); err != nil {
			return err
		}
		swapBlock(y, yb, n0, b, g.cout, P, false)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return y, nil
}

// convTBlocks is convT, x = convT(y, w), by blocks of B samples.
func convTBlocks[E floating](g *convGeom, y, w []E, B int) ([]E, error) {
	x, _, err := backBlocks(g, nil, w, y, B, true, false)
	return x, err
}

// convWBlocks is convW, w = convW(x, y), by blocks of B samples: the sum over
// the blocks of y_block col_block^T.
func convWBlocks[E floating](g *convGeom, x, y []E, B int) ([]E, error) {
	_, w, err := backBlocks(g, x, nil, y, B, false, true)
	return w, err
}

// backBlocks returns xbar = convT(ybar, w) (when wantX) and wbar = convW(x,
// ybar) (when wantW), by blocks of B samples: the pullback of conv in x and w.
// Both take the block of ybar with its axes swapped, which they share.
func backBlocks[E floating](g *convGeom, x, w, ybar []E, B int, wantX, wantW bool) (xbar, wbar []E, err error) {
	P, ck, cog, xsz := g.pSize(), g.cinG()*g.kSize(), g.coutG(), g.cin*g.inSize()
	tab := g.gatherTable()
	if wantX {
		xbar = vmath.MakeNoZero[E](g.n * xsz) // every sample is written by scatter
	}
	if wantW {
		wbar = make([]E, g.cout*ck)
	}
	err = forBlocks(g, B, func(n0, b int, col, yb []E) error {
		t := b * P
		swapBlock(ybar, yb, n0, b, g.cout, P, true)
		if wantX {
			if err := tensor.GemmBatch(true, false, ck, t, cog, 1, w, ck, cog*ck, yb, t, cog*t, 0, col, t, ck*t, g.groups); err != nil {
				return err
			}
			forSamples(g, b, func(i int, xb []E) {
				scatter(col, t, i, xbar[(n0+i)*xsz:(n0+i+1)*xsz], xb, tab, P)
			})
		}
		if wantW {
			forSamples(g, b, func(i int, xb []E) {
				gather(col, t, i, x[(n0+i)*xsz:(n0+i+1)*xsz], xb, tab, P)
			})
			return tensor.GemmBatch(false, true, cog, ck, t, 1, yb, t, cog*t, col, t, ck*t, 1, wbar, ck, cog*ck, g.groups)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return xbar, wbar, nil
}
