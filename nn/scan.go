package nn

import (
	"math"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// The scans: cumulative sums, products and log-sum-exps along an axis, and the first
// order linear recurrence they are built on. Each is defined by a plain Go primal
// and a pullback recorded with ops (core.Define), or is a composite op, so that
// forward tangents and second-order rules are derived, exact at every point where
// the maths is (zeros in cumprod included).

// LinearScanOp returns the op h = scan(a, b) along axis: the first-order linear
// recurrence
//
//	h_0 = b_0,   h_j = a_j h_{j-1} + b_j   (j = 1, ..., n-1)
//
// on every lane of the axis (a negative axis counts from the end); a_0 is not used.
// Unrolled, h_j = sum_{k <= j} (a_{k+1} ... a_j) b_k: h is linear in b, and
// polynomial in a. a and b have the same shape; either may be complex128 (the
// output is then complex128). cumsum is scan(1, x), cumprod is scan(x, x_0 e_0),
// and the pullbacks of both, and of logcumsumexp, are scans from the end.
//
// With g = J_b^* hbar the reverse scan of hbar with the conjugated coefficients
// (ReverseLinearScanOp),
//
//	g_{n-1} = hbar_{n-1},   g_j = conj(a_{j+1}) g_{j+1} + hbar_j,
//
// the pullback is
//
//	bbar = g,   abar_j = conj(h_{j-1}) g_j  (abar_0 = 0).
//
// It is recorded with scans, conj, mul and a shift (narrow and pad), and the
// forward tangent and second-order rule are derived from it (core.Define).
// Shapes that differ, or an axis out of range, are an error wrapping
// chainrules.ErrShapeMismatch or ErrInvalidArgument.
func LinearScanOp(axis int) cr.Op[*tensor.Dense] { return scanOp(axis, false) }

// ReverseLinearScanOp returns the linear recurrence run from the end of the axis,
//
//	h_{n-1} = b_{n-1},   h_j = a_{j+1} h_{j+1} + b_j   (j = n-2, ..., 0),
//
// so that h_j = sum_{k >= j} (a_{j+1} ... a_k) b_k; as in LinearScanOp a_j links
// positions j-1 and j, and a_0 is not used. Its adjoint in b is LinearScanOp with
// conj(a), and its pullback is bbar = g, abar_j = conj(h_j) g_{j-1} (abar_0 = 0),
// g = LinearScanOp(conj(a), hbar). It is the "linear_scan" family, like
// LinearScanOp.
func ReverseLinearScanOp(axis int) cr.Op[*tensor.Dense] { return scanOp(axis, true) }

// LinearScan evaluates LinearScanOp(axis) at (a, b) without a tape.
func LinearScan(a, b *tensor.Dense, axis int) (*tensor.Dense, error) {
	return cr.Eval(LinearScanOp(axis), a, b)
}

func scanOp(axis int, reverse bool) cr.Op[*tensor.Dense] {
	const name = "linear_scan"
	return withSingle(core.Define(core.Def[*tensor.Dense]{Name: name, Space: tensor.Space{}, Arity: 2,
		Primal: func(x []*tensor.Dense) ([]*tensor.Dense, error) {
			if err := checkInputs(name, x, 2); err != nil {
				return nil, err
			}
			a, b := x[0], x[1]
			if !slices.Equal(a.Shape(), b.Shape()) {
				return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: a is %s, b is %s", name, a.Describe(), b.Describe())
			}
			ax, err := normAxis(name, axis, a.Rank())
			if err != nil {
				return nil, err
			}
			l := lanesAlong(a.Shape(), ax)
			if a.DType() == tensor.Complex128 || b.DType() == tensor.Complex128 {
				h := b.AsComplex().Clone()
				scan(h.Complex128s(), complex128s(a), l, reverse)
				return []*tensor.Dense{h}, nil
			}
			h := b.Clone()
			scan(h.Float64s(), float64s(a), l, reverse)
			return []*tensor.Dense{h}, nil
		},
		Pullback: func(t *tape, x, ys, ybars []cr.NodeID) []cr.NodeID {
			y, ybar := ys[0], ybars[0]
			av, _ := t.Value(x[0])
			bv, _ := t.Value(x[1])
			yv, _ := t.Value(y)
			ax, _ := normAxis(name, axis, yv.Rank())
			cplx := yv.DType() == tensor.Complex128
			ca := conjIf(t, x[0], av.DType() == tensor.Complex128)
			g := t.Apply(scanOp(axis, !reverse), ca, ybar)
			var abar cr.NodeID
			if n := yv.Shape()[ax]; n > 1 {
				if reverse {
					abar = t.Apply(elementwise.MulOp, conjIf(t, y, cplx), shiftRight(t, g, ax, yv.Rank(), n))
				} else {
					abar = t.Apply(elementwise.MulOp, conjIf(t, shiftRight(t, y, ax, yv.Rank(), n), cplx), g)
				}
				abar = realIf(t, abar, cplx && av.DType() == tensor.Float64)
			}
			return []cr.NodeID{abar, realIf(t, g, cplx && bv.DType() == tensor.Float64)}
		}}))
}

// scan runs the recurrence on h in place (h holds b on entry): forward
// h_k += a_k h_{k-1}, or reverse h_k += a_{k+1} h_{k+1}, one contiguous row
// (i, k, 0..Inner-1) at a time.
func scan[T tensor.Element](h, a []T, l opkit.Lanes, reverse bool) {
	in := l.Inner
	for i := range l.Outer {
		if reverse {
			for k := l.Len - 2; k >= 0; k-- {
				cur, next, an := h[l.Offset(i, k, 0):][:in], h[l.Offset(i, k+1, 0):][:in], a[l.Offset(i, k+1, 0):][:in]
				for j := range cur {
					cur[j] += an[j] * next[j]
				}
			}
			continue
		}
		for k := 1; k < l.Len; k++ {
			cur, prev, ak := h[l.Offset(i, k, 0):][:in], h[l.Offset(i, k-1, 0):][:in], a[l.Offset(i, k, 0):][:in]
			for j := range cur {
				cur[j] += ak[j] * prev[j]
			}
		}
	}
}

// conjIf records conj(v) when on is set, and returns v otherwise.
func conjIf(t *tape, v cr.NodeID, on bool) cr.NodeID {
	if !on {
		return v
	}
	return t.Apply(elementwise.ConjOp, v)
}

// realIf records Re(v) when on is set (the cotangent of a real input of an op that
// computed in complex128), and returns v otherwise.
func realIf(t *tape, v cr.NodeID, on bool) cr.NodeID {
	if !on {
		return v
	}
	return t.Apply(elementwise.RealOp, v)
}

// shiftRight records v shifted by one along axis ax (of size n > 1, rank r), with
// a zero in front: w_0 = 0, w_j = v_{j-1}.
func shiftRight(t *tape, v cr.NodeID, ax, r, n int) cr.NodeID {
	widths := make([][2]int, r)
	widths[ax] = [2]int{1, 0}
	return t.Apply(index.PadOp(widths...), t.Apply(index.NarrowOp(ax, 0, n-1), v))
}

// CumsumOp returns PyTorch's cumsum along axis (a negative axis counts from the
// end), float64 or complex128:
//
//	y_j = sum_{k <= j} x_k.
//
// It is linear: the pullback is the cumulative sum from the end,
// xbar_k = sum_{j >= k} ybar_j (ReverseCumsumOp of ybar), the tangent is
// cumsum(xdot) and the second-order rule is the pullback of ybardot (derived by
// core.Define from the recorded pullback). An axis out of range is an error
// wrapping chainrules.ErrInvalidArgument.
func CumsumOp(axis int) cr.Op[*tensor.Dense] { return cumsumOp(axis, false) }

// ReverseCumsumOp returns the cumulative sum from the end of the axis,
// y_j = sum_{k >= j} x_k: the adjoint of CumsumOp, whose pullback is CumsumOp. It
// is the "cumsum" family, like CumsumOp.
func ReverseCumsumOp(axis int) cr.Op[*tensor.Dense] { return cumsumOp(axis, true) }

// Cumsum evaluates CumsumOp(axis) at x without a tape.
func Cumsum(x *tensor.Dense, axis int) (*tensor.Dense, error) { return cr.Eval(CumsumOp(axis), x) }

func cumsumOp(axis int, reverse bool) cr.Op[*tensor.Dense] {
	const name = "cumsum"
	return withSingle(core.Define(core.Def[*tensor.Dense]{Name: name, Space: tensor.Space{}, Arity: 1,
		Primal: func(x []*tensor.Dense) ([]*tensor.Dense, error) {
			ax, err := opkit.CheckUnary(name, x, axis)
			if err != nil {
				return nil, err
			}
			l := lanesAlong(x[0].Shape(), ax)
			y := x[0].Clone()
			if y.DType() == tensor.Complex128 {
				cumsum(y.Complex128s(), l, reverse)
			} else {
				cumsum(y.Float64s(), l, reverse)
			}
			return []*tensor.Dense{y}, nil
		},
		Pullback: func(t *tape, _, _, ybars []cr.NodeID) []cr.NodeID {
			ybar := ybars[0]
			return []cr.NodeID{t.Apply(cumsumOp(axis, !reverse), ybar)}
		}}))
}

// cumsum sums y in place along its lanes, from the start or from the end.
func cumsum[T tensor.Element](y []T, l opkit.Lanes, reverse bool) {
	in := l.Inner
	for i := range l.Outer {
		if reverse {
			for k := l.Len - 2; k >= 0; k-- {
				cur, next := y[l.Offset(i, k, 0):][:in], y[l.Offset(i, k+1, 0):][:in]
				for j := range cur {
					cur[j] += next[j]
				}
			}
			continue
		}
		for k := 1; k < l.Len; k++ {
			cur, prev := y[l.Offset(i, k, 0):][:in], y[l.Offset(i, k-1, 0):][:in]
			for j := range cur {
				cur[j] += prev[j]
			}
		}
	}
}

// CumprodOp returns PyTorch's cumprod along axis (a negative axis counts from the
// end), float64 or complex128:
//
//	y_j = x_0 x_1 ... x_j.
//
// It is the composite op y = scan(x, x_0 e_0) of LinearScanOp (y_j = x_j y_{j-1}
// from y_0 = x_0), so its rules are those of the scan. The pullback
//
//	xbar_j = sum_{i >= j} conj(prod_{k <= i, k != j} x_k) ybar_i
//	       = conj(y_{j-1}) g_j,   g_j = ybar_j + conj(x_{j+1}) g_{j+1}   (y_{-1} = 1)
//
// divides by nothing, so it is exact with zeros in x (a single zero x_j still
// passes the gradient of the products it cancels, as in PyTorch), and so are the
// forward tangent and the second-order rule. An axis out of range is an error
// wrapping chainrules.ErrInvalidArgument.
func CumprodOp(axis int) cr.Op[*tensor.Dense] {
	const name = "cumprod"
	return withSingle(core.Composite(name, tensor.Space{}, 1, func(t *tape, x []cr.NodeID) []cr.NodeID {
		v, err := t.Value(x[0])
		if err == nil && v == nil {
			err = cr.Errorf(cr.ErrInvalidArgument, "input is nil")
		}
		ax := 0
		if err == nil {
			if ax, err = normAxis(name, axis, v.Rank()); err != nil {
				err = cr.Errorf(cr.ErrInvalidArgument, "axis %d out of range for rank %d", axis, v.Rank())
			}
		}
		if err != nil {
			return []cr.NodeID{t.Apply(cr.FailOp[*tensor.Dense](name, err), x[0])}
		}
		// e_0: one at the start of the axis, zero elsewhere, broadcast over the others.
		shape := make([]int, v.Rank())
		for i := range shape {
			shape[i] = 1
		}
		shape[ax] = v.Shape()[ax]
		e := tensor.New(tensor.Float64, shape...)
		if shape[ax] > 0 {
			e.Float64s()[0] = 1
		}
		first := t.Apply(elementwise.MulOp, x[0], t.Constant(e))
		return []cr.NodeID{t.Apply(LinearScanOp(axis), x[0], first)}
	}))
}

// Cumprod evaluates CumprodOp(axis) at x without a tape.
func Cumprod(x *tensor.Dense, axis int) (*tensor.Dense, error) { return cr.Eval(CumprodOp(axis), x) }

// LogCumsumExpOp returns PyTorch's logcumsumexp along axis (a negative axis counts
// from the end) of a float64 tensor:
//
//	y_j = log sum_{k <= j} exp(x_k),   computed as y_j = logaddexp(y_{j-1}, x_j),
//
// which neither overflows nor underflows (logaddexp(a, b) = max + log1p(exp(-|a - b|))).
// The pullback
//
//	xbar_k = sum_{j >= k} exp(x_k - y_j) ybar_j = exp(x_k - y_k) T_k,
//	T_k    = ybar_k + exp(y_k - y_{k+1}) T_{k+1}   (ReverseLinearScanOp)
//
// only ever exponentiates non-positive numbers (y is non-decreasing and y_j >= x_j),
// so it is stable too; the forward tangent and second-order rule are derived from
// it (core.Define). Inputs are finite or -Inf (a lane that starts with -Inf has
// y = -Inf there, and no derivative). Complex input and an axis out of range are
// errors wrapping chainrules.ErrInvalidArgument. The function is holomorphic, but
// the op stays float64-only, like the PyTorch it is checked against: torch 1.13
// has no complex kernel for it and raises on ComplexDouble input, so there is no
// reference for a complex branch cut to follow.
func LogCumsumExpOp(axis int) cr.Op[*tensor.Dense] {
	const name = "logcumsumexp"
	return withSingle(core.Define(core.Def[*tensor.Dense]{Name: name, Space: tensor.Space{}, Arity: 1,
		Primal: func(x []*tensor.Dense) ([]*tensor.Dense, error) {
			if err := checkRealInputs(name, x, 1); err != nil {
				return nil, err
			}
			ax, err := normAxis(name, axis, x[0].Rank())
			if err != nil {
				return nil, err
			}
			y := x[0].Clone()
			logCumsumExp(y.Float64s(), lanesAlong(y.Shape(), ax))
			return []*tensor.Dense{y}, nil
		},
		Pullback: func(t *tape, x, ys, ybars []cr.NodeID) []cr.NodeID {
			y, ybar := ys[0], ybars[0]
			yv, _ := t.Value(y)
			ax, _ := normAxis(name, axis, yv.Rank())
			n := yv.Shape()[ax]
			if n == 0 {
				return []cr.NodeID{0}
			}
			// a_j = exp(y_{j-1} - y_j), with a_0 = exp(y_0 - y_0) = 1 (unused by the
			// scan, and finite, so that no 0 * Inf reaches its cotangent).
			prev := t.Apply(index.NarrowOp(ax, 0, 1), y)
			if n > 1 {
				prev = t.Apply(index.ConcatOp(ax), prev, t.Apply(index.NarrowOp(ax, 0, n-1), y))
			}
			a := t.Apply(elementwise.ExpOp, t.Apply(elementwise.SubOp, prev, y))
			s := t.Apply(scanOp(axis, true), a, ybar)
			return []cr.NodeID{t.Apply(elementwise.MulOp, t.Apply(elementwise.ExpOp, t.Apply(elementwise.SubOp, x[0], y)), s)}
		}}))
}

// LogCumsumExp evaluates LogCumsumExpOp(axis) at x without a tape.
func LogCumsumExp(x *tensor.Dense, axis int) (*tensor.Dense, error) {
	return cr.Eval(LogCumsumExpOp(axis), x)
}

// logCumsumExp replaces y by its log-cumulative-sum-exp along the lanes.
func logCumsumExp(y []float64, l opkit.Lanes) {
	in := l.Inner
	for i := range l.Outer {
		for k := 1; k < l.Len; k++ {
			cur, prev := y[l.Offset(i, k, 0):][:in], y[l.Offset(i, k-1, 0):][:in]
			for j := range cur {
				cur[j] = logAddExp(prev[j], cur[j])
			}
		}
	}
}

// logAddExp returns log(exp(a) + exp(b)) without overflow; NaN propagates, and
// -Inf is the identity.
func logAddExp(a, b float64) float64 {
	hi, lo := a, b
	if lo > hi {
		hi, lo = lo, hi
	}
	switch {
	case math.IsNaN(a) || math.IsNaN(b):
		return math.NaN()
	case math.IsInf(lo, -1) || math.IsInf(hi, 1):
		return hi
	}
	return hi + math.Log1p(math.Exp(lo-hi))
}

// ReverseCumsum evaluates ReverseCumsumOp(axis) at x without a tape.
func ReverseCumsum(x *tensor.Dense, axis int) (*tensor.Dense, error) {
	return cr.Eval(ReverseCumsumOp(axis), x)
}

// ReverseLinearScan evaluates ReverseLinearScanOp(axis) at (a, b) without a tape.
func ReverseLinearScan(a, b *tensor.Dense, axis int) (*tensor.Dense, error) {
	return cr.Eval(ReverseLinearScanOp(axis), a, b)
}
