package optim

import (
	"math"

	"github.com/chainrules-go/chainrules/tensor"
)

// AdamConfig holds the hyperparameters of Adam and AdamW, named as
// torch.optim.Adam's. A zero LR, Betas or Eps takes torch's default (1e-3,
// (0.9, 0.999), 1e-8); for AdamW a zero WeightDecay takes AdamW's default 1e-2
// (AdamW without decay is Adam).
type AdamConfig struct {
	LR          float64    // learning rate lr >= 0
	Betas       [2]float64 // beta1, beta2 in [0, 1): decay rates of the two moments
	Eps         float64    // eps >= 0, added to the root of the second moment
	WeightDecay float64    // lambda >= 0: an L2 penalty for Adam, decoupled decay for AdamW
	AMSGrad     bool       // normalise by the running maximum of the second moment
	Maximize    bool       // ascend instead of descend
}

// Adam is the Adam optimiser (Kingma and Ba, 2015), as torch.optim.Adam (torch
// 1.13, foreach=False). With g_t the gradient of step t (negated if Maximize),
// theta the parameters and m_0 = v_0 = vmax_0 = 0:
//
//	g_t <- g_t + lambda theta_{t-1}                      if lambda != 0
//	m_t  = beta1 m_{t-1} + (1 - beta1) g_t
//	v_t  = beta2 v_{t-1} + (1 - beta2) g_t^2
//	vmax_t = max(vmax_{t-1}, v_t), and v_t <- vmax_t      if AMSGrad
//	theta_t = theta_{t-1} - (lr / (1 - beta1^t)) m_t / (sqrt(v_t) / sqrt(1 - beta2^t) + eps)
type Adam struct{ adam }

// AdamW is Adam with decoupled weight decay (Loshchilov and Hutter, 2019), as
// torch.optim.AdamW (torch 1.13, foreach=False): the update of Adam without the L2
// term, after the parameters are shrunk,
//
//	theta_{t-1} <- (1 - lr lambda) theta_{t-1}
//
// with lambda = 1e-2 by default.
type AdamW struct{ adam }

// adam is the update shared by Adam and AdamW.
type adam struct {
	paramSet
	cfg       AdamConfig
	decoupled bool
	m, v      bufs
	vmax      bufs // nil slices unless AMSGrad
}

// NewAdam returns Adam over params, which it updates in place at every Step. The
// parameters must be contiguous float64 or float32 tensors; a float32 parameter is
// updated in float32, with its moments in float32 (torch's state for a float32
// parameter), the bias corrections computed in float64 and rounded. It returns an error wrapping
// chainrules.ErrInvalidArgument for a nil or complex parameter, a negative lr,
// eps or weight decay, or betas outside [0, 1).
func NewAdam(params []*tensor.Dense, cfg AdamConfig) (*Adam, error) {
	a, err := newAdam("Adam", params, cfg, false)
	if err != nil {
		return nil, err
	}
	return &Adam{a}, nil
}

// NewAdamW returns AdamW over params; see NewAdam. A zero cfg.WeightDecay takes
// torch's default 1e-2.
func NewAdamW(params []*tensor.Dense, cfg AdamConfig) (*AdamW, error) {
	if cfg.WeightDecay == 0 {
		cfg.WeightDecay = 1e-2
	}
	a, err := newAdam("AdamW", params, cfg, true)
	if err != nil {
		return nil, err
	}
	return &AdamW{a}, nil
}

