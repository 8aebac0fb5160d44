package tensor

import (
	"fmt"
	"runtime"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

var useBLAS64 atomic.Bool

// UseBLAS64 routes every matrix product of the project through gonum's blas64 and
// cblas128 implementations when on is true, and through the project's own packed
// AVX2 / AVX-512 kernels (internal/gemm, the default) when on is false. Every
// product goes through [GemmBatch]: Gemm, MatMul, BatchMatMul and the contractions
// of package einsum, their derivatives included. A program that prefers OpenBLAS
// installs it and switches:
//
//	blas64.Use(netlib.Implementation{})      // gonum.org/v1/netlib/blas/netlib
//	cblas128.Use(netlib.Implementation{})
//	tensor.UseBLAS64(true)
//
// It is safe to call concurrently with matrix products; each product uses the
// setting it reads when it starts.
func UseBLAS64(on bool) { useBLAS64.Store(on) }

// blasTrans is the BLAS transpose flag for op(X) = X^T (t) or X.
func blasTrans(t bool) blas.Transpose {
	if t {
		return blas.Trans
	}
	return blas.NoTrans
}

// gemmOperand describes a rows×cols matrix with row stride rs and column stride cs to
// BLAS: as a row-major matrix with leading dimension ld, transposed or not. ok is
// false when neither layout fits (the inner dim is not contiguous), and the caller
// must copy. Strides of dims of size 1 are irrelevant and ignored.
func gemmOperand(rows, cols, rs, cs int) (trans bool, ld int, ok bool) {
	if (cols <= 1 || cs == 1) && (rows <= 1 || rs >= max(cols, 1)) {
		if rows <= 1 {
			return false, max(cols, 1), true
		}
		return false, rs, true
	}
	if (rows <= 1 || rs == 1) && (cols <= 1 || cs >= max(rows, 1)) {
		if cols <= 1 {
			return true, max(rows, 1), true
		}
		return true, cs, true
	}
	return false, 0, false
}

// matOperand is a matrix view of a tensor's storage ready for GEMM.
type matOperand struct {
	t      *Dense // the tensor whose storage is read (a copy if the original did not fit)
	trans  bool
	ld     int
	rs, cs int // strides of the rows and columns of the used matrix
	bs     int // batch stride (BatchMatMul)
}

// prepare returns the GEMM view of the matrices of t whose rows and columns have
// strides rs and cs in t, copying t to contiguous storage if needed; rAxis and cAxis
// name the axes of t that play rows and columns, so that the strides can be found
// again after the copy.
func prepare(t *Dense, rows, cols, rAxis, cAxis, bAxis int) matOperand {
	trans, ld, ok := gemmOperand(rows, cols, t.strides[rAxis], t.strides[cAxis])
	if !ok {
		t = t.Clone()
		trans, ld, _ = gemmOperand(rows, cols, t.strides[rAxis], t.strides[cAxis])
	}
	op := matOperand{t: t, trans: trans, ld: ld, rs: t.strides[rAxis], cs: t.strides[cAxis]}
	if bAxis >= 0 {
		op.bs = t.strides[bAxis]
	}
	return op
}

// MatMul returns the fresh matrix product C = A B of an m×k matrix a and a k×n matrix
// b:
//
//	C[i, j] = sum_l A[i, l] B[l, j].
//
// The result has dtype PromoteTypes(a, b) (an operand of another dtype is converted
// first); float32 and complex64 products run on the packed single-precision kernels
// of internal/gemm (Sgemm, Cgemm), or gonum's blas32 / cblas64 under UseBLAS64, as
// GemmBatch says. Operands whose rows or columns are
// contiguous (row-major, or column-major such as a Transpose view) are passed to BLAS
// without copying. It returns an error wrapping ErrShapeMismatch unless both are 2-D
// with matching inner dims.
func MatMul(a, b *Dense) (*Dense, error) {
	if a == nil || b == nil {
		return nil, errNil()
	}
	if len(a.shape) != 2 || len(b.shape) != 2 || a.shape[1] != b.shape[0] {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "matmul: cannot multiply %v by %v", a.shape, b.shape)
	}
	m, k, n := a.shape[0], a.shape[1], b.shape[1]
	dt := ResultDType(a.dtype, b.dtype)
	out, err := Alloc(dt, m, n)
	if err != nil {
		return nil, fmt.Errorf("matmul: %w", err)
	}
	if m == 0 || n == 0 || k == 0 {
		return out, nil
	}
	a, b = a.to(dt), b.to(dt)
	pa := prepare(a, m, k, 0, 1, -1)
	pb := prepare(b, k, n, 0, 1, -1)
	gemm(dt, pa, pb, 1, m, n, k, out)
	return out, nil
}

