package einsum

import (
	"fmt"
	"slices"
	"strings"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// RecordPullback records the cotangents of the operands with ops, so that a
// recorded backward sweep (core.Tape.GradGraph) can differentiate them again:
//
//	xbar_k = embed_k(E_k(ybar, conj(x_j) for j != k)),
//
// where E_k is an einsum op (bound to the labels of the op's own spec, so that no
// spec has to be spelled: "..." dims and broadcast dims of size 1 carry over
// as they are) of the cotangent node and the other operands' nodes, conj is the
// linear op einsum_conj, applied once to each complex operand, and embed_k is the
// linear op einsum_embed that puts the result on the diagonals of labels repeated in
// x_k and broadcasts it along the labels only x_k carries (omitted when x_k has
// neither). A real operand of a complex einsum gets the real part (the linear op
// einsum_real); a complex operand of a real contraction gets it promoted
// (einsum_complex). Operands a masked application skipped get no cotangent. Every
// op used has a recorded pullback of the same kind (einsum is multilinear, the
// others linear), so an einsum is differentiable to any order.
func (r *rule) RecordPullback(rec cr.Recorder[*tensor.Dense], x, _, ybar []cr.NodeID) ([]cr.NodeID, error) {
	out := make([]cr.NodeID, len(r.x))
	if len(x) != len(r.x) || len(ybar) != 1 {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "einsum %q: recorded pullback of %d operands and %d cotangents, the op has %d and 1", r.p.spec, len(x), len(ybar), len(r.x))
	}
	if !ybar[0].Valid() {
		return out, nil
	}
	yb, err := rec.Value(ybar[0])
	if err != nil {
		return nil, err
	}
	if err := r.checkCotangent(yb); err != nil {
		return nil, err
	}
	b := r.p.b
	conj := make([]cr.NodeID, len(r.x))
	factor := func(j int) cr.NodeID {
		if !r.x[j].DType().IsComplex() {
			return x[j]
		}
		if !conj[j].Valid() {
			conj[j] = rec.Apply(conjOp(), x[j])
		}
		return conj[j]
	}
	for k := range r.x {
		if r.skipped(k) {
			continue
		}
		dims, _ := b.pullbackFactors(k)
		ins := []cr.NodeID{ybar[0]}
		gdt := yb.DType()
		for j := range r.x {
			if j != k {
				ins = append(ins, factor(j))
				gdt = tensor.ResultDType(gdt, r.x[j].DType())
			}
		}
		target, direct := b.pullbackTarget(k)
		pre := &preBound{dims: dims, out: target}
		g := rec.Apply(&op{spec: pre.render(), pre: pre}, ins...)
		switch dt := r.x[k].DType(); {
		case !dt.IsComplex() && gdt.IsComplex():
			g = rec.Apply(realOp(), g)
		case dt.IsComplex() && !gdt.IsComplex():
			g = rec.Apply(complexOp(), g)
		}
		if !direct || len(target) != len(b.shapes[k]) {
			g = rec.Apply(embedOp(b, k, target, direct), g)
		}
		out[k] = g
	}
	if err := rec.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// preBound is the form of an einsum that a recorded pullback builds: the labels of
// each operand's dims (noLabel for a dim of size 1 that broadcasts) and of the
// output, as bind would have produced them, taken over from the op being
// differentiated. Its sizes come from the operands' shapes when it is applied.
type preBound struct {
	dims [][]int
	out  []int
}

// plan checks the operands against the labels and returns the plan.
func (q *preBound) plan(spec string, x []*tensor.Dense) (*Plan, error) {
	if len(x) != len(q.dims) {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "einsum %q: %d operands for a contraction of %d", q.render(), len(x), len(q.dims))
	}
	var size [maxLabels]int
	var set lset
	shapes := make([][]int, len(x))
	for k, v := range x {
		sh := v.Shape()
		bad := len(sh) != len(q.dims[k])
		for d := 0; !bad && d < len(sh); d++ {
			switch l := q.dims[k][d]; {
			case l < 0:
				bad = sh[d] != 1
			case !set.has(l):
				set.add(l)
				size[l] = sh[d]
			default:
				bad = size[l] != sh[d]
			}
		}
		if bad {
			return nil, cr.Errorf(cr.ErrShapeMismatch, "einsum %q: operand %d has shape %v, which does not fit the contraction", q.render(), k, sh)
		}
		shapes[k] = slices.Clone(sh)
	}
	for _, l := range q.out {
		if !set.has(l) {
			return nil, cr.Errorf(cr.ErrInvalidArgument, "einsum %q: output label %s is on no operand", q.render(), labelName(l))
		}
	}
	return boundPlan(spec, &size, q.dims, shapes, q.out), nil
}

