package linalg

import (
	"math"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/permute"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// normAxes returns the sorted, normalised reduction axes of a tensor of rank r:
// every axis when axes is nil.
func normAxes(op string, axes []int, r int) ([]int, error) {
	if axes == nil {
		out := make([]int, r)
		for k := range out {
			out[k] = k
		}
		return out, nil
	}
	if r == 0 {
		// PyTorch accepts axis 0 (or -1) of a scalar, as if it had one dim of size 1.
		for _, a := range axes {
			if a != 0 && a != -1 {
				return nil, opErr(op, cr.ErrInvalidArgument, "axis %d out of range for a scalar", a)
			}
		}
		return []int{}, nil
	}
	out := make([]int, len(axes))
	for k, a := range axes {
		if a < -r || a >= r {
			return nil, opErr(op, cr.ErrInvalidArgument, "axis %d out of range for rank %d", a, r)
		}
		if a < 0 {
			a += r
		}
		out[k] = a
	}
	slices.Sort(out)
	if len(slices.Compact(slices.Clone(out))) != len(out) {
		return nil, opErr(op, cr.ErrInvalidArgument, "repeated axis in %v", axes)
	}
	return out, nil
}

// VectorNormOp returns the op of PyTorch's linalg.vector_norm: the ord-norm of x over
// the given axes (every axis when axes is nil; negative axes count from the end),
// keeping them as size-1 dims when keepdim is set:
//
//	ord = p (p != 0, ±Inf):  (sum |x_i|^p)^(1/p),
//	ord = Inf / -Inf:        max / min |x_i|,
//	ord = 0:                 the number of non-zero x_i,
//
// for float64 and complex128 x (the result is float64). The pullback is PyTorch's
// norm_backward, recorded with elementwise ops so that forward and second-order
// rules follow:
//
//	p = 2:           xbar = x ybar / y           (0 where y = 0)
//	p = 1:           xbar = sgn(x) ybar
//	p = ±Inf:        xbar = sgn(x) ybar / c at the c elements with |x_i| = y, else 0
//	                 (with a NaN x_i, y is NaN and the NaN elements are the c)
//	p = 0:           xbar = 0
//	p < 1:           xbar = sgn(x) |x|^(p-1) ybar y^(1-p)   (0 where x_i = 0)
//	other p > 1:     xbar = sgn(x) |x|^(p-1) ybar / y^(p-1) (0 where y = 0)
//
// where sgn(x) = x/|x| (0 at 0). An Inf or -Inf norm over no elements is an error
// wrapping chainrules.ErrInvalidArgument (it has no identity), as in PyTorch.
func VectorNormOp(ord float64, axes []int, keepdim bool) cr.Op[*tensor.Dense] {
	axes = slices.Clone(axes)
	return define(core.Def[*tensor.Dense]{Name: "vector_norm", Space: space, Arity: 1,
		Primal: func(x []*tensor.Dense) ([]*tensor.Dense, error) {
			return single(vectorNormValues(x[0], ord, axes, keepdim))
		},
		Pullback: func(t *tape, x, ys, ybars []cr.NodeID) []cr.NodeID {
			y, ybar := ys[0], ybars[0]
			xv := val(t, x[0])
			if xv == nil {
				return []cr.NodeID{0}
			}
			ax, _ := normAxes("vector_norm", axes, xv.Rank())
			// g and yk: ybar and y with the reduced axes kept.
			g, yk := ybar, y
			if !keepdim {
				for _, a := range ax {
					g, yk = unsq(t, g, a), unsq(t, yk, a)
				}
			}
			xs := x[0]
			switch {
			case ord == 0:
				return []cr.NodeID{mul(t, g, t.Constant(tensor.New(xv.DType(), xv.Shape()...)))}
			case ord == 1:
				return []cr.NodeID{mul(t, t.Apply(elementwise.SgnOp, xs), g)}
			case ord == 2:
				mask, safe := nonZero(t, yk)
				return []cr.NodeID{mul(t, xs, div(t, mul(t, g, mask), safe))}
			case math.IsInf(ord, 0):
				absx, err := elementwise.Abs(xv)
				if err != nil {
					return []cr.NodeID{0}
				}
				// y recomputed from |x| rather than read from the output: a
				// single-precision application rounds y to float32, which
				// |x_i| (complex64 x, in double precision) need not equal.
				extreme := reduce.Max
				if ord < 0 {
					extreme = reduce.Min
				}
				yv, err := extreme(absx, ax, true)
				if err != nil {
					return []cr.NodeID{0}
				}
				// The elements that attain the norm, |x_i| = y, and those that are
				// NaN (which make it NaN: PyTorch's mask "respecting NaNs"); with a
				// NaN norm no other element gets a share of ybar.
				yb, err := tensor.Add(tensor.New(tensor.Float64, xv.Shape()...), yv) // y broadcast like x
				if err != nil {
					return []cr.NodeID{0}
				}
				hit := tensor.New(tensor.Float64, xv.Shape()...)
				hd, ad, yd := hit.Float64s(), absx.Contiguous().Float64s(), yb.Contiguous().Float64s()
				for i := range hd {
					hd[i] = b2f(ad[i] == yd[i] || math.IsNaN(ad[i]))
				}
				count, err := reduce.Sum(hit, ax, true)
				if err != nil {
					return []cr.NodeID{0}
				}
				w, err := tensor.Div(hit, count)
				if err != nil {
					return []cr.NodeID{0}
				}
				return []cr.NodeID{mul(t, t.Apply(elementwise.SgnOp, xs), mul(t, g, t.Constant(w)))}
			}
			ax1 := t.Apply(elementwise.AbsOp, xs)
			scaled := mul(t, t.Apply(elementwise.SgnOp, xs), t.Apply(elementwise.PowScalarOp(ord-1), safeAbs(t, ax1)))
			if ord < 1 {
				return []cr.NodeID{mul(t, scaled, mul(t, g, t.Apply(elementwise.PowScalarOp(1-ord), yk)))}
			}
			mask, safe := nonZero(t, yk)
			return []cr.NodeID{mul(t, scaled, div(t, mul(t, g, mask), t.Apply(elementwise.PowScalarOp(ord-1), safe)))}
		}})
}

// VectorNorm is VectorNormOp without a tape.
func VectorNorm(x *tensor.Dense, ord float64, axes []int, keepdim bool) (*tensor.Dense, error) {
	return eval(VectorNormOp(ord, axes, keepdim), x)
}

// nonZero records, for the real node y, the constant mask (y != 0) and y with its
// zeros replaced by ones (a safe divisor whose zeros the mask removes).
func nonZero(t *tape, y cr.NodeID) (mask, safe cr.NodeID) {
	yv := val(t, y)
	if yv == nil {
		return 0, 0
	}
	m := tensor.New(tensor.Float64, yv.Shape()...)
	z := tensor.New(tensor.Float64, yv.Shape()...)
	md, zd := m.Float64s(), z.Float64s()
	for i, v := range yv.Float64s() {
		md[i], zd[i] = b2f(v != 0), b2f(v == 0)
	}
	return t.Constant(m), add(t, y, t.Constant(z))
}

// safeAbs records |x| with its zeros replaced by ones: the base of |x|^q where the
// result is multiplied by sgn(x) = 0 at those elements.
func safeAbs(t *tape, absx cr.NodeID) cr.NodeID {
	_, s := nonZero(t, absx)
	return s
}

func vectorNormValues(x *tensor.Dense, ord float64, axes []int, keepdim bool) (*tensor.Dense, error) {
	const op = "vector_norm"
	if x == nil {
		return nil, opErr(op, cr.ErrInvalidArgument, "x is nil")
	}
	if math.IsNaN(ord) {
		return nil, opErr(op, cr.ErrInvalidArgument, "ord is NaN")
	}
	r := x.Rank()
	ax, err := normAxes(op, axes, r)
	if err != nil {
		return nil, err
	}
	sh := x.Shape()
	// Move the reduced axes last and view the tensor as rows of reduced elements.
	var keep []int
	outShape := []int{}
	inner := 1
	for k := range r {
		if slices.Contains(ax, k) {
			inner *= sh[k]
			if keepdim {
				outShape = append(outShape, 1)
			}
			continue
		}
		keep = append(keep, k)
		outShape = append(outShape, sh[k])
	}
	if inner == 0 && math.IsInf(ord, 0) {
		return nil, opErr(op, cr.ErrInvalidArgument, "cannot compute the %v norm over no elements (it has no identity)", ord)
	}
	p, err := x.Permute(append(keep, ax...)...)
	if err != nil {
		return nil, err
	}
	a, err := elementwise.Abs(p.Clone())
	if err != nil {
		return nil, err
	}
	ad := a.Float64s()
	outer := 1
	for _, k := range keep {
		outer *= sh[k]
	}
	out := make([]float64, outer)
	for i := range outer {
		out[i] = pnorm(ad[i*inner:(i+1)*inner], ord)
	}
	return newOf(out, outShape...), nil
}

// pnorm returns the ord-norm of the absolute values a.
func pnorm(a []float64, ord float64) float64 {
	switch {
	case ord == 0:
		c := 0.0
		for _, v := range a {
			if v != 0 {
				c++
			}
		}
		return c
	case math.IsInf(ord, 1):
		m := math.Inf(-1)
		for _, v := range a {
			if v > m || math.IsNaN(v) {
				m = v
			}
		}
		return m
	case math.IsInf(ord, -1):
		m := math.Inf(1)
		for _, v := range a {
			if v < m || math.IsNaN(v) {
				m = v
			}
		}
		return m
	case ord == 1:
		s := 0.0
		for _, v := range a {
			s += v
		}
		return s
	case ord == 2:
		s := 0.0
		for _, v := range a {
			s += v * v
		}
		return math.Sqrt(s)
	}
	s := 0.0
	for _, v := range a {
		s += math.Pow(v, ord)
	}
	return math.Pow(s, 1/ord)
}

// MatrixOrd selects a matrix norm: OrdFro, OrdNuc, or the operator norms Ord1,
// OrdNeg1, Ord2, OrdNeg2, OrdInf, OrdNegInf.
type MatrixOrd string

// The matrix norms of MatrixNormOp (PyTorch's ord values of linalg.matrix_norm).
const (
	OrdFro    MatrixOrd = "fro"  // sqrt(sum |a_ij|^2)
	OrdNuc    MatrixOrd = "nuc"  // sum of the singular values
	Ord1      MatrixOrd = "1"    // max over columns of sum_i |a_ij|
	OrdNeg1   MatrixOrd = "-1"   // min over columns of sum_i |a_ij|
	Ord2      MatrixOrd = "2"    // largest singular value
	OrdNeg2   MatrixOrd = "-2"   // smallest singular value
	OrdInf    MatrixOrd = "inf"  // max over rows of sum_j |a_ij|
	OrdNegInf MatrixOrd = "-inf" // min over rows of sum_j |a_ij|
)

// MatrixNormOp returns the op of PyTorch's linalg.matrix_norm: the ord-norm of the
// matrices spanned by the two axes (rows, cols) of x (PyTorch's default is -2, -1),
// keeping them as size-1 dims when keepdim is set. It is a composite: "fro" is
// VectorNormOp(2) over the two axes; "nuc", 2 and -2 are the sum, max and min of
// SvdvalsOp (finite derivative at repeated singular values for "nuc"); 1, -1, Inf
// and -Inf are max/min (reduce's amax/amin, which split the cotangent evenly among
// ties, as PyTorch) of sums of |x|. Every ord takes float64 and complex128 x (the
// result is real; for complex x the singular values are those of the complex SVD,
// and the pullback of "nuc", e.g., is U Vh ybar). An unknown ord or bad axes are an
// error wrapping chainrules.ErrInvalidArgument, and so is a NaN or infinite entry
// for "nuc", 2 and -2 (whose singular values are not defined).
//
// MatrixNormFroOp is the op with PyTorch's defaults (ord "fro", dim (-2, -1), keepdim
// False).
func MatrixNormOp(ord MatrixOrd, rows, cols int, keepdim bool) cr.Op[*tensor.Dense] {
	body := core.Composite("matrix_norm", space, 1, func(t *tape, x []cr.NodeID) []cr.NodeID {
		r := rank(t, x[0])
		ax, _ := normAxes("matrix_norm", []int{rows, cols}, r)
		if ord == OrdFro {
			return []cr.NodeID{t.Apply(VectorNormOp(2, ax, keepdim), x[0])}
		}
		rr, cc := normAxis(rows, r), normAxis(cols, r)
		m := t.Apply(permute.MoveAxisOp([]int{rr, cc}, []int{-2, -1}), x[0])
		var y cr.NodeID
		switch ord {
		case OrdNuc:
			y = t.Apply(reduce.SumOp([]int{-1}, false), t.Apply(SvdvalsOp(), m))
		case Ord2:
			y = t.Apply(reduce.MaxOp([]int{-1}, false), t.Apply(SvdvalsOp(), m))
		case OrdNeg2:
			y = t.Apply(reduce.MinOp([]int{-1}, false), t.Apply(SvdvalsOp(), m))
		case Ord1, OrdNeg1, OrdInf, OrdNegInf:
			sumAxis := -2
			if ord == OrdInf || ord == OrdNegInf {
				sumAxis = -1
			}
			s := t.Apply(reduce.SumOp([]int{sumAxis}, false), t.Apply(elementwise.AbsOp, m))
			if ord == Ord1 || ord == OrdInf {
				y = t.Apply(reduce.MaxOp([]int{-1}, false), s)
			} else {
				y = t.Apply(reduce.MinOp([]int{-1}, false), s)
			}
		}
		if keepdim {
			for _, a := range ax {
				y = unsq(t, y, a)
			}
		}
		return []cr.NodeID{y}
	})
	return checked(body, 1, func(x []*tensor.Dense) error {
		const op = "matrix_norm"
		switch ord {
		case OrdFro, OrdNuc, Ord1, OrdNeg1, Ord2, OrdNeg2, OrdInf, OrdNegInf:
		default:
			return opErr(op, cr.ErrInvalidArgument, "unknown ord %q", ord)
		}
		r := x[0].Rank()
		if r < 2 {
			return opErr(op, cr.ErrShapeMismatch, "x must have at least 2 dims, got shape %v", x[0].Shape())
		}
		if _, err := normAxes(op, []int{rows, cols}, r); err != nil {
			return err
		}
		if ord == OrdNuc || ord == Ord2 || ord == OrdNeg2 {
			if err := checkFiniteSVD(op, "x", x[0]); err != nil {
				return err
			}
		}
		// The max/min reductions need a non-empty axis: the rows for Inf and -Inf
		// (maxima of row sums), the columns for 1 and -1, both for 2 and -2.
		sh := x[0].Shape()
		m, n := sh[normAxis(rows, r)], sh[normAxis(cols, r)]
		empty := false
		switch ord {
		case Ord1, OrdNeg1:
			empty = n == 0
		case OrdInf, OrdNegInf:
			empty = m == 0
		case Ord2, OrdNeg2:
			empty = min(m, n) == 0
		}
		if empty {
			return opErr(op, cr.ErrInvalidArgument, "the %s norm of a %dx%d matrix is not defined (a maximum or minimum over no elements)", ord, m, n)
		}
		return nil
	})
}

// MatrixNorm is MatrixNormOp without a tape.
func MatrixNorm(x *tensor.Dense, ord MatrixOrd, rows, cols int, keepdim bool) (*tensor.Dense, error) {
	return eval(MatrixNormOp(ord, rows, cols, keepdim), x)
}

// normAxis maps a possibly negative axis into [0, r).
func normAxis(a, r int) int {
	if a < 0 {
		return a + r
	}
	return a
}

// CondOp returns the op of PyTorch's linalg.cond: the condition number of each
// matrix of a batch [..., m, n] in the given norm. For Ord2 (PyTorch's default) and
// OrdNeg2 it is s_max / s_min and s_min / s_max from SvdvalsOp (any m, n);
// for the other norms it is ||A|| ||A^-1|| (square matrices) with MatrixNormOp
// and InvOp. A composite, for float64 and complex128 A (the result is real); for
// Ord2 and OrdNeg2 a NaN or infinite entry is an error wrapping
// chainrules.ErrInvalidArgument.
func CondOp(ord MatrixOrd) cr.Op[*tensor.Dense] {
	body := core.Composite("cond", space, 1, func(t *tape, x []cr.NodeID) []cr.NodeID {
		if ord == Ord2 || ord == OrdNeg2 {
			s := t.Apply(SvdvalsOp(), x[0])
			k := shape(t, s)
			first := t.Apply(index.SelectOp(-1, 0), s)
			last := t.Apply(index.SelectOp(-1, k[len(k)-1]-1), s)
			if ord == Ord2 {
				return []cr.NodeID{div(t, first, last)}
			}
			return []cr.NodeID{div(t, last, first)}
		}
		na := t.Apply(MatrixNormOp(ord, -2, -1, false), x[0])
		ni := t.Apply(MatrixNormOp(ord, -2, -1, false), t.Apply(InvOp(), x[0]))
		return []cr.NodeID{mul(t, na, ni)}
	})
	return checked(body, 1, func(x []*tensor.Dense) error {
		const op = "cond"
		switch ord {
		case Ord2, OrdNeg2:
			_, _, m, n, err := batchShape(op, "A", x[0])
			if err != nil {
				return err
			}
			if min(m, n) == 0 {
				return opErr(op, cr.ErrInvalidArgument, "the condition number of an empty matrix is not defined")
			}
		case OrdFro, OrdNuc, Ord1, OrdNeg1, OrdInf, OrdNegInf:
			if _, _, n, err := square(op, "A", x[0]); err != nil {
				return err
			} else if n == 0 {
				return opErr(op, cr.ErrInvalidArgument, "the condition number of an empty matrix is not defined")
			}
		default:
			return opErr(op, cr.ErrInvalidArgument, "unknown ord %q", ord)
		}
		if ord == Ord2 || ord == OrdNeg2 {
			return checkFiniteSVD(op, "A", x[0])
		}
		return nil
	})
}

// Cond is CondOp without a tape.
func Cond(a *tensor.Dense, ord MatrixOrd) (*tensor.Dense, error) { return eval(CondOp(ord), a) }
