package optim

import (
	"github.com/chainrules-go/chainrules/tensor"
)

// RMSpropConfig holds the hyperparameters of RMSprop, named as
// torch.optim.RMSprop's. A zero LR, Alpha or Eps takes torch's default (1e-2, 0.99,
// 1e-8); the others default to zero, as in torch.
type RMSpropConfig struct {
	LR          float64 // learning rate lr >= 0
	Alpha       float64 // smoothing constant alpha >= 0 of the squared-gradient average
	Eps         float64 // eps >= 0, added to the root of the average
	WeightDecay float64 // L2 penalty lambda >= 0, added to the gradient
	Momentum    float64 // momentum mu >= 0
	Centered    bool    // normalise by an estimate of the gradient's variance
	Maximize    bool    // ascend instead of descend
}

// RMSprop is the RMSprop optimiser (Hinton), as torch.optim.RMSprop (torch 1.13,
// foreach=False). With g_t the gradient of step t (negated if Maximize), theta the
// parameters and v_0 = gbar_0 = b_0 = 0:
//
//	g_t <- g_t + lambda theta_{t-1}                      if lambda != 0
//	v_t  = alpha v_{t-1} + (1 - alpha) g_t^2
//	gbar_t = alpha gbar_{t-1} + (1 - alpha) g_t           if Centered
//	d_t  = sqrt(v_t - gbar_t^2) + eps  (Centered)  or  sqrt(v_t) + eps
//	b_t  = mu b_{t-1} + g_t / d_t,  theta_t = theta_{t-1} - lr b_t     if mu > 0
//	theta_t = theta_{t-1} - lr g_t / d_t                  if mu = 0
type RMSprop struct {
	paramSet
	cfg     RMSpropConfig
	sq, avg bufs // v and, if Centered, gbar
	buf     bufs // b, if Momentum > 0
}

// NewRMSprop returns RMSprop over params, which it updates in place at every Step.
// The parameters must be contiguous float64 or float32 tensors; a float32 parameter
// is updated in float32, with its state in float32. It returns an error wrapping
// chainrules.ErrInvalidArgument for a nil or complex parameter, or a negative
// lr, alpha, eps, momentum or weight decay.
func NewRMSprop(params []*tensor.Dense, cfg RMSpropConfig) (*RMSprop, error) {
	const op = "RMSprop"
	if cfg.LR == 0 {
		cfg.LR = 1e-2
	}
	if cfg.Alpha == 0 {
		cfg.Alpha = 0.99
	}
	if cfg.Eps == 0 {
		cfg.Eps = 1e-8
	}
	for _, err := range []error{
		checkLR(op, cfg.LR), nonNegative(op, "alpha", cfg.Alpha), nonNegative(op, "eps", cfg.Eps),
		nonNegative(op, "momentum", cfg.Momentum), nonNegative(op, "weight decay", cfg.WeightDecay),
	} {
		if err != nil {
			return nil, err
		}
	}
	ps, err := newParamSet(op, params)
	if err != nil {
		return nil, err
	}
	r := &RMSprop{paramSet: ps, cfg: cfg, sq: ps.state()}
	if cfg.Centered {
		r.avg = ps.state()
	}
	if cfg.Momentum > 0 {
		r.buf = ps.state()
	}
	return r, nil
}

// LR returns the current learning rate.
func (r *RMSprop) LR() float64 { return r.cfg.LR }

// SetLR sets the learning rate of the next steps (as a scheduler does). It returns
// an error wrapping chainrules.ErrInvalidArgument for a negative or non-finite lr.
func (r *RMSprop) SetLR(lr float64) error { return r.setLR(&r.cfg.LR, lr) }

// Step updates the parameters in place with the gradients grads, one per parameter
// and of its shape. A bad gradient set (wrong count, nil, dtype or shape) is an
// error wrapping chainrules.ErrShapeMismatch or ErrInvalidArgument, and leaves the
// parameters and the optimiser's state unchanged. Step allocates nothing when the
// gradients are contiguous.
func (r *RMSprop) Step(grads []*tensor.Dense) error {
	if err := r.load(grads); err != nil {
		return err
	}
	for k, single := range r.single {
		if single {
			rmspropUpdate(r.data.f32[k], r.grads.f32[k], r.sq.f32[k], at(r.avg.f32, k), at(r.buf.f32, k), r.cfg)
		} else {
			rmspropUpdate(r.data.f64[k], r.grads.f64[k], r.sq.f64[k], at(r.avg.f64, k), at(r.buf.f64, k), r.cfg)
		}
	}
	r.steps++
	return nil
}

// rmspropUpdate takes one RMSprop step of one parameter theta with its gradient g,
// its squared-gradient average sq and, if kept, its gradient average avg (Centered)
// and momentum buffer buf, in T's precision.
func rmspropUpdate[T float](theta, g, sq, avg, buf []T, c RMSpropConfig) {
	n := len(theta)
	g, sq = g[:n], sq[:n]
	if c.Centered {
		avg = avg[:n]
	}
	if c.Momentum > 0 {
		buf = buf[:n]
	}
	lr, alpha, alpha1, eps, wd, mu := T(c.LR), T(c.Alpha), T(1-c.Alpha), T(c.Eps), T(c.WeightDecay), T(c.Momentum)
	for i := range theta {
		gi := g[i]
		if c.Maximize {
			gi = -gi
		}
		if c.WeightDecay != 0 {
			gi += wd * theta[i]
		}
		sq[i] = sq[i]*alpha + alpha1*gi*gi
		var d T
		if c.Centered {
			avg[i] = avg[i]*alpha + alpha1*gi
			d = sqrt(sq[i] + -avg[i]*avg[i])
		} else {
			d = sqrt(sq[i])
		}
		d += eps
		if c.Momentum > 0 {
			buf[i] = buf[i]*mu + gi/d
			theta[i] += -lr * buf[i]
		} else {
			theta[i] += -lr * gi / d
		}
	}
}
