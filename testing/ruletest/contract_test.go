package ruletest_test

import (
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

// tensor.Space gives the checker element access without ruletest knowing the type.
var _ ruletest.ElementSpace[*tensor.Dense] = tensor.Space{}

// ---- masked ops ----

// maskedMul is a*b as a cr.MaskedOp: ApplyMasked leaves the unneeded input out of
// every rule. wrong makes the masked rule's cotangent of b wrong when a is not
// needed.
type maskedMul struct{ wrong bool }

func (maskedMul) Name() string    { return "maskedmul" }
func (maskedMul) NumOutputs() int { return 1 }

func (o maskedMul) Apply(in []cr.NodeID, x, y []float64) (cr.Rule[float64], error) {
	return mulOp(nil).Apply(in, x, y)
}

func (o maskedMul) ApplyMasked(in []cr.NodeID, x, y []float64, need []bool) (cr.Rule[float64], error) {
	r := &maskedMulRule{in: slices.Clone(in), a: x[0], b: x[1], need: slices.Clone(need)}
	if o.wrong && !need[0] {
		r.a *= 2
	}
	y[0] = x[0] * x[1]
	return r, nil
}

type maskedMulRule struct {
	in   []cr.NodeID
	a, b float64
	need []bool
}

func (r *maskedMulRule) Inputs() []cr.NodeID { return r.in }

func (r *maskedMulRule) Pullback(ybar []float64, _ []bool, dst []cr.Contribution[float64]) ([]cr.Contribution[float64], error) {
	if r.need[0] {
		dst = append(dst, cr.Contribution[float64]{Node: r.in[0], Value: r.b * ybar[0]})
	}
	if r.need[1] {
		dst = append(dst, cr.Contribution[float64]{Node: r.in[1], Value: r.a * ybar[0]})
	}
	return dst, nil
}

func (r *maskedMulRule) Forward(tan cr.TangentOf[float64], ydot []float64, has []bool) error {
	var y float64
	any := false
	if d, ok := tan(r.in[0]); ok && r.need[0] {
		y, any = y+d*r.b, true
	}
	if d, ok := tan(r.in[1]); ok && r.need[1] {
		y, any = y+r.a*d, true
	}
	ydot[0], has[0] = y, any
	return nil
}

func (r *maskedMulRule) PullbackWithTangents(a cr.SecondOrderArgs[float64], dst []cr.DualContribution[float64]) ([]cr.DualContribution[float64], error) {
	ct, tan := a.Cotangents[0], a.TangentOf
	ad, _ := tan(r.in[0])
	bd, _ := tan(r.in[1])
	yd := 0.0
	if ct.HasTangent {
		yd = ct.Tangent
	}
	if r.need[0] {
		dst = append(dst, cr.DualContribution[float64]{Node: r.in[0], Cotangent: cr.Dual[float64]{Value: r.b * ct.Value, Tangent: bd*ct.Value + r.b*yd, HasTangent: true}})
	}
	if r.need[1] {
		dst = append(dst, cr.DualContribution[float64]{Node: r.in[1], Cotangent: cr.Dual[float64]{Value: r.a * ct.Value, Tangent: ad*ct.Value + r.a*yd, HasTangent: true}})
	}
	return dst, nil
}

// ---- ops that keep the slices Apply is given ----

// keepIn's rule keeps the slice in.
var keepIn = cr.OpFunc[float64]{OpName: "keepin", F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
	s, c := math.Sincos(x[0])
	return s, &scalarRule{in: in, d1: c, d2: -s}, nil
}}

// keepXRule reads x through the slice Apply was given.
type keepXRule struct {
	in []cr.NodeID
	x  []float64
}

func (r keepXRule) Inputs() []cr.NodeID { return r.in }
func (r keepXRule) Pullback(ybar []float64, _ []bool, dst []cr.Contribution[float64]) ([]cr.Contribution[float64], error) {
	return append(dst, cr.Contribution[float64]{Node: r.in[0], Value: math.Cos(r.x[0]) * ybar[0]}), nil
}

