package linalg

import (
	"math"
	"math/cmplx"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// checkGauge makes the recording of op's pullback (eigh, eig) fail, as PyTorch's
// linalg_eig_backward does, when the cotangent of the eigenvectors depends on their
// phases: a loss invariant under V -> V diag(e^{i phi}) has Im diag(V^H Vbar) = 0,
// and one that is not has no well-defined derivative. k is the recorded V^H Vbar; a
// diagonal entry whose imaginary part exceeds 1e-2 times the largest modulus of its
// matrix is the error (relative, so that the check does not depend on the
// cotangent's scale, and far above the rounding of a gauge-invariant loss).
func checkGauge(t *tape, k cr.NodeID, op string) {
	kv := val(t, k)
	if kv == nil || kv.DType() != tensor.Complex128 {
		return
	}
	sh := kv.Shape()
	n := sh[len(sh)-1]
	if n == 0 {
		return
	}
	data := kv.Contiguous().Complex128s()
	for b := 0; b+n*n <= len(data); b += n * n {
		mat := data[b : b+n*n]
		big := 0.0
		for _, z := range mat {
			big = math.Max(big, cmplx.Abs(z))
		}
		for i := range n {
			if im := math.Abs(imag(mat[i*n+i])); im > 1e-2*big {
				t.Apply(cr.FailOp[*tensor.Dense](op+"_gauge_check", opErr(op, cr.ErrInvalidArgument,
					"the eigenvectors of a complex matrix are defined up to a phase e^{i phi} each, and the loss depends on it, so its derivative is ill-defined (Im (V^H Vbar)_%d%d = %.3g)", i, i, imag(mat[i*n+i]))), k)
				return
			}
		}
	}
}
