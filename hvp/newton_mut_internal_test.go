package hvp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// With negative curvature along -g at the first inner iteration, the line search
// direction is steepest descent scaled to the Newton step of |curvature|:
// p = -(|g|^2 / |g^T H g|) g. For H = -2 I and g = (-2, 1) that is -g / 2.
func TestNewtonDirectionNegativeCurvatureScale(t *testing.T) {
	hv := func(dst, _, v []float64) error {
		for i := range v {
			dst[i] = -2 * v[i]
		}
		return nil
	}
	s := newSteihaug(2)
	p := make([]float64, 2)
	iters, hvps, err := s.newtonDirection(p, []float64{0, 0}, []float64{-2, 1}, 10, hv)
	require.NoError(t, err)
	assert.Equal(t, 1, iters)
	assert.Equal(t, 1, hvps)
	assert.Equal(t, []float64{1, -0.5}, p)
}
