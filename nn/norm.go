package nn

import (
	"math"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/internal/vmath"
	"github.com/chainrules-go/chainrules/permute"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// NormOption configures the normalisation ops (BatchNormOp, LayerNormOp,
// GroupNormOp, InstanceNormOp).
type NormOption func(*normConfig)

type normConfig struct {
	weight, bias    bool
	eps             float64
	training        bool
	momentum        float64
	runMean, runVar *tensor.Dense
	noInputStats    bool
}

// Affine makes the op take a weight (gamma) and/or a bias (beta) as inputs after
// x, in that order, as PyTorch's weight= and bias= arguments: the output becomes
// y = xhat * weight + bias.
func Affine(weight, bias bool) NormOption {
	return func(c *normConfig) { c.weight, c.bias = weight, bias }
}

// NormEps sets the eps added to the variance, 1e-5 by default.
func NormEps(eps float64) NormOption { return func(c *normConfig) { c.eps = eps } }

// Training sets batch_norm's training flag (false by default, as F.batch_norm).
func Training(on bool) NormOption { return func(c *normConfig) { c.training = on } }

// Momentum sets batch_norm's momentum for the running statistics, 0.1 by default.
func Momentum(m float64) NormOption { return func(c *normConfig) { c.momentum = m } }

// RunningStats gives batch_norm the running mean and variance, each of shape [C]
// (float32 ones are widened exactly, see widened). They are parameters of the op,
// never modified: in training the op returns the updated statistics as two more
// outputs, in the precision of the input.
func RunningStats(mean, variance *tensor.Dense) NormOption {
	return func(c *normConfig) { c.runMean, c.runVar = widened(mean), widened(variance) }
}

func newNormConfig(opts []NormOption) normConfig {
	c := normConfig{eps: 1e-5, momentum: 0.1}
	for _, o := range opts {
		o(&c)
	}
	return c
}

func (c normConfig) arity() int {
	n := 1
	if c.weight {
		n++
	}
	if c.bias {
		n++
	}
	return n
}

// normView describes a normalisation of x: x seen as [A, M, B] (row-major) has
// one mean and variance per m, taken over a and b; the weight and bias (of shape
// wshape) multiply element i of x by w[(i / wInner) % wLen], which is w reshaped
// to wbcast broadcast against x; their cotangents sum over the axes sumAxes of x.
type normView struct {
	a, m, b      int
	wInner, wLen int
	wshape       []int
	wbcast       []int
	sumAxes      []int
	xshape       []int
	weight, bias bool
	eps          float64
	name         string
	layer        bool // layer_norm's view: a 1, wInner 1, the parameters along the row
}

func (v normView) view() []int { return []int{v.a, v.m, v.b} }

// channelView is the view of the ops with per-channel affine parameters on
// x [N, C, *]: stats over [A, M, B] as given.
func channelView(name string, x *tensor.Dense, a, m, b int, cfg normConfig) normView {
	s := x.Shape()
	sp := 1
	for _, d := range s[2:] {
		sp *= d
	}
	wb := make([]int, len(s))
	for i := range wb {
		wb[i] = 1
	}
	wb[1] = s[1]
	sum := []int{0}
	for i := 2; i < len(s); i++ {
		sum = append(sum, i)
	}
	return normView{a: a, m: m, b: b, wInner: sp, wLen: s[1], wshape: []int{s[1]}, wbcast: wb, sumAxes: sum,
		xshape: s, weight: cfg.weight, bias: cfg.bias, eps: cfg.eps, name: name}
}

// checkAffine checks the weight and bias inputs against the view.
func checkAffine(v normView, x []*tensor.Dense) error {
	for k := 1; k < len(x); k++ {
		what := "weight"
		if k == 2 || !v.weight {
			what = "bias"
		}
		if !equalInts(x[k].Shape(), v.wshape) {
			return cr.Errorf(cr.ErrShapeMismatch, "%s: %s is %s; want %v for input %v", v.name, what, x[k].Describe(), v.wshape, v.xshape)
		}
	}
	return nil
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// normStats returns the mean and biased variance of x viewed as [A, M, B], per m,
// in two passes over each row (the second over the centred values, from cache,
// which keeps the variance accurate when the mean is large), with vmath's
// vectorised sums.
func normStats(x []float64, v normView) (mean, variance []float64) {
	mean, variance = make([]float64, v.m), make([]float64, v.m)
	n := float64(v.a * v.b)
	for a := 0; a < v.a; a++ {
		for m := 0; m < v.m; m++ {
			mean[m] += vmath.Sum(x[(a*v.m+m)*v.b : (a*v.m+m+1)*v.b])
		}
	}
	for m := range mean {
		mean[m] /= n
	}
	d := make([]float64, v.b)
	for a := 0; a < v.a; a++ {
		for m := 0; m < v.m; m++ {
			mu := mean[m]
			for j, e := range x[(a*v.m+m)*v.b : (a*v.m+m+1)*v.b] {
				d[j] = e - mu
			}
			variance[m] += vmath.Dot(d, d)
		}
	}
	for m := range variance {
		variance[m] /= n
	}
	return mean, variance
}

// normApply writes y = (x - mean[m]) * rstd[m] * w + b over the view, with w and
// b optional (nil).
func normApply(y, x, mean, rstd, w, b []float64, v normView) {
	v.runs(func(off, n, m, c int) {
		mu, r := mean[m], rstd[m]
		xr, yr := x[off:off+n], y[off:off+n]
		if c < 0 && (w != nil || b != nil) {
			switch {
			case w != nil && b != nil:
				for j, e := range xr {
					yr[j] = (e-mu)*r*w[j] + b[j]
				}
			case w != nil:
				for j, e := range xr {
					yr[j] = (e - mu) * r * w[j]
				}
			default:
				for j, e := range xr {
					yr[j] = (e-mu)*r + b[j]
				}
			}
			return
		}
		// (x - mu) r w + b = s x + t on the run.
		s, t := r, -mu*r
		if w != nil && c >= 0 {
			s, t = s*w[c], t*w[c]
		}
		if b != nil && c >= 0 {
			t += b[c]
		}
		for j, e := range xr {
			yr[j] = s*e + t
		}
	})
}

// affineInputs returns the weight and bias data of x[1:] (nil when absent).
func affineInputs(x []*tensor.Dense, cfg normConfig) (w, b []float64) {
	k := 1
	if cfg.weight {
		w = x[k].Contiguous().Float64s()
		k++
	}
	if cfg.bias {
		b = x[k].Contiguous().Float64s()
	}
	return w, b
}

// normStatistics are the statistics a normalisation computed, per group of
// its view: kept by the rule for the fused pullback.
type normStatistics struct {
	v                    normView
	mean, variance, rstd []float64
}

// normForward normalises x with its own statistics over the view. It returns y
// and the statistics; with strict (batch_norm in training, whose statistics
// feed the running ones) a NaN or infinite statistic is an error wrapping
// chainrules.ErrNonFinite, otherwise it propagates to y as in PyTorch.
func normForward(x []*tensor.Dense, v normView, cfg normConfig, strict bool) (*tensor.Dense, normStatistics, error) {
	if v.layer && !strict {
		if x[0].DType() == tensor.Float32 {
			return layerNormForward[float32](x, v, cfg)
		}
		return layerNormForward[float64](x, v, cfg)
	}
	if x[0].DType() == tensor.Float32 {
		return channelForward32(x, v, cfg, strict)
	}
	xd := x[0].Contiguous().Float64s()
	mean, variance := normStats(xd, v)
	rstd := make([]float64, len(variance))
	for m, s := range variance {
		if strict && (math.IsNaN(s) || math.IsInf(s, 0) || math.IsNaN(mean[m]) || math.IsInf(mean[m], 0)) {
			return nil, normStatistics{}, cr.Errorf(cr.ErrNonFinite, "%s: the statistics of group %d of input %s are mean %v, variance %v",
				v.name, m, x[0].Describe(), mean[m], s)
		}
		rstd[m] = 1 / math.Sqrt(s+v.eps)
	}
	w, b := affineInputs(x, cfg)
	yd := vmath.MakeNoZero[float64](len(xd)) // normApply writes every element
	normApply(yd, xd, mean, rstd, w, b, v)
	y, err := tensor.FromFloat64(yd, v.xshape...)
	if err != nil {
		return nil, normStatistics{}, err
	}
	return y, normStatistics{v: v, mean: mean, variance: variance, rstd: rstd}, nil
}

// recordNormPullback records the cotangents of x, weight and bias of the
// normalisation over the view, with ops:
//
//	xhat = (x - mean) rstd,  g = ybar * w,
//	xbar = rstd (g - mean(g) - xhat mean(g xhat)),
//	wbar = sum(ybar xhat),   bbar = sum(ybar),
//
// the means over a and b of the view and the sums over every axis but the
// channel's.
func recordNormPullback(t *core.Tape[*tensor.Dense], v normView, x []cr.NodeID, ybar cr.NodeID) []cr.NodeID {
	ap := func(op cr.Op[*tensor.Dense], in ...cr.NodeID) cr.NodeID { return t.Apply(op, in...) }
	axes := []int{0, 2}
	xv := ap(permute.ReshapeOp(v.view()...), x[0])
	xc := ap(elementwise.SubOp, xv, ap(reduce.MeanOp(axes, true), xv))
	rstd := ap(elementwise.RsqrtOp, ap(elementwise.ShiftOp(v.eps), ap(reduce.MeanOp(axes, true), ap(elementwise.MulOp, xc, xc))))
	xhat := ap(elementwise.MulOp, xc, rstd)
	g := ybar
	if v.weight {
		g = ap(elementwise.MulOp, ybar, ap(permute.ReshapeOp(v.wbcast...), x[1]))
	}
	gv := ap(permute.ReshapeOp(v.view()...), g)
	mg := ap(reduce.MeanOp(axes, true), gv)
	mgx := ap(reduce.MeanOp(axes, true), ap(elementwise.MulOp, gv, xhat))
	xbar := ap(elementwise.MulOp, rstd, ap(elementwise.SubOp, ap(elementwise.SubOp, gv, mg), ap(elementwise.MulOp, xhat, mgx)))
	out := []cr.NodeID{ap(permute.ReshapeOp(v.xshape...), xbar)}
	sumTo := func(n cr.NodeID) cr.NodeID {
		if len(v.sumAxes) > 0 {
			n = ap(reduce.SumOp(v.sumAxes, false), n)
		}
		return ap(permute.ReshapeOp(v.wshape...), n)
	}
	if v.weight {
		out = append(out, sumTo(ap(elementwise.MulOp, ybar, ap(permute.ReshapeOp(v.xshape...), xhat))))
	}
	if v.bias {
		out = append(out, sumTo(ybar))
	}
	return out
}

// normOp defines a normalisation by its view of x: fused kernels compute the
// primal and the first-order pullback, and the pullback recorded with ops
// (core.Define) gives the forward tangent, the second-order rule and every
// higher order.
func normOp(name string, cfg normConfig, view func(x []*tensor.Dense) (normView, error)) fastNormOp {
	primal := func(x []*tensor.Dense) ([]*tensor.Dense, normStatistics, error) {
		v, err := normCheck(name, x, cfg, view)
		if err != nil {
			return nil, normStatistics{}, err
		}
		y, st, err := normForward(x, v, cfg, false)
		if err != nil {
			return nil, normStatistics{}, err
		}
		return []*tensor.Dense{y}, st, nil
	}
	return newFastNormOp(core.Def[*tensor.Dense]{Name: name, Space: tensor.Space{}, Arity: cfg.arity(),
		Pullback: func(t *core.Tape[*tensor.Dense], x, _, ybar []cr.NodeID) []cr.NodeID {
			xv, _ := t.Value(x[0])
			v, _ := view([]*tensor.Dense{xv})
			return recordNormPullback(t, v, x, ybar[0])
		}}, primal)
}

// normCheck checks the inputs of a normalisation and returns its view.
func normCheck(name string, x []*tensor.Dense, cfg normConfig, view func(x []*tensor.Dense) (normView, error)) (normView, error) {
	if err := checkInputs(name, x, cfg.arity()); err != nil {
		return normView{}, err
	}
	if err := checkReal(name, x...); err != nil {
		return normView{}, err
	}
	if !(cfg.eps >= 0) {
		return normView{}, cr.Errorf(cr.ErrInvalidArgument, "%s: eps is %v; want eps >= 0", name, cfg.eps)
	}
	v, err := view(x)
	if err != nil {
		return normView{}, err
	}
	return v, checkAffine(v, x)
}

// LayerNormOp returns PyTorch's F.layer_norm over the trailing axes
// normalizedShape of x [..., *normalizedShape]:
//
//	y = (x - mean) / sqrt(var + eps) * weight + bias,
//
// mean and (biased) var taken over the normalised axes, one pair per leading
// index; weight and bias (inputs after x when Affine asks for them) have shape
// normalizedShape. With xhat = (x - mean) rstd, rstd = 1/sqrt(var + eps),
// g = ybar * weight and means over the normalised axes:
//
//	xbar = rstd (g - mean(g) - xhat mean(g xhat)),  weightbar = sum ybar xhat,
//	biasbar = sum ybar  (sums over the leading axes).
//
// The primal and the pullback are fused kernels that visit each row once, while
// it stays in the cache (the mean, the variance in a second pass over the
// centred values, and y; the two sums of the pullback, and xbar), the rows split
// over goroutines with results that do not depend on GOMAXPROCS; the pullback is
// also recorded with ops (core.Define), which gives the forward tangent, the
// second-order rule and every higher order. float32 inputs (all of them) run
// natively, in single precision with float64 accumulators for the statistics
// and the sums, as in PyTorch; their forward, second-order and recorded rules
// are the widened op's, rounded to single precision. A NaN in x propagates to
// y, as in PyTorch. Options:
// Affine, NormEps (Training, Momentum and UseInputStats are batch_norm's and
// instance_norm's and change nothing here; RunningStats is an error wrapping
// chainrules.ErrInvalidArgument). A normalizedShape that is not the
// trailing shape of x, or a weight or bias of another shape, is an error
// wrapping chainrules.ErrShapeMismatch.
func LayerNormOp(normalizedShape []int, opts ...NormOption) cr.Op[*tensor.Dense] {
	const name = "layer_norm"
	cfg := newNormConfig(opts)
	ns := append([]int(nil), normalizedShape...)
	op := normOp(name, cfg, func(x []*tensor.Dense) (normView, error) {
		if err := noRunningStats(name, cfg); err != nil {
			return normView{}, err
		}
		s := x[0].Shape()
		k := len(ns)
		if k == 0 || k > len(s) || !equalInts(s[len(s)-k:], ns) {
			return normView{}, cr.Errorf(cr.ErrShapeMismatch, "%s: normalized_shape %v is not the trailing shape of input %s", name, ns, x[0].Describe())
		}
		inner := 1
		for _, d := range ns {
			inner *= d
		}
		outer := 1
		for _, d := range s[:len(s)-k] {
			outer *= d
		}
		wb := make([]int, len(s))
		for i := range wb {
			wb[i] = 1
		}
		copy(wb[len(s)-k:], ns)
		sum := make([]int, len(s)-k)
		for i := range sum {
			sum[i] = i
		}
		return normView{a: 1, m: outer, b: inner, wInner: 1, wLen: inner, wshape: ns, wbcast: wb, sumAxes: sum,
			xshape: s, weight: cfg.weight, bias: cfg.bias, eps: cfg.eps, name: name, layer: true}, nil
	})
	op.single = true
	return op
}

// LayerNorm evaluates LayerNormOp without a tape: weight and bias may be nil.
func LayerNorm(x *tensor.Dense, normalizedShape []int, weight, bias *tensor.Dense, eps float64) (*tensor.Dense, error) {
	in, opt := affineArgs(x, weight, bias)
	return cr.Eval(LayerNormOp(normalizedShape, opt, NormEps(eps)), in...)
}

func affineArgs(x, weight, bias *tensor.Dense) ([]*tensor.Dense, NormOption) {
	in := []*tensor.Dense{x}
	if weight != nil {
		in = append(in, weight)
	}
	if bias != nil {
		in = append(in, bias)
	}
	return in, Affine(weight != nil, bias != nil)
}

// noRunningStats returns an error if running statistics were given to an op
// that keeps none.
func noRunningStats(name string, cfg normConfig) error {
	if cfg.runMean != nil || cfg.runVar != nil {
		return cr.Errorf(cr.ErrInvalidArgument, "%s: running statistics given; the op keeps none", name)
	}
	return nil
}

// channels checks that x is [N, C, *] and returns N, C and the product of *.
func channels(name string, x *tensor.Dense) (n, c, sp int, err error) {
	s := x.Shape()
	if len(s) < 2 {
		return 0, 0, 0, cr.Errorf(cr.ErrInvalidArgument, "%s: input is %s; want [N, C, *]", name, x.Describe())
	}
	sp = 1
	for _, d := range s[2:] {
		sp *= d
	}
	return s[0], s[1], sp, nil
}

// GroupNormOp returns PyTorch's F.group_norm of x [N, C, *] with numGroups
// groups of C/numGroups channels: each sample's group is normalised with its own
// mean and (biased) variance over its channels and spatial positions,
//
//	y = (x - mean_g) / sqrt(var_g + eps) * weight[c] + bias[c],
//
// weight and bias of shape [C] (inputs after x when Affine asks for them). The
// rules are layer_norm's over the group (see LayerNormOp), the parameters'
// cotangents summed over N and the spatial axes. numGroups that does not divide
// C is an error wrapping chainrules.ErrInvalidArgument.
func GroupNormOp(numGroups int, opts ...NormOption) cr.Op[*tensor.Dense] {
	const name = "group_norm"
	cfg := newNormConfig(opts)
	op := normOp(name, cfg, func(x []*tensor.Dense) (normView, error) {
		if err := noRunningStats(name, cfg); err != nil {
			return normView{}, err
		}
		n, c, sp, err := channels(name, x[0])
		if err != nil {
			return normView{}, err
		}
		if numGroups <= 0 || c%numGroups != 0 {
			return normView{}, cr.Errorf(cr.ErrInvalidArgument, "%s: %d groups do not divide the %d channels of input %s", name, numGroups, c, x[0].Describe())
		}
		return channelView(name, x[0], 1, n*numGroups, c/numGroups*sp, cfg), nil
	})
	op.single = true // float32 input natively (channelForward32, channelPullback32)
	return op
}

// InstanceNormOp returns PyTorch's F.instance_norm of x [N, C, *]. With the
// input's statistics (use_input_stats=True, the default) each sample's channel
// is normalised with the mean and (biased) variance over its spatial positions,
//
//	y = (x - mean_nc) / sqrt(var_nc + eps) * weight[c] + bias[c],
//
// weight and bias of shape [C] (inputs after x when Affine asks for them); the
// rules are layer_norm's over the spatial positions (see LayerNormOp). Given
// RunningStats(runningMean, runningVar) of shape [C], the op then has three
// outputs, like batch_norm in training: y and the updated statistics (no
// derivatives), PyTorch's
//
//	runningMean' = (1 - momentum) runningMean + momentum mean_n(mean_nc)
//	runningVar'  = (1 - momentum) runningVar  + momentum mean_n(var_nc S/(S - 1))
//
// (S the spatial size), and a NaN or infinite statistic is an error wrapping
// chainrules.ErrNonFinite. With UseInputStats(false) the op normalises with the
// running statistics, which it then requires, as batch_norm in evaluation (see
// BatchNormOp). An input with one spatial position or none is an error wrapping
// chainrules.ErrInvalidArgument (PyTorch's "expected more than 1 spatial
// element"), and so is a running statistic given alone; a running statistic,
// weight or bias not of shape [C] wraps ErrShapeMismatch.
func InstanceNormOp(opts ...NormOption) cr.Op[*tensor.Dense] {
	const name = "instance_norm"
	cfg := newNormConfig(opts).cloneStats()
	if cfg.noInputStats {
		view := func(x []*tensor.Dense) (normView, error) {
			n, c, sp, err := channels(name, x[0])
			if err != nil {
				return normView{}, err
			}
			return channelView(name, x[0], n, c, sp, cfg), nil
		}
		check := func(x []*tensor.Dense) (normView, error) {
			v, err := normCheck(name, x, cfg, view)
			if err != nil {
				return v, err
			}
			return v, checkRunning(name, cfg, v, x[0], false)
		}
		return batchNormEval(name, cfg, check, view)
	}
	view := func(x []*tensor.Dense) (normView, error) {
		n, c, sp, err := channels(name, x[0])
		if err != nil {
			return normView{}, err
		}
		if sp <= 1 {
			return normView{}, cr.Errorf(cr.ErrInvalidArgument, "%s: input %s has %d spatial elements; want more than 1", name, x[0].Describe(), sp)
		}
		return channelView(name, x[0], 1, n*c, sp, cfg), nil
	}
	if cfg.runMean == nil && cfg.runVar == nil {
		op := normOp(name, cfg, view)
		op.single = true // float32 input natively (channelForward32, channelPullback32)
		return op
	}
	check := func(x []*tensor.Dense) (normView, error) {
		v, err := normCheck(name, x, cfg, view)
		if err != nil {
			return v, err
		}
		return v, checkRunning(name, cfg, v, x[0], true)
	}
	// Channel c's statistics: the means over the samples of those of its
	// instances, the variance unbiased within each instance.
	update := func(st normStatistics, c int) (mean, unbiased float64) {
		nc, s := st.v.m, float64(st.v.b)
		cs := st.v.wLen
		n := nc / cs
		for i := c; i < nc; i += cs {
			mean += st.mean[i]
			unbiased += st.variance[i] * s / (s - 1)
		}
		return mean / float64(n), unbiased / float64(n)
	}
	op := statsNormOp(name, cfg, view, check, update)
	op.single = true
	return op
}

// UseInputStats sets instance_norm's use_input_stats (true by default): false
// normalises with the running statistics (RunningStats).
func UseInputStats(on bool) NormOption { return func(c *normConfig) { c.noInputStats = !on } }
