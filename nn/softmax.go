package nn

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/internal/vmath"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// tape is the tape of tensor graphs (hvp.Tape, to users).
type tape = core.Tape[*tensor.Dense]

// LogSoftmaxOp returns the op log_softmax(x) = z - log(sum(exp(z))) along axis, with
// z = x - max(x) (negative axes count from the end), of a float64 tensor: PyTorch's
// formula, which neither overflows nor loses precision for large inputs (both
// functions are invariant under a shift of x along the axis, so the maximum carries
// no derivative, to every order). With p = softmax(x) and sums over the axis, its
// rules are
//
//	pullback:  xbar    = ybar - p sum(ybar)
//	tangent:   ydot    = xdot - sum(p xdot)
//	second:    xbardot = ybardot - p sum(ybardot) - p ydot sum(ybar).
//
// It is a hand-written fused op (a pass each for the maximum, the exponentials and
// the sums, vectorised where packages reduce and elementwise are), faster than
// recording x - logsumexp(x). An empty axis gives an empty output; an axis out of
// range or complex input is an error wrapping chainrules.ErrInvalidArgument.
func LogSoftmaxOp(axis int) cr.Op[*tensor.Dense] {
	return &softmaxOp{name: "log_softmax", axis: axis, log: true}
}

// SoftmaxOp returns the op softmax(x) = exp(z) / sum(exp(z)) along axis, with
// z = x - max(x) as in LogSoftmaxOp, of a float64 tensor. With y = softmax(x),
// a = sum(y ybar) and sums over the axis, its rules are
//
//	pullback:  xbar    = y (ybar - a)
//	tangent:   ydot    = y (xdot - sum(y xdot))
//	second:    xbardot = y (ybardot - sum(y ybardot)) + ydot (ybar - a) - y sum(ydot ybar).
//
// It is hand-written and fused, like LogSoftmaxOp.
//
// Both rules also record their pullbacks with ops (chainrules.PullbackRecorder:
// softmax's as s (ybar - sum(s ybar)) from its output s, log_softmax's as
// ybar - softmax(x) sum(ybar)), so that core.Tape.GradGraph differentiates them
// to higher orders, as far as the elementwise and reduce ops they use reach.
//
// Both ops are real-only, as in PyTorch: torch 1.13 has no complex kernel for
// softmax or log_softmax and raises on ComplexDouble input, so there is no
// reference to check a complex version against. float32 input along contiguous
// lanes (the last axis) runs natively in single precision, with the sums over a
// lane in float64 (the primal and the pullback; the other rules are the widened
// op's, rounded); other float32 input is widened (applySingle).
func SoftmaxOp(axis int) cr.Op[*tensor.Dense] { return &softmaxOp{name: "softmax", axis: axis} }

type softmaxOp struct {
	name string
	axis int
	log  bool
	// scaledMaskedSoftmax's: softmax(scale x + M) along the last axis, M -Inf
	// above the diagonal of the last two axes when causal (scale 0: 1).
	scale  float64
	causal bool
}

// scaledMaskedSoftmax returns the op softmax(scale x + M) along the last axis of
// x [..., L, S], with M -Inf at the pairs (i, j) with j > i when causal and 0
// otherwise: attention's weights from its scores, in one pass where scaling,
// adding the mask and softmax would take three and two more tensors. With y the
// output (0 at the masked pairs) and sums over the last axis, its rules are
// softmax's times scale:
//
//	pullback:  xbar = scale y (ybar - sum(y ybar))
//	tangent:   ydot = scale y (xdot - sum(y xdot))
//
// and it records its pullback as that with ops. float32 input is widened.
func scaledMaskedSoftmax(scale float64, causal bool) cr.Op[*tensor.Dense] {
	return &softmaxOp{name: "softmax", axis: -1, scale: scale, causal: causal}
}

