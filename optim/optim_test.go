package optim_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	cr "github.com/chainrules-go/chainrules/chainrules"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/optim"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

func vec(xs ...float64) *tensor.Dense {
	t, err := tensor.FromFloat64(append([]float64(nil), xs...), len(xs))
	if err != nil {
		panic(err)
	}
	return t
}

func mat23() *tensor.Dense { return tensor.New(tensor.Float64, 2, 3) }

// TestConstructorErrors checks that every bad hyperparameter and parameter set is
// an error wrapping the right sentinel, and that none panics.
func TestConstructorErrors(t *testing.T) {
	ok := []*tensor.Dense{vec(1, 2)}
	transposed, err := mat23().Transpose(0, 1)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		make func() error
		want error
	}{
		{"sgd no lr", func() error { _, err := optim.NewSGD(ok, optim.SGDConfig{}); return err }, cr.ErrInvalidArgument},
		{"sgd negative lr", func() error { _, err := optim.NewSGD(ok, optim.SGDConfig{LR: -1}); return err }, cr.ErrInvalidArgument},
		{"sgd NaN lr", func() error { _, err := optim.NewSGD(ok, optim.SGDConfig{LR: math.NaN()}); return err }, cr.ErrInvalidArgument},
		{"sgd negative momentum", func() error { _, err := optim.NewSGD(ok, optim.SGDConfig{LR: 1, Momentum: -0.1}); return err }, cr.ErrInvalidArgument},
		{"sgd negative weight decay", func() error { _, err := optim.NewSGD(ok, optim.SGDConfig{LR: 1, WeightDecay: -1}); return err }, cr.ErrInvalidArgument},
		{"sgd nesterov without momentum", func() error { _, err := optim.NewSGD(ok, optim.SGDConfig{LR: 1, Nesterov: true}); return err }, cr.ErrInvalidArgument},
		{"sgd nesterov with dampening", func() error {
			_, err := optim.NewSGD(ok, optim.SGDConfig{LR: 1, Momentum: 0.9, Dampening: 0.1, Nesterov: true})
			return err
		}, cr.ErrInvalidArgument},
		{"adam negative lr", func() error { _, err := optim.NewAdam(ok, optim.AdamConfig{LR: -1e-3}); return err }, cr.ErrInvalidArgument},
		{"adam negative eps", func() error { _, err := optim.NewAdam(ok, optim.AdamConfig{Eps: -1e-8}); return err }, cr.ErrInvalidArgument},
		{"adam beta1 = 1", func() error { _, err := optim.NewAdam(ok, optim.AdamConfig{Betas: [2]float64{1, 0.999}}); return err }, cr.ErrInvalidArgument},
		{"adam beta2 < 0", func() error { _, err := optim.NewAdam(ok, optim.AdamConfig{Betas: [2]float64{0.9, -0.1}}); return err }, cr.ErrInvalidArgument},
		{"adam negative weight decay", func() error { _, err := optim.NewAdam(ok, optim.AdamConfig{WeightDecay: -1}); return err }, cr.ErrInvalidArgument},
		{"adamw beta2 = 1", func() error { _, err := optim.NewAdamW(ok, optim.AdamConfig{Betas: [2]float64{0.9, 1}}); return err }, cr.ErrInvalidArgument},
		{"rmsprop negative eps", func() error { _, err := optim.NewRMSprop(ok, optim.RMSpropConfig{Eps: -1}); return err }, cr.ErrInvalidArgument},
		{"rmsprop negative alpha", func() error { _, err := optim.NewRMSprop(ok, optim.RMSpropConfig{Alpha: -1}); return err }, cr.ErrInvalidArgument},
		{"rmsprop negative momentum", func() error { _, err := optim.NewRMSprop(ok, optim.RMSpropConfig{Momentum: -1}); return err }, cr.ErrInvalidArgument},
		{"empty set", func() error { _, err := optim.NewAdam(nil, optim.AdamConfig{}); return err }, cr.ErrInvalidArgument},
		{"nil parameter", func() error { _, err := optim.NewAdam([]*tensor.Dense{vec(1), nil}, optim.AdamConfig{}); return err }, cr.ErrInvalidArgument},
		{"complex parameter", func() error {
			_, err := optim.NewSGD([]*tensor.Dense{tensor.New(tensor.Complex128, 2)}, optim.SGDConfig{LR: 1})
			return err
		}, cr.ErrInvalidArgument},
		{"non-contiguous parameter", func() error {
			_, err := optim.NewRMSprop([]*tensor.Dense{transposed}, optim.RMSpropConfig{})
			return err
		}, cr.ErrInvalidArgument},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.make()
			if !errors.Is(err, c.want) {
				t.Fatalf("error %v, want one wrapping %v", err, c.want)
			}
		})
	}
}