var keepX = cr.OpFunc[float64]{OpName: "keepx", F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
	return math.Sin(x[0]), keepXRule{in: slices.Clone(in), x: x}, nil
}}

// ---- kinks ----

// xAbsX is x|x|: f' = 2|x| has a kink at 0, where the documented f” is 0 (the
// one-sided values are -2 and 2). wrong takes the right-hand value 2.
func xAbsX(wrong bool) cr.Op[float64] {
	return cr.OpFunc[float64]{OpName: "xabsx", F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
		d2 := 2 * math.Copysign(1, x[0])
		if x[0] == 0 {
			d2 = 0
			if wrong {
				d2 = 2
			}
		}
		return x[0] * math.Abs(x[0]), &scalarRule{in: slices.Clone(in), d1: 2 * math.Abs(x[0]), d2: d2}, nil
	}}
}

// reluMixed is relu whose Pullback takes the subgradient 0 at 0 and whose
// PullbackWithTangents takes 1 for the ybardot term: two conventions in one rule.
type reluMixedRule struct{ scalarRule }

func (r *reluMixedRule) PullbackWithTangents(a cr.SecondOrderArgs[float64], dst []cr.DualContribution[float64]) ([]cr.DualContribution[float64], error) {
	ct := a.Cotangents[0]
	yd := 0.0
	if ct.HasTangent {
		yd = ct.Tangent
	}
	return append(dst, cr.DualContribution[float64]{Node: r.in[0], Cotangent: cr.Dual[float64]{Value: r.d1 * ct.Value, Tangent: yd, HasTangent: true}}), nil
}

var reluMixed = cr.OpFunc[float64]{OpName: "relu", F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
	d := 0.0
	if x[0] > 0 {
		d = 1
	}
	return max(x[0], 0), &reluMixedRule{scalarRule{in: slices.Clone(in), d1: d}}, nil
}}

// reluFirstOrder is relu without the optional rules.
var reluFirstOrder = cr.OpFunc[float64]{OpName: "relu", F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
	y := make([]float64, 1)
	r, err := reluOp(false).Apply(in, x, y)
	return y[0], firstOrder[float64]{r}, err
}}

var (
	reluKink = &ruletest.Kink[float64]{
		Reason:   "relu at 0: subgradient 0",
		Pullback: func(float64) ([]float64, error) { return []float64{0}, nil },
		JVP:      func([]float64) (float64, error) { return 0, nil },
	}
	xAbsXKink = &ruletest.Kink[float64]{
		Reason:   "x|x| at 0: f'' taken as 0",
		Pullback: func(float64) ([]float64, error) { return []float64{0}, nil },
		JVP:      func([]float64) (float64, error) { return 0, nil },
		// xbardot = f'(0) ybardot + f''(0) xdot ybar = 0.
		SecondOrder: func(_, _ float64, _ []float64) ([]float64, error) { return []float64{0}, nil },
	}
)

// ---- PullbackWithTangents whose cotangent disagrees with Pullback ----

// wrongValueRule is sin whose PullbackWithTangents returns a wrong cotangent (the
// right tangent): Pullback is right.
type wrongValueRule struct{ scalarRule }

func (r *wrongValueRule) PullbackWithTangents(a cr.SecondOrderArgs[float64], dst []cr.DualContribution[float64]) ([]cr.DualContribution[float64], error) {
	dst, err := r.scalarRule.PullbackWithTangents(a, dst)
	if err == nil {
		dst[len(dst)-1].Cotangent.Value *= 2
	}
	return dst, err
}

var sinWrongValue = cr.OpFunc[float64]{OpName: "sin", F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
	s, c := math.Sincos(x[0])
	return s, &wrongValueRule{scalarRule{in: slices.Clone(in), d1: c, d2: -s}}, nil
}}

