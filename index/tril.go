package index

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// TrilOp returns the op of PyTorch's torch.tril(x, diagonal): the lower triangle of
// each matrix of x [..., n, m] (the last two axes), the rest set to zero,
//
//	y[..., i, j] = x[..., i, j]  if j - i <= diagonal,  else 0.
//
// diagonal = 0 keeps the main diagonal, diagonal > 0 as many diagonals above it,
// diagonal < 0 drops as many below it. The map is a projection, linear and
// self-adjoint under Re<a, b>, so its rules are chainrules.LinearRule's with the
// same mask both ways: xbar = tril(ybar, diagonal), ydot = tril(xdot, diagonal),
// and every derivative of higher order follows. float64 and complex128; the
// output is a fresh tensor. An x of rank below 2 is an error wrapping
// chainrules.ErrInvalidArgument.
func TrilOp(diagonal int) cr.Op[*tensor.Dense] {
	return triOp{name: "tril", lower: true, k: diagonal}
}

// Tril is TrilOp without a tape.
func Tril(x *tensor.Dense, diagonal int) (*tensor.Dense, error) {
	return cr.Eval(TrilOp(diagonal), x)
}

// TriuOp returns the op of PyTorch's torch.triu(x, diagonal): the upper triangle of
// each matrix of x [..., n, m], the rest set to zero,
//
//	y[..., i, j] = x[..., i, j]  if j - i >= diagonal,  else 0,
//
// with the rules of TrilOp (a self-adjoint projection: xbar = triu(ybar, diagonal)).
func TriuOp(diagonal int) cr.Op[*tensor.Dense] {
	return triOp{name: "triu", lower: false, k: diagonal}
}

// Triu is TriuOp without a tape.
func Triu(x *tensor.Dense, diagonal int) (*tensor.Dense, error) {
	return cr.Eval(TriuOp(diagonal), x)
}

// triOp is tril (lower) or triu with diagonal offset k.
type triOp struct {
	name  string
	lower bool
	k     int
}

func (o triOp) Name() string    { return o.name }
func (o triOp) NumOutputs() int { return 1 }

func (o triOp) Apply(in []cr.NodeID, x, ys []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if opkit.HasSingle(x) {
		return opkit.ApplyWidened(o, in, x, ys)
	}
	if err := opkit.CheckApply(o.name, in, x, 1); err != nil {
		return nil, err
	}
	y, err := o.mask(x[0])
	if err != nil {
		return nil, err
	}
	ys[0] = y
	return cr.UnaryLinearRule(in[0], o.mask, o.mask), nil
}

// keep reports whether element (i, j) of a matrix is in the triangle.
func (o triOp) keep(i, j int) bool {
	// j - i compared without overflow for any offset: i, j are valid indices.
	if o.lower {
		return j-i <= o.k
	}
	return j-i >= o.k
}

// mask returns a fresh copy of x with the elements outside the triangle zeroed.
func (o triOp) mask(x *tensor.Dense) (*tensor.Dense, error) {
	if x == nil {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: nil input", o.name)
	}
	shape := x.Shape()
	if len(shape) < 2 {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: input of rank %d (shape %v): need a matrix or a batch of matrices", o.name, len(shape), shape)
	}
	if err := tensor.CheckAlloc(x.DType(), shape...); err != nil {
		return nil, err
	}
	y := x.Clone()
	n, m := shape[len(shape)-2], shape[len(shape)-1]
	if n*m == 0 {
		return y, nil
	}
	batch := y.Size() / (n * m)
	switch y.DType() {
	case tensor.Complex128:
		data := y.Complex128s()
		for b := range batch {
			zeroOutside(o, n, m, func(i, j int) { data[b*n*m+i*m+j] = 0 })
		}
	default:
		data := y.Float64s()
		for b := range batch {
			zeroOutside(o, n, m, func(i, j int) { data[b*n*m+i*m+j] = 0 })
		}
	}
	return y, nil
}

// zeroOutside calls zero(i, j) for each element of an n x m matrix outside o's
// triangle.
func zeroOutside(o triOp, n, m int, zero func(i, j int)) {
	for i := range n {
		for j := range m {
			if !o.keep(i, j) {
				zero(i, j)
			}
		}
	}
}
