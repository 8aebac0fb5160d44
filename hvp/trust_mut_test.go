package hvp_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/optimize"

	"github.com/chainrules-go/chainrules/hvp"
)

// quartic is f(x) = -x + x^2 + 3.5 x^4, whose Newton step from 0 is p = 1/2 with
// predicted reduction 1/4 and actual reduction 1/32: rho = 1/8 exactly (every
// value is a short binary fraction).
var quartic = optimize.Problem{
	Func: func(x []float64) float64 { return -x[0] + x[0]*x[0] + 3.5*x[0]*x[0]*x[0]*x[0] },
	Grad: func(g, x []float64) { g[0] = -1 + 2*x[0] + 14*x[0]*x[0]*x[0] },
}

func quarticHessVec(dst, x, v []float64) error {
	dst[0] = (2 + 42*x[0]*x[0]) * v[0]
	return nil
}

// A step is accepted when rho exceeds Eta: rho = Eta is a rejection.
func TestTrustRegionRejectsRhoEqualToEta(t *testing.T) {
	for _, c := range []struct {
		eta      float64
		rejected int
		x        float64
	}{{0.125, 1, 0}, {0.124, 0, 0.5}} {
		m := &hvp.NewtonCG{Eta: c.eta, MaxIterations: 1, HessVec: quarticHessVec}
		res, err := optimize.Minimize(quartic, []float64{0}, nil, m)
		require.ErrorIs(t, err, optimize.IterationLimit.Err(), "Eta %v", c.eta)
		assert.Equal(t, c.rejected, m.Rejected, "Eta %v", c.eta)
		assert.Equal(t, []float64{c.x}, res.X, "Eta %v", c.eta)
	}
}
