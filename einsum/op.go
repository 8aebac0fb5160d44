package einsum

import (
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// Name is the registry name of the einsum op family.
const Name = "einsum"

// Op returns the einsum op for spec, for recording on a tape:
//
//	y := tape.Apply(einsum.Op("ij,jk->ik"), a, b)
//
// Construction never fails; a bad spec or operand shapes that do not fit it make
// Apply return an error wrapping chainrules.ErrInvalidArgument or
// chainrules.ErrShapeMismatch, which a tape keeps as its sticky error.
//
// The rules follow from multilinearity. Write y = E(x_1, ..., x_n) for the einsum.
//
//   - Pullback: xbar_k = E_k(ybar, conj(x_j) for j != k), the einsum of the cotangent
//     (carrying the output labels) with the other operands into the labels of x_k.
//     Labels of x_k that no other factor carries (summed within x_k) are broadcast,
//     a label repeated in x_k (trace, diagonal) puts the result on that diagonal
//     with zeros elsewhere, and a broadcast "..." dim of size 1 receives the sum
//     over the dim it was stretched to. A real operand of a complex einsum gets the
//     real part.
//   - Forward: ydot = sum_k E(x_1, ..., xdot_k, ..., x_n) over the operands that
//     have a tangent.
//   - Second order: xbardot_k = E_k(ybardot, conj(x_j)) + sum_{j != k}
//     E_k(ybar, conj(x_i) for i != j, k, conj(xdot_j)), the product rule.
//   - Any order: the pullback is recorded with einsum ops of the same kind (and the
//     linear ops conj, real part and diagonal embedding), so that a recorded
//     backward sweep (core.Tape.GradGraph) differentiates an einsum, and a matrix
//     product built on it, to every order.
//
// Einsum is smooth everywhere: there are no kinks or ties.
func Op(spec string) cr.Op[*tensor.Dense] { return &op{spec: spec} }

// Record records einsum(spec, operands...) on r and returns the result's node:
// shorthand for r.Apply(Op(spec), operands...).
func Record(r cr.Recorder[*tensor.Dense], spec string, operands ...cr.NodeID) cr.NodeID {
	return r.Apply(Op(spec), operands...)
}

type op struct {
	spec string
	pre  *preBound // set for the contractions a recorded pullback builds
}

// Name returns "einsum".
func (o *op) Name() string { return Name }

// NumOutputs returns 1.
func (o *op) NumOutputs() int { return 1 }

// String returns the op with its spec, e.g. einsum("ij,jk->ik").
func (o *op) String() string {
	if o.pre != nil {
		return Name + "(" + `"` + o.pre.render() + `"` + ")"
	}
	return Name + "(" + `"` + o.spec + `"` + ")"
}

// Apply evaluates the einsum into y[0] and captures the operands for the rules.
func (o *op) Apply(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if len(in) != len(x) {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "einsum %q: %d node ids for %d operands", o.spec, len(in), len(x))
	}
	if err := opkit.CheckDTypes("einsum", x, tensor.AllDTypes()...); err != nil {
		return nil, err
	}
	if mixedPrecision(x) {
		// Single- and double-precision operands together: the double-precision
		// contraction of the widened operands, with each cotangent rounded to its
		// operand's dtype (opkit.ApplyWidened). An all-single einsum contracts in
		// single precision below.
		return opkit.ApplyWidened(o, in, x, y)
	}
	for k, v := range x {
		if v == nil {
			return nil, cr.Errorf(cr.ErrInvalidArgument, "einsum %q: operand %d is nil", o.spec, k)
		}
	}
	var p *Plan
	var err error
	if o.pre != nil {
		p, err = o.pre.plan(o.spec, x)
	} else {
		p, err = cachedPlan(o.spec, x)
	}
	if err != nil {
		return nil, err
	}
	y0 := p.eval(x)
	y[0] = y0
	return &rule{p: p, in: slices.Clone(in), x: slices.Clone(x), ydt: y0.DType()}, nil
}

