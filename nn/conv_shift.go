package nn

import (
	"runtime"

	"github.com/chainrules-go/chainrules/internal/vmath"
	"github.com/chainrules-go/chainrules/tensor"
)

// The kernels of stride-1 convolutions with zero padding (a 3x3 kernel with
// padding 1, the layers of a ResNet stage), by implicit GEMM: no im2col. A
// sample's input is copied once into a zero-padded image xp [cin, plane]
// (plane = pin0 pin1 pin2, the padded sizes), and the output is computed on a
// "wide" grid, output position (o0, o1, o2) at
//
//	p' = o0 pin1 pin2 + o1 pin2 + o2,    p' in [0, L),  L = p'(out - 1) + 1,
//
// where the window of kernel offset t = (k0, k1, k2) starts at xp[c, p' +
// off_t], off_t = k0 d0 pin1 pin2 + k1 d1 pin2 + k2 d2. Row (c, t) of im2col's
// matrix is then the contiguous run xp[c plane + off_t :][:L], and the three
// maps are one GEMM each per sample whose im2col operand is packed straight
// from xp (tensor.GemmRows, tensor.GemmCols):
//
//	conv:   yw [cout, L]     = W [cout, cin K] Xrows,         Xrows[(c, t), p'] = xp[c plane + off_t + p']
//	convW:  W  [cout, cin K] = sum_n yw [cout, L] Xrows^T      (yw zero off the grid)
//	convT:  xq [cin, Q]      = W' [cin, cout K] Yrows,        Yrows[(o, t), q] = e[o, M - off_t + q]
//
// with W'[c, (o, t)] = W[o, c, t], e [cout, M + plane] the cotangent placed on
// the wide grid after M = max off_t zeros, and xq the gradient of the padded
// image from its first interior position on, Q = p'(in - 1) + 1 positions.
// The rows are taken in the order (t, c) (and (t, o)), the weight's columns
// permuted to match: the rows of one kernel offset are then at the constant
// stride plane, which the GEMM packs as strided blocks with AVX moves and
// transposes. The positions of the wide grid off the output (the last pin2 -
// out2 of each row) cost L/P - 1 of the multiply-adds (3.5% at 56x56, padding
// 1): a geometry wasting more than a quarter takes the tiles instead.
//
// The samples go to the goroutines of vmath.ParallelFor (about one chunk of
// samples per goroutine, each GEMM serial) for conv and convT. convW, a sum
// over the samples, cuts the batch into at most convWParts fixed parts (a
// number that does not depend on the goroutines), sums each part's samples in
// order into a gradient of its own, the parts on the goroutines of
// vmath.ParallelFor (small parts, so that a goroutine held up by another
// process leaves the others parts to take), and adds the parts' gradients in
// order: its result does not depend on the number of goroutines. (Each
// sample's GEMM on every goroutine, the samples in order, as before, spent 1.5
// times the CPU time of one goroutine at two: the shared packing of a 64-row
// product waits.)

// shiftGeom is the implicit-GEMM layout of a convGeom (see above).
type shiftGeom struct {
	pin       [3]int // padded sizes
	plane, L  int    // padded image and wide grid sizes
	qStart, Q int    // first interior position of the padded image, and the span of the interior
	M         int    // the largest tap offset
	off       []int  // tap offsets, in the order of the weight's kernel positions
}

// shiftOff turns the implicit-GEMM kernels off (tests compare them with the
// tiles).
var shiftOff = false

// shift returns the implicit-GEMM layout of g, or nil when g is not a
// stride-1, zero-padded, ungrouped, non-empty convolution whose wide grid
// wastes at most a quarter of the multiply-adds. It is built once per geometry.
func (g *convGeom) shift() *shiftGeom {
	if shiftOff {
		return nil
	}
	g.shiftOnce.Do(func() { g.shiftG = g.newShift() })
	return g.shiftG
}