// TestStepErrors checks that a bad gradient set is an error wrapping the right
// sentinel and leaves the parameters and the state untouched.
func TestStepErrors(t *testing.T) {
	newOpts := map[string]func(p []*tensor.Dense) (optim.Optimizer, error){
		"SGD": func(p []*tensor.Dense) (optim.Optimizer, error) {
			return optim.NewSGD(p, optim.SGDConfig{LR: 0.1, Momentum: 0.9})
		},
		"Adam":  func(p []*tensor.Dense) (optim.Optimizer, error) { return optim.NewAdam(p, optim.AdamConfig{}) },
		"AdamW": func(p []*tensor.Dense) (optim.Optimizer, error) { return optim.NewAdamW(p, optim.AdamConfig{}) },
		"RMSprop": func(p []*tensor.Dense) (optim.Optimizer, error) {
			return optim.NewRMSprop(p, optim.RMSpropConfig{Centered: true})
		},
	}
	bad := []struct {
		name  string
		grads []*tensor.Dense
		want  error
	}{
		{"too few", []*tensor.Dense{vec(1, 1)}, cr.ErrShapeMismatch},
		{"too many", []*tensor.Dense{vec(1, 1), mat23(), vec(1)}, cr.ErrShapeMismatch},
		{"nil", []*tensor.Dense{vec(1, 1), nil}, cr.ErrInvalidArgument},
		{"shape", []*tensor.Dense{vec(1, 1), tensor.New(tensor.Float64, 3, 2)}, cr.ErrShapeMismatch},
		{"dtype", []*tensor.Dense{vec(1, 1), tensor.New(tensor.Complex128, 2, 3)}, cr.ErrInvalidArgument},
	}
	for name, newOpt := range newOpts {
		for _, b := range bad {
			t.Run(name+"/"+b.name, func(t *testing.T) {
				params := []*tensor.Dense{vec(1, 2), mat23()}
				opt, err := newOpt(params)
				if err != nil {
					t.Fatal(err)
				}
				// A bad step between two good ones must not change the trajectory.
				twin := []*tensor.Dense{vec(1, 2), mat23()}
				ref, err := newOpt(twin)
				if err != nil {
					t.Fatal(err)
				}
				good := []*tensor.Dense{vec(0.5, -1), tensor.Full(tensor.Float64, 0.25, 2, 3)}
				for _, o := range []optim.Optimizer{opt, ref} {
					if err := o.Step(good); err != nil {
						t.Fatal(err)
					}
				}
				if err := opt.Step(b.grads); !errors.Is(err, b.want) {
					t.Fatalf("error %v, want one wrapping %v", err, b.want)
				}
				for _, o := range []optim.Optimizer{opt, ref} {
					if err := o.Step(good); err != nil {
						t.Fatal(err)
					}
				}
				for k := range params {
					if !slices.Equal(params[k].Float64s(), twin[k].Float64s()) {
						t.Fatalf("param %d is %v after a refused step, want %v", k, params[k].Float64s(), twin[k].Float64s())
					}
				}
			})
		}
	}
}

