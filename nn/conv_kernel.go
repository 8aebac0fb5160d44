package nn

import (
	"sync"

	"github.com/chainrules-go/chainrules/internal/vmath"
	"github.com/chainrules-go/chainrules/tensor"
)

// The kernels of the convolutions: one implementation for 1 to 3 spatial
// dimensions (fewer dimensions are the 3-d case with leading axes of size 1),
// by im2col (vol2col) and the project's GEMM. The three bilinear maps of one
// geometry,
//
//	conv:   y = conv(x, w)     y[n, o, p]  = sum_{c, k} w[o, c, k] xpad[n, c, p s + k d]
//	convT:  x = convT(y, w)    the adjoint of conv in x (a transposed convolution)
//	convW:  w = convW(x, y)    the adjoint of conv in w (the weight gradient)
//
// each loop over the batch and over tiles of output positions with one im2col
// buffer [cin K, T] (K kernel positions, T <= P output positions) per
// goroutine, reused from tile to tile: conv splits its tiles, convT its samples
// over the goroutines of vmath.ParallelFor (each output element is computed by
// the same serial GEMM on any number of goroutines); convW, which sums over
// tiles into one weight gradient, runs them in order. Small images (at most maxBlockP output positions, two
// samples' columns or more to a tile) take the block kernels of
// conv_block.go instead: a tile of several samples, one GEMM per tile; larger
// stride-1 convolutions with zero padding take the implicit GEMM of
// conv_shift.go (no im2col: one GEMM per sample packing im2col's rows from
// the padded image).

// convGeom is the geometry of a convolution seen from its conv form: input x
// [n, cin, in...], weight w [cout, cin/groups, k...], output y [n, cout, out...].
// The padded input along axis d has lo[d] + in[d] + hi[d] positions; position p
// reads x at src index idx[d][k][o] (o*stride + k*dil = p + lo) or is zero when
// that index is -1, which covers zero padding and the reflect, replicate and
// circular modes alike.
type convGeom struct {
	nd                   int // spatial dims of the user's tensors, 1 to 3
	n, cin, cout, groups int
	in, k, out           [3]int // leading axes padded with 1
	stride, dil, lo, hi  [3]int
	idx                  [3][][]int32 // [axis][kernel offset][output position]
	aff                  [][3]int     // innermost axis, per kernel offset: first, last, src(first); first<0 when not affine
	identity             bool         // im2col is x itself (1x1 kernel, stride 1, no padding)
	tabOnce              sync.Once    // builds tab, the block kernels' gather table (conv_block.go)
	tab                  []int32
	runsOnce             sync.Once  // builds runs, the block kernels' im2col as shifted runs (conv_block.go)
	runs                 *blockRuns // nil when a row of the columns is not a shifted run
	shiftOnce            sync.Once  // builds shiftG, the implicit-GEMM layout (conv_shift.go)
	shiftG               *shiftGeom // nil when the geometry takes the tiles
}

// newConvGeom builds the geometry; src maps a position of the padded axis d
// (0-based from the start of the padding) to an index of x or -1. out, when
// not nil, sets the output sizes (a transposed convolution's input, whose
// output_padding leaves positions that no window reaches).
func newConvGeom(nd, n, cin, cout, groups int, in, k, stride, dil, lo, hi, out []int, src func(d, p int) int) *convGeom {
	g := &convGeom{nd: nd, n: n, cin: cin, cout: cout, groups: groups}
	off := 3 - nd
	for d := range 3 {
		g.in[d], g.k[d], g.out[d], g.stride[d], g.dil[d] = 1, 1, 1, 1, 1
	}
	for d := range nd {
		D := d + off
		g.in[D], g.k[D], g.stride[D], g.dil[D], g.lo[D], g.hi[D] = in[d], k[d], stride[d], dil[d], lo[d], hi[d]
		g.out[D] = (lo[d]+in[d]+hi[d]-dil[d]*(k[d]-1)-1)/stride[d] + 1
		if out != nil {
			g.out[D] = out[d]
		}
	}
	g.identity = true
	for D := range 3 {
		g.idx[D] = make([][]int32, g.k[D])
		for kk := range g.k[D] {
			row := make([]int32, g.out[D])
			for o := range row {
				p := o*g.stride[D] + kk*g.dil[D]
				s := p - g.lo[D]
				if D >= off {
					s = src(D-off, p)
				}
				row[o] = int32(s)
			}
			g.idx[D][kk] = row
		}
		if g.k[D] != 1 || g.stride[D] != 1 || g.lo[D] != 0 || g.hi[D] != 0 || g.out[D] != g.in[D] {
			g.identity = false
		}
	}
	g.aff = make([][3]int, g.k[2])
	for kk, row := range g.idx[2] {
		g.aff[kk] = affineRun(row, g.stride[2])
	}
	return g
}