func (g *convGeom) newShift() *shiftGeom {
	if g.groups != 1 || g.identity || g.n == 0 || g.cin == 0 || g.cout == 0 {
		return nil
	}
	s := &shiftGeom{}
	for D := range 3 {
		if g.stride[D] != 1 || g.lo[D] < 0 || g.hi[D] < 0 {
			return nil
		}
		s.pin[D] = g.lo[D] + g.in[D] + g.hi[D]
		if g.out[D] != s.pin[D]-g.dil[D]*(g.k[D]-1) {
			return nil
		}
		for k, row := range g.idx[D] {
			for o, v := range row {
				i := o + k*g.dil[D] - g.lo[D]
				if i < 0 || i >= g.in[D] {
					i = -1
				}
				if int(v) != i {
					return nil // a padding mode other than zeros
				}
			}
		}
	}
	s1 := s.pin[1] * s.pin[2]
	s.plane = s.pin[0] * s1
	pos := func(i0, i1, i2 int) int { return i0*s1 + i1*s.pin[2] + i2 }
	s.L = pos(g.out[0]-1, g.out[1]-1, g.out[2]-1) + 1
	s.qStart = pos(g.lo[0], g.lo[1], g.lo[2])
	s.Q = pos(g.in[0]-1, g.in[1]-1, g.in[2]-1) + 1
	if 4*s.L > 5*g.pSize() || 4*s.Q > 5*g.inSize() || int64(g.cin)*int64(s.plane)+int64(s.L) >= 1<<31 {
		return nil
	}
	for k0 := range g.k[0] {
		for k1 := range g.k[1] {
			for k2 := range g.k[2] {
				s.off = append(s.off, pos(k0*g.dil[0], k1*g.dil[1], k2*g.dil[2]))
			}
		}
	}
	s.M = s.off[len(s.off)-1]
	return s
}

// rows returns the offsets in a padded sample xp of the rows of the im2col
// matrix, in the order (t, c): off_t + c plane. The cin rows of one kernel
// offset are at a constant stride, which the GEMM packs as one strided block.
func (s *shiftGeom) rows(cin int) []int {
	r := make([]int, 0, cin*len(s.off))
	for _, o := range s.off {
		for c := range cin {
			r = append(r, c*s.plane+o)
		}
	}
	return r
}

// swapLast returns v [a, b, c] with its last two axes swapped, [a, c, b]: the
// weight's columns between the order (c, t) of its layout and the order (t,
// c) of the rows.
func swapLast[E floating](v []E, a, b, c int) []E {
	out := make([]E, len(v))
	for i := range a {
		for j := range b {
			for k := range c {
				out[(i*c+k)*b+j] = v[(i*b+j)*c+k]
			}
		}
	}
	return out
}

// wideCopy copies between a [ch, in...] tensor t and its place in a wide
// layout u of rows of w elements, position (i0, i1, i2) of channel c at u[c w
// + base + i0 pin1 pin2 + i1 pin2 + i2]: t into u when toWide, else u into t.
// A row of the innermost axis is one copy.
func wideCopy[E floating](s *shiftGeom, in [3]int, ch, w, base int, u, t []E, toWide bool) {
	s1, n2 := s.pin[1]*s.pin[2], in[2]
	inSz := in[0] * in[1] * in[2]
	for c := range ch {
		for i0 := range in[0] {
			for i1 := range in[1] {
				o := c*w + base + i0*s1 + i1*s.pin[2]
				r := c*inSz + (i0*in[1]+i1)*n2
				if toWide {
					copy(u[o:o+n2], t[r:r+n2])
				} else {
					copy(t[r:r+n2], u[o:o+n2])
				}
			}
		}
	}
}

// sampleWorkers splits the n samples of a map over the goroutines: it
// returns the grain of vmath.ParallelFor over the samples (about n /
// GOMAXPROCS, so one chunk per goroutine) and the goroutines of each
// sample's GEMM (all of them when there are fewer samples than goroutines).
func sampleWorkers(n int) (grain, workers int) {
	p := runtime.GOMAXPROCS(0)
	if n < p {
		return n, p
	}
	return (n + p - 1) / p, 1
}

// shiftBuf returns a zeroed buffer of n elements from the pool (vmath.Put it
// back).
func shiftBuf[E floating](n int) []E {
	b := vmath.MakeNoZero[E](n)
	clear(b)
	return b
}

// convShift is conv, y = conv(x, w), by implicit GEMM.
func convShift[E floating](g *convGeom, s *shiftGeom, x, w []E) ([]E, error) {
	P, ck, inSz := g.pSize(), g.cin*g.kSize(), g.inSize()
	y := vmath.MakeNoZero[E](g.n * g.cout * P) // every element is copied from the wide grid
	rows, wp := s.rows(g.cin), swapLast(w, g.cout, g.cin, g.kSize())
	grain, workers := sampleWorkers(g.n)
	var errs firstError
	vmath.ParallelFor(g.n, grain, func(lo, hi int) {
		xp, yw := shiftBuf[E](g.cin*s.plane), vmath.MakeNoZero[E](g.cout*s.L)
		defer vmath.Put(xp)
		defer vmath.Put(yw)
		for n := lo; n < hi; n++ {
			wideCopy(s, g.in, g.cin, s.plane, s.qStart, xp, x[n*g.cin*inSz:(n+1)*g.cin*inSz], true)
			if err := tensor.GemmRows(workers, false, g.cout, s.L, ck, 1, wp, ck, xp, rows, 0, yw, s.L); err != nil {
				errs.set(err)
				return
			}
			wideCopy(s, g.out, g.cout, s.L, 0, yw, y[n*g.cout*P:(n+1)*g.cout*P], false)
		}
	})
	if err := errs.get(); err != nil {
		return nil, err
	}
	return y, nil
}