// mixedPrecision reports whether x holds both single-precision (float32,
// complex64) and double-precision (float64, complex128) tensors.
func mixedPrecision(x []*tensor.Dense) bool {
	single, double := false, false
	for _, v := range x {
		if v == nil {
			continue
		}
		if v.DType().IsSingle() {
			single = true
		} else {
			double = true
		}
	}
	return single && double
}

// ApplyMasked is Apply for a tape that knows which operands need cotangents: the
// rule skips the pullback contractions of the others (for y = X W with constant data
// X, the pullback computes only Wbar = X^T ybar).
func (o *op) ApplyMasked(in []cr.NodeID, x, y []*tensor.Dense, need []bool) (cr.Rule[*tensor.Dense], error) {
	r, err := o.Apply(in, x, y)
	if err != nil {
		return nil, err
	}
	// A mixed-precision application (opkit.ApplyWidened's rule) computes every
	// cotangent: need only saves work.
	if rr, ok := r.(*rule); ok && slices.Contains(need, false) {
		rr.skip = make([]bool, len(need))
		for k, n := range need {
			rr.skip[k] = !n
		}
	}
	return r, nil
}

// rule differentiates one recorded einsum.
type rule struct {
	p    *Plan
	in   []cr.NodeID
	x    []*tensor.Dense
	ydt  tensor.DType
	skip []bool // operands nobody needs a cotangent for (nil: none)
}

func (r *rule) skipped(k int) bool { return r.skip != nil && r.skip[k] }

func (r *rule) Inputs() []cr.NodeID { return r.in }

func (r *rule) Pullback(ybars []*tensor.Dense, _ []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	ybar := ybars[0]
	if err := r.checkCotangent(ybar); err != nil {
		return dst, err
	}
	for k := range r.x {
		if r.skipped(k) {
			continue
		}
		dst = append(dst, cr.Contribution[*tensor.Dense]{Node: r.in[k], Value: r.pullback(k, ybar, r.x)})
	}
	return dst, nil
}

func (r *rule) checkCotangent(ybar *tensor.Dense) error {
	if ybar == nil || !slices.Equal(ybar.Shape(), r.p.b.outShape()) {
		got := "nil"
		if ybar != nil {
			got = ybar.Describe()
		}
		return cr.Errorf(cr.ErrShapeMismatch, "einsum %q: cotangent is %s, the output is %v", r.p.spec, got, r.p.b.outShape())
	}
	return nil
}

// pullback returns E_k(ybar, conj(vals[j]) for j != k), shaped and typed like x_k.
func (r *rule) pullback(k int, ybar *tensor.Dense, vals []*tensor.Dense) *tensor.Dense {
	b := r.p.b
	// The factors: the cotangent over the output labels, then the other operands.
	dims, shapes := b.pullbackFactors(k)
	ops := []*tensor.Dense{ybar}
	if ybar.DType().IsComplex() {
		// E_k(ybar, conj(x)) = conj(E_k(conj(ybar), x)): one conjugation of the
		// cotangent instead of one per operand.
		ops[0] = ybar.Conj()
	}
	for j, v := range vals {
		if j != k {
			ops = append(ops, v)
		}
	}
	target, direct := b.pullbackTarget(k)
	g := boundPlan(r.p.spec, &b.size, dims, shapes, target).eval(ops)
	dt := r.x[k].DType()
	switch {
	case !dt.IsComplex() && g.DType().IsComplex():
		g = g.Real() // Re(conj(z)) = Re(z)
	case dt.IsComplex():
		g = g.Conj().AsComplex()
	}
	if g.DType() != dt {
		// A cotangent of the other precision than the operand (the engine's
		// seed, say): the operand's cotangent has the operand's dtype.
		g, _ = tensor.AsType(g, dt)
	}
	if direct {
		// x_k's dims are target's, plus broadcast dims of size 1: same data.
		out, _ := g.Reshape(b.shapes[k]...)
		return out
	}
	return b.embed(k, target, g)
}

