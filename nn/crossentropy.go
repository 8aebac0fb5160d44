package nn

import (
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/permute"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// The class losses cross_entropy (from logits, with class labels or with target
// probabilities) and nll_loss (from log-probabilities, with class labels) share one
// hand-written rule: they are the hot path of classifiers, and one fused pass beats
// recording log_softmax, a gather and a reduction.
//
// Layout, as in PyTorch: the input is [C] (one sample), [N, C], or [N, C, d_1, ...,
// d_k] with the classes on axis 1. A row r is one sample (n, d_1, ..., d_k) in
// row-major order; its C entries are x_rc. Every loss has the form
//
//	l_r = Q_r lse_r - sum_c q_rc x_rc      (cross_entropy: lse_r = log sum_c exp(x_rc))
//	l_r =           - sum_c q_rc x_rc      (nll_loss: x holds log-probabilities)
//
// with target weights q_rc and Q_r = sum_c q_rc: for a label y_r, class weights w
// (all 1 by default) and label smoothing eps,
//
//	q_rc = (1 - eps) w_{y_r} [c = y_r] + (eps / C) w_c      (0 for an ignored row),
//
// and for target probabilities t, q_rc = w_c ((1 - eps) t_rc + eps / C).
// ReductionNone returns l (shaped like the input without its class axis),
// ReductionSum sum_r l_r, ReductionMean sum_r l_r / D with D = sum_r w_{y_r} over the
// rows not ignored (labels) or D = the number of rows (probabilities), as PyTorch
// does. With s_r the cotangent of l_r (ybar, ybar / D or ybar_r) and
// p_r = softmax(x_r), the rules are
//
//	xbar_rc    = s_r (Q_r p_rc - q_rc)                 (nll_loss: -s_r q_rc)
//	tbar_rc    = -s_r (1 - eps) w_c log p_rc            (probabilities)
//	ldot_r     = sum_c (Q_r p_rc - q_rc) xdot_rc - (1 - eps) sum_c w_c log p_rc tdot_rc
//	xbardot_rc = sdot_r (Q_r p_rc - q_rc) + s_r (Q_r p_rc (xdot_rc - <p_r, xdot_r>) + Qdot_r p_rc - qdot_rc)
//	tbardot_rc = -sdot_r (1 - eps) w_c log p_rc - s_r (1 - eps) w_c (xdot_rc - <p_r, xdot_r>)
//
// where qdot_rc = (1 - eps) w_c tdot_rc and Qdot_r = sum_c qdot_rc. The rule also
// records its pullback with ops (ceRule.RecordPullback), for derivatives of higher
// order through core.Tape.GradGraph.

// CrossEntropyOp returns PyTorch's cross_entropy of logits x with integer class
// labels (one per row, in row-major order: one label for a [C] input, N for [N, C],
// N d_1 ... d_k for [N, C, d_1, ..., d_k]), float64:
//
//	l_r = -log softmax(x_r)_{y_r} = lse_r - x_{r, y_r},
//
// with LabelSmoothing(eps) the smoothed target (1 - eps) e_{y_r} + eps/C, with
// ClassWeights(w) each class's term weighted, and IgnoreIndex(i) to skip rows
// labelled i; reduced by WithReduction (mean by default). The labels are
// parameters of the op, not inputs, and receive no gradient. The rules are above:
// xbar = s (softmax(x) - onehot(y)) without smoothing or weights. A label outside
// [0, C) (and not ignored), a count of labels that does not match, a class weight
// count other than C, or complex input is an error wrapping
// chainrules.ErrInvalidArgument or ErrShapeMismatch. float32 logits [C] or [N, C]
// without class weights or smoothing run natively in single precision (the
// log-sum-exps and the reductions in float64); the forward, second-order and
// recorded rules are then the widened op's, rounded to single precision.
func CrossEntropyOp(labels []int, opts ...LossOption) cr.Op[*tensor.Dense] {
	return &ceOp{name: "cross_entropy", logits: true, labels: slices.Clone(labels), cfg: newLossConfig(opts),
		allowed: optReduction | optSmoothing | optClassWeights | optIgnore}
}

// CrossEntropyProbsOp returns PyTorch's cross_entropy of logits x with target
// probabilities t of x's shape (arity 2; both differentiable), float64:
//
//	l_r = -sum_c w_c t'_rc log softmax(x_r)_c,   t' = (1 - eps) t + eps / C,
//
// with w the ClassWeights (all 1 by default) and eps the LabelSmoothing (0 by
// default), reduced by WithReduction; the mean divides by the number of rows, as in
// PyTorch. The targets need not sum to one. The rules are above.
func CrossEntropyProbsOp(opts ...LossOption) cr.Op[*tensor.Dense] {
	return &ceOp{name: "cross_entropy_probs", logits: true, probs: true, cfg: newLossConfig(opts),
		allowed: optReduction | optSmoothing | optClassWeights}
}

// NLLLossOp returns PyTorch's nll_loss of log-probabilities x with integer class
// labels (laid out as for CrossEntropyOp), float64:
//
//	l_r = -w_{y_r} x_{r, y_r},
//
// with class weights w (ClassWeights, all 1 by default) and IgnoreIndex, reduced by
// WithReduction (the mean divides by sum_r w_{y_r}). It is linear in x:
// xbar_{r, y_r} = -s_r w_{y_r}, zero elsewhere, and the second-order rule is the
// pullback of ybardot. Errors are those of CrossEntropyOp.
func NLLLossOp(labels []int, opts ...LossOption) cr.Op[*tensor.Dense] {
	return &ceOp{name: "nll_loss", labels: slices.Clone(labels), cfg: newLossConfig(opts),
		allowed: optReduction | optClassWeights | optIgnore}
}

// CrossEntropy evaluates CrossEntropyOp(labels, opts...) at x without a tape.
func CrossEntropy(x *tensor.Dense, labels []int, opts ...LossOption) (*tensor.Dense, error) {
	return cr.Eval(CrossEntropyOp(labels, opts...), x)
}

// NLLLoss evaluates NLLLossOp(labels, opts...) at x without a tape.
func NLLLoss(x *tensor.Dense, labels []int, opts ...LossOption) (*tensor.Dense, error) {
	return cr.Eval(NLLLossOp(labels, opts...), x)
}

type ceOp struct {
	name    string
	logits  bool // cross_entropy: x holds logits (else log-probabilities)
	probs   bool // target probabilities as input 1 (else labels)
	labels  []int
	cfg     *lossConfig
	allowed int
}

func (o *ceOp) Name() string { return o.name }

// NumOutputs returns 1.
func (o *ceOp) NumOutputs() int { return 1 }

func (o *ceOp) arity() int {
	if o.probs {
		return 2
	}
	return 1
}

// Apply computes the loss and returns its rule.
func (o *ceOp) Apply(in []cr.NodeID, x, out []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	return o.ApplyMasked(in, x, out, nil)
}

// ApplyMasked is Apply that leaves out the cotangents of the inputs whose need is
// false (the targets, typically, which are data).
func (o *ceOp) ApplyMasked(in []cr.NodeID, x, out []*tensor.Dense, need []bool) (cr.Rule[*tensor.Dense], error) {
	if opkit.HasSingle(x) {
		if r, ok, err := o.applyFloat32(in, x, out, need); ok {
			return r, err
		}
		return applySingle(o, in, x, out, need)
	}
	r, err := o.prepare(in, x, need)
	if err != nil {
		return nil, err
	}
	y := r.primal()
	out[0] = y
	return r, nil
}

// ceRule holds what the rules need: the inputs' data, the resolved targets and,
// for cross_entropy, the rule of the row log-sum-exps, whose vectorised softmax
// kernels give the terms in p.
type ceRule struct {
	op              *ceOp
	in              []cr.NodeID
	need            [2]bool
	x, t            []float64 // t: target probabilities, nil for labels
	outer, c, inner int
	lse             []float64              // per row, cross_entropy only
	lseRule         cr.Rule[*tensor.Dense] // of lse = logsumexp(x) over the class axis
	lseY            *tensor.Dense          // lse, the output of lseRule
	labels          []int                  // per row; -1 marks an ignored row
	bigQ            []float64              // Q_r per row
	w               []float64              // class weights (nil: all 1)
	wsum            float64                // sum_c w_c
	eps             float64
	red             Reduction
	rowShape        []int   // shape of l (ReductionNone)
	scale           float64 // 1 (sum) or 1/D (mean)
}

func (o *ceOp) prepare(in []cr.NodeID, x []*tensor.Dense, need []bool) (*ceRule, error) {
	name := o.name
	if err := opkit.CheckApply(name, in, x, o.arity()); err != nil {
		return nil, err
	}
	if err := o.cfg.check(name, o.allowed); err != nil {
		return nil, err
	}
	if err := checkReal(name, x...); err != nil {
		return nil, err
	}
	shape := x[0].Shape()
	r := &ceRule{op: o, in: slices.Clone(in), need: [2]bool{true, o.probs}, eps: o.cfg.smoothing, red: o.cfg.reduction}
	if need != nil {
		for k := range min(len(need), 2) {
			r.need[k] = r.need[k] && need[k]
		}
	}
	switch len(shape) {
	case 0:
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: input is a scalar; it is [C], [N, C] or [N, C, d...]", name)
	case 1:
		r.outer, r.c, r.inner, r.rowShape = 1, shape[0], 1, []int{}
	default:
		l := lanesOf(shape, 1)
		r.outer, r.c, r.inner = l.outer, l.n, l.inner
		r.rowShape = append([]int{shape[0]}, shape[2:]...)
	}
	rows := r.outer * r.inner
	r.x = float64s(x[0])
	if w := o.cfg.classWeights; w != nil {
		if len(w) != r.c {
			return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: %d class weights for %d classes", name, len(w), r.c)
		}
		r.w = w
		for _, v := range w {
			r.wsum += v
		}
	} else {
		r.wsum = float64(r.c)
	}
	r.bigQ = make([]float64, rows)
	var d float64 // the mean's denominator
	if o.probs {
		if !slices.Equal(x[1].Shape(), shape) {
			return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: logits are %s, target probabilities %s", name, x[0].Describe(), x[1].Describe())
		}
		r.t = float64s(x[1])
		d = float64(rows)
		for o := range r.outer {
			for k := range r.inner {
				for c := range r.c {
					r.bigQ[o*r.inner+k] += r.q(o, c, k)
				}
			}
		}
	} else {
		if len(o.labels) != rows {
			return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: %d labels for an input %s (%d rows)", name, len(o.labels), x[0].Describe(), rows)
		}
		r.labels = make([]int, rows)
		ignoring := o.cfg.set&optIgnore != 0
		for i, y := range o.labels {
			switch {
			case ignoring && y == o.cfg.ignore:
				r.labels[i] = -1
				continue
			case y < 0 || y >= r.c:
				return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: label %d of row %d is outside [0, %d)", name, y, i, r.c)
			}
			r.labels[i] = y
			d += r.weight(y)
			_, alpha, beta, _ := r.labelCoef(i)
			r.bigQ[i] = alpha + beta*r.wsum
		}
	}
	r.scale = 1
	if r.red == ReductionMean {
		r.scale = 1 / d // D = 0: Inf, and the loss is NaN (0/0) or Inf, as in PyTorch
	}
	if o.logits {
		axis := 1
		if len(shape) == 1 {
			axis = 0
		}
		lse := make([]*tensor.Dense, 1)
		rule, err := reduce.LogSumExpOp([]int{axis}, false).Apply(r.in[:1], x[:1], lse)
		if err != nil {
			return nil, err
		}
		r.lse, r.lseRule, r.lseY = float64s(lse[0]), rule, lse[0]
	}
	return r, nil
}

// weight returns w_c.
func (r *ceRule) weight(c int) float64 {
	if r.w == nil {
		return 1
	}
	return r.w[c]
}

// idx returns the index of x_rc for row r = (o, k).
func (r *ceRule) idx(o, c, k int) int { return (o*r.c+c)*r.inner + k }

// labelCoef returns the label y of a row and the coefficients of its target
// weights: alpha = (1 - eps) w_y at the label and beta = eps / C on every class
// (times w_c); ok is false for an ignored row.
func (r *ceRule) labelCoef(row int) (y int, alpha, beta float64, ok bool) {
	y = r.labels[row]
	if y < 0 {
		return 0, 0, 0, false
	}
	return y, (1 - r.eps) * r.weight(y), r.eps / float64(r.c), true
}

// q returns q_rc for probability targets.
func (r *ceRule) q(o, c, k int) float64 {
	return r.weight(c) * ((1-r.eps)*r.t[r.idx(o, c, k)] + r.eps/float64(r.c))
}

// qDot adds f_r sum_c q_rc v_rc to acc_r for every row (f nil: f_r = 1).
func (r *ceRule) qDot(acc, f, v []float64) {
	for o := range r.outer {
		for k := range r.inner {
			row := o*r.inner + k
			var s float64
			if r.t != nil {
				for c := range r.c {
					s += r.q(o, c, k) * v[r.idx(o, c, k)]
				}
			} else if y, alpha, beta, ok := r.labelCoef(row); ok {
				s = alpha * v[r.idx(o, y, k)]
				if beta != 0 {
					for c := range r.c {
						s += beta * r.weight(c) * v[r.idx(o, c, k)]
					}
				}
			}
			if f != nil {
				s *= f[row]
			}
			acc[row] += s
		}
	}
}

// subQ sets v_rc -= s_r q_rc for every row with s_r != 0 (ignored rows and rows
// whose factor is zero are left alone, so that an infinite mean factor times a zero
// weight makes no NaN).
func (r *ceRule) subQ(v, s []float64) {
	for o := range r.outer {
		for k := range r.inner {
			row := o*r.inner + k
			sr := s[row]
			if sr == 0 {
				continue
			}
			if r.t != nil {
				for c := range r.c {
					v[r.idx(o, c, k)] -= sr * r.q(o, c, k)
				}
				continue
			}
			y, alpha, beta, ok := r.labelCoef(row)
			if !ok {
				continue
			}
			if beta != 0 {
				for c := range r.c {
					v[r.idx(o, c, k)] -= sr * beta * r.weight(c)
				}
			}
			v[r.idx(o, y, k)] -= sr * alpha
		}
	}
}

func (r *ceRule) primal() *tensor.Dense {
	rows := r.outer * r.inner
	l := make([]float64, rows)
	r.qDot(l, nil, r.x)
	for i := range l {
		l[i] = -l[i]
		if r.lse != nil && r.bigQ[i] != 0 {
			l[i] += r.bigQ[i] * r.lse[i]
		}
	}
	if r.red == ReductionNone {
		y, _ := tensor.FromFloat64(l, r.rowShape...)
		return y
	}
	var s float64
	for _, v := range l {
		s += v
	}
	return tensor.Scalar(s * r.scale)
}

// Inputs returns the NodeIDs of the inputs.
func (r *ceRule) Inputs() []cr.NodeID { return r.in }

// FreshStorage marks the loss and every derivative the rule returns as storage
// of their own or views of its arguments (chainrules.FreshStorage): the row
// log-sum-exps and their rule are kept, never handed out, so that a released
// tape reuses the large cotangents.
func (*ceRule) FreshStorage() {}

// rowScale returns the per-row cotangent factors s_r from the output cotangent.
func (r *ceRule) rowScale(ybar *tensor.Dense) ([]float64, error) {
	rows := r.outer * r.inner
	if ybar == nil || ybar.DType() != tensor.Float64 {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: cotangent is %s, the output is float64", r.op.name, describe(ybar))
	}
	if r.red == ReductionNone {
		if !slices.Equal(ybar.Shape(), r.rowShape) {
			return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: cotangent is %s, the output is float64%v", r.op.name, ybar.Describe(), r.rowShape)
		}
		return float64s(ybar), nil
	}
	if ybar.Size() != 1 {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: cotangent is %s, the output is a scalar", r.op.name, ybar.Describe())
	}
	s := make([]float64, rows)
	v := float64s(ybar)[0] * r.scale
	for i := range s {
		s[i] = v
	}
	return s, nil
}

// rows returns a row-shaped tensor over v.
func (r *ceRule) rows(v []float64) *tensor.Dense {
	d, _ := tensor.FromFloat64(v, r.rowShape...)
	return d
}

// dense returns an input-shaped tensor over v.
func (r *ceRule) dense(v []float64) *tensor.Dense {
	if len(r.rowShape) == 0 {
		d, _ := tensor.FromFloat64(v, r.c)
		return d
	}
	shape := append([]int{r.rowShape[0], r.c}, r.rowShape[1:]...)
	d, _ := tensor.FromFloat64(v, shape...)
	return d
}

// timesQ returns s_r Q_r per row, 0 where Q_r is 0: the cotangent of the row
// log-sum-exps.
func (r *ceRule) timesQ(s []float64) []float64 {
	g := make([]float64, len(s))
	for i, q := range r.bigQ {
		if q != 0 {
			g[i] = s[i] * q
		}
	}
	return g
}

// xbar returns s_r (Q_r p_rc - q_rc) (nll_loss: -s_r q_rc): the pullback of the row
// log-sum-exps, whose result is fresh, minus the target term. The logsumexp
// pullback's tensor (input-shaped and contiguous) is returned itself, so that its
// pooled storage goes back to the pool when a released tape recycles it.
func (r *ceRule) xbar(s []float64) (*tensor.Dense, error) {
	if r.lseRule != nil {
		c, err := r.lseRule.Pullback([]*tensor.Dense{r.rows(r.timesQ(s))}, []bool{true}, nil)
		if err != nil {
			return nil, err
		}
		if xb := c[0].Value; xb.IsContiguous() && slices.Equal(xb.Shape(), r.inputShape()) {
			r.subQ(xb.Float64s(), s) // Float64s aliases contiguous storage
			return xb, nil
		}
		v := c[0].Value.Contiguous().Float64s()
		r.subQ(v, s)
		return r.dense(v), nil
	}
	v := make([]float64, len(r.x))
	r.subQ(v, s)
	return r.dense(v), nil
}

// tbar returns the cotangent of the target probabilities, s_r (1-eps) w_c (lse_r - x_rc).
func (r *ceRule) tbar(s []float64) []float64 {
	out := make([]float64, len(r.x))
	for o := range r.outer {
		for k := range r.inner {
			row := o*r.inner + k
			for c := range r.c {
				i := r.idx(o, c, k)
				out[i] = s[row] * (1 - r.eps) * r.weight(c) * (r.lse[row] - r.x[i])
			}
		}
	}
	return out
}

// Pullback appends xbar (and tbar for probability targets).
func (r *ceRule) Pullback(ybars []*tensor.Dense, _ []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	ybar := ybars[0]
	s, err := r.rowScale(ybar)
	if err != nil {
		return dst, err
	}
	if r.need[0] {
		xb, err := r.xbar(s)
		if err != nil {
			return dst, err
		}
		dst = append(dst, cr.Contribution[*tensor.Dense]{Node: r.in[0], Value: xb})
	}
	if r.need[1] {
		dst = append(dst, cr.Contribution[*tensor.Dense]{Node: r.in[1], Value: r.dense(r.tbar(s))})
	}
	return dst, nil
}

// tangents returns the input tangents as slices (nil when absent or not needed),
// checked, and the tangentOf that reports x's tangent only when it is needed.
func (r *ceRule) tangents(tangentOf cr.TangentOf[*tensor.Dense]) (xdot, tdot []float64, err error) {
	for k := range r.in {
		if !r.need[k] {
			continue
		}
		v, ok := tangentOf(r.in[k])
		if !ok {
			continue
		}
		if v == nil || v.DType() != tensor.Float64 || v.Size() != len(r.x) {
			return nil, nil, cr.Errorf(cr.ErrShapeMismatch, "%s: tangent of input %d is %s", r.op.name, k, describe(v))
		}
		if k == 0 {
			xdot = float64s(v)
		} else {
			tdot = float64s(v)
		}
	}
	return xdot, tdot, nil
}

// pxdot returns <p_r, xdot_r> per row: the tangent of the row log-sum-exps.
func (r *ceRule) pxdot(tangentOf cr.TangentOf[*tensor.Dense]) ([]float64, error) {
	v, ok := make([]*tensor.Dense, 1), make([]bool, 1)
	err := r.lseRule.(cr.ForwardRule[*tensor.Dense]).Forward(tangentOf, v, ok)
	if err != nil || !ok[0] {
		return make([]float64, r.outer*r.inner), err
	}
	return float64s(v[0]), nil
}

// Forward sets ldot = Q <p, xdot> - <q, xdot> + <dl/dt, tdot>, reduced
// like the loss.
func (r *ceRule) Forward(tangentOf cr.TangentOf[*tensor.Dense], ydot []*tensor.Dense, has []bool) error {
	xdot, tdot, err := r.tangents(tangentOf)
	if err != nil || (xdot == nil && tdot == nil) {
		return err
	}
	rows := r.outer * r.inner
	ld := make([]float64, rows)
	if xdot != nil {
		if r.lseRule != nil {
			pxd, err := r.pxdot(tangentOf)
			if err != nil {
				return err
			}
			for i, q := range r.bigQ {
				if q != 0 {
					ld[i] = q * pxd[i]
				}
			}
		}
		minus := make([]float64, rows)
		r.qDot(minus, nil, xdot)
		for i := range ld {
			ld[i] -= minus[i]
		}
	}
	if tdot != nil {
		ones := make([]float64, rows)
		for i := range ones {
			ones[i] = 1
		}
		tb := r.tbar(ones)
		for o := range r.outer {
			for c := range r.c {
				base := r.idx(o, c, 0)
				acc := ld[o*r.inner:][:r.inner]
				for k := range acc {
					acc[k] += tb[base+k] * tdot[base+k]
				}
			}
		}
	}
	if r.red == ReductionNone {
		ydot[0], has[0] = r.rows(ld), true
		return nil
	}
	var s float64
	for _, v := range ld {
		s += v
	}
	ydot[0], has[0] = tensor.Scalar(s*r.scale), true
	return nil
}

// qdot returns Qdot_r = (1 - eps) sum_c w_c tdot_rc per row.
func (r *ceRule) qdot(tdot []float64) []float64 {
	out := make([]float64, r.outer*r.inner)
	for o := range r.outer {
		for c := range r.c {
			wc := (1 - r.eps) * r.weight(c)
			base := r.idx(o, c, 0)
			acc := out[o*r.inner:][:r.inner]
			for k := range acc {
				acc[k] += wc * tdot[base+k]
			}
		}
	}
	return out
}

// PullbackWithTangents appends (xbar, xbardot) and, for probability targets,
// (tbar, tbardot). For cross_entropy the terms in p are the second-order pullback
// of the row log-sum-exps at the cotangent pair (s Q, sdot Q + s Qdot); the target
// terms are subtracted from them.
func (r *ceRule) PullbackWithTangents(a cr.SecondOrderArgs[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	ct, tangentOf := a.Cotangents[0], a.TangentOf
	s, err := r.rowScale(ct.Value)
	if err != nil {
		return dst, err
	}
	var sdot []float64
	if ct.HasTangent {
		if sdot, err = r.rowScale(ct.Tangent); err != nil {
			return dst, err
		}
	}
	xdot, tdot, err := r.tangents(tangentOf)
	if err != nil {
		return dst, err
	}
	// x's tangent as the log-sum-exp rule sees it: absent unless needed.
	lseTangent := func(id cr.NodeID) (*tensor.Dense, bool) {
		if xdot == nil {
			return nil, false
		}
		return tangentOf(id)
	}
	if r.need[0] {
		var d cr.Dual[*tensor.Dense]
		var xb, xbd []float64
		if r.lseRule != nil {
			g := cr.Dual[*tensor.Dense]{Value: r.rows(r.timesQ(s))}
			if sdot != nil || tdot != nil {
				gd := make([]float64, len(s))
				if sdot != nil {
					gd = r.timesQ(sdot)
				}
				if tdot != nil {
					for i, q := range r.qdot(tdot) {
						gd[i] += s[i] * q
					}
				}
				g.Tangent, g.HasTangent = r.rows(gd), true
			}
			c, err := cr.PullbackWithTangentsOf(r.lseRule, []*tensor.Dense{r.lseY}, []cr.Dual[*tensor.Dense]{g}, []bool{true}, lseTangent, nil)
			if err != nil {
				return dst, err
			}
			xb = c[0].Cotangent.Value.Float64s()
			if c[0].Cotangent.HasTangent {
				xbd = c[0].Cotangent.Tangent.Float64s()
			}
		} else {
			xb = make([]float64, len(r.x))
		}
		r.subQ(xb, s)
		if sdot != nil || tdot != nil {
			if xbd == nil {
				xbd = make([]float64, len(r.x))
			}
			if sdot != nil {
				r.subQ(xbd, sdot)
			}
			if tdot != nil {
				r.subQdot(xbd, s, tdot)
			}
		}
		d.Value = r.dense(xb)
		if xbd != nil {
			d.Tangent, d.HasTangent = r.dense(xbd), true
		}
		dst = append(dst, cr.DualContribution[*tensor.Dense]{Node: r.in[0], Cotangent: d})
	}
	if r.need[1] {
		d := cr.Dual[*tensor.Dense]{Value: r.dense(r.tbar(s))}
		if sdot != nil || xdot != nil {
			tbd := make([]float64, len(r.x))
			if sdot != nil {
				tbd = r.tbar(sdot)
			}
			if xdot != nil {
				pxd, err := r.pxdot(lseTangent)
				if err != nil {
					return dst, err
				}
				for o := range r.outer {
					for k := range r.inner {
						row := o*r.inner + k
						for c := range r.c {
							i := r.idx(o, c, k)
							tbd[i] += s[row] * (1 - r.eps) * r.weight(c) * (pxd[row] - xdot[i])
						}
					}
				}
			}
			d.Tangent, d.HasTangent = r.dense(tbd), true
		}
		dst = append(dst, cr.DualContribution[*tensor.Dense]{Node: r.in[1], Cotangent: d})
	}
	return dst, nil
}

// subQdot sets v_rc -= s_r qdot_rc = s_r (1 - eps) w_c tdot_rc.
func (r *ceRule) subQdot(v, s, tdot []float64) {
	for o := range r.outer {
		for c := range r.c {
			wc := (1 - r.eps) * r.weight(c)
			base := r.idx(o, c, 0)
			srow := s[o*r.inner:][:r.inner]
			for k, sr := range srow {
				if sr != 0 {
					v[base+k] -= sr * wc * tdot[base+k]
				}
			}
		}
	}
}

// CrossEntropyProbs evaluates CrossEntropyProbsOp(opts...) at (x, t) without a tape.
func CrossEntropyProbs(x, t *tensor.Dense, opts ...LossOption) (*tensor.Dense, error) {
	return cr.Eval(CrossEntropyProbsOp(opts...), x, t)
}

// RecordPullback records the pullback with ops (chainrules.PullbackRecorder), so
// that a recorded backward sweep can differentiate the loss again:
//
//	xbar = softmax(x) (s Q) - s q          (nll_loss: -s q)
//	tbar = -(1 - eps) s w log_softmax(x)   (target probabilities)
//
// over the class axis, with s the cotangent of each row's loss (ybar itself for
// ReductionNone, broadcast against the class axis; the scalar ybar otherwise) and
// the target weights q and Q = sum_c q of the rules above. For class labels, q and
// Q are constants, with the mean's 1/D folded into them (so that the rows an
// ignored label leaves out stay exactly zero, as in Pullback, also when D = 0);
// for target probabilities they are recorded from t, q = w ((1 - eps) t + eps/C),
// and the mean's 1/D scales ybar. It uses SoftmaxOp, LogSoftmaxOp, elementwise
// mul, sub, scale and shift, reduce.SumOp and constants.
func (r *ceRule) RecordPullback(rec cr.Recorder[*tensor.Dense], x, _, ybar []cr.NodeID) ([]cr.NodeID, error) {
	out := make([]cr.NodeID, len(r.in))
	g := ybar[0]
	if !g.Valid() || (!r.need[0] && !r.need[1]) {
		return out, nil
	}
	name := r.op.name
	ax := 1
	if len(r.rowShape) == 0 {
		ax = 0
	}
	inShape := r.inputShape()
	// rowAt is the shape of a per-row tensor that broadcasts against x: the row
	// shape with a class axis of size 1.
	rowAt := slices.Insert(slices.Clone(r.rowShape), ax, 1)
	// classAt is the shape of a per-class tensor that broadcasts against x.
	classAt := []int{r.c}
	for range len(inShape) - ax - 1 {
		classAt = append(classAt, 1)
	}
	reduced := r.red != ReductionNone
	s := g // the row factor s_r, broadcasting against x
	if !reduced {
		s = rec.Apply(permute.UnsqueezeOp(ax), g)
	}
	mul := func(a, b cr.NodeID) cr.NodeID { return rec.Apply(elementwise.MulOp, a, b) }
	var q, bigQ cr.NodeID
	if r.t != nil {
		if reduced {
			s = rec.Apply(elementwise.ScaleOp(r.scale), s)
		}
		q = x[1]
		if r.eps != 0 {
			q = rec.Apply(elementwise.ShiftOp(r.eps/float64(r.c)), rec.Apply(elementwise.ScaleOp(1-r.eps), q))
		}
		if r.w != nil {
			wc, err := constantOf(rec, name, slices.Clone(r.w), classAt)
			if err != nil {
				return nil, err
			}
			q = mul(q, wc)
		}
		bigQ = rec.Apply(reduce.SumOp([]int{ax}, true), q)
	} else {
		qv, qs := make([]float64, len(r.x)), make([]float64, len(r.bigQ))
		for o := range r.outer {
			for k := range r.inner {
				row := o*r.inner + k
				y, alpha, beta, ok := r.labelCoef(row)
				if !ok {
					continue // an ignored row: zero, whatever the factor
				}
				f := 1.0
				if reduced {
					f = r.scale
				}
				for c := range r.c {
					v := beta * r.weight(c)
					if c == y {
						v += alpha
					}
					qv[r.idx(o, c, k)] = f * v
				}
				if r.bigQ[row] != 0 {
					qs[row] = f * r.bigQ[row]
				}
			}
		}
		var err error
		if q, err = constantOf(rec, name, qv, inShape); err != nil {
			return nil, err
		}
		if r.lseRule != nil {
			if bigQ, err = constantOf(rec, name, qs, rowAt); err != nil {
				return nil, err
			}
		}
	}
	if r.need[0] {
		sq := mul(s, q)
		if r.lseRule != nil {
			p := rec.Apply(SoftmaxOp(ax), x[0])
			out[0] = rec.Apply(elementwise.SubOp, mul(p, mul(s, bigQ)), sq)
		} else {
			out[0] = rec.Apply(elementwise.NegOp, sq)
		}
	}
	if r.need[1] {
		cw := make([]float64, r.c)
		for c := range cw {
			cw[c] = -(1 - r.eps) * r.weight(c)
		}
		wc, err := constantOf(rec, name, cw, classAt)
		if err != nil {
			return nil, err
		}
		out[1] = mul(s, mul(rec.Apply(LogSoftmaxOp(ax), x[0]), wc))
	}
	return out, rec.Err()
}

// inputShape returns the shape of the input x.
func (r *ceRule) inputShape() []int {
	if len(r.rowShape) == 0 {
		return []int{r.c}
	}
	return append([]int{r.rowShape[0], r.c}, r.rowShape[1:]...)
}