func TestSetLR(t *testing.T) {
	opt, err := optim.NewAdam([]*tensor.Dense{vec(1)}, optim.AdamConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if opt.LR() != 1e-3 {
		t.Fatalf("default lr %v, want 1e-3", opt.LR())
	}
	if err := opt.SetLR(-1); !errors.Is(err, cr.ErrInvalidArgument) {
		t.Fatalf("SetLR(-1): %v", err)
	}
	if err := opt.SetLR(math.Inf(1)); !errors.Is(err, cr.ErrInvalidArgument) {
		t.Fatalf("SetLR(+Inf): %v", err)
	}
	if err := opt.SetLR(0.5); err != nil || opt.LR() != 0.5 {
		t.Fatalf("SetLR(0.5): %v, lr %v", err, opt.LR())
	}
	if opt.Steps() != 0 {
		t.Fatalf("Steps %d before any step", opt.Steps())
	}
	if err := opt.Step([]*tensor.Dense{vec(1)}); err != nil {
		t.Fatal(err)
	}
	if err := opt.Step([]*tensor.Dense{nil}); err == nil {
		t.Fatal("a nil gradient was taken")
	}
	if opt.Steps() != 1 {
		t.Fatalf("Steps %d after one step and one refused step", opt.Steps())
	}
	if p := opt.Params(); len(p) != 1 || math.Abs(p[0].Float64s()[0]-0.5) > 1e-7 {
		t.Fatalf("Params %v: want the one parameter, moved by lr 0.5 from 1 (Adam's first step is lr sign(g))", p)
	}
}

func TestScheduleErrors(t *testing.T) {
	opt, err := optim.NewSGD([]*tensor.Dense{vec(1)}, optim.SGDConfig{LR: 1})
	if err != nil {
		t.Fatal(err)
	}
	other, err := optim.NewSGD([]*tensor.Dense{vec(1)}, optim.SGDConfig{LR: 1})
	if err != nil {
		t.Fatal(err)
	}
	mk := func(o optim.LRSetter) *optim.Scheduler {
		s, err := optim.NewStepLR(o, 2, 0.5)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	cases := []struct {
		name string
		make func() error
	}{
		{"steplr step 0", func() error { _, err := optim.NewStepLR(opt, 0, 0.5); return err }},
		{"steplr negative gamma", func() error { _, err := optim.NewStepLR(opt, 1, -0.5); return err }},
		{"cosine T_max 0", func() error { _, err := optim.NewCosineAnnealingLR(opt, 0, 0); return err }},
		{"cosine negative eta_min", func() error { _, err := optim.NewCosineAnnealingLR(opt, 5, -1); return err }},
		{"linear start 0", func() error { _, err := optim.NewLinearLR(opt, 0, 1, 5); return err }},
		{"linear end 2", func() error { _, err := optim.NewLinearLR(opt, 0.5, 2, 5); return err }},
		{"linear total 0", func() error { _, err := optim.NewLinearLR(opt, 0.5, 1, 0); return err }},
		{"nil optimiser", func() error { _, err := optim.NewStepLR(nil, 1, 0.5); return err }},
		{"sequential milestones", func() error {
			_, err := optim.NewSequentialLR(opt, []*optim.Scheduler{mk(opt), mk(opt)}, nil)
			return err
		}},
		{"sequential other optimiser", func() error {
			_, err := optim.NewSequentialLR(opt, []*optim.Scheduler{mk(opt), mk(other)}, []int{3})
			return err
		}},
		{"sequential decreasing", func() error {
			_, err := optim.NewSequentialLR(opt, []*optim.Scheduler{mk(opt), mk(opt), mk(opt)}, []int{3, 2})
			return err
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := c.make(); !errors.Is(err, cr.ErrInvalidArgument) {
				t.Fatalf("error %v, want one wrapping %v", err, cr.ErrInvalidArgument)
			}
		})
	}
}

func TestClipGradNormErrors(t *testing.T) {
	transposed, err := mat23().Transpose(0, 1)
	if err != nil {
		t.Fatal(err)
	}
	for name, call := range map[string]func() error{
		"negative max norm": func() error { _, err := optim.ClipGradNorm([]*tensor.Dense{vec(1)}, -1, 2); return err },
		"norm type 0":       func() error { _, err := optim.ClipGradNorm([]*tensor.Dense{vec(1)}, 1, 0); return err },
		"norm type -Inf":    func() error { _, err := optim.ClipGradNorm([]*tensor.Dense{vec(1)}, 1, math.Inf(-1)); return err },
		"complex": func() error {
			_, err := optim.ClipGradNorm([]*tensor.Dense{tensor.New(tensor.Complex128, 2)}, 1, 2)
			return err
		},
		"non-contiguous": func() error { _, err := optim.ClipGradNorm([]*tensor.Dense{transposed}, 1, 2); return err },
	} {
		t.Run(name, func(t *testing.T) {
			if err := call(); !errors.Is(err, cr.ErrInvalidArgument) {
				t.Fatalf("error %v, want one wrapping %v", err, cr.ErrInvalidArgument)
			}
		})
	}
	// A nil gradient is skipped, as torch skips a parameter without one.
	g := vec(3, 4)
	total, err := optim.ClipGradNorm([]*tensor.Dense{nil, g}, 1, 2)
	if err != nil || total != 5 {
		t.Fatalf("total %v, err %v; want 5", total, err)
	}
}

// TestStepAllocatesNothing checks that Step allocates nothing once the optimiser
// is made, for every optimiser and every option that adds state.
func TestStepAllocatesNothing(t *testing.T) {
	params := []*tensor.Dense{vec(1, 2, 3), mat23()}
	grads := []*tensor.Dense{vec(0.1, -0.2, 0.3), tensor.Full(tensor.Float64, 0.5, 2, 3)}
	opts := map[string]optim.Optimizer{}
	add := func(name string, o optim.Optimizer, err error) {
		if err != nil {
			t.Fatal(err)
		}
		opts[name] = o
	}
	o1, err := optim.NewSGD(params, optim.SGDConfig{LR: 1e-3, Momentum: 0.9, Nesterov: true, WeightDecay: 1e-2})
	add("SGD", o1, err)
	o2, err := optim.NewAdam(params, optim.AdamConfig{AMSGrad: true, WeightDecay: 1e-2})
	add("Adam", o2, err)
	o3, err := optim.NewAdamW(params, optim.AdamConfig{})
	add("AdamW", o3, err)
	o4, err := optim.NewRMSprop(params, optim.RMSpropConfig{Centered: true, Momentum: 0.9})
	add("RMSprop", o4, err)
	for name, o := range opts {
		if n := testing.AllocsPerRun(20, func() {
			if err := o.Step(grads); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("%s: Step allocates %v times", name, n)
		}
	}
}

// TestWithHVPGrad drives each optimiser with the project's own gradients (hvp.Grad)
// on the non-quadratic f(a, b) = sum (a - 1)^2 exp(a/2) + sum log(1 + b^2), with
// minimiser a = 1, b = 0, and checks that every one reaches it.
func TestWithHVPGrad(t *testing.T) {
	loss := func(tp *hvp.Tape, p []cr.NodeID) cr.NodeID {
		sum := reduce.SumOp(nil, false)
		d := tp.Apply(ew.ShiftOp(-1), p[0])
		fa := tp.Apply(sum, tp.Apply(ew.MulOp, tp.Apply(ew.SquareOp, d), tp.Apply(ew.ExpOp, tp.Apply(ew.ScaleOp(0.5), p[0]))))
		fb := tp.Apply(sum, tp.Apply(ew.LogOp, tp.Apply(ew.ShiftOp(1), tp.Apply(ew.SquareOp, p[1]))))
		return tp.Apply(ew.AddOp, fa, fb)
	}
	makers := map[string]func(p []*tensor.Dense) (optim.Optimizer, error){
		"SGD": func(p []*tensor.Dense) (optim.Optimizer, error) {
			return optim.NewSGD(p, optim.SGDConfig{LR: 0.05, Momentum: 0.9})
		},
		"Adam": func(p []*tensor.Dense) (optim.Optimizer, error) { return optim.NewAdam(p, optim.AdamConfig{LR: 0.05}) },
		"AdamW": func(p []*tensor.Dense) (optim.Optimizer, error) {
			return optim.NewAdamW(p, optim.AdamConfig{LR: 0.05, WeightDecay: 1e-4})
		},
		"RMSprop": func(p []*tensor.Dense) (optim.Optimizer, error) {
			return optim.NewRMSprop(p, optim.RMSpropConfig{LR: 0.01})
		},
	}
	for name, mk := range makers {
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			params := []*tensor.Dense{tensor.RandUniform(rng, tensor.Float64, 0, 2, 3), tensor.RandUniform(rng, tensor.Float64, -1, 1, 2, 2)}
			opt, err := mk(params)
			if err != nil {
				t.Fatal(err)
			}
			sched, err := optim.NewCosineAnnealingLR(opt, 600, 0)
			if err != nil {
				t.Fatal(err)
			}
			var first, last float64
			for step := 0; step < 600; step++ {
				v, grads, err := hvp.Grad(loss, params)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := optim.ClipGradNorm(grads, 10, 2); err != nil {
					t.Fatal(err)
				}
				if err := opt.Step(grads); err != nil {
					t.Fatal(err)
				}
				if err := sched.Step(); err != nil {
					t.Fatal(err)
				}
				if step == 0 {
					first = v.Float64s()[0]
				}
				last = v.Float64s()[0]
			}
			if !(last < 1e-3*first) {
				t.Errorf("loss %v after 600 steps (from %v)", last, first)
			}
			for _, a := range params[0].Float64s() {
				if math.Abs(a-1) > 0.05 {
					t.Errorf("a = %v, want 1", params[0].Float64s())
					break
				}
			}
			for _, b := range params[1].Float64s() {
				if math.Abs(b) > 0.05 {
					t.Errorf("b = %v, want 0", params[1].Float64s())
					break
				}
			}
		})
	}
}