func newAdam(op string, params []*tensor.Dense, cfg AdamConfig, decoupled bool) (adam, error) {
	if cfg.LR == 0 {
		cfg.LR = 1e-3
	}
	if cfg.Betas == [2]float64{} {
		cfg.Betas = [2]float64{0.9, 0.999}
	}
	if cfg.Eps == 0 {
		cfg.Eps = 1e-8
	}
	for _, err := range []error{
		checkLR(op, cfg.LR), nonNegative(op, "eps", cfg.Eps), nonNegative(op, "weight decay", cfg.WeightDecay),
		unitInterval(op, "beta1", cfg.Betas[0]), unitInterval(op, "beta2", cfg.Betas[1]),
	} {
		if err != nil {
			return adam{}, err
		}
	}
	ps, err := newParamSet(op, params)
	if err != nil {
		return adam{}, err
	}
	a := adam{paramSet: ps, cfg: cfg, decoupled: decoupled, m: ps.state(), v: ps.state()}
	if cfg.AMSGrad {
		a.vmax = ps.state()
	}
	return a, nil
}

// LR returns the current learning rate.
func (a *adam) LR() float64 { return a.cfg.LR }

// SetLR sets the learning rate of the next steps (as a scheduler does). It returns
// an error wrapping chainrules.ErrInvalidArgument for a negative or non-finite lr.
func (a *adam) SetLR(lr float64) error { return a.setLR(&a.cfg.LR, lr) }

// Step updates the parameters in place with the gradients grads, one per parameter
// and of its shape. A bad gradient set (wrong count, nil, dtype or shape) is an
// error wrapping chainrules.ErrShapeMismatch or ErrInvalidArgument, and leaves the
// parameters and the optimiser's state unchanged. Step allocates nothing when the
// gradients are contiguous.
func (a *adam) Step(grads []*tensor.Dense) error {
	if err := a.load(grads); err != nil {
		return err
	}
	a.steps++
	c := a.cfg
	lr, b1, b2, wd := c.LR, c.Betas[0], c.Betas[1], c.WeightDecay
	// torch's step is a float tensor and beta ** step a Python float power.
	t := float64(a.steps)
	stepSize := lr / (1 - math.Pow(b1, t))
	bc2 := math.Sqrt(1 - math.Pow(b2, t))
	shrink := 1 - lr*wd
	for k, single := range a.single {
		if single {
			adamUpdate(a.data.f32[k], a.grads.f32[k], a.m.f32[k], a.v.f32[k], at(a.vmax.f32, k), c, a.decoupled, stepSize, bc2, shrink)
		} else {
			adamUpdate(a.data.f64[k], a.grads.f64[k], a.m.f64[k], a.v.f64[k], at(a.vmax.f64, k), c, a.decoupled, stepSize, bc2, shrink)
		}
	}
	return nil
}

// adamUpdate takes one Adam step of one parameter theta with its gradient g, its
// moments m and v and, with AMSGrad, the running maximum vmax, in T's precision.
// stepSize = lr / (1 - beta1^t), bc2 = sqrt(1 - beta2^t) and shrink = 1 - lr lambda
// are computed in float64 (Python floats in torch) and rounded to T.
func adamUpdate[T float](theta, g, m, v, vmax []T, c AdamConfig, decoupled bool, stepSize, bc2, shrink float64) {
	n := len(theta)
	g, m, v = g[:n], m[:n], v[:n]
	if c.AMSGrad {
		vmax = vmax[:n]
	}
	b1, b2, eps, wd := T(c.Betas[0]), T(c.Betas[1]), T(c.Eps), T(c.WeightDecay)
	c1, c2 := T(1-c.Betas[0]), T(1-c.Betas[1])
	step, bc, sh := T(stepSize), T(bc2), T(shrink)
	for i := range theta {
		gi := g[i]
		if c.Maximize {
			gi = -gi
		}
		if decoupled {
			theta[i] *= sh
		} else if c.WeightDecay != 0 {
			gi += wd * theta[i]
		}
		m[i] = m[i]*b1 + c1*gi
		v[i] = v[i]*b2 + c2*gi*gi
		vi := v[i]
		if c.AMSGrad {
			if vi > vmax[i] || vi != vi {
				vmax[i] = vi
			}
			vi = vmax[i]
		}
		theta[i] += -step * m[i] / (sqrt(vi)/bc + eps)
	}
}