// spread places sample ys [cout, out] on the wide grid of e [cout, M + plane]
// after M zeros; the rest of e stays zero.
func spread[E floating](g *convGeom, s *shiftGeom, e, ys []E) {
	wideCopy(s, g.out, g.cout, s.M+s.plane, s.M, e, ys, true)
}

// convTShift is convT, x = convT(y, w), by implicit GEMM.
func convTShift[E floating](g *convGeom, s *shiftGeom, y, w []E) ([]E, error) {
	P, K, inSz := g.pSize(), g.kSize(), g.inSize()
	ck := g.cout * K
	// W'[c, (t, o)] = W[o, c, t], and the rows (t, o) of the cotangent.
	wt := swapLast(w, 1, g.cout, g.cin*K)
	le := s.M + s.plane
	rows := make([]int, 0, ck)
	for _, t := range s.off {
		for o := range g.cout {
			rows = append(rows, o*le+s.M-t+s.qStart)
		}
	}
	x := vmath.MakeNoZero[E](g.n * g.cin * inSz) // every element is copied from xq
	grain, workers := sampleWorkers(g.n)
	var errs firstError
	vmath.ParallelFor(g.n, grain, func(lo, hi int) {
		e, xq := shiftBuf[E](g.cout*le), vmath.MakeNoZero[E](g.cin*s.Q)
		defer vmath.Put(e)
		defer vmath.Put(xq)
		for n := lo; n < hi; n++ {
			spread(g, s, e, y[n*g.cout*P:(n+1)*g.cout*P])
			if err := tensor.GemmRows(workers, false, g.cin, s.Q, ck, 1, wt, ck, e, rows, 0, xq, s.Q); err != nil {
				errs.set(err)
				return
			}
			wideCopy(s, g.in, g.cin, s.Q, 0, xq, x[n*g.cin*inSz:(n+1)*g.cin*inSz], false)
		}
	})
	if err := errs.get(); err != nil {
		return nil, err
	}
	return x, nil
}

// convWParts is the most parts of the batch whose weight gradients
// convWShift sums separately (see above).
const convWParts = 8

// convWShift is convW, w = convW(x, y), by implicit GEMM: the sum over the
// samples, by parts of the batch.
func convWShift[E floating](g *convGeom, s *shiftGeom, x, y []E) ([]E, error) {
	P, ck, inSz := g.pSize(), g.cin*g.kSize(), g.inSize()
	le := s.M + s.plane
	cols := s.rows(g.cin)
	parts := min(g.n, convWParts)
	part := make([][]E, parts) // columns (t, c)
	_, workers := sampleWorkers(parts)
	var errs firstError
	vmath.ParallelFor(parts, 1, func(lo, hi int) {
		xp, e := shiftBuf[E](g.cin*s.plane), shiftBuf[E](g.cout*le)
		defer vmath.Put(xp)
		defer vmath.Put(e)
		for q := lo; q < hi; q++ {
			w := shiftBuf[E](g.cout * ck)
			for n := q * g.n / parts; n < (q+1)*g.n/parts; n++ {
				wideCopy(s, g.in, g.cin, s.plane, s.qStart, xp, x[n*g.cin*inSz:(n+1)*g.cin*inSz], true)
				spread(g, s, e, y[n*g.cout*P:(n+1)*g.cout*P])
				if err := tensor.GemmCols(workers, false, g.cout, ck, s.L, 1, e[s.M:], le, xp, cols, 1, w, ck); err != nil {
					errs.set(err)
					return
				}
			}
			part[q] = w
		}
	})
	if err := errs.get(); err != nil {
		return nil, err
	}
	w := part[0]
	for _, p := range part[1:] {
		for i, v := range p {
			w[i] += v
		}
		vmath.Put(p)
	}
	defer vmath.Put(w)
	return swapLast(w, g.cout, g.kSize(), g.cin), nil
}
