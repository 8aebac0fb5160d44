// Package tensor is the dense N-dimensional value type of chainrules-go: a strided
// view of float64, complex128, float32 or complex64 storage, the arithmetic that op
// packages build on, and [Space], the chainrules.Space that lets the engine and the
// rule checker treat tensors as vectors.
//
// Where to start: to differentiate a function of tensors, write it as an
// hvp.Func (it records its ops on a tape) and call hvp.Grad for its value and
// gradient, or hvp.Eval for its value alone; hvp also gives VJP, JVP, HVP, Hessian,
// Jacobian and Minimize. The ops are in packages elementwise, reduce, einsum,
// permute, index, nn and linalg (PyTorch's names: XxxOp, applied with
// tape.Apply(op, inputs...)), and package ops assembles their registry. Package
// core is the engine (Tape: Leaf, Apply, Backward, GradGraph) and package
// chainrules the protocol an op implements (Op, Rule); the README's "Writing an
// op" shows the four ways to add one.
//
// A [Dense] has a dtype, a shape, strides (in elements, never negative, 0 on
// broadcast axes) and an offset into its storage. Element (i_0, ..., i_{n-1}) lives
// at
//
//	offset + sum_k i_k * strides[k].
//
// Views ([Dense.Permute], [Dense.Transpose], [Dense.Slice], [Dense.BroadcastTo] and,
// when the strides allow, [Dense.Reshape]) share storage with their parent; every
// other function returns fresh, contiguous row-major results that alias none of
// their inputs. A 0-d tensor (empty shape) is a scalar, and axes of size 0 are
// allowed everywhere.
//
// Binary arithmetic (Add, Sub, Mul, Div) broadcasts like NumPy and promotes
// operands of different dtypes by PyTorch's table ([PromoteTypes]: complex if
// either is, double precision if either is); matrix products are described below.
//
// Errors wrap the sentinels of package chainrules (ErrShapeMismatch,
// ErrInvalidArgument, ...), so callers test them with errors.Is. The only panics are
// the ones a slice would give: an out-of-range index in [Dense.At] or [Dense.Set],
// and a negative dimension in [New]; and those of [BLAS]'s methods on invalid
// arguments, which keep the contract of gonum's BLAS.
//
// A short example:
//
//	a, _ := tensor.FromFloat64([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
//	b, _ := tensor.FromFloat64([]float64{10, 20, 30}, 3)
//	c, _ := tensor.Add(a, b)          // broadcasts b over the rows of a
//	s, _ := tensor.SumTo(c, []int{3}) // the pullback of that broadcast
//	fmt.Println(c)
//	fmt.Println(s)
//
// # Matrix products
//
// Every matrix product of the project goes through [GemmBatch]: [MatMul] and
// [BatchMatMul] on tensors, [Gemm] and [GemmBatch] on slices with BLAS's
// conventions,
//
//	C_p = alpha op(A_p) op(B_p) + beta C_p,   p < batch,
//
// and the contractions of package einsum. They run on the project's packed AVX2 /
// AVX-512 kernels (about 8x gonum's pure-Go Dgemm), with plain loops for
// matrix-vector shapes; [UseBLAS64] routes them all through gonum's blas64 and
// cblas128 instead, for programs that install OpenBLAS with blas64.Use. Conversely,
// [BLAS] is gonum's BLAS with its Dgemm and Zgemm on the project's kernels, for
// blas64.Use, which puts them under gonum's mat and LAPACK.
package tensor
