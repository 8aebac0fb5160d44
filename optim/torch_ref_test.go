package optim_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/chainrules-go/chainrules/optim"
	"github.com/chainrules-go/chainrules/tensor"
)

// The reference trajectories of optim/testdata/gen_optim_ref.py (torch 1.13).
type refFile struct {
	Torch string    `json:"torch"`
	Steps int       `json:"steps"`
	Runs  []refRun  `json:"runs"`
	Clip  []refClip `json:"clip"`
}

type refRun struct {
	Name     string          `json:"name"`
	Kind     string          `json:"kind"`
	Config   map[string]any  `json:"config"`
	Shapes   [][]int         `json:"shapes"`
	Init     [][]float64     `json:"init"`
	Grads    [][][]float64   `json:"grads"`  // [step][param][element]
	Params   [][][]float64   `json:"params"` // after each step
	LRs      []float64       `json:"lrs"`    // used by each step
	Schedule json.RawMessage `json:"schedule"`
}

type refSchedule struct {
	Type        string        `json:"type"`
	StepSize    int           `json:"step_size"`
	Gamma       float64       `json:"gamma"`
	TMax        int           `json:"T_max"`
	EtaMin      float64       `json:"eta_min"`
	StartFactor float64       `json:"start_factor"`
	EndFactor   float64       `json:"end_factor"`
	TotalIters  int           `json:"total_iters"`
	Milestones  []int         `json:"milestones"`
	Schedules   []refSchedule `json:"schedules"`
}

type refClip struct {
	MaxNorm  float64     `json:"max_norm"`
	NormType any         `json:"norm_type"`
	Shapes   [][]int     `json:"shapes"`
	Grads    [][]float64 `json:"grads"`
	Total    float64     `json:"total"`
	Clipped  [][]float64 `json:"clipped"`
}

func loadRef(t *testing.T) refFile { return loadRefFile(t, "testdata/optim_ref.json") }

func loadRefFile(t *testing.T, name string) refFile {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var ref refFile
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Runs) == 0 || len(ref.Clip) == 0 {
		t.Fatalf("%s holds no runs or no clip cases", name)
	}
	return ref
}

// tensors makes float64 tensors of the given shapes holding copies of data.
func tensors(t *testing.T, shapes [][]int, data [][]float64) []*tensor.Dense {
	t.Helper()
	out := make([]*tensor.Dense, len(shapes))
	for k, sh := range shapes {
		x, err := tensor.FromFloat64(append([]float64(nil), data[k]...), sh...)
		if err != nil {
			t.Fatal(err)
		}
		out[k] = x
	}
	return out
}

func num(m map[string]any, key string) float64 {
	v, _ := m[key].(float64)
	return v
}

func flag(m map[string]any, key string) bool {
	v, _ := m[key].(bool)
	return v
}

func betas(m map[string]any) [2]float64 {
	b, ok := m["betas"].([]any)
	if !ok {
		return [2]float64{}
	}
	return [2]float64{b[0].(float64), b[1].(float64)}
}

// newOptimizer builds the optimiser of a reference run from torch's keyword
// arguments. Omitted arguments are left zero, which takes torch's defaults.
func newOptimizer(params []*tensor.Dense, kind string, c map[string]any) (optim.Optimizer, error) {
	switch kind {
	case "SGD":
		return optim.NewSGD(params, optim.SGDConfig{LR: num(c, "lr"), Momentum: num(c, "momentum"), Dampening: num(c, "dampening"),
			WeightDecay: num(c, "weight_decay"), Nesterov: flag(c, "nesterov"), Maximize: flag(c, "maximize")})
	case "Adam", "AdamW":
		cfg := optim.AdamConfig{LR: num(c, "lr"), Betas: betas(c), Eps: num(c, "eps"), WeightDecay: num(c, "weight_decay"),
			AMSGrad: flag(c, "amsgrad"), Maximize: flag(c, "maximize")}
		if kind == "Adam" {
			return optim.NewAdam(params, cfg)
		}
		return optim.NewAdamW(params, cfg)
	case "RMSprop":
		return optim.NewRMSprop(params, optim.RMSpropConfig{LR: num(c, "lr"), Alpha: num(c, "alpha"), Eps: num(c, "eps"),
			WeightDecay: num(c, "weight_decay"), Momentum: num(c, "momentum"), Centered: flag(c, "centered"), Maximize: flag(c, "maximize")})
	}
	return nil, fmt.Errorf("unknown optimiser %q", kind)
}

