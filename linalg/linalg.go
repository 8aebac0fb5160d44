package linalg

import (
	"fmt"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/einsum"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/linalg/internal/lapack"
	"github.com/chainrules-go/chainrules/permute"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// tape is the tape of tensor graphs (hvp.Tape, to users).
type tape = core.Tape[*tensor.Dense]

// space is the value space of every op of the package.
var space = tensor.Space{}

// opErr returns an error wrapping sentinel whose message starts with the op's name.
func opErr(op string, sentinel error, format string, args ...any) error {
	return cr.Errorf(sentinel, "%s: %s", op, fmt.Sprintf(format, args...))
}

// errComplex is the error of a float64-only op given complex input.
func errComplex(op string) error {
	return opErr(op, cr.ErrInvalidArgument, "complex128 input is not supported (the op is float64-only)")
}

// batchShape checks that x has rank >= 2 and returns its leading (batch) dims, the
// number of matrices and their size.
func batchShape(op, what string, x *tensor.Dense) (batch []int, count, m, n int, err error) {
	if x == nil {
		return nil, 0, 0, 0, opErr(op, cr.ErrInvalidArgument, "%s is nil", what)
	}
	sh := x.Shape()
	if len(sh) < 2 {
		return nil, 0, 0, 0, opErr(op, cr.ErrShapeMismatch, "%s must have at least 2 dims, got shape %v", what, sh)
	}
	batch = slices.Clone(sh[:len(sh)-2])
	count = 1
	for _, d := range batch {
		count *= d
	}
	return batch, count, sh[len(sh)-2], sh[len(sh)-1], nil
}

// square checks that x is a batch of square matrices and returns the batch dims, the
// number of matrices and n.
func square(op, what string, x *tensor.Dense) (batch []int, count, n int, err error) {
	batch, count, m, n, err := batchShape(op, what, x)
	if err != nil {
		return nil, 0, 0, err
	}
	if m != n {
		return nil, 0, 0, opErr(op, cr.ErrShapeMismatch, "%s must be a batch of square matrices, got shape %v", what, x.Shape())
	}
	return batch, count, n, nil
}

// shapeOf returns batch + dims as a fresh shape.
func shapeOf(batch []int, dims ...int) []int {
	return append(slices.Clone(batch), dims...)
}

// broadcastBatch returns the broadcast of two batch shapes.
func broadcastBatch(op string, a, b []int) ([]int, error) {
	s, err := tensor.BroadcastShapes(a, b)
	if err != nil {
		return nil, opErr(op, cr.ErrShapeMismatch, "batch dims %v and %v do not broadcast", a, b)
	}
	return s, nil
}

// expandBatches broadcasts the batch dims of the batches of matrices a and b (of
// rank >= 2) and returns the broadcast batch shape with a and b expanded to it as
// contiguous tensors (their matrices unchanged). Expansions too large for memory to
// hold (batch dims of 2^30 and 1 against 1 and 2^30, say) are an error wrapping
// chainrules.ErrInvalidArgument, found before either is made.
func expandBatches(op string, a, b *tensor.Dense) (batch []int, ae, be *tensor.Dense, err error) {
	as, bs := a.Shape(), b.Shape()
	if batch, err = broadcastBatch(op, as[:len(as)-2], bs[:len(bs)-2]); err != nil {
		return nil, nil, nil, err
	}
	for _, x := range []*tensor.Dense{a, b} {
		xs := x.Shape()
		if err := tensor.CheckAlloc(x.DType(), shapeOf(batch, xs[len(xs)-2:]...)...); err != nil {
			return nil, nil, nil, fmt.Errorf("%s: batch dims %v and %v broadcast to a batch too large to hold: %w", op, as[:len(as)-2], bs[:len(bs)-2], err)
		}
	}
	if ae, err = expand(a, shapeOf(batch, as[len(as)-2:]...)); err != nil {
		return nil, nil, nil, err
	}
	if be, err = expand(b, shapeOf(batch, bs[len(bs)-2:]...)); err != nil {
		return nil, nil, nil, err
	}
	return batch, ae, be, nil
}

// expand returns x broadcast to shape as a contiguous tensor (x itself when it is
// already contiguous with that shape).
func expand(x *tensor.Dense, shape []int) (*tensor.Dense, error) {
	if slices.Equal(x.Shape(), shape) {
		return x.Contiguous(), nil
	}
	v, err := x.BroadcastTo(shape...)
	if err != nil {
		return nil, err
	}
	return v.Clone(), nil
}

// eval is cr.Eval on tensors: op's output at x, without a tape.
func eval(op cr.Op[*tensor.Dense], x ...*tensor.Dense) (*tensor.Dense, error) {
	return cr.Eval(op, x...)
}

// evalMulti is cr.EvalMulti on tensors: a multi-output op's outputs at x, without a
// tape.
func evalMulti(op cr.Op[*tensor.Dense], x ...*tensor.Dense) ([]*tensor.Dense, error) {
	return cr.EvalMulti(op, x...)
}

// eval2 is evalMulti for an op with two outputs, returned apart.
func eval2(op cr.Op[*tensor.Dense], x ...*tensor.Dense) (*tensor.Dense, *tensor.Dense, error) {
	ys, err := evalMulti(op, x...)
	if err != nil {
		return nil, nil, err
	}
	return ys[0], ys[1], nil
}

// eval3 is evalMulti for an op with three outputs, returned apart.
func eval3(op cr.Op[*tensor.Dense], x ...*tensor.Dense) (*tensor.Dense, *tensor.Dense, *tensor.Dense, error) {
	ys, err := evalMulti(op, x...)
	if err != nil {
		return nil, nil, nil, err
	}
	return ys[0], ys[1], ys[2], nil
}

// decomposition returns the multi-output op name of one input (a matrix
// decomposition) with the given number of outputs: primal computes them from the
// input's value, and pullback records the input's cotangent from the input a, the
// outputs y and their cotangents ybar (invalid for an output nobody used). The
// outputs listed in nondiff are not differentiable.
func decomposition(name string, outputs int, primal func(a *tensor.Dense) ([]*tensor.Dense, error),
	pullback func(t *tape, a cr.NodeID, y, ybar []cr.NodeID) cr.NodeID, nondiff ...int) cr.Op[*tensor.Dense] {
	return define(core.Def[*tensor.Dense]{Name: name, Space: space, Arity: 1, Outputs: outputs,
		NonDifferentiableOutputs: nondiff,
		Primal:                   func(x []*tensor.Dense) ([]*tensor.Dense, error) { return primal(x[0]) },
		Pullback: func(t *tape, x, y, ybar []cr.NodeID) []cr.NodeID {
			return []cr.NodeID{pullback(t, x[0], y, ybar)}
		}})
}

// single returns the value (and the error) of a single-output primal as its
// outputs.
func single(y *tensor.Dense, err error) ([]*tensor.Dense, error) {
	return []*tensor.Dense{y}, err
}

// pair returns the two values (and the error) of a decomposition's primal as its
// outputs.
func pair(y0, y1 *tensor.Dense, err error) ([]*tensor.Dense, error) {
	return []*tensor.Dense{y0, y1}, err
}

// triple is pair for three outputs.
func triple(y0, y1, y2 *tensor.Dense, err error) ([]*tensor.Dense, error) {
	return []*tensor.Dense{y0, y1, y2}, err
}

// Recording helpers for pullbacks and composite bodies. They read values with
// t.Value, which cannot fail for nodes the tape itself returned; after an earlier
// recording error the tape's sticky error is reported by the caller.

// val returns the value of a node, or nil after a recording error.
func val(t *tape, id cr.NodeID) *tensor.Dense {
	v, err := t.Value(id)
	if err != nil {
		return nil
	}
	return v
}

// isComplex reports whether the node's value is complex (complex128, or complex64
// in a composite recorded on single-precision nodes).
func isComplex(t *tape, id cr.NodeID) bool {
	v := val(t, id)
	return v != nil && v.DType().IsComplex()
}

// rank returns the rank of the node's value (0 after an error).
func rank(t *tape, id cr.NodeID) int {
	if v := val(t, id); v != nil {
		return v.Rank()
	}
	return 0
}

// shape returns the shape of the node's value (nil after an error).
func shape(t *tape, id cr.NodeID) []int {
	if v := val(t, id); v != nil {
		return v.Shape()
	}
	return nil
}

// mT records the transpose of the last two axes.
func mT(t *tape, x cr.NodeID) cr.NodeID { return t.Apply(permute.TransposeOp(-2, -1), x) }

// conj records the complex conjugate, nothing for a real value.
func conj(t *tape, x cr.NodeID) cr.NodeID {
	if isComplex(t, x) {
		return t.Apply(elementwise.ConjOp, x)
	}
	return x
}

// mH records the conjugate transpose of the last two axes.
func mH(t *tape, x cr.NodeID) cr.NodeID { return conj(t, mT(t, x)) }

// mm records the batched matrix product a b.
func mm(t *tape, a, b cr.NodeID) cr.NodeID {
	return t.Apply(einsum.Op("...ij,...jk->...ik"), a, b)
}

// mm3 records the batched matrix product a b c.
func mm3(t *tape, a, b, c cr.NodeID) cr.NodeID {
	return t.Apply(einsum.Op("...ij,...jk,...kl->...il"), a, b, c)
}

func add(t *tape, a, b cr.NodeID) cr.NodeID { return t.Apply(elementwise.AddOp, a, b) }
func sub(t *tape, a, b cr.NodeID) cr.NodeID { return t.Apply(elementwise.SubOp, a, b) }
func mul(t *tape, a, b cr.NodeID) cr.NodeID { return t.Apply(elementwise.MulOp, a, b) }
func div(t *tape, a, b cr.NodeID) cr.NodeID { return t.Apply(elementwise.DivOp, a, b) }
func neg(t *tape, a cr.NodeID) cr.NodeID    { return t.Apply(elementwise.NegOp, a) }
func scale(t *tape, a cr.NodeID, s float64) cr.NodeID {
	return t.Apply(elementwise.ScaleOp(s), a)
}

// unsq records x with a new axis of size 1 at axis.
func unsq(t *tape, x cr.NodeID, axis int) cr.NodeID { return t.Apply(permute.UnsqueezeOp(axis), x) }

// diagEmbed records the batch of diagonal matrices with diagonals d ([..., n]).
func diagEmbed(t *tape, d cr.NodeID) cr.NodeID {
	sh := shape(t, d)
	if sh == nil {
		return 0
	}
	n := sh[len(sh)-1]
	return t.Apply(einsum.Op("...i,ij->...ij"), d, t.Constant(eye(tensor.Float64, n)))
}

// narrow records x[..., start:start+length, ...] along axis.
func narrow(t *tape, x cr.NodeID, axis, start, length int) cr.NodeID {
	return t.Apply(index.NarrowOp(axis, start, length), x)
}

// concat records the concatenation along axis.
func concat(t *tape, axis int, xs ...cr.NodeID) cr.NodeID {
	return t.Apply(index.ConcatOp(axis), xs...)
}

// masked records x times a constant 0/1 mask of the last two axes: mask(i, j) for a
// rows×cols matrix.
func masked(t *tape, x cr.NodeID, mask func(i, j int) float64) cr.NodeID {
	sh := shape(t, x)
	if len(sh) < 2 {
		return 0
	}
	rows, cols := sh[len(sh)-2], sh[len(sh)-1]
	m := tensor.New(tensor.Float64, rows, cols)
	d := m.Float64s()
	for i := range rows {
		for j := range cols {
			d[i*cols+j] = mask(i, j)
		}
	}
	return mul(t, x, t.Constant(m))
}

// tril records the lower triangle of the last two axes below diagonal k (k = 0: with
// the diagonal, k = -1: strictly lower).
func tril(t *tape, x cr.NodeID, k int) cr.NodeID {
	return masked(t, x, func(i, j int) float64 { return b2f(j-i <= k) })
}

// triu records the upper triangle of the last two axes above diagonal k.
func triu(t *tape, x cr.NodeID, k int) cr.NodeID {
	return masked(t, x, func(i, j int) float64 { return b2f(j-i >= k) })
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// sumTo records the sum of x over the axes that broadcasting target to x's shape adds
// or stretches, so that the result has shape target (nothing when the shapes are
// equal).
func sumTo(t *tape, x cr.NodeID, target []int) cr.NodeID {
	sh := shape(t, x)
	if sh == nil || slices.Equal(sh, target) {
		return x
	}
	lead := len(sh) - len(target)
	var axes []int
	for k := range sh {
		if k < lead || (target[k-lead] == 1 && sh[k] != 1) {
			axes = append(axes, k)
		}
	}
	s := t.Apply(reduce.SumOp(axes, true), x)
	return t.Apply(permute.ReshapeOp(target...), s)
}

// eye returns the n×n identity of dtype dt.
func eye(dt tensor.DType, n int) *tensor.Dense {
	e := tensor.New(dt, n, n)
	for i := range n {
		e.Set(1, i, i)
	}
	return e
}

// batchEye returns the batch of identities of shape batch + [n, n].
func batchEye(dt tensor.DType, batch []int, n int) *tensor.Dense {
	e := tensor.New(dt, shapeOf(batch, n, n)...)
	count := e.Size() / max(n*n, 1)
	if n == 0 {
		return e
	}
	if dt == tensor.Complex128 {
		d := e.Complex128s()
		for b := range count {
			for i := range n {
				d[b*n*n+i*n+i] = 1
			}
		}
		return e
	}
	d := e.Float64s()
	for b := range count {
		for i := range n {
			d[b*n*n+i*n+i] = 1
		}
	}
	return e
}

// tapeOf returns the recorder of a recorded pullback as the tape it is in
// practice, or an error wrapping chainrules.ErrInvalidArgument.
func tapeOf(rec cr.Recorder[*tensor.Dense], op string) (*tape, error) {
	t, ok := rec.(*tape)
	if !ok {
		return nil, opErr(op, cr.ErrInvalidArgument, "a recorded pullback records on a core.Tape, not a %T", rec)
	}
	return t, nil
}

// UseLAPACK64 routes the float64 factorisations of the package through gonum's
// lapack64 and blas64 when on is true: Cholesky, LU and triangular solves
// (Dpotrf, Dgetrf, Dtrsm), QR (Dgeqrf, Dorgqr), eigh (Dsyev) and svd (Dgesvd), so
// that an implementation installed with lapack64.Use or blas64.Use (a cgo binding
// of OpenBLAS or MKL, say) computes them. By default they run on the package's own
// kernels, which do their matrix products with tensor.Gemm (recursive Cholesky, LU
// and triangular solves, blocked QR, and for eigh and svd of matrices larger than
// 48 blocked reductions); only small eigh and svd, the fallbacks of the larger
// ones, and eig and eigvals (Dgeev), call lapack64 then. The complex128 kernels
// are the package's own either way. The setting is process-wide and safe for concurrent use; it returns nothing
// and takes effect for the factorisations that start after it.
func UseLAPACK64(on bool) { lapack.SetLAPACK64(on) }