// masked reports whether the op scales or masks (scaledMaskedSoftmax).
func (o *softmaxOp) masked() bool { return (o.scale != 0 && o.scale != 1) || o.causal }

func (o *softmaxOp) Name() string { return o.name }

// NumOutputs returns 1.
func (o *softmaxOp) NumOutputs() int { return 1 }

// Apply computes z = x - max(x), e = exp(z) and s = sum(e) along the axis, and the
// output e / s or z - log(s); the rule keeps the output (softmax's is p = e / s,
// log_softmax's log p, from which it takes p = exp(log p) when it needs it).
func (o *softmaxOp) Apply(in []cr.NodeID, x, out []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if opkit.HasSingle(x) {
		if !o.masked() {
			if r, ok, err := o.applyFloat32(in, x, out); ok {
				return r, err
			}
		}
		return applySingle(o, in, x, out, nil)
	}
	if err := checkRealApply(o.name, in, x, 1); err != nil {
		return nil, err
	}
	shape := x[0].Shape()
	ax, err := normAxis(o.name, o.axis, len(shape))
	if err != nil {
		return nil, err
	}
	l := lanesOf(shape, ax)
	r := &softmaxRule{name: o.name, in: in[0], log: o.log, axis: ax, l: l, shape: slices.Clone(shape), scale: 1}
	if o.masked() {
		if len(shape) < 2 && o.causal {
			return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: causal mask of input %s; want [..., L, S]", o.name, x[0].Describe())
		}
		if o.scale != 0 {
			r.scale = o.scale
		}
		if x[0].Size() > 0 {
			y := o.maskedRows(float64s(x[0]), l, shape, r.scale, r)
			yv, err := tensor.FromFloat64(y, shape...)
			out[0] = yv
			return r, err
		}
	}
	if x[0].Size() == 0 {
		y := tensor.New(tensor.Float64, shape...)
		r.keep(y.Float64s())
		out[0] = y
		return r, nil
	}
	if l.inner == 1 {
		y := o.lastAxis(float64s(x[0]), l, r)
		yv, err := tensor.FromFloat64(y, shape...)
		out[0] = yv
		return r, err
	}
	m, err := reduce.Max(x[0], []int{ax}, false)
	if err != nil {
		return nil, err
	}
	ms, xs := float64s(m), float64s(x[0])
	z := make([]float64, len(xs))
	l.segments(func(i0, i1, r, step int) {
		for i := i0; i < i1; i, r = i+1, r+step {
			z[i] = xs[i] - ms[r]
		}
	})
	zt, err := tensor.FromFloat64(z, shape...)
	if err != nil {
		return nil, err
	}
	e, err := elementwise.Exp(zt)
	if err != nil {
		return nil, err
	}
	es := e.Float64s()
	sum := l.sums(es)
	logs := make([]float64, len(sum))
	for row, v := range sum {
		logs[row], sum[row] = math.Log(v), 1/v
	}
	l.segments(func(i0, i1, r0, step int) {
		for i, r := i0, r0; i < i1; i, r = i+1, r+step {
			es[i] *= sum[r]
		}
		if o.log {
			for i, r := i0, r0; i < i1; i, r = i+1, r+step {
				z[i] -= logs[r]
			}
		}
	})
	if o.log {
		r.keep(z)
		out[0] = zt
		return r, nil
	}
	r.keep(es)
	out[0] = e
	return r, nil
}