// stepper is what both kinds of schedule give.
type stepper interface{ Step() error }

func newSchedule(opt optim.LRSetter, s refSchedule) (stepper, error) {
	switch s.Type {
	case "StepLR":
		return optim.NewStepLR(opt, s.StepSize, s.Gamma)
	case "CosineAnnealingLR":
		return optim.NewCosineAnnealingLR(opt, s.TMax, s.EtaMin)
	case "LinearLR":
		return optim.NewLinearLR(opt, s.StartFactor, s.EndFactor, s.TotalIters)
	case "SequentialLR":
		subs := make([]*optim.Scheduler, len(s.Schedules))
		for k, sub := range s.Schedules {
			st, err := newSchedule(opt, sub)
			if err != nil {
				return nil, err
			}
			subs[k] = st.(*optim.Scheduler)
		}
		return optim.NewSequentialLR(opt, subs, s.Milestones)
	}
	return nil, fmt.Errorf("unknown schedule %q", s.Type)
}

// near reports whether got and want agree to tol, relative for |want| > 1.
func near(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))
}

// TestTorchTrajectories replays torch's gradients through each optimiser (and
// schedule) and checks the parameters after every step, and the learning rate of
// every step, against torch's to 1e-12.
func TestTorchTrajectories(t *testing.T) {
	const tol = 1e-12
	ref := loadRef(t)
	for _, run := range ref.Runs {
		t.Run(run.Name, func(t *testing.T) {
			params := tensors(t, run.Shapes, run.Init)
			opt, err := newOptimizer(params, run.Kind, run.Config)
			if err != nil {
				t.Fatal(err)
			}
			var sched stepper
			if len(run.Schedule) > 0 {
				var s refSchedule
				if err := json.Unmarshal(run.Schedule, &s); err != nil {
					t.Fatal(err)
				}
				if sched, err = newSchedule(opt, s); err != nil {
					t.Fatal(err)
				}
			}
			if len(run.Grads) != ref.Steps || len(run.Params) != ref.Steps {
				t.Fatalf("%d gradient and %d parameter records, want %d", len(run.Grads), len(run.Params), ref.Steps)
			}
			for step := range run.Grads {
				if got, want := opt.LR(), run.LRs[step]; !near(got, want, tol) {
					t.Fatalf("step %d: lr %v, torch %v", step+1, got, want)
				}
				if err := opt.Step(tensors(t, run.Shapes, run.Grads[step])); err != nil {
					t.Fatal(err)
				}
				for k, p := range params {
					for i, got := range p.Float64s() {
						if want := run.Params[step][k][i]; !near(got, want, tol) {
							t.Fatalf("step %d: param %d[%d] = %.17g, torch %.17g (diff %.3g)", step+1, k, i, got, want, got-want)
						}
					}
				}
				if sched != nil {
					if err := sched.Step(); err != nil {
						t.Fatal(err)
					}
				}
			}
		})
	}
}

// TestTorchClipGradNorm checks ClipGradNorm against torch.nn.utils.clip_grad_norm_.
func TestTorchClipGradNorm(t *testing.T) {
	const tol = 1e-12
	for _, c := range loadRef(t).Clip {
		p := math.Inf(1)
		if f, ok := c.NormType.(float64); ok {
			p = f
		}
		t.Run(fmt.Sprintf("max%v-p%v", c.MaxNorm, p), func(t *testing.T) {
			grads := tensors(t, c.Shapes, c.Grads)
			total, err := optim.ClipGradNorm(grads, c.MaxNorm, p)
			if err != nil {
				t.Fatal(err)
			}
			if !near(total, c.Total, tol) {
				t.Errorf("total norm %.17g, torch %.17g", total, c.Total)
			}
			for k, g := range grads {
				for i, got := range g.Float64s() {
					if want := c.Clipped[k][i]; !near(got, want, tol) {
						t.Errorf("grad %d[%d] = %.17g, torch %.17g", k, i, got, want)
					}
				}
			}
		})
	}
}
