package optim

import (
	"math"
	"sort"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// Optimizer is what the optimisers of this package have in common: a Step over the
// gradients of the parameter set, and a learning rate that a schedule can read and
// set.
type Optimizer interface {
	Step(grads []*tensor.Dense) error
	LR() float64
	SetLR(lr float64) error
}

// LRSetter is the part of an optimiser that a learning-rate schedule drives.
type LRSetter interface {
	LR() float64
	SetLR(lr float64) error
}

var (
	_ Optimizer = (*SGD)(nil)
	_ Optimizer = (*Adam)(nil)
	_ Optimizer = (*AdamW)(nil)
	_ Optimizer = (*RMSprop)(nil)
)

// Scheduler sets an optimiser's learning rate by epoch, as torch.optim.lr_scheduler
// does: it is made after the optimiser (which fixes the base learning rate lr_0 to
// the optimiser's current one and sets the rate of epoch 0), and its Step, called
// after the optimiser's Step at the end of each epoch, moves to the next epoch and
// sets its rate. Like torch's schedulers it computes each rate from the optimiser's
// current one (the recursive form), so that a change of the rate made outside the
// schedule carries on.
type Scheduler struct {
	opt    LRSetter
	name   string
	base   float64 // lr_0
	epoch  int     // torch's last_epoch
	rule   func(epoch int, lr, base float64) float64
	closed func(epoch int, base float64) float64 // the rate of an epoch from lr_0 alone
}

// Step moves to the next epoch and sets the optimiser's learning rate to the
// schedule's rate for it. It returns the optimiser's error if the rate is refused
// (a schedule never makes a negative rate from a non-negative one).
func (s *Scheduler) Step() error {
	s.epoch++
	return s.opt.SetLR(s.rule(s.epoch, s.opt.LR(), s.base))
}

// Epoch returns the current epoch: 0 after construction, then one more per Step.
func (s *Scheduler) Epoch() int { return s.epoch }

// LastLR returns the learning rate the schedule last set.
func (s *Scheduler) LastLR() float64 { return s.opt.LR() }

// start records lr_0 and sets the rate of epoch 0.
func start(opt LRSetter, s *Scheduler) (*Scheduler, error) {
	if opt == nil {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "optim.%s: nil optimiser", s.name)
	}
	s.opt, s.base, s.epoch = opt, opt.LR(), -1
	if err := s.Step(); err != nil {
		return nil, err
	}
	return s, nil
}

// NewStepLR returns torch.optim.lr_scheduler.StepLR: the rate is multiplied by
// gamma every stepSize epochs,
//
//	lr_e = lr_{e-1} gamma  if e > 0 and e mod stepSize = 0,  else lr_{e-1}
//
// that is lr_e = lr_0 gamma^floor(e / stepSize). It returns an error wrapping
// chainrules.ErrInvalidArgument for stepSize < 1 or a negative gamma.
func NewStepLR(opt LRSetter, stepSize int, gamma float64) (*Scheduler, error) {
	if stepSize < 1 || !(gamma >= 0) {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "optim.StepLR: step size %d, gamma %v: want step size >= 1 and gamma >= 0", stepSize, gamma)
	}
	return start(opt, &Scheduler{
		name: "StepLR",
		rule: func(e int, lr, _ float64) float64 {
			if e == 0 || e%stepSize != 0 {
				return lr
			}
			return lr * gamma
		},
		closed: func(e int, base float64) float64 { return base * math.Pow(gamma, float64(e/stepSize)) },
	})
}

// NewCosineAnnealingLR returns torch.optim.lr_scheduler.CosineAnnealingLR: the rate
// follows half a cosine from lr_0 down to etaMin over tMax epochs (and back up over
// the next tMax, and so on),
//
//	lr_e = etaMin + (lr_0 - etaMin) (1 + cos(pi e / tMax)) / 2
//
// computed as torch computes it, from the previous rate:
//
//	lr_e = etaMin + (lr_{e-1} - etaMin) (1 + cos(pi e / tMax)) / (1 + cos(pi (e-1) / tMax))
//
// and, at the epochs e with (e - 1 - tMax) mod 2 tMax = 0, where that ratio is 0/0,
//
//	lr_e = lr_{e-1} + (lr_0 - etaMin) (1 - cos(pi / tMax)) / 2.
//
// It returns an error wrapping chainrules.ErrInvalidArgument for tMax < 1 or a
// negative etaMin.
func NewCosineAnnealingLR(opt LRSetter, tMax int, etaMin float64) (*Scheduler, error) {
	if tMax < 1 || !(etaMin >= 0) {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "optim.CosineAnnealingLR: T_max %d, eta_min %v: want T_max >= 1 and eta_min >= 0", tMax, etaMin)
	}
	T := float64(tMax)
	return start(opt, &Scheduler{
		name: "CosineAnnealingLR",
		rule: func(e int, lr, base float64) float64 {
			switch {
			case e == 0:
				return lr
			case pyMod(e-1-tMax, 2*tMax) == 0:
				return lr + (base-etaMin)*(1-math.Cos(math.Pi/T))/2
			}
			E := float64(e)
			return (1+math.Cos(math.Pi*E/T))/(1+math.Cos(math.Pi*(E-1)/T))*(lr-etaMin) + etaMin
		},
		closed: func(e int, base float64) float64 {
			return etaMin + (base-etaMin)*(1+math.Cos(math.Pi*float64(e)/T))/2
		},
	})
}