// lastAxis is Apply along contiguous lanes (the last axis, or any axis with only
// size-1 axes after it): per lane, the maximum m, s = sum(exp(x - m)), then
// exp(x - m) / s, or x - m - log(s). It returns the output, which the rule
// keeps.
func (o *softmaxOp) lastAxis(xs []float64, l lanes, r *softmaxRule) []float64 {
	y := vmath.MakeNoZero[float64](len(xs)) // every lane is written whole
	l.forRows(func(lo, hi int) {
		for k := lo; k < hi; k++ {
			row, yr := xs[k*l.n:(k+1)*l.n], y[k*l.n:(k+1)*l.n]
			m := vmath.Max(row)
			// The sum of the exponentials first, then the exponentials scaled by its
			// inverse: two vector passes, where a pass storing them, a sum and a
			// scalar scaling pass would be three.
			s := vmath.SumExpSub(row, m)
			if !o.log {
				vmath.ExpSubScale(yr, row, m, 1/s)
				continue
			}
			ls := math.Log(s)
			for i, v := range row {
				yr[i] = (v - m) - ls
			}
		}
	})
	r.keep(y)
	return y
}

// maskedRows is Apply of scaledMaskedSoftmax (along the last axis, l.inner 1):
// per lane, z = scale x on the lane's first nv elements (nv = i + 1 for the
// lane of query i when causal, all of them otherwise), y = exp(z - max(z)) /
// sum(exp(z - max(z))) there and 0 beyond. It returns y, which the rule keeps.
func (o *softmaxOp) maskedRows(xs []float64, l lanes, shape []int, scale float64, r *softmaxRule) []float64 {
	y := vmath.MakeNoZero[float64](len(xs)) // every lane is written whole
	rows := 1
	if len(shape) >= 2 {
		rows = shape[len(shape)-2]
	}
	l.forRows(func(lo, hi int) {
		for k := lo; k < hi; k++ {
			row, yr := xs[k*l.n:(k+1)*l.n], y[k*l.n:(k+1)*l.n]
			nv := l.n
			if o.causal {
				nv = min(k%rows+1, l.n)
			}
			z := yr[:nv]
			for i, v := range row[:nv] {
				z[i] = scale * v
			}
			m := vmath.Max(z)
			s := vmath.SumExpSub(z, m)
			vmath.ExpSubScale(z, z, m, 1/s)
			clear(yr[nv:])
		}
	})
	r.keep(y)
	return y
}

// parallelGrain is the fewest elements worth a goroutine of their own in the
// row-wise kernels (softmax's): below it the cost of starting and joining one
// (about a microsecond, more when the runtime must wake an idle thread) is not
// repaid. It is package elementwise's threshold.
const parallelGrain = 1 << 16

// forRows calls body(lo, hi) on disjoint ranges of the lanes [0, outer) of
// contiguous lanes (inner 1), on the calling goroutine for fewer than
// 2*parallelGrain elements or at GOMAXPROCS 1, otherwise on up to GOMAXPROCS
// goroutines taking ranges as they become free (vmath.ParallelFor). Each lane is
// computed whole by one goroutine, with the operations of the serial loop, so
// results do not depend on the split.
func (l lanes) forRows(body func(lo, hi int)) {
	vmath.ParallelFor(l.outer, max(1, parallelGrain/max(l.n, 1)), body)
}

// segments calls f(i0, i1, r0, step) for each contiguous run [i0, i1) of the
// elements: element i of the run lies in lane r0 + (i - i0) step. With inner == 1
// the runs are whole lanes (step 0); otherwise they are rows of inner elements
// whose lanes follow each other (step 1). The loops over a run are the hot loops
// of softmax and its rules.
func (l lanes) segments(f func(i0, i1, r0, step int)) {
	if l.inner == 1 {
		for o := range l.outer {
			f(o*l.n, (o+1)*l.n, o, 0)
		}
		return
	}
	for o := range l.outer {
		for j := range l.n {
			base := l.at(o, j, 0)
			f(base, base+l.inner, o*l.inner, 1)
		}
	}
}

// sums returns the sum of v along each lane.
func (l lanes) sums(v []float64) []float64 {
	out := make([]float64, l.outer*l.inner)
	l.segments(func(i0, i1, r, step int) {
		if step == 0 {
			out[r] += sum(v[i0:i1])
			return
		}
		acc := out[r : r+i1-i0]
		for k, x := range v[i0:i1] {
			acc[k] += x
		}
	})
	return out
}

