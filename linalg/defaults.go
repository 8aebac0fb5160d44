package linalg

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// The forms of this file give the ops whose constructors take every PyTorch argument
// positionally a way to be called with PyTorch's defaults, and with keyword-like
// options: they build the same ops (same names, same rules, same registry families).

// MatrixNormFroOp returns torch.linalg.matrix_norm(A) with its defaults: the
// Frobenius norm sqrt(sum |a_ij|^2) of each matrix of the last two axes, those axes
// dropped (ord "fro", dim (-2, -1), keepdim False). It is
// MatrixNormOp(OrdFro, -2, -1, false); see MatrixNormOp for the rules.
func MatrixNormFroOp() cr.Op[*tensor.Dense] { return MatrixNormOp(OrdFro, -2, -1, false) }

// MatrixNormFro is MatrixNormFroOp without a tape.
func MatrixNormFro(x *tensor.Dense) (*tensor.Dense, error) { return eval(MatrixNormFroOp(), x) }

// PinvDefaultOp returns torch.linalg.pinv(A) with its defaults: no atol, the relative
// cut-off max(m, n) eps, not Hermitian. It is PinvOp(PinvOptions{}) — the zero
// PinvOptions are PyTorch's defaults; set their fields for the keyword arguments.
func PinvDefaultOp() cr.Op[*tensor.Dense] { return PinvOp(PinvOptions{}) }

// PinvDefault is PinvDefaultOp without a tape.
func PinvDefault(a *tensor.Dense) (*tensor.Dense, error) { return eval(PinvDefaultOp(), a) }

// TriangularOption is a keyword argument of SolveTriangularOptsOp.
type TriangularOption func(*triangularArgs)

type triangularArgs struct{ upper, left, unit bool }

// Upper solves with the upper triangle of A (torch's upper=True).
func Upper() TriangularOption { return func(a *triangularArgs) { a.upper = true } }

// Lower solves with the lower triangle of A (upper=False, the default of
// SolveTriangularOptsOp; torch requires upper to be given, and so may a caller, for
// clarity).
func Lower() TriangularOption { return func(a *triangularArgs) { a.upper = false } }

// Left solves T X = B (left=True, the default).
func Left() TriangularOption { return func(a *triangularArgs) { a.left = true } }

// Right solves X T = B (left=False).
func Right() TriangularOption { return func(a *triangularArgs) { a.left = false } }

// UnitTriangular takes the diagonal of T to be ones, without reading it
// (unitriangular=True).
func UnitTriangular() TriangularOption { return func(a *triangularArgs) { a.unit = true } }

// SolveTriangularOptsOp is SolveTriangularOp with keyword-like options in place of
// three positional bools, e.g.
//
//	op := linalg.SolveTriangularOptsOp(linalg.Upper(), linalg.Right(), linalg.UnitTriangular())
//
// is SolveTriangularOp(true, false, true): X T = B with T the upper triangle of A and
// a unit diagonal. The defaults are torch's where it has
// them — left, not unitriangular — and the lower triangle (torch has no default for
// upper: pass Upper() or Lower()). A later option overrides an earlier one. It
// builds the same op, with the same rules, as SolveTriangularOp.
func SolveTriangularOptsOp(opts ...TriangularOption) cr.Op[*tensor.Dense] {
	args := triangularArgs{left: true}
	for _, o := range opts {
		if o != nil {
			o(&args)
		}
	}
	return SolveTriangularOp(args.upper, args.left, args.unit)
}

// SolveTriangularOpts is SolveTriangularOptsOp without a tape.
func SolveTriangularOpts(a, b *tensor.Dense, opts ...TriangularOption) (*tensor.Dense, error) {
	return eval(SolveTriangularOptsOp(opts...), a, b)
}
