package index

import (
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// buf is the row-major element slice of a tensor of either dtype.
type buf struct {
	c  bool
	f  []float64
	cx []complex128
}

// bufOf returns t's elements in row-major order. For a contiguous t it aliases
// t's storage: callers write only into tensors they have just allocated.
func bufOf(t *tensor.Dense) buf {
	if t.DType() == tensor.Complex128 {
		return buf{c: true, cx: t.Complex128s()}
	}
	return buf{f: t.Float64s()}
}

// piece is one strided block copy: for every multi-index i over shape,
//
//	dst[dstOff + i . dstSt] = src[srcOff + i . srcSt]
//
// where src is the row-major buffer of input `input` and dst that of the output
// (the forward direction; the adjoint copies the other way). Strides may be
// negative (a flip). Every op of this package that only moves elements is a list
// of pieces whose destinations are disjoint and whose sources are disjoint, so the
// transpose of the forward copy is the backward copy into zeros.
type piece struct {
	input          int
	shape          []int
	srcOff, dstOff int
	srcSt, dstSt   []int
}

// withPieces sets r's fwd and adj to the block copies ps.
func (r *linear) withPieces(ps []piece) *linear {
	r.fwd = func(xs []*tensor.Dense) *tensor.Dense {
		out := tensor.New(r.outDT, r.outShape...)
		ob := bufOf(out)
		bs := make([]buf, len(xs))
		for k, x := range xs {
			bs[k] = bufOf(x)
		}
		for _, p := range ps {
			copyBuf(ob, p.dstOff, p.dstSt, bs[p.input], p.srcOff, p.srcSt, p.shape)
		}
		return out
	}
	// The adjoint of input k copies back the pieces that read from it.
	of := make([][]piece, len(r.inShape))
	for _, p := range ps {
		of[p.input] = append(of[p.input], p)
	}
	r.adj = func(k int, ybar *tensor.Dense) *tensor.Dense {
		xbar := tensor.New(r.outDT, r.inShape[k]...)
		xb, yb := bufOf(xbar), bufOf(ybar)
		for _, p := range of[k] {
			copyBuf(xb, p.srcOff, p.srcSt, yb, p.dstOff, p.dstSt, p.shape)
		}
		return xbar
	}
	return r
}

// copyBuf dispatches copyStrided on the dtype; both buffers have the same dtype.
func copyBuf(dst buf, dOff int, dSt []int, src buf, sOff int, sSt []int, shape []int) {
	if dst.c {
		copyStrided(dst.cx, dOff, dSt, src.cx, sOff, sSt, shape)
		return
	}
	copyStrided(dst.f, dOff, dSt, src.f, sOff, sSt, shape)
}

// copyStrided sets dst[dOff + i . dSt] = src[sOff + i . sSt] for every multi-index
// i over shape. Axes of size 1 are dropped and neighbouring axes that are
// contiguous for both sides are merged first, so that a block of whole rows is a
// single copy.
func copyStrided[T tensor.Element](dst []T, dOff int, dSt []int, src []T, sOff int, sSt []int, shape []int) {
	var shB, dB, sB [16]int // stack space for the merged axes (append grows past 16)
	sh, ds, ss, ok := opkit.MergeAxes2(shape, dSt, sSt, shB[:0], dB[:0], sB[:0])
	if !ok {
		return
	}
	if len(sh) == 0 {
		dst[dOff] = src[sOff]
		return
	}
	last := len(sh) - 1
	n, di, si := sh[last], ds[last], ss[last]
	idx := make([]int, last)
	d, s := dOff, sOff
	for {
		switch {
		case di == 1 && si == 1:
			copy(dst[d:d+n], src[s:s+n])
		default:
			dd, sp := d, s
			for range n {
				dst[dd] = src[sp]
				dd += di
				sp += si
			}
		}
		// Advance the odometer over the outer axes.
		if !opkit.Step2(idx, sh, ds, ss, &d, &s) {
			return
		}
	}
}