// dots returns sum(a b) along each lane.
func (l lanes) dots(a, b []float64) []float64 {
	out := make([]float64, l.outer*l.inner)
	l.segments(func(i0, i1, r, step int) {
		bs := b[i0:i1]
		if step == 0 {
			out[r] += vmath.Dot(a[i0:i1], bs)
			return
		}
		acc := out[r : r+i1-i0]
		for k, x := range a[i0:i1] {
			acc[k] += x * bs[k]
		}
	})
	return out
}

// sum returns sum(a) with four partial sums (a single running sum is bound by the
// latency of the additions).
func sum(a []float64) float64 {
	var s0, s1, s2, s3 float64
	n := len(a) &^ 3
	for i := 0; i < n; i += 4 {
		s0, s1, s2, s3 = s0+a[i], s1+a[i+1], s2+a[i+2], s3+a[i+3]
	}
	for i := n; i < len(a); i++ {
		s0 += a[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// softmaxRule differentiates softmax or log_softmax through the probabilities p:
// the output of softmax, or exp of the output y of log_softmax, which the rule
// takes only when a rule but the pullback asks for it (log_softmax's pullback
// reads y, which costs an exponential an element but no buffer of its own).
type softmaxRule struct {
	name  string
	in    cr.NodeID
	log   bool
	axis  int // in [0, rank)
	l     lanes
	shape []int
	scale float64   // scaledMaskedSoftmax's scale, 1 otherwise
	y     []float64 // the output
	once  sync.Once
	p     []float64 // softmax's output, or exp(y) once probs has run
}

// keep keeps the output y of the op.
func (r *softmaxRule) keep(y []float64) {
	r.y = y
	if !r.log {
		r.p = y
	}
}

// probs returns the probabilities p = softmax(x) along the axis.
func (r *softmaxRule) probs() []float64 {
	if !r.log {
		return r.p
	}
	r.once.Do(func() {
		r.p = make([]float64, len(r.y))
		vmath.Exp(r.p, r.y)
	})
	return r.p
}

func (r *softmaxRule) Inputs() []cr.NodeID { return []cr.NodeID{r.in} }

// FreshStorage marks the output and every derivative the rule returns as storage
// of their own (chainrules.FreshStorage): the probabilities p the rule keeps are
// the output of softmax or a buffer never handed out, so that a released tape
// (hvp's transforms, a training loop's gradient) reuses them.
func (*softmaxRule) FreshStorage() {}

// data checks a cotangent or tangent shaped like x and y, and returns its elements.
func (r *softmaxRule) data(v *tensor.Dense, what string) ([]float64, error) {
	if v == nil || v.DType() != tensor.Float64 || !slices.Equal(v.Shape(), r.shape) {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: %s is %s, the value is float64%v", r.name, what, describe(v), r.shape)
	}
	return float64s(v), nil
}

// pullback returns xbar for the cotangent g.
func (r *softmaxRule) pullback(g []float64) []float64 {
	out := vmath.MakeNoZero[float64](len(g)) // the segments cover every element
	p, y := r.p, r.y
	if l := r.l; l.inner == 1 {
		// Contiguous lanes, split over goroutines: per lane the sum (or dot
		// product), accumulated from 0 as lanes.sums and lanes.dots do, then the
		// lane of xbar.
		l.forRows(func(lo, hi int) {
			for k := lo; k < hi; k++ {
				i0, i1 := k*l.n, (k+1)*l.n
				gr, or := g[i0:i1], out[i0:i1]
				var a float64
				if r.log {
					// g - p a, with p a = exp(y) a
					a += sum(gr)
					vmath.ExpSubScale(or, y[i0:i1], 0, a)
					for i := range or {
						or[i] = gr[i] - or[i]
					}
					continue
				}
				pr := p[i0:i1]
				a += vmath.Dot(pr, gr)
				if sc := r.scale; sc != 1 {
					for i := range or {
						or[i] = sc * (pr[i] * (gr[i] - a))
					}
					continue
				}
				for i := range or {
					or[i] = pr[i] * (gr[i] - a)
				}
			}
		})
		return out
	}
	if r.log {
		s := r.l.sums(g)
		r.l.segments(func(i0, i1, r, step int) {
			vmath.Exp(out[i0:i1], y[i0:i1]) // p
			for i := i0; i < i1; i, r = i+1, r+step {
				out[i] = g[i] - out[i]*s[r]
			}
		})
		return out
	}
	a := r.l.dots(p, g)
	r.l.segments(func(i0, i1, r, step int) {
		for i := i0; i < i1; i, r = i+1, r+step {
			out[i] = p[i] * (g[i] - a[r])
		}
	})
	return out
}

func (r *softmaxRule) dense(v []float64) *tensor.Dense {
	d, _ := tensor.FromFloat64(v, r.shape...)
	return d
}

func (r *softmaxRule) Pullback(ybars []*tensor.Dense, _ []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	ybar := ybars[0]
	g, err := r.data(ybar, "cotangent")
	if err != nil {
		return dst, err
	}
	return append(dst, cr.Contribution[*tensor.Dense]{Node: r.in, Value: r.dense(r.pullback(g))}), nil
}

// tangent returns ydot for the input tangent xd.
func (r *softmaxRule) tangent(xd []float64) []float64 {
	out := make([]float64, len(xd))
	p := r.probs()
	b := r.l.dots(p, xd)
	r.l.segments(func(i0, i1, k, step int) {
		for i := i0; i < i1; i, k = i+1, k+step {
			out[i] = xd[i] - b[k]
		}
		if !r.log {
			for i := i0; i < i1; i++ {
				out[i] *= p[i]
			}
		}
		if r.scale != 1 {
			for i := i0; i < i1; i++ {
				out[i] *= r.scale
			}
		}
	})
	return out
}

func (r *softmaxRule) Forward(tangentOf cr.TangentOf[*tensor.Dense], ydot []*tensor.Dense, has []bool) error {
	t, ok := tangentOf(r.in)
	if !ok {
		return nil
	}
	xd, err := r.data(t, "tangent")
	if err != nil {
		return err
	}
	ydot[0], has[0] = r.dense(r.tangent(xd)), true
	return nil
}

func (r *softmaxRule) PullbackWithTangents(a cr.SecondOrderArgs[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	ct, tangentOf := a.Cotangents[0], a.TangentOf
	g, err := r.data(ct.Value, "cotangent")
	if err != nil {
		return dst, err
	}
	d := cr.Dual[*tensor.Dense]{Value: r.dense(r.pullback(g))}
	var gd, xd []float64
	if ct.HasTangent {
		if gd, err = r.data(ct.Tangent, "cotangent tangent"); err != nil {
			return dst, err
		}
	}
	if t, ok := tangentOf(r.in); ok {
		if xd, err = r.data(t, "tangent"); err != nil {
			return dst, err
		}
	}
	if gd == nil && xd == nil {
		return append(dst, cr.DualContribution[*tensor.Dense]{Node: r.in, Cotangent: d}), nil
	}
	var out []float64
	if gd != nil {
		out = r.pullback(gd) // J^* ybardot
	} else {
		out = make([]float64, len(g))
	}
	if xd != nil {
		p, yd := r.probs(), r.tangent(xd)
		if r.log {
			// - pdot sum(ybar), with pdot = p ydot
			s := r.l.sums(g)
			r.l.segments(func(i0, i1, k, step int) {
				for i := i0; i < i1; i, k = i+1, k+step {
					out[i] -= p[i] * yd[i] * s[k]
				}
			})
		} else {
			// ydot (ybar - a) - y sum(ydot ybar)
			a, c := r.l.dots(p, g), r.l.dots(yd, g)
			r.l.segments(func(i0, i1, k, step int) {
				for i := i0; i < i1; i, k = i+1, k+step {
					out[i] += r.scale * (yd[i]*(g[i]-a[k]) - p[i]*c[k])
				}
			})
		}
	}
	d.Tangent, d.HasTangent = r.dense(out), true
	return append(dst, cr.DualContribution[*tensor.Dense]{Node: r.in, Cotangent: d}), nil
}

// RecordPullback records the pullback with ops (chainrules.PullbackRecorder), from
// the output node s of softmax,
//
//	softmax:      xbar = s (ybar - sum(s ybar))
//	log_softmax:  xbar = ybar - softmax(x) sum(ybar)
//
// (sums over the axis, kept), with elementwise mul and sub, reduce.SumOp and, for
// log_softmax, SoftmaxOp itself, so that a recorded backward sweep can
// differentiate it again, to the orders those ops reach.
func (r *softmaxRule) RecordPullback(rec cr.Recorder[*tensor.Dense], x, y, ybar []cr.NodeID) ([]cr.NodeID, error) {
	g := ybar[0]
	if !g.Valid() {
		return []cr.NodeID{0}, nil
	}
	sum := reduce.SumOp([]int{r.axis}, true)
	var xbar cr.NodeID
	if r.log {
		p := rec.Apply(SoftmaxOp(r.axis), x[0])
		xbar = rec.Apply(elementwise.SubOp, g, rec.Apply(elementwise.MulOp, p, rec.Apply(sum, g)))
	} else {
		s := y[0]
		a := rec.Apply(sum, rec.Apply(elementwise.MulOp, s, g))
		xbar = rec.Apply(elementwise.MulOp, s, rec.Apply(elementwise.SubOp, g, a))
		if r.scale != 1 {
			xbar = rec.Apply(elementwise.ScaleOp(r.scale), xbar)
		}
	}
	return []cr.NodeID{xbar}, rec.Err()
}

// LogSoftmax evaluates log_softmax along axis without a tape.
func LogSoftmax(x *tensor.Dense, axis int) (*tensor.Dense, error) {
	return cr.Eval(LogSoftmaxOp(axis), x)
}

// Softmax evaluates softmax along axis without a tape.
func Softmax(x *tensor.Dense, axis int) (*tensor.Dense, error) { return cr.Eval(SoftmaxOp(axis), x) }

// softmaxEntries returns the registry entries of softmax and log_softmax.
func softmaxEntries() []cr.Entry[*tensor.Dense] {
	var entries []cr.Entry[*tensor.Dense]
	for _, e := range []struct {
		name, doc string
		op        func(axis int) cr.Op[*tensor.Dense]
	}{
		{"softmax", "softmax(x) = exp(x) / sum(exp(x)) along an axis", SoftmaxOp},
		{"log_softmax", "log_softmax(x) = x - logsumexp(x) along an axis", LogSoftmaxOp},
	} {
		entries = append(entries, cr.Entry[*tensor.Dense]{Name: e.name, Arity: 1, DTypes: realOnly,
			Forward: true, SecondOrder: true, Doc: e.doc,
			Samples: func(rng *rand.Rand) []cr.Sample[*tensor.Dense] {
				large := tensor.RandN(rng, tensor.Float64, 2, 3)
				large.Float64s()[0] = 800
				return []cr.Sample[*tensor.Dense]{
					{Name: "3x4 last axis", Op: e.op(-1), Inputs: []*tensor.Dense{tensor.RandN(rng, tensor.Float64, 3, 4)}},
					{Name: "3x4x2 axis 1", Op: e.op(1), Inputs: []*tensor.Dense{tensor.RandN(rng, tensor.Float64, 3, 4, 2)}},
					{Name: "large entry", Op: e.op(1), Inputs: []*tensor.Dense{large}},
				}
			}})
	}
	return entries
}
