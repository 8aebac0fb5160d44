package main

import (
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

// Training with the penalty brings the critic's gradient norm on interpolates near
// 1 and its distance estimate near the clouds' W1 = 3; it starts far from both.
func TestGradientPenalty(t *testing.T) {
	res, err := run(io.Discard, 128, 400)
	require.NoError(t, err)
	require.InDelta(t, 1, res.GradNorm, 0.3)
	require.InDelta(t, 3, res.Distance, 0.8)
}