// affineRun returns {first, last, src(first)} when row is -1 outside [first,
// last) and src(first) + (o - first) stride inside, or {-1, 0, 0}.
func affineRun(row []int32, stride int) [3]int {
	first, last := len(row), len(row)
	for o, s := range row {
		if s >= 0 {
			first = o
			break
		}
	}
	for o := first; o < len(row); o++ {
		if row[o] < 0 {
			last = o
			break
		}
	}
	for o, s := range row {
		inside := o >= first && o < last
		if inside && int(s) != int(row[first])+(o-first)*stride || !inside && s >= 0 {
			return [3]int{-1, 0, 0}
		}
	}
	if first == len(row) {
		return [3]int{0, 0, 0}
	}
	return [3]int{first, last, int(row[first])}
}

// empty reports whether every sum of the three maps is over no terms (no
// samples, no input or output channels, no positions): their results are then
// zeros, and the kernels, which divide by these sizes, are not asked.
func (g *convGeom) empty() bool {
	return g.n == 0 || g.cin == 0 || g.cout == 0 || g.pSize() == 0 || g.inSize() == 0
}

func (g *convGeom) kSize() int  { return g.k[0] * g.k[1] * g.k[2] }
func (g *convGeom) pSize() int  { return g.out[0] * g.out[1] * g.out[2] }
func (g *convGeom) inSize() int { return g.in[0] * g.in[1] * g.in[2] }
func (g *convGeom) cinG() int   { return g.cin / g.groups }
func (g *convGeom) coutG() int  { return g.cout / g.groups }

// spatial returns the user's spatial sizes of a padded triple.
func (g *convGeom) spatial(v [3]int) []int { return append([]int(nil), v[3-g.nd:]...) }

// shapes of x, w and y.
func (g *convGeom) xShape() []int { return append([]int{g.n, g.cin}, g.spatial(g.in)...) }
func (g *convGeom) wShape() []int { return append([]int{g.cout, g.cinG()}, g.spatial(g.k)...) }
func (g *convGeom) yShape() []int { return append([]int{g.n, g.cout}, g.spatial(g.out)...) }

// tileSize returns the number of output positions per im2col tile: a tile
// [cin K, T] of about colTileElems elements stays in the cache between
// im2col and the GEMM's packing (a whole sample's columns would go through
// memory twice), and the tile is the only im2col-sized buffer.
func (g *convGeom) tileSize() int {
	rows := g.cin * g.kSize()
	return min(g.pSize(), max(colTileElems/max(rows, 1), minTile))
}

// colTileElems is the size of an im2col tile in elements (1 MiB), minTile the
// fewest output positions of a tile (a narrower GEMM is slow); tests lower
// both to run many tiles on small inputs.
var colTileElems, minTile = 1 << 17, 64

// im2col writes the columns of output positions [p0, p1) of one sample xs
// [cin, in] into col [cin K, p1 - p0] (scatter false), or adds col back into
// xs (scatter true, col2im).
func im2col[E floating](g *convGeom, col, xs []E, p0, p1 int, scatter bool) {
	T, inSz := p1-p0, g.inSize()
	r := 0
	for c := range g.cin {
		xc := xs[c*inSz : (c+1)*inSz]
		for k0 := range g.k[0] {
			for k1 := range g.k[1] {
				for k2 := range g.k[2] {
					im2colRow(g, col[r*T:(r+1)*T], xc, k0, k1, k2, p0, p1, scatter)
					r++
				}
			}
		}
	}
}

// row is one row of im2col, output positions [p0, p1): kernel offset (k0, k1,
// k2) of one channel xc. The positions run over segments of the innermost
// axis, one per (o0, o1).
func im2colRow[E floating](g *convGeom, row, xc []E, k0, k1, k2, p0, p1 int, scatter bool) {
	i0, i1, i2 := g.idx[0][k0], g.idx[1][k1], g.idx[2][k2]
	n1, n2, in1, in2, s2 := g.out[1], g.out[2], g.in[1], g.in[2], g.stride[2]
	aff := g.aff[k2]
	for q := p0 / n2; q*n2 < p1; q++ {
		lo, hi := max(p0-q*n2, 0), min(p1-q*n2, n2) // the o2 of this segment
		seg := row[q*n2+lo-p0 : q*n2+hi-p0]         // seg[j] is o2 = lo + j
		a, b := i0[q/n1], i1[q%n1]
		if a < 0 || b < 0 {
			if !scatter {
				zero(seg)
			}
			continue
		}
		base := (int(a)*in1 + int(b)) * in2
		if aff[0] < 0 {
			for j := range seg {
				switch s := i2[lo+j]; {
				case s < 0:
					if !scatter {
						seg[j] = 0
					}
				case scatter:
					xc[base+int(s)] += seg[j]
				default:
					seg[j] = xc[base+int(s)]
				}
			}
			continue
		}
		first, last := min(max(aff[0], lo), hi), min(max(aff[1], lo), hi)
		if first >= last {
			if !scatter {
				zero(seg)
			}
			continue
		}
		if !scatter {
			zero(seg[:first-lo])
			zero(seg[last-lo:])
		}
		src := xc[base+aff[2]+(first-aff[0])*s2:]
		dst := seg[first-lo : last-lo]
		switch {
		case s2 == 1 && scatter:
			addTo(src[:len(dst)], dst)
		case s2 == 1:
			copy(dst, src)
		case scatter:
			for j, v := range dst {
				src[j*s2] += v
			}
		default:
			for j := range dst {
				dst[j] = src[j*s2]
			}
		}
	}
}

