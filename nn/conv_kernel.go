package nn

import (
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
// each loop over the batch with one im2col buffer [cin K, P] (K kernel
// positions, P output positions), reused from sample to sample.

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

func (g *convGeom) kSize() int   { return g.k[0] * g.k[1] * g.k[2] }
func (g *convGeom) pSize() int   { return g.out[0] * g.out[1] * g.out[2] }
func (g *convGeom) inSize() int  { return g.in[0] * g.in[1] * g.in[2] }
func (g *convGeom) cinG() int    { return g.cin / g.groups }
func (g *convGeom) coutG() int   { return g.cout / g.groups }
func (g *convGeom) colSize() int { return g.cin * g.kSize() * g.pSize() }

// spatial returns the user's spatial sizes of a padded triple.
func (g *convGeom) spatial(v [3]int) []int { return append([]int(nil), v[3-g.nd:]...) }

// shapes of x, w and y.
func (g *convGeom) xShape() []int { return append([]int{g.n, g.cin}, g.spatial(g.in)...) }
func (g *convGeom) wShape() []int { return append([]int{g.cout, g.cinG()}, g.spatial(g.k)...) }
func (g *convGeom) yShape() []int { return append([]int{g.n, g.cout}, g.spatial(g.out)...) }

// im2col writes the columns of one sample xs [cin, in] into col [cin K, P]
// (scatter false), or adds col back into xs (scatter true, col2im).
func (g *convGeom) im2col(col, xs []float64, scatter bool) {
	P, inSz := g.pSize(), g.inSize()
	r := 0
	for c := range g.cin {
		xc := xs[c*inSz : (c+1)*inSz]
		for k0 := range g.k[0] {
			for k1 := range g.k[1] {
				for k2 := range g.k[2] {
					g.row(col[r*P:(r+1)*P], xc, k0, k1, k2, scatter)
					r++
				}
			}
		}
	}
}

// row is one row of im2col: kernel offset (k0, k1, k2) of one channel xc.
func (g *convGeom) row(row, xc []float64, k0, k1, k2 int, scatter bool) {
	i1, i2 := g.idx[1][k1], g.idx[2][k2]
	in1, in2, n2, s2 := g.in[1], g.in[2], g.out[2], g.stride[2]
	aff := g.aff[k2]
	i := 0
	for _, a := range g.idx[0][k0] {
		for _, b := range i1 {
			seg := row[i : i+n2]
			i += n2
			if a < 0 || b < 0 {
				if !scatter {
					clear(seg)
				}
				continue
			}
			base := (int(a)*in1 + int(b)) * in2
			if aff[0] < 0 {
				for o, s := range i2 {
					switch {
					case s < 0:
						if !scatter {
							seg[o] = 0
						}
					case scatter:
						xc[base+int(s)] += seg[o]
					default:
						seg[o] = xc[base+int(s)]
					}
				}
				continue
			}
			first, last := aff[0], aff[1]
			src := xc[base+aff[2]:]
			if !scatter {
				clear(seg[:first])
				clear(seg[last:])
			}
			if s2 == 1 {
				if scatter {
					for j, v := range seg[first:last] {
						src[j] += v
					}
				} else {
					copy(seg[first:last], src[:last-first])
				}
				continue
			}
			j := 0
			if scatter {
				for o := first; o < last; o++ {
					src[j] += seg[o]
					j += s2
				}
			} else {
				for o := first; o < last; o++ {
					seg[o] = src[j]
					j += s2
				}
			}
		}
	}
}

// conv returns y = conv(x, w).
func (g *convGeom) conv(x, w []float64) ([]float64, error) {
	P, ck := g.pSize(), g.cinG()*g.kSize()
	y := vmath.MakeNoZero[float64](g.n * g.cout * P) // every sample is written by the GEMM with beta 0
	var col []float64
	if !g.identity {
		col = vmath.MakeNoZero[float64](g.colSize())
	}
	for n := range g.n {
		xs := x[n*g.cin*g.inSize() : (n+1)*g.cin*g.inSize()]
		if g.identity {
			col = xs
		} else {
			g.im2col(col, xs, false)
		}
		ys := y[n*g.cout*P : (n+1)*g.cout*P]
		if err := tensor.GemmBatch(false, false, g.coutG(), P, ck, 1, w, ck, g.coutG()*ck, col, P, ck*P, 0, ys, P, g.coutG()*P, g.groups); err != nil {
			return nil, err
		}
	}
	return y, nil
}

// convT returns x = convT(y, w), the adjoint of conv in x: per sample the
// columns W^T y, added back into the input positions they were read from.
func (g *convGeom) convT(y, w []float64) ([]float64, error) {
	P, ck, inSz := g.pSize(), g.cinG()*g.kSize(), g.inSize()
	x := make([]float64, g.n*g.cin*inSz)
	var col []float64
	if !g.identity {
		col = vmath.MakeNoZero[float64](g.colSize())
	}
	for n := range g.n {
		xs := x[n*g.cin*inSz : (n+1)*g.cin*inSz]
		dst := col
		if g.identity {
			dst = xs
		}
		ys := y[n*g.cout*P : (n+1)*g.cout*P]
		if err := tensor.GemmBatch(true, false, ck, P, g.coutG(), 1, w, ck, g.coutG()*ck, ys, P, g.coutG()*P, 0, dst, P, ck*P, g.groups); err != nil {
			return nil, err
		}
		if !g.identity {
			g.im2col(col, xs, true)
		}
	}
	return x, nil
}

// convW returns w = convW(x, y), the adjoint of conv in w: the sum over the
// samples of y_n col(x_n)^T.
func (g *convGeom) convW(x, y []float64) ([]float64, error) {
	P, ck, inSz := g.pSize(), g.cinG()*g.kSize(), g.inSize()
	w := make([]float64, g.cout*ck)
	var col []float64
	if !g.identity {
		col = vmath.MakeNoZero[float64](g.colSize())
	}
	for n := range g.n {
		xs := x[n*g.cin*inSz : (n+1)*g.cin*inSz]
		if g.identity {
			col = xs
		} else {
			g.im2col(col, xs, false)
		}
		ys := y[n*g.cout*P : (n+1)*g.cout*P]
		beta := 1.0
		if n == 0 {
			beta = 0
		}
		if err := tensor.GemmBatch(false, true, g.coutG(), ck, P, 1, ys, P, g.coutG()*P, col, P, ck*P, beta, w, ck, g.coutG()*ck, g.groups); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// addBias adds b[c] to every element of channel c of v [n, c, s].
func addBias(v, b []float64, n, c, s int) {
	for i := range n {
		for j := range c {
			bj := b[j]
			for k := (i*c + j) * s; k < (i*c+j+1)*s; k++ {
				v[k] += bj
			}
		}
	}
}

// biasSum returns sum over n and s of v [n, c, s], one value per channel.
func biasSum(v []float64, n, c, s int) []float64 {
	out := make([]float64, c)
	for i := range n {
		for j := range c {
			out[j] += sum(v[(i*c+j)*s : (i*c+j+1)*s])
		}
	}
	return out
}