func TestContractMutantsAreCaught(t *testing.T) {
	cfg := ruletest.Config{}
	tests := []struct {
		name   string
		verify func() error
		want   []string // exactly the checks that fail
	}{
		{"masked rule wrong when a is not needed", verifyF(maskedMul{wrong: true}, []float64{1.3, -0.4}, cfg),
			[]string{ruletest.CheckMasked}},
		{"rule keeps the slice in", verifyF(keepIn, []float64{0.7}, cfg),
			[]string{ruletest.CheckRetain}},
		{"rule keeps the slice x", verifyF(keepX, []float64{0.7}, cfg),
			[]string{ruletest.CheckRetain}},
		{"second-order rule with another convention at the kink", verifyF(reluMixed, []float64{0}, ruletest.Config{Kink: reluKink}),
			[]string{ruletest.CheckKink}},
		{"wrong second derivative at the kink", verifyF(xAbsX(true), []float64{0}, ruletest.Config{Kink: xAbsXKink}),
			[]string{ruletest.CheckKink}},
		{"Kink.SecondOrder for a rule without PullbackWithTangents", verifyF(reluFirstOrder, []float64{0}, ruletest.Config{Kink: &ruletest.Kink[float64]{
			Reason:      "relu at 0: subgradient 0",
			SecondOrder: func(_, _ float64, _ []float64) ([]float64, error) { return []float64{0}, nil },
		}}), []string{ruletest.CheckKink}},
		// Structure fails and every other check still runs: adjoint-fd passes, so
		// Pullback is right and PullbackWithTangents is the wrong one.
		{"PullbackWithTangents cotangent wrong", verifyF(sinWrongValue, []float64{0.7}, cfg),
			[]string{ruletest.CheckStructure}},
		// The other way round: adjoint-fd fails too, so Pullback is the wrong one.
		{"Pullback wrong, PullbackWithTangents right", verifyF(sinOp(func(r *scalarRule) { r.signFlip = true }), []float64{0.7}, cfg),
			[]string{ruletest.CheckAdjointFD, ruletest.CheckForwardAdjoint, ruletest.CheckSecondOrderFD, ruletest.CheckStructure}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.verify()
			require.Error(t, err, "the mutant passed every check")
			want := slices.Clone(tc.want)
			slices.Sort(want)
			assert.Equal(t, want, failedChecks(t, err), "%v", err)
			t.Log(err)
		})
	}
}

func TestContractCorrectRulesPass(t *testing.T) {
	tests := []struct {
		name   string
		verify func() error
	}{
		{"masked op", verifyF(maskedMul{}, []float64{1.3, -0.4}, ruletest.Config{})},
		{"composite op (a MaskedOp)", verifyF(core.Composite("musin", cr.Float64Space{}, 2, func(t *core.Tape[float64], x []cr.NodeID) []cr.NodeID {
			return []cr.NodeID{t.Apply(mulOp(nil), t.Apply(plainOp, x[0]), x[1])}
		}), []float64{1.3, -0.4}, ruletest.Config{FullJacobianMaxSize: 8})},
		{"x|x| at its kink with the documented second derivative", verifyF(xAbsX(false), []float64{0}, ruletest.Config{Kink: xAbsXKink})},
		{"relu at its kink, one convention throughout", verifyF(reluOp(false), []float64{0}, ruletest.Config{Kink: reluKink})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.NoError(t, tc.verify())
		})
	}
}

// The masked check reports one subtest per need pattern, and skips other ops.
func TestMaskedSubtests(t *testing.T) {
	ruletest.Check(t, cr.Float64Space{}, maskedMul{}, []float64{1.3, -0.4}, ruletest.Config{})
	err := ruletest.Verify(cr.Float64Space{}, maskedMul{wrong: true}, []float64{1.3, -0.4}, ruletest.Config{})
	require.Error(t, err)
	assert.ErrorContains(t, err, "ApplyMasked with need false for [x0]")
	assert.ErrorContains(t, err, "x1 float64[]")
}
