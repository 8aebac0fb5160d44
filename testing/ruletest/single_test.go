package ruletest_test

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

// faultySingle wraps an op and spoils its single-precision applications the way
// fault says, so that CheckSingle's checks can be seen to fail.
type faultySingle struct {
	cr.Op[*tensor.Dense]
	fault string
}

func (o faultySingle) Apply(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	r, err := o.Op.Apply(in, x, y)
	if err != nil || !x[0].DType().IsSingle() {
		return r, err
	}
	switch o.fault {
	case "primal":
		y[0] = tensor.Scale(y[0], 1.001)
	case "primal-dtype":
		y[0], _ = tensor.AsType(y[0], tensor.Float64)
	}
	return faultyRule{Rule: r, fault: o.fault}, nil
}

type faultyRule struct {
	cr.Rule[*tensor.Dense]
	fault string
}

func (r faultyRule) Pullback(ybar []*tensor.Dense, has []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	dst, err := r.Rule.Pullback(ybar, has, dst)
	if err == nil {
		switch r.fault {
		case "pullback":
			dst[0].Value = tensor.Scale(dst[0].Value, 1.001)
		case "pullback-dtype":
			dst[0].Value, _ = tensor.AsType(dst[0].Value, tensor.Float64)
		}
	}
	return dst, err
}

func (r faultyRule) Forward(tan cr.TangentOf[*tensor.Dense], ydot []*tensor.Dense, has []bool) error {
	err := r.Rule.(cr.ForwardRule[*tensor.Dense]).Forward(tan, ydot, has)
	if err == nil && r.fault == "forward" {
		ydot[0] = tensor.Scale(ydot[0], -1)
	}
	return err
}

func (r faultyRule) PullbackWithTangents(a cr.SecondOrderArgs[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	dst, err := r.Rule.(cr.SecondOrderRule[*tensor.Dense]).PullbackWithTangents(a, dst)
	if err == nil && r.fault == "second-order" {
		dst[0].Cotangent.Tangent = tensor.Scale(dst[0].Cotangent.Tangent, 1.01)
	}
	return dst, err
}

// CheckSingle passes elementwise tanh in float32 and complex64, and each fault of a
// single-precision rule (a wrong value or a wrong dtype of the output, the
// cotangent, the output tangent or the second-order tangent) fails the check that
// names it.
func TestCheckSingle(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Complex64} {
		x := tensor.RandN(rng, dt, 3, 4)
		ruletest.CheckSingle(t, tensor.Space{}, elementwise.TanhOp, []*tensor.Dense{x}, ruletest.SingleConfig{})
	}
	x := tensor.RandN(rng, tensor.Float32, 5)
	for fault, check := range map[string]string{
		"primal": "single-primal", "primal-dtype": "single-primal",
		"pullback": "single-pullback", "pullback-dtype": "single-pullback",
		"forward": "single-forward", "second-order": "single-second-order",
	} {
		op := faultySingle{Op: elementwise.TanhOp, fault: fault}
		err := ruletest.VerifySingle(tensor.Space{}, op, []*tensor.Dense{x}, ruletest.SingleConfig{SkipDouble: true})
		if assert.Error(t, err, fault) {
			assert.True(t, errors.Is(err, ruletest.ErrCheckFailed), fault)
			assert.True(t, strings.Contains(err.Error(), check), "%s: %v", fault, err)
		}
	}
	// A space without Widen cannot run the checks.
	err := ruletest.VerifySingle[float64](cr.Float64Space{}, sinOp(nil), []float64{1}, ruletest.SingleConfig{})
	require.ErrorIs(t, err, ruletest.ErrCheckFailed)
}
