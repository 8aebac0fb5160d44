package hvp

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"
)

// The trust radius after a step of length |p| in a region of radius Delta, with
// ratio rho: |p|/4 when rho < 1/4, min(2 Delta, Dmax) when rho > 3/4 at the boundary
// (|p| >= 0.99 Delta), Delta otherwise.
func TestNextRadius(t *testing.T) {
	inf := math.Inf(1)
	cases := []struct {
		name                          string
		radius, maxRadius, rho, pnorm float64
		want                          float64
	}{
		{"poor ratio shrinks to a quarter of the step", 1, 10, 0.1, 0.4, 0.1},
		{"poor ratio at the boundary", 2, 10, 0.2, 2, 0.5},
		{"increase of f", 1, 10, -3, 1, 0.25},
		{"trial point that is not finite", 8, 10, -inf, 8, 2},
		{"ratio 1/4 is not poor", 1, 10, 0.25, 1, 1},
		{"middling ratio at the boundary", 1, 10, 0.5, 1, 1},
		{"ratio 3/4 is not good", 1, 10, 0.75, 1, 1},
		{"good ratio at the boundary grows", 1, 10, 0.9, 1, 2},
		{"good ratio at the boundary up to rounding", 1, 10, 0.9, 0.995, 2},
		{"good ratio inside the region", 1, 10, 0.9, 0.5, 1},
		{"good ratio just inside the 0.99 margin", 1, 10, 1, 0.98, 1},
		{"growth stops at the largest radius", 6, 10, 0.9, 6, 10},
		{"value -Inf at the boundary grows", 1, 10, inf, 1, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, nextRadius(c.radius, c.maxRadius, c.rho, c.pnorm))
		})
	}
}

// A Steihaug-Toint solve of min g^T p + 1/2 p^T H p over |p| <= radius: where CG
// meets non-positive curvature, or its next iterate would leave the region, p goes
// to the boundary, |p| == radius, along the current direction (tau >= 0, so that p
// is a descent step); otherwise p is the CG iterate inside. The predicted reduction
// is m(0) - m(p) of the p returned.
func TestSteihaugBoundaryStep(t *testing.T) {
	diag := func(h ...float64) HessVecFunc {
		return func(dst, _, v []float64) error {
			for i := range v {
				dst[i] = h[i] * v[i]
			}
			return nil
		}
	}
	cases := []struct {
		name        string
		h           []float64 // H = diag(h)
		g           []float64
		radius      float64
		boundary    bool      // |p| == radius
		nonPositive bool      // stopped at non-positive curvature
		want        []float64 // p, if known in closed form
		iters       int       // the CG iterations, if not 1
	}{
		{"negative curvature along -g", []float64{-1, -1}, []float64{3, 4}, 2, true, true, []float64{-1.2, -1.6}, 0},
		{"zero curvature along -g", []float64{0, 0}, []float64{1, 1}, 3, true, true,
			[]float64{-3 / math.Sqrt2, -3 / math.Sqrt2}, 0},
		// d0 = -g has d0^T H d0 = 3 > 0 and the CG iterate p1 = -(5/3) g stays inside;
		// the next direction has negative curvature and p leaves p1 along it.
		{"negative curvature at the second direction", []float64{1, -1}, []float64{2, 1}, 10, true, true, nil, 2},
		{"Newton step outside the region", []float64{1, 1}, []float64{3, 4}, 1, true, false, []float64{-0.6, -0.8}, 0},
		// |p|^2 = 5 exceeds the radius 3 but |p| does not: the test is on squares.
		{"Newton step inside the region", []float64{2, 2}, []float64{2, 4}, 3, false, false, []float64{-1, -2}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := len(c.g)
			s := newSteihaug(n)
			p := make([]float64, n)
			pred, iters, hvps, err := s.solve(p, make([]float64, n), c.g, c.radius, 10, diag(c.h...))
			require.NoError(t, err)
			assert.Equal(t, max(c.iters, 1), iters)
			assert.Equal(t, iters, hvps)
			pnorm := floats.Norm(p, 2)
			if c.boundary {
				assert.InDelta(t, c.radius, pnorm, 1e-14*c.radius, "p = %v on the boundary", p)
			} else {
				assert.Less(t, pnorm, c.radius, "p = %v inside", p)
			}
			assert.Equal(t, c.nonPositive, s.nonPositive)
			if c.want != nil {
				assert.InDeltaSlice(t, c.want, p, 1e-14)
			}
			assert.Negative(t, floats.Dot(c.g, p), "p = %v is a descent step", p)
			// m(0) - m(p) = -(g.p + 1/2 p.Hp), from p itself.
			m := floats.Dot(c.g, p)
			for i := range p {
				m += 0.5 * c.h[i] * p[i] * p[i]
			}
			assert.Positive(t, pred)
			assert.InDelta(t, -m, pred, 1e-12*math.Abs(m))
		})
	}
}