// gemm computes out[p] = op(A[p]) op(B[p]) for p < batch into out's storage (each
// m×n, row-major, ld n), with the operands' batch strides pa.bs and pb.bs.
func gemm(dt DType, pa, pb matOperand, batch, m, n, k int, out *Dense) {
	on, workers := useBLAS64.Load(), runtime.GOMAXPROCS(0)
	switch dt {
	case Complex128:
		gemmBatch(on, workers, pa.trans, pb.trans, m, n, k, 1, pa.t.c128s()[pa.t.offset:], pa.ld, pa.bs, pb.t.c128s()[pb.t.offset:], pb.ld, pb.bs, 0, out.c128s(), n, m*n, batch)
	case Float32:
		gemmBatch(on, workers, pa.trans, pb.trans, m, n, k, 1, pa.t.f32s()[pa.t.offset:], pa.ld, pa.bs, pb.t.f32s()[pb.t.offset:], pb.ld, pb.bs, 0, out.f32s(), n, m*n, batch)
	case Complex64:
		gemmBatch(on, workers, pa.trans, pb.trans, m, n, k, 1, pa.t.c64s()[pa.t.offset:], pa.ld, pa.bs, pb.t.c64s()[pb.t.offset:], pb.ld, pb.bs, 0, out.c64s(), n, m*n, batch)
	default:
		gemmBatch(on, workers, pa.trans, pb.trans, m, n, k, 1, pa.t.f64s()[pa.t.offset:], pa.ld, pa.bs, pb.t.f64s()[pb.t.offset:], pb.ld, pb.bs, 0, out.f64s(), n, m*n, batch)
	}
}

// BatchMatMul returns the fresh batch of matrix products C[p] = op(A[p]) op(B[p]),
// where op(X) is X, or its plain transpose X^T (not conjugated, also for complex)
// when the flag is set:
//
//	C[p, i, j] = sum_l op(A[p])[i, l] op(B[p])[l, j].
//
// a is [B M K] ([B K M] with transA) and b is [B K N] ([B N K] with transB); the
// result is [B M N], of dtype PromoteTypes(a, b) as in MatMul. It returns an error wrapping
// ErrShapeMismatch unless both are 3-D with equal batch sizes and matching inner
// dims.
func BatchMatMul(a, b *Dense, transA, transB bool) (*Dense, error) {
	if a == nil || b == nil {
		return nil, errNil()
	}
	if len(a.shape) != 3 || len(b.shape) != 3 {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "batch matmul: operands %v and %v are not 3-D", a.shape, b.shape)
	}
	// Axes of a and b that play the rows and columns of op(A) and op(B).
	ar, ac := 1, 2
	if transA {
		ar, ac = 2, 1
	}
	br, bc := 1, 2
	if transB {
		br, bc = 2, 1
	}
	batch, m, k := a.shape[0], a.shape[ar], a.shape[ac]
	n := b.shape[bc]
	if b.shape[0] != batch || b.shape[br] != k {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "batch matmul: cannot multiply %v by %v (transA %v, transB %v)", a.shape, b.shape, transA, transB)
	}
	dt := ResultDType(a.dtype, b.dtype)
	out, err := Alloc(dt, batch, m, n)
	if err != nil {
		return nil, fmt.Errorf("batch matmul: %w", err)
	}
	if batch == 0 || m == 0 || n == 0 || k == 0 {
		return out, nil
	}
	a, b = a.to(dt), b.to(dt)
	pa := prepare(a, m, k, ar, ac, 0)
	pb := prepare(b, k, n, br, bc, 0)
	gemm(dt, pa, pb, batch, m, n, k, out)
	return out, nil
}