// NewLinearLR returns torch.optim.lr_scheduler.LinearLR, a linear warm-up (or
// decay): the rate moves linearly from startFactor lr_0 to endFactor lr_0 over
// totalIters epochs and stays there,
//
//	lr_e = lr_0 (s + (f - s) min(e, n) / n)
//
// computed as torch computes it, from the previous rate:
//
//	lr_0' = lr_0 s,  lr_e = lr_{e-1} (1 + (f - s) / (n s + (e - 1)(f - s)))  for 0 < e <= n.
//
// It returns an error wrapping chainrules.ErrInvalidArgument unless
// 0 < startFactor <= 1, 0 <= endFactor <= 1 and totalIters >= 1.
func NewLinearLR(opt LRSetter, startFactor, endFactor float64, totalIters int) (*Scheduler, error) {
	if !(startFactor > 0 && startFactor <= 1) || !(endFactor >= 0 && endFactor <= 1) || totalIters < 1 {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "optim.LinearLR: start factor %v, end factor %v, total iters %d: want 0 < start <= 1, 0 <= end <= 1, total >= 1", startFactor, endFactor, totalIters)
	}
	s, f, n := startFactor, endFactor, float64(totalIters)
	return start(opt, &Scheduler{
		name: "LinearLR",
		rule: func(e int, lr, _ float64) float64 {
			switch {
			case e == 0:
				return lr * s
			case e > totalIters:
				return lr
			}
			return lr * (1. + (f-s)/(n*s+float64(e-1)*(f-s)))
		},
		closed: func(e int, base float64) float64 { return base * (s + (f-s)*float64(min(totalIters, e))/n) },
	})
}

// SequentialLR runs schedules one after another, as
// torch.optim.lr_scheduler.SequentialLR: schedule k drives the rate from epoch
// milestones[k-1] on, restarted there at its own epoch 0 (its rate is then its
// closed form at epoch 0 from lr_0, e.g. lr_0 for a cosine, startFactor lr_0 for a
// LinearLR). The typical use is a linear warm-up followed by a cosine decay.
type SequentialLR struct {
	opt        LRSetter
	schedules  []*Scheduler
	milestones []int
	epoch      int
}

// NewSequentialLR returns the schedules run one after another, switching at the
// given epochs (one fewer milestone than schedules, increasing). The schedules must
// drive opt and be freshly made (at epoch 0), as in torch: NewSequentialLR restores
// the optimiser's rate to lr_0 and restarts the first schedule. It returns an error
// wrapping chainrules.ErrInvalidArgument otherwise.
func NewSequentialLR(opt LRSetter, schedules []*Scheduler, milestones []int) (*SequentialLR, error) {
	if opt == nil || len(schedules) == 0 || len(milestones) != len(schedules)-1 {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "optim.SequentialLR: %d schedules and %d milestones: want one more schedule than milestones", len(schedules), len(milestones))
	}
	if !sort.IntsAreSorted(milestones) {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "optim.SequentialLR: milestones %v are not increasing", milestones)
	}
	for k, s := range schedules {
		if s == nil || s.opt != opt || s.epoch != 0 {
			return nil, cr.Errorf(cr.ErrInvalidArgument, "optim.SequentialLR: schedule %d does not drive this optimiser or is not at epoch 0", k)
		}
	}
	base := schedules[0].base
	if err := opt.SetLR(base); err != nil {
		return nil, err
	}
	// Every schedule starts from the first one's lr_0, as torch's do from the
	// optimiser's initial_lr: a later one was made after an earlier one had
	// already set the rate of its epoch 0.
	for _, s := range schedules {
		s.base, s.epoch = base, -1
	}
	if err := schedules[0].Step(); err != nil {
		return nil, err
	}
	return &SequentialLR{opt: opt, schedules: schedules, milestones: milestones}, nil
}

// Step moves to the next epoch: the schedule in force steps, or, at a milestone,
// the next schedule starts at its epoch 0.
func (q *SequentialLR) Step() error {
	q.epoch++
	k := sort.Search(len(q.milestones), func(i int) bool { return q.milestones[i] > q.epoch })
	s := q.schedules[k]
	if k > 0 && q.milestones[k-1] == q.epoch {
		s.epoch = 0
		return q.opt.SetLR(s.closed(0, s.base))
	}
	return s.Step()
}

// Epoch returns the current epoch: 0 after construction, then one more per Step.
func (q *SequentialLR) Epoch() int { return q.epoch }

// LastLR returns the learning rate the schedule last set.
func (q *SequentialLR) LastLR() float64 { return q.opt.LR() }

// pyMod is Python's a % b for b > 0: the remainder in [0, b).
func pyMod(a, b int) int {
	r := a % b
	if r < 0 {
		r += b
	}
	return r
}
