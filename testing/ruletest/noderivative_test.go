package ruletest_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

// signRule is the rule of the non-differentiable y = sign(x): every method fails
// with err (a zero gradient when err is nil, the silent zero the check rejects).
type signRule struct {
	in  []cr.NodeID
	err error
}

func (r *signRule) Inputs() []cr.NodeID { return r.in }

func (r *signRule) Pullback(_ []float64, _ []bool, dst []cr.Contribution[float64]) ([]cr.Contribution[float64], error) {
	if r.err != nil {
		return dst, r.err
	}
	return append(dst, cr.Contribution[float64]{Node: r.in[0]}), nil
}

func (r *signRule) Forward(_ cr.TangentOf[float64], ydot []float64, has []bool) error {
	if r.err != nil {
		return r.err
	}
	ydot[0], has[0] = 0, true
	return nil
}

func (r *signRule) PullbackWithTangents(_ cr.SecondOrderArgs[float64], dst []cr.DualContribution[float64]) ([]cr.DualContribution[float64], error) {
	if r.err != nil {
		return dst, r.err
	}
	return append(dst, cr.DualContribution[float64]{Node: r.in[0], Cotangent: cr.Dual[float64]{HasTangent: true}}), nil
}

func signOp(err error) cr.Op[float64] {
	return cr.OpFunc[float64]{OpName: "sign", F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
		return math.Copysign(1, x[0]), &signRule{in: append([]cr.NodeID(nil), in...), err: err}, nil
	}}
}

// An entry marked NoDerivative passes when every derivative through it fails with
// ErrNoRule, and fails the no-derivative check when one of them succeeds (a zero
// gradient, or a differentiable op marked by mistake) or fails with another error.
func TestNoDerivativeEntries(t *testing.T) {
	entry := func(op cr.Op[float64]) *cr.Registry[float64] {
		reg := cr.NewRegistry[float64]()
		require.NoError(t, reg.Register(cr.Entry[float64]{Name: op.Name(), Arity: 1, DTypes: []string{"float64"},
			Forward: true, SecondOrder: true, NoDerivative: true,
			Samples: func(rng *rand.Rand) []cr.Sample[float64] {
				return []cr.Sample[float64]{{Name: "random", Op: op, Inputs: []float64{rng.NormFloat64()}}}
			}}))
		return reg
	}
	noRule := cr.Errorf(cr.ErrNoRule, "sign is not differentiable")
	ruletest.CheckRegistry(t, cr.Float64Space{}, entry(signOp(noRule)), ruletest.Config{})
	for _, tc := range []struct {
		name string
		op   cr.Op[float64]
		text string
	}{
		{"zero gradient", signOp(nil), "Pullback succeeded"},
		{"another error", signOp(cr.Errorf(cr.ErrInvalidArgument, "no")), "does not wrap ErrNoRule"},
		{"differentiable", sinOp(nil), "Tape.BackwardSeed succeeded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ruletest.VerifyRegistry(cr.Float64Space{}, entry(tc.op), ruletest.Config{})
			require.Error(t, err)
			assert.Equal(t, []string{ruletest.CheckNoDerivative}, failedChecks(t, err))
			assert.Contains(t, err.Error(), tc.text)
		})
	}
}
