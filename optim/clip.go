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
// is skipped (torch skips parameters without one). Gradients may be float64 or
// float32 (a set may mix them): the norm is accumulated in float64 whatever their
// dtype, and a float32 gradient is scaled in float32 by the factor rounded to
// float32. It returns an error wrapping chainrules.ErrInvalidArgument for a
// negative maxNorm, a normType that is neither positive nor +Inf, or a gradient
// that is not a contiguous float64 or float32 tensor.
func ClipGradNorm(grads []*tensor.Dense, maxNorm, normType float64) (float64, error) {
	if !(maxNorm >= 0) {
		return 0, cr.Errorf(cr.ErrInvalidArgument, "optim.ClipGradNorm: max norm %v: want >= 0", maxNorm)
	}
	if !(normType > 0) {
		return 0, cr.Errorf(cr.ErrInvalidArgument, "optim.ClipGradNorm: norm type %v: want > 0 or +Inf", normType)
	}
	for k, g := range grads {
		if g != nil && ((g.DType() != tensor.Float64 && g.DType() != tensor.Float32) || !g.IsContiguous()) {
			return 0, cr.Errorf(cr.ErrInvalidArgument, "optim.ClipGradNorm: gradient %d (%v, strides %v) is not a contiguous float64 or float32 tensor", k, g.DType(), g.Strides())
		}
	}
	var total float64
	for _, g := range grads {
		switch {
		case g == nil:
		case g.DType() == tensor.Float32:
			total = accNorm(total, g.Float32s(), normType)
		default:
			total = accNorm(total, g.Float64s(), normType)
		}
	}
	switch {
	case normType == 2:
		total = math.Sqrt(total)
	case !math.IsInf(normType, 1):
		total = math.Pow(total, 1/normType)
	}
	coef := min(maxNorm/(total+1e-6), 1)
	if coef < 1 || coef != coef {
		for _, g := range grads {
			switch {
			case g == nil:
			case g.DType() == tensor.Float32:
				scale(g.Float32s(), float32(coef))
			default:
				scale(g.Float64s(), coef)
			}
		}
	}
	return total, nil
}

// accNorm adds the elements of x to the running total of ClipGradNorm's norm of
// order p: the running maximum of |x_i| for p = +Inf, else the sum of |x_i|^p
// (x_i^2 for p = 2, the square of the root torch takes).
func accNorm[T float](total float64, x []T, p float64) float64 {
	switch {
	case math.IsInf(p, 1):
		for _, xi := range x {
			if a := math.Abs(float64(xi)); a > total || a != a {
				total = a
			}
		}
	case p == 2:
		var s float64
		for _, xi := range x {
			s += float64(xi) * float64(xi)
		}
		total += s
	default:
		var s float64
		for _, xi := range x {
			s += math.Pow(math.Abs(float64(xi)), p)
		}
		total += s
	}
	return total
}

// scale multiplies x by c in place.
func scale[T float](x []T, c T) {
	for i := range x {
		x[i] *= c
	}
}