// pullbackFactors returns the labels and shapes of the factors of E_k: the
// cotangent over the output labels, then the operands other than k in order.
func (b *bound) pullbackFactors(k int) (dims, shapes [][]int) {
	dims = [][]int{b.out}
	shapes = [][]int{b.outShape()}
	for j := range b.dims {
		if j != k {
			dims = append(dims, b.dims[j])
			shapes = append(shapes, b.shapes[j])
		}
	}
	return dims, shapes
}

// pullbackTarget returns the labels of E_k's result, x_k's distinct labels that
// some factor of E_k carries (in x_k's order), and whether x_k's cotangent is that
// result reshaped: no label of x_k is repeated, and every one is in target.
// Otherwise it is embed(k, target, result).
func (b *bound) pullbackTarget(k int) (target []int, direct bool) {
	avail := setOf(b.out)
	for j, d := range b.dims {
		if j != k {
			avail = avail.or(setOf(d))
		}
	}
	var seen lset
	repeated, uniq := false, 0
	for _, l := range b.dims[k] {
		if l < 0 {
			continue
		}
		if seen.has(l) {
			repeated = true
			continue
		}
		seen.add(l)
		uniq++
		if avail.has(l) {
			target = append(target, l)
		}
	}
	return target, !repeated && len(target) == uniq
}

// embed returns the tensor shaped like x_k, of g's dtype, with
// xbar[dims of x_k] = g[target labels] on the diagonal of repeated labels,
// broadcast along labels only x_k carries, zero elsewhere. g is over the labels
// target, with their sizes.
func (b *bound) embed(k int, target []int, g *tensor.Dense) *tensor.Dense {
	dimsK, shapeK := b.dims[k], b.shapes[k]
	var uniq []int
	var seen lset
	for _, l := range dimsK {
		if l >= 0 && !seen.has(l) {
			seen.add(l)
			uniq = append(uniq, l)
		}
	}
	stK := rowMajor(shapeK)
	gSt := rowMajor(g.Shape())
	sh := make([]int, len(uniq))
	dstSt := make([]int, len(uniq))
	srcSt := make([]int, len(uniq))
	for i, l := range uniq {
		sh[i] = b.size[l]
		for d, dl := range dimsK {
			if dl == l {
				dstSt[i] += stK[d]
			}
		}
		if t := slices.Index(target, l); t >= 0 {
			srcSt[i] = gSt[t]
		}
	}
	switch g.DType() {
	case tensor.Complex128:
		return embedAs(g.Complex128s(), shapeK, dstSt, srcSt, sh)
	case tensor.Float32:
		return embedAs(g.Float32s(), shapeK, dstSt, srcSt, sh)
	case tensor.Complex64:
		return embedAs(g.Complex64s(), shapeK, dstSt, srcSt, sh)
	}
	return embedAs(g.Float64s(), shapeK, dstSt, srcSt, sh)
}

// embedAs is embed's copy of the elements src of g into zeros of shape shapeK.
func embedAs[T tensor.Numeric](src []T, shapeK, dstSt, srcSt, sh []int) *tensor.Dense {
	out := make([]T, numel(shapeK))
	strided(out, dstSt, src, srcSt, sh, false)
	t, _ := tensor.FromSlice(out, shapeK...)
	return t
}

func (r *rule) Forward(tangentOf cr.TangentOf[*tensor.Dense], ydots []*tensor.Dense, has []bool) error {
	var ydot *tensor.Dense
	vals := slices.Clone(r.x)
	var args []*tensor.Dense // the operands and their tangents, once there are two terms
	for k := range r.x {
		xd, ok := tangentOf(r.in[k])
		if !ok {
			continue
		}
		if !slices.Equal(xd.Shape(), r.p.b.shapes[k]) {
			return cr.Errorf(cr.ErrShapeMismatch, "einsum %q: tangent of operand %d is %s, the operand is %v", r.p.spec, k, xd.Describe(), r.p.b.shapes[k])
		}
		vals[k] = xd
		term := r.p.eval(vals)
		vals[k] = r.x[k]
		if ydot == nil {
			ydot = term
			continue
		}
		if args == nil {
			args = slices.Clone(r.x)
			for j := range r.x {
				if t, ok := tangentOf(r.in[j]); ok {
					args = append(args, t)
				}
			}
		}
		var err error
		if ydot, err = addTerm(ydot, term, args); err != nil {
			return err
		}
	}
	if ydot == nil {
		return nil
	}
	if r.ydt.IsComplex() {
		ydot = ydot.AsComplex()
	}
	ydots[0], has[0] = ydot, true
	return nil
}

