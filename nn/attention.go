package nn

import (
	"math"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/einsum"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/tensor"
)

// AttentionOption configures ScaledDotProductAttentionOp.
type AttentionOption func(*attnConfig)

type attnConfig struct {
	mask     *tensor.Dense
	boolMask []bool
	boolDims []int
	causal   bool
	dropoutP float64
	seed     uint64
	scale    float64
}

// AttnMask gives an additive float mask, added to the scaled scores q k^T/sqrt(E)
// before the softmax (PyTorch's float attn_mask; -Inf excludes a pair). Its shape
// broadcasts to the scores' [..., L, S]; a float32 mask is widened exactly. The
// mask is a parameter of the op and receives no cotangent.
func AttnMask(mask *tensor.Dense) AttentionOption {
	return func(c *attnConfig) {
		c.mask, c.boolMask = nil, nil
		if mask != nil {
			c.mask = widened(mask).Clone()
		}
	}
}

// AttnBoolMask gives a boolean mask of the given shape (row-major), which
// broadcasts to the scores' [..., L, S]: true marks the pairs that take part in
// the attention, as PyTorch's boolean attn_mask; false ones get the score -Inf.
func AttnBoolMask(keep []bool, shape ...int) AttentionOption {
	return func(c *attnConfig) {
		c.boolMask, c.boolDims, c.mask = append([]bool(nil), keep...), append([]int(nil), shape...), nil
	}
}

// IsCausal masks the pairs (i, j) with j > i (is_causal=True: the lower
// triangular mask tril(ones(L, S))). It cannot be combined with a mask.
func IsCausal() AttentionOption { return func(c *attnConfig) { c.causal = true } }

// AttnDropout applies dropout with probability p to the attention weights, its
// mask drawn from seed (see DropoutOp).
func AttnDropout(p float64, seed uint64) AttentionOption {
	return func(c *attnConfig) { c.dropoutP, c.seed = p, seed }
}

// AttnScale replaces the scale 1/sqrt(E) of the scores (PyTorch's scale=).
func AttnScale(s float64) AttentionOption { return func(c *attnConfig) { c.scale = s } }

// ScaledDotProductAttentionOp returns PyTorch 2's
// F.scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal) of
// q [..., L, E], k [..., S, E] and v [..., S, Ev] (the leading axes broadcast):
//
//	A = softmax(q k^T / sqrt(E) + M)  along S,   y = dropout(A) v   [..., L, Ev],
//
// with M the additive mask (AttnMask; AttnBoolMask as 0 where true and -Inf where
// false; IsCausal as -Inf above the diagonal; zero without one). The op is a
// composite of two einsums (GEMMs), the scaling, the masking, softmax and
// dropout (the scaling and the causal mask fused into the softmax when no other
// mask is given), so its rules are theirs and it reaches every order: with
// Abar = ybar v^T, the score cotangent Sbar = A (Abar - sum_S(A Abar)) gives
// qbar = Sbar k / sqrt(E), kbar = Sbar^T q / sqrt(E) and vbar = A^T ybar. A row
// whose every pair is masked gives NaN, as PyTorch's. A mask that does not
// broadcast to [..., L, S], a mask given with IsCausal, operands whose E or S
// differ, or a dropout probability outside [0, 1] are errors wrapping
// chainrules.ErrShapeMismatch or ErrInvalidArgument.
func ScaledDotProductAttentionOp(opts ...AttentionOption) cr.Op[*tensor.Dense] {
	const name = "scaled_dot_product_attention"
	var cfg attnConfig
	for _, o := range opts {
		o(&cfg)
	}
	body := func(t *core.Tape[*tensor.Dense], in []cr.NodeID) []cr.NodeID {
		q, _ := t.Value(in[0])
		e := q.Shape()[q.Rank()-1]
		scale := cfg.scale
		if scale == 0 {
			scale = 1 / math.Sqrt(float64(e))
		}
		scores := t.Apply(einsum.Op("...le,...se->...ls"), in[0], in[1])
		var a cr.NodeID
		if cfg.mask == nil && cfg.boolMask == nil {
			// The scaling and the causal mask inside the softmax, in one pass.
			a = t.Apply(scaledMaskedSoftmax(scale, cfg.causal), scores)
		} else {
			sc := t.Apply(elementwise.ScaleOp(scale), scores)
			sc = t.Apply(elementwise.AddOp, sc, t.Constant(cfg.additiveMask()))
			a = t.Apply(SoftmaxOp(-1), sc)
		}
		if cfg.dropoutP > 0 {
			a = t.Apply(DropoutOp(cfg.dropoutP, true, cfg.seed), a)
		}
		return []cr.NodeID{t.Apply(einsum.Op("...ls,...sv->...lv"), a, in[2])}
	}
	return checkedOp{
		Op:    core.Composite(name, tensor.Space{}, 3, body),
		check: func(x []*tensor.Dense) error { return cfg.check(name, x) },
	}
}

