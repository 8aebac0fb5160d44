// Package tensor is the dense N-dimensional value type of chainrules-go: a strided
// view of float64 or complex128 storage, the arithmetic that op packages build on,
// and [Space], the chainrules.Space that lets the engine and the rule checker treat
// tensors as vectors.
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
// float64 to complex128 when the operands differ. Matrix products ([MatMul],
// [BatchMatMul]) run on the project's packed AVX2 / AVX-512 kernels (about 8x
// gonum's pure-Go Dgemm); [UseBLAS64] routes them through gonum's blas64 and
// cblas128 instead, for programs that install OpenBLAS with blas64.Use.
//
// Errors wrap the sentinels of package chainrules (ErrShapeMismatch,
// ErrInvalidArgument, ...), so callers test them with errors.Is. The only panics are
// the ones a slice would give: an out-of-range index in [Dense.At] or [Dense.Set],
// and a negative dimension in [New].
//
// A short example:
//
//	a, _ := tensor.FromFloat64([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
//	b, _ := tensor.FromFloat64([]float64{10, 20, 30}, 3)
//	c, _ := tensor.Add(a, b)        // broadcasts b over the rows of a
//	s, _ := tensor.SumTo(c, []int{3}) // the pullback of that broadcast
//	fmt.Println(c, s)
package tensor
