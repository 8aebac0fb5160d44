// Package einsum is NumPy's einsum for chainrules-go: n-ary tensor contraction by a
// subscript spec, with first- and second-order differentiation rules and a pullback
// recorded with einsum ops, for derivatives of any order (core.Tape.GradGraph).
//
//	c, err := einsum.Eval("ij,jk->ik", a, b)          // no tape
//	y := tape.Apply(einsum.Op("bhqd,bhkd->bhqk"), q, k) // recorded
//
// # Spec language
//
// A spec lists one term of letters (a-z, A-Z) per operand, separated by commas, and
// optionally "->" and the output's term; spaces are ignored. Each letter labels one
// dim; the result is
//
//	out[output labels] = sum over all other labels of prod_k operand_k[labels of k].
//
// Without "->" (implicit mode) the output holds the labels that occur exactly once,
// in ASCII order (upper case first). A label repeated within one term takes that
// operand's diagonal ("ii->i", the trace "ii->"); a label in one operand only and
// not in the output is summed over ("ij->i"). "..." stands for the dims not named by
// letters: they are aligned at the right across operands and broadcast NumPy-style
// (a dim of 1 stretches). The output keeps them where its term has "...", before
// the letters in implicit mode; an explicit output without "..." sums them. An empty
// output ("ij,ij->") gives a scalar, and an empty term is a scalar operand.
// Letters must have the same size wherever they occur.
//
// Any number of operands (1 to dozens) is allowed, of any dtypes; the result has
// their promotion (tensor.ResultDType): complex if any operand is, and single
// precision if every operand is. A single-precision einsum (float32 and complex64
// operands) contracts in single precision, on the float32 and complex64 GEMM of
// tensor.GemmBatch, so its accumulation error is GEMM's; its pullbacks, tangents
// and recorded pullbacks stay in single precision too. An einsum mixing single and
// double precision contracts the widened operands in double precision and rounds
// each cotangent to its operand's dtype. Errors (never panics)
// wrap chainrules.ErrInvalidArgument or chainrules.ErrShapeMismatch and name the
// label, the operand and the sizes; an operand, a result or an intermediate too
// large for memory to hold (a broadcast view of any size costs nothing to make, but
// the contraction copies it) is an error wrapping chainrules.ErrInvalidArgument.
//
// # Evaluation
//
// A Plan binds a spec to operand shapes and fixes the contraction order; Eval keeps
// plans in a process-wide cache keyed by spec and shapes. Each operand first takes its
// diagonals and sums the labels only it carries; the remaining operands are then
// contracted two at a time along Plan.Path, chosen by an optimal search over all
// contraction trees for up to OptimalMaxOperands operands and greedily (fewest flops,
// then most memory freed) beyond. Intermediates are never capped in size. Each
// pairwise contraction maps its labels to batch, contracted and free dims, permutes
// an operand to a contiguous layout only when its layout does not already fit, and
// makes one call of tensor.GemmBatch, the path of every matrix product of the
// project: the packed AVX2 / AVX-512 GEMM by default (plain loops for matrix-vector
// shapes), and gonum's blas64 / cblas128 implementation, OpenBLAS for instance,
// after tensor.UseBLAS64(true). The derivatives are einsums too, so they take the
// same path.
//
// # Differentiation
//
// Op records einsum on a tape. The rules are einsums themselves (einsum is linear
// in each operand); see Op for the formulas. Register adds the family to a registry
// as "einsum"; package ops puts it in the default registry with the other built-in
// families.
package einsum
