package reduce

import (
	"fmt"
	"math/cmplx"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// plan maps a reduction of a tensor of some shape over some axes onto the canonical
// layout every kernel works in: a contiguous array of shape [Outer, Len, Inner]
// (the embedded opkit.Lanes) whose middle axis is the reduced one. Output element
// o = i*Inner + j reduces lane o, the elements (i, 0..Len-1, j), and the output
// elements are in the row-major order of the kept axes.
//
// When the reduced axes (ignoring axes of size 1) are adjacent, the input already is
// in that layout; otherwise perm moves the kept axes first and the reduced axes last
// (Inner = 1), and the input is copied in that order with tensor.Dense.Clone (whose
// tiled copy kernel makes a permuted copy about as cheap as a plain one).
type plan struct {
	opkit.Lanes
	name     string
	shape    []int // input shape
	outShape []int // output shape (reduced axes dropped, or 1 with keepdim)
	perm     []int // nil if no copy is needed
	// keepShape is the input shape with every reduced axis set to 1: the output
	// shape with keepdim, which broadcasts back to the input shape.
	keepShape []int
}

// newPlan checks axes against shape: nil or empty axes reduce every axis, negative
// axes count from the end, and a 0-d input accepts axis 0 or -1 (as PyTorch does).
func newPlan(name string, shape, axes []int, keep bool) (*plan, error) {
	rank := len(shape)
	red := make([]bool, rank)
	if len(axes) == 0 {
		for k := range red {
			red[k] = true
		}
	}
	for _, ax := range axes {
		n := max(rank, 1)
		if ax < -n || ax >= n {
			return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: axis %d out of range for rank %d", name, ax, rank)
		}
		if ax < 0 {
			ax += n
		}
		if rank == 0 {
			if len(axes) > 1 {
				return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: axis %d repeated in %v", name, ax, axes)
			}
			continue
		}
		if red[ax] {
			return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: axis %d repeated in %v", name, ax, axes)
		}
		red[ax] = true
	}
	p := &plan{name: name, shape: slices.Clone(shape), Lanes: opkit.Lanes{Outer: 1, Len: 1, Inner: 1}}
	for k, d := range shape {
		switch {
		case !red[k]:
			p.outShape = append(p.outShape, d)
		case keep:
			p.outShape = append(p.outShape, 1)
		}
	}
	if p.outShape == nil {
		p.outShape = []int{}
	}
	p.keepShape = make([]int, rank)
	for k, d := range shape {
		if red[k] {
			d = 1
		}
		p.keepShape[k] = d
	}
	// Are the reduced axes of size > 1 one block? Axes of size 1 go either way.
	first, last := -1, -1
	for k, d := range shape {
		if red[k] && d != 1 {
			if first < 0 {
				first = k
			}
			last = k
		}
	}
	block := true
	for k := first + 1; first >= 0 && k < last; k++ {
		if !red[k] && shape[k] != 1 {
			block = false
		}
	}
	if block {
		for k, d := range shape {
			switch {
			case first < 0 || k < first:
				if !red[k] {
					p.Outer *= d
				}
			case k <= last:
				if red[k] {
					p.Len *= d
				}
			default:
				if !red[k] {
					p.Inner *= d
				}
			}
		}
		// Reduced axes of size 1 outside the block, and an empty reduction, need no
		// further care: they multiply Len by 1.
		if first < 0 {
			p.Len = 1
			for k, d := range shape {
				if red[k] {
					p.Len *= d
				}
			}
			p.Outer, p.Inner = 1, 1
			for k, d := range shape {
				if !red[k] {
					p.Outer *= d
				}
			}
		}
		return p, nil
	}
	for k, d := range shape {
		if !red[k] {
			p.perm = append(p.perm, k)
			p.Outer *= d
		}
	}
	for k, d := range shape {
		if red[k] {
			p.perm = append(p.perm, k)
			p.Len *= d
		}
	}
	return p, nil
}

// canonical returns t (input-shaped) in the canonical layout, as a tensor whose
// element slice is row-major [Outer, Len, Inner]. It may be t itself.
func (p *plan) canonical(t *tensor.Dense) *tensor.Dense {
	if p.perm == nil {
		return t
	}
	v, err := t.Permute(p.perm...)
	if err != nil {
		panic(err) // p.perm is a permutation of t's axes by construction
	}
	return v.Clone()
}

// restore wraps a canonical-layout buffer as a fresh input-shaped tensor.
func restore[T tensor.Element](p *plan, buf []T) *tensor.Dense {
	if p.perm == nil {
		return wrap(buf, p.shape)
	}
	pshape := make([]int, len(p.perm))
	inv := make([]int, len(p.perm))
	for k, a := range p.perm {
		pshape[k] = p.shape[a]
		inv[a] = k
	}
	v, err := wrap(buf, pshape).Permute(inv...)
	if err != nil {
		panic(err)
	}
	return v.Clone()
}

// broadcastBack returns the input-shaped view of the output-shaped t that repeats
// t[i, j] along the reduced axes: the adjoint of a sum over them. It costs no copy
// (the reduced axes get stride 0) unless t is a view that cannot be reshaped in
// place. It returns an error wrapping ErrShapeMismatch, naming the op, if t does
// not have the output's size.
func (p *plan) broadcastBack(t *tensor.Dense) (*tensor.Dense, error) {
	if t.Size() != p.Count() {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: cotangent %s for output shape %v", p.name, t.Describe(), p.outShape)
	}
	var (
		k   *tensor.Dense
		err error
	)
	if t.Rank() == 0 {
		// One element: broadcasting it is the same view whatever the reduced
		// axes, without the reshape to keepShape first.
		k, err = t.BroadcastTo(p.shape...)
	} else if k, err = t.Reshape(p.keepShape...); err == nil {
		k, err = k.BroadcastTo(p.shape...)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.name, err)
	}
	return k, nil
}

// output wraps a buffer of Count() elements as the output tensor.
func output[T tensor.Element](p *plan, buf []T) *tensor.Dense { return wrap(buf, p.outShape) }

// wrap makes a tensor that owns buf.
func wrap[T tensor.Element](buf []T, shape []int) *tensor.Dense {
	t, err := tensor.FromSlice(buf, shape...)
	if err != nil {
		panic(err) // sizes match by construction
	}
	return t
}

// elems returns the row-major elements of t as []T (aliasing when contiguous; read
// only). t must have the dtype of T.
func elems[T tensor.Element](t *tensor.Dense) []T {
	var z T
	if _, ok := any(z).(complex128); ok {
		return any(t.AsComplex().Complex128s()).([]T)
	}
	return any(t.Float64s()).([]T)
}

// isComplex reports whether T is complex128.
func isComplex[T tensor.Element]() bool {
	var z T
	_, ok := any(z).(complex128)
	return ok
}

// conj is the complex conjugate (the identity on float64).
func conj[T tensor.Element](v T) T {
	if c, ok := any(v).(complex128); ok {
		return any(cmplx.Conj(c)).(T)
	}
	return v
}

// fromReal converts a float64 to T.
func fromReal[T tensor.Element](v float64) T {
	var z T
	if _, ok := any(z).(complex128); ok {
		return any(complex(v, 0)).(T)
	}
	return any(v).(T)
}

// reDot returns Re(conj(a) b).
func reDot[T tensor.Element](a, b T) float64 {
	switch a := any(a).(type) {
	case complex128:
		bb := any(b).(complex128)
		return real(a)*real(bb) + imag(a)*imag(bb)
	default:
		return a.(float64) * any(b).(float64)
	}
}
