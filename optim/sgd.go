package optim

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// SGDConfig holds the hyperparameters of SGD, named as torch.optim.SGD's. Every
// field is taken as written: LR has no default (torch's lr is required) and must be
// positive; the others default to zero, as in torch.
type SGDConfig struct {
	LR          float64 // learning rate lr > 0
	Momentum    float64 // momentum mu >= 0
	Dampening   float64 // dampening tau of the momentum buffer
	WeightDecay float64 // L2 penalty lambda >= 0, added to the gradient
	Nesterov    bool    // Nesterov momentum (needs Momentum > 0 and Dampening 0)
	Maximize    bool    // ascend instead of descend
}

// SGD is stochastic gradient descent with optional momentum, Nesterov momentum and
// weight decay, as torch.optim.SGD (torch 1.13, foreach=False). With g_t the
// gradient of step t (negated if Maximize) and theta the parameters:
//
//	g_t <- g_t + lambda theta_{t-1}                      if lambda != 0
//	b_t  = g_t                                           at t = 1
//	b_t  = mu b_{t-1} + (1 - tau) g_t                    at t > 1
//	g_t <- g_t + mu b_t  (Nesterov)  or  g_t <- b_t       if mu != 0
//	theta_t = theta_{t-1} - lr g_t
type SGD struct {
	paramSet
	cfg SGDConfig
	buf bufs // momentum buffers b
}

// NewSGD returns SGD over params, which it updates in place at every Step. The
// parameters must be contiguous float64 or float32 tensors; a float32 parameter is
// updated in float32, with its momentum buffer in float32. It returns an error wrapping
// chainrules.ErrInvalidArgument for a nil or complex parameter, an lr that is
// not positive, a negative momentum or weight decay, or Nesterov momentum without
// momentum or with dampening.
func NewSGD(params []*tensor.Dense, cfg SGDConfig) (*SGD, error) {
	const op = "SGD"
	if !(cfg.LR > 0) {
		if err := checkLR(op, cfg.LR); err != nil {
			return nil, err
		}
		return nil, cr.Errorf(cr.ErrInvalidArgument, "optim.SGD: learning rate 0: SGD has no default lr, set SGDConfig.LR")
	}
	for _, err := range []error{checkLR(op, cfg.LR), nonNegative(op, "momentum", cfg.Momentum), nonNegative(op, "weight decay", cfg.WeightDecay)} {
		if err != nil {
			return nil, err
		}
	}
	if cfg.Nesterov && (cfg.Momentum <= 0 || cfg.Dampening != 0) {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "optim.SGD: Nesterov momentum needs momentum > 0 and dampening 0, got momentum %v, dampening %v", cfg.Momentum, cfg.Dampening)
	}
	ps, err := newParamSet(op, params)
	if err != nil {
		return nil, err
	}
	s := &SGD{paramSet: ps, cfg: cfg}
	if cfg.Momentum != 0 {
		s.buf = ps.state()
	}
	return s, nil
}

// LR returns the current learning rate.
func (s *SGD) LR() float64 { return s.cfg.LR }

// SetLR sets the learning rate of the next steps (as a scheduler does). It returns
// an error wrapping chainrules.ErrInvalidArgument for a negative or non-finite lr.
func (s *SGD) SetLR(lr float64) error { return s.setLR(&s.cfg.LR, lr) }

// Step updates the parameters in place with the gradients grads, one per parameter
// and of its shape. A bad gradient set (wrong count, nil, dtype or shape) is an
// error wrapping chainrules.ErrShapeMismatch or ErrInvalidArgument, and leaves the
// parameters and the optimiser's state unchanged. Step allocates nothing when the
// gradients are contiguous.
func (s *SGD) Step(grads []*tensor.Dense) error {
	if err := s.load(grads); err != nil {
		return err
	}
	first := s.steps == 0
	for k, single := range s.single {
		if single {
			sgdUpdate(s.data.f32[k], s.grads.f32[k], at(s.buf.f32, k), s.cfg, first)
		} else {
			sgdUpdate(s.data.f64[k], s.grads.f64[k], at(s.buf.f64, k), s.cfg, first)
		}
	}
	s.steps++
	return nil
}

// at returns b[k], or nil when the optimiser keeps no such state (b is nil).
func at[T float](b [][]T, k int) []T {
	if b == nil {
		return nil
	}
	return b[k]
}

// sgdUpdate takes one SGD step of one parameter theta with its gradient g and
// momentum buffer b (nil without momentum), in T's precision: the hyperparameters
// are rounded to T, as torch's scalar arguments are for a float32 tensor.
func sgdUpdate[T float](theta, g, b []T, c SGDConfig, first bool) {
	g = g[:len(theta)]
	lr, mu, wd, damp := T(c.LR), T(c.Momentum), T(c.WeightDecay), T(1-c.Dampening)
	if c.Momentum != 0 {
		b = b[:len(theta)]
	}
	for i := range theta {
		d := g[i]
		if c.Maximize {
			d = -d
		}
		if c.WeightDecay != 0 {
			d += wd * theta[i]
		}
		if c.Momentum != 0 {
			if first {
				b[i] = d
			} else {
				b[i] = b[i]*mu + damp*d
			}
			if c.Nesterov {
				d += mu * b[i]
			} else {
				d = b[i]
			}
		}
		theta[i] += -lr * d
	}
}
