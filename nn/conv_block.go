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
//
// Where every row of a sample's columns is its channel shifted, col[(c, k), p]
// = x[c, p + off_k] or a zero of the padding (stride 1, zero padding, the
// output as wide and, in 3-d, as high as the input: "same" convolutions),
// float32 im2col and col2im take masked runs instead of the table
// (vmath.ShiftRows32 and its adjoint vmath.ShiftSum32, AVX-512 masked loads),
// one channel of the whole block at a time: the writes of im2col then run
// along the rows of col, and col2im sums a chunk of 16 input positions over
// the kernel offsets in a register, in the order of the table's scatter (the
// same sums, bit for bit).

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
		taps := g.tapRows()
		tab := make([]int32, g.cin*K*P)
		for c := range g.cin {
			row := tab[c*K*P : (c+1)*K*P]
			for i, v := range taps {
				row[i] = zeroSlot + int32(i%P)
				if v >= 0 {
					row[i] = int32(c*inSz) + v
				}
			}
		}
		g.tab = tab
	})
	return g.tab
}

// tapRows returns, for kernel position k and output position p, the index in
// a channel's input [in] that the window of p reads at k, or -1 for padding:
// row k of any channel's columns, [K, P].
func (g *convGeom) tapRows() []int32 {
	P := g.pSize()
	rows := make([]int32, g.kSize()*P)
	r := 0
	for k0 := range g.k[0] {
		for k1 := range g.k[1] {
			for k2 := range g.k[2] {
				row := rows[r*P : (r+1)*P]
				j := 0
				for _, a := range g.idx[0][k0] {
					for _, b := range g.idx[1][k1] {
						for _, s := range g.idx[2][k2] {
							row[j] = -1
							if a >= 0 && b >= 0 && s >= 0 {
								row[j] = (a*int32(g.in[1])+b)*int32(g.in[2]) + s
							}
							j++
						}
					}
				}
				r++
			}
		}
	}
	return rows
}

// blockRuns is the im2col of the block kernels as shifted runs: col[(c, k), p]
// = x[c, p + off[k]] where bit p of fmask's row k is set, zero elsewhere; and
// its adjoint, xbar[c, q] = sum over k, in order, of col[(c, k), q - off[k]]
// where bit q of bmask's row k is set.
type blockRuns struct {
	off          []int32
	fmask, bmask []uint16 // [K][ceil(P/16)], [K][ceil(in/16)]
}

// shiftedRuns returns the geometry's blockRuns, or nil when a row of the
// columns is not a shifted run (a stride, a padding mode other than
// zeros, an output narrower than the input). It is built once per geometry.
func (g *convGeom) shiftedRuns() *blockRuns {
	g.runsOnce.Do(func() {
		taps, K, P, inSz := g.tapRows(), g.kSize(), g.pSize(), g.inSize()
		fc, bc := (P+15)/16, (inSz+15)/16
		r := &blockRuns{off: make([]int32, K), fmask: make([]uint16, K*fc), bmask: make([]uint16, K*bc)}
		for k := range K {
			seen := false
			for p, v := range taps[k*P : (k+1)*P] {
				if v < 0 {
					continue
				}
				if !seen {
					r.off[k], seen = v-int32(p), true
				} else if v-int32(p) != r.off[k] {
					return
				}
				r.fmask[k*fc+p/16] |= 1 << (p % 16)
				q := p + int(r.off[k])
				r.bmask[k*bc+q/16] |= 1 << (q % 16)
			}
		}
		g.runs = r
	})
	return g.runs
}

// gatherRuns is im2col of the block [n0, n0 + b) of x into col [cin K, b P]
// by the runs of r: channel c's K rows hold the block's samples side by side.
func gatherRuns(g *convGeom, r *blockRuns, col, x []float32, n0, b int) {
	K, P, inSz := g.kSize(), g.pSize(), g.inSize()
	xsz, t := g.cin*inSz, b*P
	vmath.ParallelFor(g.cin, max(1, 1<<14/(K*t)), func(lo, hi int) {
		for c := lo; c < hi; c++ {
			vmath.ShiftRows32(col[c*K*t:], P, t, x[n0*xsz+c*inSz:], xsz, r.off, r.fmask, b, P)
		}
	})
}

// scatterRuns is col2im of col [cin K, b P] into the block [n0, n0 + b) of
// xbar by the runs of r (the adjoint of gatherRuns).
func scatterRuns(g *convGeom, r *blockRuns, col, xbar []float32, n0, b int) {
	K, P, inSz := g.kSize(), g.pSize(), g.inSize()
	xsz, t := g.cin*inSz, b*P
	back := make([]int32, K) // col[(c, k), i P + q - off[k]] from channel c's rows
	for k, o := range r.off {
		back[k] = int32(k*t) - o
	}
	vmath.ParallelFor(g.cin, max(1, 1<<14/(K*t)), func(lo, hi int) {
		for c := lo; c < hi; c++ {
			vmath.ShiftSum32(xbar[n0*xsz+c*inSz:], xsz, col[c*K*t:], P, back, r.bmask, b, inSz)
		}
	})
}