func (r *rule) PullbackWithTangents(a cr.SecondOrderArgs[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	ct, tangentOf := a.Cotangents[0], a.TangentOf
	if err := r.checkCotangent(ct.Value); err != nil {
		return dst, err
	}
	if ct.HasTangent {
		if err := r.checkCotangent(ct.Tangent); err != nil {
			return dst, err
		}
	}
	xdot := make([]*tensor.Dense, len(r.x))
	for j := range r.x {
		if v, ok := tangentOf(r.in[j]); ok {
			if !slices.Equal(v.Shape(), r.p.b.shapes[j]) {
				return dst, cr.Errorf(cr.ErrShapeMismatch, "einsum %q: tangent of operand %d is %s, the operand is %v", r.p.spec, j, v.Describe(), r.p.b.shapes[j])
			}
			xdot[j] = v
		}
	}
	vals := slices.Clone(r.x)
	// The rule's arguments: a term of the sum below that is not a view of one of
	// them is storage of its own, which goes back to the pool once added.
	args := append(append([]*tensor.Dense{ct.Value, ct.Tangent}, r.x...), xdot...)
	for k := range r.x {
		if r.skipped(k) {
			continue
		}
		d := cr.Dual[*tensor.Dense]{Value: r.pullback(k, ct.Value, r.x)}
		add := func(t *tensor.Dense) error {
			if !d.HasTangent {
				d.Tangent, d.HasTangent = t, true
				return nil
			}
			sum, err := addTerm(d.Tangent, t, args)
			d.Tangent = sum
			return err
		}
		if ct.HasTangent {
			if err := add(r.pullback(k, ct.Tangent, r.x)); err != nil {
				return dst, err
			}
		}
		for j := range r.x {
			if j == k || xdot[j] == nil {
				continue
			}
			vals[j] = xdot[j]
			err := add(r.pullback(k, ct.Value, vals))
			vals[j] = r.x[j]
			if err != nil {
				return dst, err
			}
		}
		dst = append(dst, cr.DualContribution[*tensor.Dense]{Node: r.in[k], Cotangent: d})
	}
	return dst, nil
}

// FreshStorage marks the rule's output and cotangents as storage of their own or
// views of its operands (chainrules.FreshStorage), so that a released tape reuses it.
func (*rule) FreshStorage() {}

// addTerm returns the sum acc + t of two terms of a tangent the rule computes,
// where args are the rule's arguments (operands, tangents, cotangents): a term
// that is not a view of one of them is storage of its own. The sum is made in
// acc's storage when acc is such a term (tensor.Space.Accumulate: the same
// additions as tensor.Add, so the same result), and t's storage (and acc's, when
// the sum is fresh) goes back to the pool: neither is referred to afterwards.
func addTerm(acc, t *tensor.Dense, args []*tensor.Dense) (*tensor.Dense, error) {
	var sp tensor.Space
	own := true
	for _, a := range args {
		if a != nil && sp.MayOverlap(acc, a) {
			own = false
			break
		}
	}
	var sum *tensor.Dense
	var err error
	if own {
		sum, err = sp.Accumulate(acc, t)
	} else {
		sum, err = tensor.Add(acc, t)
	}
	if err != nil {
		return nil, err
	}
	dead := []*tensor.Dense{t}
	if sum != acc {
		dead = append(dead, acc)
	}
	sp.Recycle(dead, append(args, sum))
	return sum, nil
}