// render spells the contraction as a spec for messages: letters stay, and each "..."
// dim or broadcast dim of size 1 gets a letter no other dim uses (summed on its own
// when it is a broadcast dim, so that the spec computes the same), or '?' once the
// letters run out.
func (q *preBound) render() string {
	var used lset
	for _, d := range q.dims {
		for _, l := range d {
			if l >= 0 && l < numLetters {
				used.add(l)
			}
		}
	}
	next := 0
	fresh := func() byte {
		for ; next < numLetters; next++ {
			if !used.has(next) {
				used.add(next)
				if next < 26 {
					return byte('A' + next)
				}
				return byte('a' + next - 26)
			}
		}
		return '?'
	}
	var names [maxLabels]byte
	name := func(l int) byte {
		if l < 0 {
			return fresh()
		}
		if names[l] == 0 {
			switch {
			case l < 26:
				names[l] = byte('A' + l)
			case l < numLetters:
				names[l] = byte('a' + l - 26)
			default:
				names[l] = fresh()
			}
		}
		return names[l]
	}
	var sb strings.Builder
	for k, d := range q.dims {
		if k > 0 {
			sb.WriteByte(',')
		}
		for _, l := range d {
			sb.WriteByte(name(l))
		}
	}
	sb.WriteString("->")
	for _, l := range q.out {
		sb.WriteByte(name(l))
	}
	return sb.String()
}

// unaryLinear is a linear op of one input for the recorded pullbacks: fwd is its
// map and adj the adjoint under Re<a, b>; cr.UnaryLinearRule gives it every rule,
// a recorded pullback included.
type unaryLinear struct {
	name     string
	fwd, adj func(*tensor.Dense) (*tensor.Dense, error)
}

func (o *unaryLinear) Name() string    { return o.name }
func (o *unaryLinear) NumOutputs() int { return 1 }

func (o *unaryLinear) Apply(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if len(in) != 1 || len(x) != 1 {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: takes 1 input, got %d", o.name, len(x))
	}
	if err := opkit.CheckDTypes(o.name, x, tensor.AllDTypes()...); err != nil {
		return nil, err
	}
	v, err := o.fwd(x[0])
	if err != nil {
		return nil, err
	}
	y[0] = v
	return cr.UnaryLinearRule(in[0], o.fwd, o.adj), nil
}

// checked wraps f with a nil check and a check that the input is complex (want
// true) or real (want false), of either precision.
func checked(name string, want bool, f func(*tensor.Dense) *tensor.Dense) func(*tensor.Dense) (*tensor.Dense, error) {
	return func(t *tensor.Dense) (*tensor.Dense, error) {
		if t == nil || t.DType().IsComplex() != want {
			return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: got %s", name, opkit.DescribeOf(t))
		}
		return f(t), nil
	}
}

// conjOp returns the op einsum_conj, y = conj(x): R-linear and self-adjoint under
// Re<a, b>.
func conjOp() cr.Op[*tensor.Dense] {
	f := checked("einsum_conj", true, (*tensor.Dense).Conj)
	return &unaryLinear{name: "einsum_conj", fwd: f, adj: f}
}

// realOp returns the op einsum_real, y = Re x for a complex x; its adjoint takes a
// real cotangent r to r + 0i.
func realOp() cr.Op[*tensor.Dense] {
	return &unaryLinear{name: "einsum_real",
		fwd: checked("einsum_real", true, (*tensor.Dense).Real),
		adj: checked("einsum_real", false, (*tensor.Dense).AsComplex)}
}

// complexOp returns the op einsum_complex, y = x + 0i for a real x; its adjoint is
// the real part.
func complexOp() cr.Op[*tensor.Dense] {
	return &unaryLinear{name: "einsum_complex",
		fwd: checked("einsum_complex", false, (*tensor.Dense).AsComplex),
		adj: checked("einsum_complex", true, (*tensor.Dense).Real)}
}

// embedOp returns the op einsum_embed of operand k of b: it takes a tensor over the
// labels target to one shaped like x_k, reshaping it (direct: x_k differs only by
// broadcast dims of size 1) or embedding it (bound.embed). Its adjoint is the
// einsum from x_k's labels to target, which sums over the labels only x_k carries
// and takes the diagonals of repeated ones.
func embedOp(b *bound, k int, target []int, direct bool) cr.Op[*tensor.Dense] {
	const name = "einsum_embed"
	shapeK := b.shapes[k]
	tShape := make([]int, len(target))
	for i, l := range target {
		tShape[i] = b.size[l]
	}
	check := func(t *tensor.Dense, shape []int) error {
		if t == nil || !slices.Equal(t.Shape(), shape) {
			return cr.Errorf(cr.ErrShapeMismatch, "%s: got %s, want shape %v", name, opkit.DescribeOf(t), shape)
		}
		return nil
	}
	fwd := func(g *tensor.Dense) (*tensor.Dense, error) {
		if err := check(g, tShape); err != nil {
			return nil, err
		}
		if direct {
			out, err := g.Reshape(shapeK...)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			return out, nil
		}
		return b.embed(k, target, g), nil
	}
	adj := func(z *tensor.Dense) (*tensor.Dense, error) {
		if err := check(z, shapeK); err != nil {
			return nil, err
		}
		return boundPlan(b.spec(), &b.size, [][]int{b.dims[k]}, [][]int{shapeK}, target).eval([]*tensor.Dense{z}), nil
	}
	return &unaryLinear{name: name, fwd: fwd, adj: adj}
}

// spec spells b for messages.
func (b *bound) spec() string {
	return (&preBound{dims: b.dims, out: b.out}).render()
}