// addTo adds v to dst, of the same length, in vectorised arithmetic
// (vmath.Add, vmath.Add32): col2im's rows.
func addTo[E floating](dst, v []E) {
	switch d := any(dst).(type) {
	case []float32:
		vmath.Add32(d, d, any(v).([]float32))
	case []float64:
		vmath.Add(d, d, any(v).([]float64))
	}
}

// zero clears s: in a loop when it is short (the padding of a small image's
// segment), where a call to the runtime's memclr costs more than the stores.
func zero[E floating](s []E) {
	if len(s) > 16 {
		clear(s)
		return
	}
	for j := range s {
		s[j] = 0
	}
}

// conv returns y = conv(x, w).
func conv[E floating](g *convGeom, x, w []E) ([]E, error) {
	if g.empty() {
		return make([]E, g.n*g.cout*g.pSize()), nil
	}
	if B := g.blockSamples(); B > 0 {
		return convBlocks(g, x, w, B)
	}
	if s := g.shift(); s != nil {
		return convShift(g, s, x, w)
	}
	P, ck, cog, inSz := g.pSize(), g.cinG()*g.kSize(), g.coutG(), g.inSize()
	y := vmath.MakeNoZero[E](g.n * g.cout * P) // every element is written by a GEMM with beta 0
	for n := range g.n {
		xs, ys := x[n*g.cin*inSz:(n+1)*g.cin*inSz], y[n*g.cout*P:(n+1)*g.cout*P]
		if g.identity {
			if err := tensor.GemmBatch(false, false, cog, P, ck, 1, w, ck, cog*ck, xs, P, ck*P, 0, ys, P, cog*P, g.groups); err != nil {
				return nil, err
			}
		}
	}
	if g.identity {
		return y, nil
	}
	// The tiles (a sample's run of at most T output positions) are independent:
	// they go to the goroutines of vmath.ParallelFor, each with a tile buffer of
	// its own, and every output element is computed by the same serial GEMM on
	// any number of goroutines.
	T := g.tileSize()
	tiles := (P + T - 1) / T
	var errs firstError
	vmath.ParallelFor(g.n*tiles, 1, func(lo, hi int) {
		col := vmath.MakeNoZero[E](g.cin * g.kSize() * T)
		defer vmath.Put(col)
		for u := lo; u < hi; u++ {
			n, p0 := u/tiles, u%tiles*T
			xs, ys := x[n*g.cin*inSz:(n+1)*g.cin*inSz], y[n*g.cout*P:(n+1)*g.cout*P]
			t := min(T, P-p0)
			im2col(g, col, xs, p0, p0+t, false)
			errs.set(tensor.GemmBatch(false, false, cog, t, ck, 1, w, ck, cog*ck, col, t, ck*t, 0, ys[p0:], P, cog*P, g.groups))
		}
	})
	if err := errs.get(); err != nil {
		return nil, err
	}
	return y, nil
}

// firstError keeps the first non-nil error that goroutines report.
type firstError struct {
	mu  sync.Mutex
	err error
}

func (e *firstError) set(err error) {
	if err == nil {
		return
	}
	e.mu.Lock()
	if e.err == nil {
		e.err = err
	}
	e.mu.Unlock()
}

func (e *firstError) get() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.err
}

