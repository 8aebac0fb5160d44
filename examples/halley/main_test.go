package main

import (
	"io"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// Halley's method, with F”' from nested recorded gradients, solves Kepler's
// equation to the last digits, in fewer steps than Newton's.
func TestKepler(t *testing.T) {
	for _, c := range []struct{ e, m float64 }{{0.9, 0.5}, {0.2, 2}, {0.99, 0.1}} {
		E, err := run(io.Discard, c.e, c.m)
		require.NoError(t, err)
		require.InDelta(t, c.m, E-c.e*math.Sin(E), 1e-14)
		f := potential(c.e, c.m)
		_, hs, err := solve(f, c.m, halley)
		require.NoError(t, err)
		_, ns, err := solve(f, c.m, newton)
		require.NoError(t, err)
		require.Less(t, len(hs), len(ns), "e = %v, M = %v", c.e, c.m)
	}
	_, err := run(io.Discard, 1, 0.5)
	require.Error(t, err)
}
