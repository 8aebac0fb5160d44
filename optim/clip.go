package optim

import (
	"math"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// ClipGradNorm scales the gradients grads in place so that their joint norm is at
// most maxNorm, as torch.nn.utils.clip_grad_norm_, and returns their joint norm
// before clipping. The joint norm of order p = normType is the p-norm of the
// tensors' p-norms,
//
//	N = (sum_k |g_k|_p^p)^(1/p),   N = max_k max_i |g_k,i|  for p = +Inf,
//
// and every gradient is multiplied by min(1, maxNorm / (N + 1e-6)). A nil gradient
// is skipped (torch skips parameters without one). It returns an error wrapping
// chainrules.ErrInvalidArgument for a negative maxNorm, a normType that is neither
// positive nor +Inf, or a gradient that is not a contiguous float64 tensor.
func ClipGradNorm(grads []*tensor.Dense, maxNorm, normType float64) (float64, error) {
	if !(maxNorm >= 0) {
		return 0, cr.Errorf(cr.ErrInvalidArgument, "optim.ClipGradNorm: max norm %v: want >= 0", maxNorm)
	}
	if !(normType > 0) {
		return 0, cr.Errorf(cr.ErrInvalidArgument, "optim.ClipGradNorm: norm type %v: want > 0 or +Inf", normType)
	}
	for k, g := range grads {
		if g != nil && (g.DType() != tensor.Float64 || !g.IsContiguous()) {
			return 0, cr.Errorf(cr.ErrInvalidArgument, "optim.ClipGradNorm: gradient %d (%v, strides %v) is not a contiguous float64 tensor", k, g.DType(), g.Strides())
		}
	}
	var total float64
	switch {
	case math.IsInf(normType, 1):
		for _, g := range grads {
			if g == nil {
				continue
			}
			for _, x := range g.Float64s() {
				if a := math.Abs(x); a > total || a != a {
					total = a
				}
			}
		}
	case normType == 2:
		for _, g := range grads {
			if g == nil {
				continue
			}
			var s float64
			for _, x := range g.Float64s() {
				s += x * x
			}
			total += s // |g_k|_2^2: the square of the root torch takes
		}
		total = math.Sqrt(total)
	default:
		for _, g := range grads {
			if g == nil {
				continue
			}
			var s float64
			for _, x := range g.Float64s() {
				s += math.Pow(math.Abs(x), normType)
			}
			total += s
		}
		total = math.Pow(total, 1/normType)
	}
	coef := min(maxNorm/(total+1e-6), 1)
	if coef < 1 || coef != coef {
		for _, g := range grads {
			if g == nil {
				continue
			}
			x := g.Float64s()
			for i := range x {
				x[i] *= coef
			}
		}
	}
	return total, nil
}
