package nn

import (
	"math"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/permute"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// BatchNormOp returns PyTorch's F.batch_norm of x [N, C, *] (the options:
// Affine, NormEps, Training, Momentum, RunningStats).
//
// In training (Training(true)) each channel is normalised with the statistics of
// the batch, its mean and biased variance over N and the spatial axes,
//
//	y = (x - mean_c) / sqrt(var_c + eps) * weight[c] + bias[c],
//
// with the rules of a normalisation (see LayerNormOp; the means are over N and
// the spatial axes). Given RunningStats(runningMean, runningVar), the op then has
// three outputs, (y, runningMean', runningVar'), the updated statistics
//
//	runningMean' = (1 - momentum) runningMean + momentum mean_c
//	runningVar'  = (1 - momentum) runningVar  + momentum var_c n/(n - 1)
//
// (n = N times the spatial size: the unbiased variance, as PyTorch), which carry
// no derivative (chainrules' NonDifferentiableOutputs): record the op with
// tape.ApplyMulti and keep outputs 1 and 2 as the statistics for the next step.
// They are computed once, when the op is applied; no sweep changes anything, and
// the tensors given to RunningStats are never modified. Without running
// statistics the op has the one output y.
//
// In evaluation (the default, as F.batch_norm's training=False) the op uses the
// running statistics, which it then requires, and is affine in x:
//
//	y = (x - runningMean[c]) / sqrt(runningVar[c] + eps) * weight[c] + bias[c],
//	xbar = ybar weight[c] / sqrt(runningVar[c] + eps).
//
// Both modes compute the primal with fused kernels, and training its
// first-order pullback too (two passes over x and ybar with the statistics of
// the primal); both record the pullback with ops (core.Define), which gives the
// forward tangent, the second-order rule and every higher order. Errors: x with fewer than two axes, a single value per
// channel in training, or a missing running statistic in evaluation wrap
// chainrules.ErrInvalidArgument; a weight, bias or running statistic not of
// shape [C] wraps ErrShapeMismatch; a NaN or infinite batch statistic in
// training (a NaN or infinity in x) wraps chainrules.ErrNonFinite, so that it
// never reaches the running statistics. In training, float32 inputs (all of
// them) run natively, in single precision with float64 statistics and sums, as
// PyTorch's CPU kernels; the forward, second-order and recorded rules are then
// the widened op's, rounded to single precision.
func BatchNormOp(opts ...NormOption) cr.Op[*tensor.Dense] {
	const name = "batch_norm"
	cfg := newNormConfig(opts).cloneStats()
	view := func(x []*tensor.Dense) (normView, error) {
		n, c, sp, err := channels(name, x[0])
		if err != nil {
			return normView{}, err
		}
		if cfg.training && n*sp <= 1 {
			return normView{}, cr.Errorf(cr.ErrInvalidArgument, "%s: input %s has %d value per channel; training needs more than 1", name, x[0].Describe(), n*sp)
		}
		return channelView(name, x[0], n, c, sp, cfg), nil
	}
	check := func(x []*tensor.Dense) (normView, error) {
		v, err := normCheck(name, x, cfg, view)
		if err != nil {
			return v, err
		}
		return v, checkRunning(name, cfg, v, x[0], cfg.training)
	}
	if !cfg.training {
		return batchNormEval(name, cfg, check, view)
	}
	// The statistics of channel c are those of the view's group c, over n values.
	update := func(st normStatistics, c int) (mean, unbiased float64) {
		n := float64(st.v.a * st.v.b)
		return st.mean[c], st.variance[c] * n / (n - 1)
	}
	op := statsNormOp(name, cfg, view, check, update)
	op.single = true // float32 input natively (channelForward32, channelPullback32)
	return op
}

func (c normConfig) cloneStats() normConfig {
	if c.runMean != nil {
		c.runMean = c.runMean.Clone()
	}
	if c.runVar != nil {
		c.runVar = c.runVar.Clone()
	}
	return c
}

// checkRunning checks the running statistics: both of shape [C] (the view's
// wshape), or, when optional, neither.
func checkRunning(name string, cfg normConfig, v normView, x *tensor.Dense, optional bool) error {
	for _, s := range []struct {
		what string
		t    *tensor.Dense
	}{{"running_mean", cfg.runMean}, {"running_var", cfg.runVar}} {
		if s.t == nil {
			if !optional || cfg.runMean != nil || cfg.runVar != nil {
				return cr.Errorf(cr.ErrInvalidArgument, "%s: %s is missing; evaluation needs both running statistics, training both or neither", name, s.what)
			}
			continue
		}
		if s.t.DType() != tensor.Float64 || !equalInts(s.t.Shape(), v.wshape) {
			return cr.Errorf(cr.ErrShapeMismatch, "%s: %s is %s; want float64 %v for input %s", name, s.what, s.t.Describe(), v.wshape, x.Describe())
		}
	}
	return nil
}

// statsNormOp is a normalisation with the input's statistics which, given
// running statistics, has two more outputs, the updated ones
//
//	running' = (1 - momentum) running + momentum update(st, c),
//
// update giving channel c's batch mean and unbiased variance. A NaN or infinite
// statistic is then an error wrapping chainrules.ErrNonFinite.
func statsNormOp(name string, cfg normConfig, view, check func(x []*tensor.Dense) (normView, error),
	update func(st normStatistics, c int) (mean, unbiased float64)) fastNormOp {
	primal := func(x []*tensor.Dense) ([]*tensor.Dense, normStatistics, error) {
		v, err := check(x)
		if err != nil {
			return nil, normStatistics{}, err
		}
		y, st, err := normForward(x, v, cfg, true)
		if err != nil {
			return nil, normStatistics{}, err
		}
		if cfg.runMean == nil {
			return []*tensor.Dense{y}, st, nil
		}
		rm, rv := cfg.runMean.Contiguous().Float64s(), cfg.runVar.Contiguous().Float64s()
		nm, nv := make([]float64, len(rm)), make([]float64, len(rm))
		mom := cfg.momentum
		for c := range rm {
			mean, unbiased := update(st, c)
			nm[c] = (1-mom)*rm[c] + mom*mean
			nv[c] = (1-mom)*rv[c] + mom*unbiased
		}
		// The updated statistics in the precision of the input, rounded once.
		stat := func(s []float64) *tensor.Dense {
			if x[0].DType() == tensor.Float32 {
				f := make([]float32, len(s))
				for i, e := range s {
					f[i] = float32(e)
				}
				t, _ := tensor.FromFloat32(f, len(f))
				return t
			}
			t, _ := tensor.FromFloat64(s, len(s))
			return t
		}
		return []*tensor.Dense{y, stat(nm), stat(nv)}, st, nil
	}
	d := core.Def[*tensor.Dense]{Name: name, Space: tensor.Space{}, Arity: cfg.arity(),
		Pullback: func(t *core.Tape[*tensor.Dense], x, _, ybar []cr.NodeID) []cr.NodeID {
			xv, _ := t.Value(x[0])
			v, _ := view([]*tensor.Dense{xv})
			return recordNormPullback(t, v, x, ybar[0])
		}}
	if cfg.runMean != nil {
		d.Outputs, d.NonDifferentiableOutputs = 3, []int{1, 2}
	}
	return newFastNormOp(d, primal)
}

// batchNormEval is batch_norm with the running statistics: an affine map of x
// with scale rstd[c] = 1/sqrt(runningVar[c] + eps) and shift -runningMean[c] rstd[c].
func batchNormEval(name string, cfg normConfig, check, view func(x []*tensor.Dense) (normView, error)) cr.Op[*tensor.Dense] {
	rm := cfg.runMean
	rstd := func() []float64 {
		rv := cfg.runVar.Contiguous().Float64s()
		r := make([]float64, len(rv))
		for c, s := range rv {
			r[c] = 1 / math.Sqrt(s+cfg.eps)
		}
		return r
	}
	return withSingle(core.Define(core.Def[*tensor.Dense]{Name: name, Space: tensor.Space{}, Arity: cfg.arity(),
		Primal: func(x []*tensor.Dense) ([]*tensor.Dense, error) {
			v, err := check(x)
			if err != nil {
				return nil, err
			}
			// The kernel sees one group per channel of a [N, C, S] view, which is
			// the view batch_norm's channelView gives.
			w, b := affineInputs(x, cfg)
			y := tensor.New(tensor.Float64, v.xshape...)
			normApply(y.Float64s(), x[0].Contiguous().Float64s(), rm.Contiguous().Float64s(), rstd(), w, b, v)
			return []*tensor.Dense{y}, nil
		},
		Pullback: func(t *core.Tape[*tensor.Dense], x, _, ybar []cr.NodeID) []cr.NodeID {
			xv, _ := t.Value(x[0])
			v, _ := view([]*tensor.Dense{xv})
			ap := func(op cr.Op[*tensor.Dense], in ...cr.NodeID) cr.NodeID { return t.Apply(op, in...) }
			r, _ := tensor.FromFloat64(rstd(), v.wbcast...)
			mb, _ := rm.Contiguous().Reshape(v.wbcast...)
			scale := t.Constant(r)
			g := ybar[0]
			if cfg.weight {
				g = ap(elementwise.MulOp, g, ap(permute.ReshapeOp(v.wbcast...), x[1]))
			}
			out := []cr.NodeID{ap(elementwise.MulOp, g, scale)}
			sumTo := func(n cr.NodeID) cr.NodeID {
				return ap(permute.ReshapeOp(v.wshape...), ap(reduce.SumOp(v.sumAxes, false), n))
			}
			if cfg.weight {
				xhat := ap(elementwise.MulOp, ap(elementwise.SubOp, x[0], t.Constant(mb)), scale)
				out = append(out, sumTo(ap(elementwise.MulOp, ybar[0], xhat)))
			}
			if cfg.bias {
				out = append(out, sumTo(ybar[0]))
			}
			return out
		}}))
}

// BatchNorm evaluates F.batch_norm(x, runningMean, runningVar, weight, bias,
// training, momentum, eps) without a tape: weight, bias and (in training) the
// running statistics may be nil. It returns y and, when running statistics
// were given in training, the updated ones (nil otherwise).
func BatchNorm(x, runningMean, runningVar, weight, bias *tensor.Dense, training bool, momentum, eps float64) (y, newMean, newVar *tensor.Dense, err error) {
	in, aff := affineArgs(x, weight, bias)
	opts := []NormOption{aff, Training(training), Momentum(momentum), NormEps(eps)}
	if runningMean != nil || runningVar != nil {
		opts = append(opts, RunningStats(runningMean, runningVar))
	}
	ys, err := cr.EvalMulti(BatchNormOp(opts...), in...)
	if err != nil {
		return nil, nil, nil, err
	}
	if len(ys) == 3 {
		return ys[0], ys[1], ys[2], nil
	}
	return ys[0], nil, nil, nil
}