// runsOff turns the runs off (tests compare them with the gather table).
var runsOff = false

// runsOf returns the blockRuns of g for float32 columns, nil for float64 or
// a geometry without them.
func runsOf[E floating](g *convGeom) *blockRuns {
	if _, ok := any([]E(nil)).([]float32); !ok || runsOff {
		return nil
	}
	return g.shiftedRuns()
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
// Float32 rows go as runs of vmath.ShiftRows32 with every bit set (a strided
// copy, 16 at a time, instead of a call of copy per row).
func swapBlock[E floating](y, yb []E, n0, b, c, P int, toBlock bool) {
	t := b * P
	if y32, ok := any(y).([]float32); ok {
		yb32 := any(yb).([]float32)
		off, ones := make([]int32, c), make([]uint16, c*((P+15)/16))
		for i := range ones {
			ones[i] = 0xffff
		}
		for o := range off {
			off[o] = int32(o * P)
			if !toBlock {
				off[o] = int32(o * t)
			}
		}
		if toBlock {
			vmath.ShiftRows32(yb32, P, t, y32[n0*c*P:], c*P, off, ones, b, P)
		} else {
			vmath.ShiftRows32(y32[n0*c*P:], c*P, P, yb32, P, off, ones, b, P)
		}
		return
	}
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
	var tab []int32
	runs := runsOf[E](g)
	if runs == nil {
		tab = g.gatherTable()
	}
	y := vmath.MakeNoZero[E](g.n * g.cout * P) // every element is copied from a GEMM's output
	err := forBlocks(g, B, func(n0, b int, col, yb []E) error {
		t := b * P
		if runs != nil {
			gatherRuns(g, runs, any(col).([]float32), any(x).([]float32), n0, b)
		} else {
			forSamples(g, b, func(i int, xb []E) {
				gather(col, t, i, x[(n0+i)*xsz:(n0+i+1)*xsz], xb, tab, P)
			})
		}
		if err := blockGemm(false, cog, t, ck, w, ck, cog*ck, col, t, ck*t, yb, t, cog*t, g.groups); err != nil {
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

// blockCols is the widest product of blockGemm for float32: products up to
// 256 columns wide take the GEMM's direct path, which reads the columns in
// place instead of packing them (internal/gemm's directMaxN). Tests change it.
var blockCols = 256

// blockGemm is the block kernels' C = op(A) B (beta 0) over the groups:
// tensor.GemmBatch with strides sA, sB, sC between the groups. Float32
// products of one group wider than blockCols are split into column strips of
// at most blockCols (a batch of products, which the GEMM runs in parallel),
// so that each reads B in place: each element of C is the same FMA chain as
// in the whole product, bit for bit.
func blockGemm[E floating](transA bool, m, n, k int, a []E, lda, sA int, b []E, ldb, sB int, c []E, ldc, sC, groups int) error {
	_, single := any(a).([]float32)
	if !single || groups != 1 || n <= blockCols {
		return tensor.GemmBatch(transA, false, m, n, k, 1, a, lda, sA, b, ldb, sB, 0, c, ldc, sC, groups)
	}
	strips := (n + blockCols - 1) / blockCols
	w := (n/strips + 7) &^ 7 // the strips but the last, a multiple of 8 wide
	full := n / w
	if err := tensor.GemmBatch(transA, false, m, w, k, 1, a, lda, 0, b, ldb, w, 0, c, ldc, w, full); err != nil || full*w == n {
		return err
	}
	j := full * w
	return tensor.GemmBatch(transA, false, m, n-j, k, 1, a, lda, 0, b[j:], ldb, 0, 0, c[j:], ldc, 0, 1)
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
	var tab []int32
	runs := runsOf[E](g)
	if runs == nil {
		tab = g.gatherTable()
	}
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
			if err := blockGemm(true, ck, t, cog, w, ck, cog*ck, yb, t, cog*t, col, t, ck*t, g.groups); err != nil {
				return err
			}
			if runs != nil {
				scatterRuns(g, runs, any(col).([]float32), any(xbar).([]float32), n0, b)
			} else {
				forSamples(g, b, func(i int, xb []E) {
					scatter(col, t, i, xbar[(n0+i)*xsz:(n0+i+1)*xsz], xb, tab, P)
				})
			}
		}
		if wantW {
			if runs != nil {
				gatherRuns(g, runs, any(col).([]float32), any(x).([]float32), n0, b)
			} else {
				forSamples(g, b, func(i int, xb []E) {
					gather(col, t, i, x[(n0+i)*xsz:(n0+i+1)*xsz], xb, tab, P)
				})
			}
			return tensor.GemmBatch(false, true, cog, ck, t, 1, yb, t, cog*t, col, t, ck*t, 1, wbar, ck, cog*ck, g.groups)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return xbar, wbar, nil
}