// convT returns x = convT(y, w), the adjoint of conv in x: per tile of output
// positions the columns W^T y, added back into the input positions they were
// read from.
func convT[E floating](g *convGeom, y, w []E) ([]E, error) {
	if g.empty() {
		return make([]E, g.n*g.cin*g.inSize()), nil
	}
	if B := g.blockSamples(); B > 0 {
		return convTBlocks(g, y, w, B)
	}
	if s := g.shift(); s != nil {
		return convTShift(g, s, y, w)
	}
	P, ck, cog, inSz := g.pSize(), g.cinG()*g.kSize(), g.coutG(), g.inSize()
	x := make([]E, g.n*g.cin*inSz)
	if g.identity {
		for n := range g.n {
			xs, ys := x[n*g.cin*inSz:(n+1)*g.cin*inSz], y[n*g.cout*P:(n+1)*g.cout*P]
			if err := tensor.GemmBatch(true, false, ck, P, cog, 1, w, ck, cog*ck, ys, P, cog*P, 0, xs, P, ck*P, g.groups); err != nil {
				return nil, err
			}
		}
		return x, nil
	}
	// The samples are independent (a sample's tiles add into overlapping input
	// positions, so they stay in order on one goroutine): they go to the
	// goroutines of vmath.ParallelFor, each with a tile buffer of its own.
	T := g.tileSize()
	var errs firstError
	vmath.ParallelFor(g.n, 1, func(lo, hi int) {
		col := vmath.MakeNoZero[E](g.cin * g.kSize() * T)
		defer vmath.Put(col)
		for n := lo; n < hi; n++ {
			xs, ys := x[n*g.cin*inSz:(n+1)*g.cin*inSz], y[n*g.cout*P:(n+1)*g.cout*P]
			for p0 := 0; p0 < P; p0 += T {
				t := min(T, P-p0)
				if err := tensor.GemmBatch(true, false, ck, t, cog, 1, w, ck, cog*ck, ys[p0:], P, cog*P, 0, col, t, ck*t, g.groups); err != nil {
					errs.set(err)
					return
				}
				im2col(g, col, xs, p0, p0+t, true)
			}
		}
	})
	if err := errs.get(); err != nil {
		return nil, err
	}
	return x, nil
}

// convW returns w = convW(x, y), the adjoint of conv in w: the sum over the
// samples and tiles of y_tile col(x)_tile^T.
func convW[E floating](g *convGeom, x, y []E) ([]E, error) {
	if g.empty() {
		return make([]E, g.cout*g.cinG()*g.kSize()), nil
	}
	if B := g.blockSamples(); B > 0 {
		return convWBlocks(g, x, y, B)
	}
	if s := g.shift(); s != nil {
		return convWShift(g, s, x, y)
	}
	P, ck, cog, inSz := g.pSize(), g.cinG()*g.kSize(), g.coutG(), g.inSize()
	w := make([]E, g.cout*ck)
	T := P
	var col []E
	if !g.identity {
		T = g.tileSize()
		col = vmath.MakeNoZero[E](g.cin * g.kSize() * T)
	}
	for n := range g.n {
		xs, ys := x[n*g.cin*inSz:(n+1)*g.cin*inSz], y[n*g.cout*P:(n+1)*g.cout*P]
		for p0 := 0; p0 < P; p0 += T {
			t, b, ldb := min(T, P-p0), xs, P // identity: one tile, the columns are x
			if !g.identity {
				im2col(g, col, xs, p0, p0+t, false)
				b, ldb = col, t
			}
			if err := tensor.GemmBatch(false, true, cog, ck, t, 1, ys[p0:], P, cog*P, b, ldb, ck*ldb, 1, w, ck, cog*ck, g.groups); err != nil {
				return nil, err
			}
		}
	}
	return w, nil
}

// addBias adds b[c] to every element of channel c of v [n, c, s].
func addBias[E floating](v, b []E, n, c, s int) {
	for i := range n {
		for j := range c {
			bj := b[j]
			for k := (i*c + j) * s; k < (i*c+j+1)*s; k++ {
				v[k] += bj
			}
		}
	}
}

// biasSum returns sum over n and s of v [n, c, s], one value per channel,
// accumulated in double precision and rounded once to E.
func biasSum[E floating](v []E, n, c, s int) []E {
	acc := make([]float64, c)
	for i := range n {
		for j := range c {
			acc[j] += sumOf(v[(i*c+j)*s : (i*c+j+1)*s])
		}
	}
	out := make([]E, c)
	for j, a := range acc {
		out[j] = E(a)
	}
	return out
}

// sumOf is sum in double precision for either element type: float64 data
// takes sum itself (four accumulators), float32 data is widened element by
// element into the same four.
func sumOf[E floating](a []E) float64 {
	if d, ok := any(a).([]float64); ok {
		return sum(d)
	}
	var s0, s1, s2, s3 float64
	n := len(a) &^ 3
	for i := 0; i < n; i += 4 {
		s0, s1, s2, s3 = s0+float64(a[i]), s1+float64(a[i+1]), s2+float64(a[i+2]), s3+float64(a[i+3])
	}
	for i := n; i < len(a); i++ {
		s0 += float64(a[i])
	}
	return (s0 + s1) + (s2 + s3)
}
