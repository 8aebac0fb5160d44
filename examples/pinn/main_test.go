package main

import (
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chainrules-go/chainrules/examples/internal/nets"
	"github.com/chainrules-go/chainrules/hvp"
)

// A short run already halves the error of the untrained network, and writes the
// plots.
func TestPINNLearns(t *testing.T) {
	cfg := defaultConfig
	cfg.Points, cfg.Boundary, cfg.Iterations, cfg.Grid = 128, 64, 60, 16
	res, err := run(io.Discard, cfg)
	require.NoError(t, err)
	require.Less(t, res.Loss, res.InitialLoss/10)
	require.Less(t, res.RelErr, 0.5)
	dir := t.TempDir()
	require.NoError(t, writePlots(dir, res))
	for _, name := range []string{"pinn-solution.png", "pinn-error.png"} {
		st, err := os.Stat(filepath.Join(dir, name))
		require.NoError(t, err)
		require.Greater(t, st.Size(), int64(1000))
	}
}

// BenchmarkLossGradient is one evaluation of the PINN loss and its gradient with
// respect to the weights (1024 interior and 256 boundary points, a 2-32-32-1 tanh
// network): a recording with two recorded gradients inside, then a reverse sweep.
// bench/peers.py times the same computation in PyTorch (create_graph=True).
func BenchmarkLossGradient(b *testing.B) {
	cfg := defaultConfig
	rng := rand.New(rand.NewPCG(cfg.Seed, 7))
	P, Q := points(rng, cfg.Points), boundary(rng, cfg.Boundary)
	params := nets.XavierUniform(rng, cfg.Widths)
	L := loss(P, Q)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := hvp.Grad(L, params); err != nil {
			b.Fatal(err)
		}
	}
}