// ScaledDotProductAttention evaluates ScaledDotProductAttentionOp without a tape.
func ScaledDotProductAttention(q, k, v *tensor.Dense, opts ...AttentionOption) (*tensor.Dense, error) {
	return cr.Eval(ScaledDotProductAttentionOp(opts...), q, k, v)
}

// additiveMask returns the mask added to the scores: the float one, or the
// boolean one as 0 where true and -Inf where false (the causal mask is
// scaledMaskedSoftmax's).
func (c attnConfig) additiveMask() *tensor.Dense {
	if c.mask != nil {
		return c.mask
	}
	m := tensor.New(tensor.Float64, c.boolDims...)
	for i, keep := range c.boolMask {
		if !keep {
			m.Float64s()[i] = math.Inf(-1)
		}
	}
	return m
}

func (c attnConfig) check(name string, x []*tensor.Dense) error {
	if err := checkInputs(name, x, 3); err != nil {
		return err
	}
	if err := checkReal(name, x...); err != nil {
		return err
	}
	q, k, v := x[0], x[1], x[2]
	if q.Rank() < 2 || k.Rank() < 2 || v.Rank() < 2 {
		return cr.Errorf(cr.ErrInvalidArgument, "%s: q %s, k %s, v %s; want [..., L, E], [..., S, E], [..., S, Ev]", name, q.Describe(), k.Describe(), v.Describe())
	}
	qs, ks, vs := q.Shape(), k.Shape(), v.Shape()
	if qs[len(qs)-1] != ks[len(ks)-1] || ks[len(ks)-2] != vs[len(vs)-2] {
		return cr.Errorf(cr.ErrShapeMismatch, "%s: q %s, k %s, v %s; want [..., L, E], [..., S, E], [..., S, Ev]", name, q.Describe(), k.Describe(), v.Describe())
	}
	batch, err := tensor.BroadcastShapes(qs[:len(qs)-2], ks[:len(ks)-2], vs[:len(vs)-2])
	if err != nil {
		return cr.Errorf(cr.ErrShapeMismatch, "%s: the leading axes of q %s, k %s and v %s do not broadcast", name, q.Describe(), k.Describe(), v.Describe())
	}
	if !(c.dropoutP >= 0 && c.dropoutP <= 1) {
		return cr.Errorf(cr.ErrInvalidArgument, "%s: dropout_p = %v; want 0 <= dropout_p <= 1", name, c.dropoutP)
	}
	if c.causal && (c.mask != nil || c.boolMask != nil) {
		return cr.Errorf(cr.ErrInvalidArgument, "%s: a mask given with is_causal; give one of them", name)
	}
	mshape := c.boolDims
	if c.mask != nil {
		if c.mask.DType() != tensor.Float64 {
			return cr.Errorf(cr.ErrInvalidArgument, "%s: attn_mask is %s; want float64", name, c.mask.Describe())
		}
		mshape = c.mask.Shape()
	} else if c.boolMask != nil {
		size, err := tensor.ShapeSize(c.boolDims...)
		if err != nil || size != len(c.boolMask) {
			return cr.Errorf(cr.ErrShapeMismatch, "%s: boolean mask of %d values given the shape %v", name, len(c.boolMask), c.boolDims)
		}
	} else {
		return nil
	}
	scores := append(append([]int(nil), batch...), qs[len(qs)-2], ks[len(ks)-2])
	if b, err := tensor.BroadcastShapes(mshape, scores); err != nil || !equalInts(b, scores) {
		return cr.Errorf(cr.ErrShapeMismatch, "%s: attn_mask of shape %v does not broadcast to the scores' shape %v", name, mshape, scores)
	}
	return nil
}
