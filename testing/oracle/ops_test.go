package oracle_test

import (
	"math"
	"math/cmplx"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// Hand-written tensor ops for the oracle's own tests, with first- and second-order
// rules, and switches that break them.

type (
	dense   = *tensor.Dense
	contrib = cr.Contribution[dense]
	dual    = cr.Dual[dense]
	dcontr  = cr.DualContribution[dense]
)

// expRule: y = exp(x), xbar = conj(y) ybar, ydot = y xdot,
// xbardot = conj(y) ybardot + conj(y xdot) ybar.
type expRule struct {
	in     []cr.NodeID
	y      dense
	noConj bool // the classic complex mistake
}

func (r *expRule) Inputs() []cr.NodeID { return r.in }

func (r *expRule) d() dense {
	if r.noConj {
		return r.y
	}
	return r.y.Conj()
}

func (r *expRule) Pullback(ybars []dense, _ []bool, dst []contrib) ([]contrib, error) {
	ybar := ybars[0]
	g, err := tensor.Mul(r.d(), ybar)
	return append(dst, contrib{Node: r.in[0], Value: g}), err
}

func (r *expRule) Forward(tan cr.TangentOf[dense], ydot []dense, has []bool) error {
	xd, ok := tan(r.in[0])
	if !ok {
		return nil
	}
	yd, err := tensor.Mul(r.y, xd)
	ydot[0], has[0] = yd, true
	return err
}

func (r *expRule) PullbackWithTangents(a cr.SecondOrderArgs[dense], dst []dcontr) ([]dcontr, error) {
	ct, tan := a.Cotangents[0], a.TangentOf
	xbar, err := tensor.Mul(r.d(), ct.Value)
	if err != nil {
		return dst, err
	}
	xbardot := tensor.New(r.y.DType(), r.y.Shape()...)
	if ct.HasTangent {
		if xbardot, err = tensor.Mul(r.d(), ct.Tangent); err != nil {
			return dst, err
		}
	}
	if xd, ok := tan(r.in[0]); ok {
		yd, err := tensor.Mul(r.y, xd)
		if err != nil {
			return dst, err
		}
		term, err := tensor.Mul(yd.Conj(), ct.Value)
		if err != nil {
			return dst, err
		}
		if xbardot, err = tensor.Add(xbardot, term); err != nil {
			return dst, err
		}
	}
	return append(dst, dcontr{Node: r.in[0], Cotangent: dual{Value: xbar, Tangent: xbardot, HasTangent: true}}), nil
}

func expOp(noConj bool) cr.Op[dense] {
	return cr.OpFunc[dense]{OpName: "exp", F: func(in []cr.NodeID, x []dense) (dense, cr.Rule[dense], error) {
		y := x[0].Clone()
		if y.DType() == tensor.Complex128 {
			zs := y.Complex128s()
			for i, z := range zs {
				zs[i] = cmplx.Exp(z)
			}
		} else {
			fs := y.Float64s()
			for i, v := range fs {
				fs[i] = math.Exp(v)
			}
		}
		return y, &expRule{in: slices.Clone(in), y: y, noConj: noConj}, nil
	}}
}

// mulRule: y = a b with broadcasting. abar = sum-to-a(conj(b) ybar),
// ydot = adot b + a bdot, abardot = sum-to-a(conj(bdot) ybar + conj(b) ybardot).
type mulRule struct {
	in         []cr.NodeID
	a, b       dense
	dropSecond bool // forgets the conj(bdot) ybar term
}

func (r *mulRule) Inputs() []cr.NodeID { return r.in }

// partial returns sum-to-like(conj(other) ybar).
func partial(other, ybar, like dense) (dense, error) {
	g, err := tensor.Mul(other.Conj(), ybar)
	if err != nil {
		return nil, err
	}
	return tensor.SumTo(g, like.Shape())
}

func (r *mulRule) Pullback(ybars []dense, _ []bool, dst []contrib) ([]contrib, error) {
	ybar := ybars[0]
	ga, err := partial(r.b, ybar, r.a)
	if err != nil {
		return dst, err
	}
	gb, err := partial(r.a, ybar, r.b)
	if err != nil {
		return dst, err
	}
	return append(dst, contrib{Node: r.in[0], Value: ga}, contrib{Node: r.in[1], Value: gb}), nil
}

func (r *mulRule) Forward(tan cr.TangentOf[dense], ydot []dense, has []bool) error {
	ad, okA := tan(r.in[0])
	bd, okB := tan(r.in[1])
	if !okA && !okB {
		return nil
	}
	var out dense
	add := func(x, y dense) error {
		t, err := tensor.Mul(x, y)
		if err != nil {
			return err
		}
		if out == nil {
			out = t
			return nil
		}
		out, err = tensor.Add(out, t)
		return err
	}
	if okA {
		if err := add(ad, r.b); err != nil {
			return err
		}
	}
	if okB {
		if err := add(r.a, bd); err != nil {
			return err
		}
	}
	ydot[0], has[0] = out, true
	return nil
}

func (r *mulRule) PullbackWithTangents(a cr.SecondOrderArgs[dense], dst []dcontr) ([]dcontr, error) {
	ct, tan := a.Cotangents[0], a.TangentOf
	one := func(self, other dense, otherID cr.NodeID) (dual, error) {
		v, err := partial(other, ct.Value, self)
		if err != nil {
			return dual{}, err
		}
		t := tensor.New(self.DType(), self.Shape()...)
		if ct.HasTangent {
			p, err := partial(other, ct.Tangent, self)
			if err != nil {
				return dual{}, err
			}
			t = p
		}
		if od, ok := tan(otherID); ok && !r.dropSecond {
			p, err := partial(od, ct.Value, self)
			if err != nil {
				return dual{}, err
			}
			if t, err = tensor.Add(t, p); err != nil {
				return dual{}, err
			}
		}
		return dual{Value: v, Tangent: t, HasTangent: true}, nil
	}
	da, err := one(r.a, r.b, r.in[1])
	if err != nil {
		return dst, err
	}
	db, err := one(r.b, r.a, r.in[0])
	if err != nil {
		return dst, err
	}
	return append(dst, dcontr{Node: r.in[0], Cotangent: da}, dcontr{Node: r.in[1], Cotangent: db}), nil
}

func mulOp(dropSecond bool) cr.Op[dense] {
	return cr.OpFunc[dense]{OpName: "mul", F: func(in []cr.NodeID, x []dense) (dense, cr.Rule[dense], error) {
		y, err := tensor.Mul(x[0], x[1])
		if err != nil {
			return nil, nil, err
		}
		return y, &mulRule{in: slices.Clone(in), a: x[0], b: x[1], dropSecond: dropSecond}, nil
	}}
}

// sumRule: y = sum of x over axes (kept as size 1, then reshaped to the output).
// xbar = ybar broadcast back; linear, so xbardot = ybardot broadcast back.
type sumRule struct {
	in    []cr.NodeID
	shape []int // input shape
	kept  []int // output shape with the reduced axes kept as 1
	out   []int // output shape
}

func (r *sumRule) Inputs() []cr.NodeID { return r.in }

func (r *sumRule) spread(ybar dense) (dense, error) {
	k, err := ybar.Reshape(r.kept...)
	if err != nil {
		return nil, err
	}
	b, err := k.BroadcastTo(r.shape...)
	if err != nil {
		return nil, err
	}
	return b.Clone(), nil
}

func (r *sumRule) Pullback(ybars []dense, _ []bool, dst []contrib) ([]contrib, error) {
	ybar := ybars[0]
	g, err := r.spread(ybar)
	return append(dst, contrib{Node: r.in[0], Value: g}), err
}

func (r *sumRule) Forward(tan cr.TangentOf[dense], ydot []dense, has []bool) error {
	xd, ok := tan(r.in[0])
	if !ok {
		return nil
	}
	s, err := tensor.SumTo(xd, r.kept)
	if err != nil {
		return err
	}
	y, err := s.Reshape(r.out...)
	if err != nil {
		return err
	}
	ydot[0], has[0] = y.Clone(), true
	return nil
}

func (r *sumRule) PullbackWithTangents(a cr.SecondOrderArgs[dense], dst []dcontr) ([]dcontr, error) {
	ct := a.Cotangents[0]
	v, err := r.spread(ct.Value)
	if err != nil {
		return dst, err
	}
	d := dual{Value: v}
	if ct.HasTangent {
		if d.Tangent, err = r.spread(ct.Tangent); err != nil {
			return dst, err
		}
		d.HasTangent = true
	}
	return append(dst, dcontr{Node: r.in[0], Cotangent: d}), nil
}

// sumOp sums over axes; keepdim keeps them as size 1.
func sumOp(axes []int, keepdim bool) cr.Op[dense] {
	return cr.OpFunc[dense]{OpName: "sum", F: func(in []cr.NodeID, x []dense) (dense, cr.Rule[dense], error) {
		shape := x[0].Shape()
		kept, out := slices.Clone(shape), []int{}
		for k, d := range shape {
			if slices.Contains(axes, k) {
				kept[k] = 1
				if keepdim {
					out = append(out, 1)
				}
				continue
			}
			out = append(out, d)
		}
		s, err := tensor.SumTo(x[0], kept)
		if err != nil {
			return nil, nil, err
		}
		y, err := s.Reshape(out...)
		if err != nil {
			return nil, nil, err
		}
		return y.Clone(), &sumRule{in: slices.Clone(in), shape: slices.Clone(shape), kept: kept, out: out}, nil
	}}
}
