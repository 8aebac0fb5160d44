package main

import (
	"compress/gzip"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/optim"
)

const testData = "testdata/digits.csv.gz"

// A short run on 500 of the digits (a few seconds) takes both methods well above
// chance (10%) on the held-out images, and writes the plots.
func TestCNNLearns(t *testing.T) {
	cfg := defaultConfig
	cfg.Data, cfg.Limit, cfg.Epochs, cfg.NewtonIters = testData, 500, 5, 5
	var log strings.Builder
	res, err := run(&log, cfg)
	require.NoError(t, err, log.String())
	require.Equal(t, 500, res.Train.Len()+res.Test.Len())
	require.Len(t, res.Epochs, cfg.Epochs)
	require.Greater(t, res.Adam.TestAcc, 0.8, log.String())
	require.Greater(t, res.Adam.TrainAcc, 0.8, log.String())
	require.Less(t, res.Epochs[len(res.Epochs)-1].Loss, res.Epochs[0].Loss/2)
	require.NotNil(t, res.Newton)
	require.Equal(t, cfg.NewtonIters, res.Newton.Iterations)
	require.Greater(t, res.Newton.HVPs, 0)
	require.Greater(t, res.Newton.TestAcc, 0.7, log.String())
	require.Less(t, res.Trace[len(res.Trace)-1].Loss, 0.7*res.Trace[0].Loss)
	total := 0
	for _, row := range res.Confusion {
		for _, n := range row {
			total += n
		}
	}
	require.Equal(t, res.Test.Len(), total)
	// The non-terminal progress is one line per epoch.
	require.Equal(t, cfg.Epochs, strings.Count(log.String(), " left\n"))
	require.NotContains(t, log.String(), "\r")

	dir := t.TempDir()
	require.NoError(t, writePlots(dir, res))
	for _, name := range []string{"cnn-curves.png", "cnn-confusion.png", "cnn-methods.png"} {
		st, err := os.Stat(filepath.Join(dir, name))
		require.NoError(t, err)
		require.Greater(t, st.Size(), int64(1000))
	}
}

// The split is stratified: every class has its share of test images, none is in both
// sets, and the pixels are in [0, 1].
func TestSplit(t *testing.T) {
	pixels, labels, err := loadDigits(testData)
	require.NoError(t, err)
	require.Len(t, labels, 1797)
	require.Len(t, pixels, 64*1797)
	for _, v := range pixels {
		require.True(t, v >= 0 && v <= 1)
	}
	train, test := split(pixels, labels, 0.2, 0, rand.New(rand.NewPCG(1, 1)))
	require.Equal(t, 1797, train.Len()+test.Len())
	perClass := make([]int, 10)
	for _, y := range labels {
		perClass[y]++
	}
	testClass := make([]int, 10)
	for _, y := range test.Labels {
		testClass[y]++
	}
	for c := range 10 {
		require.InDelta(t, 0.2*float64(perClass[c]), float64(testClass[c]), 0.5, "class %d", c)
	}
	seen := map[string]bool{}
	for i := range train.Len() {
		x, _ := train.X.Slice(0, i, i+1, 1)
		seen[x.String()] = true
	}
	dup := 0
	for i := range test.Len() {
		x, _ := test.X.Slice(0, i, i+1, 1)
		if seen[x.String()] {
			dup++
		}
	}
	require.Less(t, dup, 5) // the digits hold a few repeated images, no more
}

// A missing file, a file that is not gzip, a malformed row and a bad configuration
// are errors, not panics.
func TestErrors(t *testing.T) {
	dir := t.TempDir()
	_, _, err := loadDigits(filepath.Join(dir, "none.csv.gz"))
	require.Error(t, err)
	_, _, err = loadDigits("main.go")
	require.ErrorContains(t, err, "gzip")
	for name, rows := range map[string]string{
		"pixel": "0," + strings.Repeat("17,", 63) + "3\n",
		"label": strings.Repeat("1,", 64) + "10\n",
		"short": "1,2,3\n",
	} {
		path := filepath.Join(dir, name+".csv.gz")
		f, err := os.Create(path)
		require.NoError(t, err)
		zw := gzip.NewWriter(f)
		_, err = zw.Write([]byte(rows))
		require.NoError(t, err)
		require.NoError(t, zw.Close())
		require.NoError(t, f.Close())
		_, _, err = loadDigits(path)
		require.Error(t, err, name)
	}
	for _, bad := range []func(*config){
		func(c *config) { c.Epochs = 0 },
		func(c *config) { c.BatchSize = 0 },
		func(c *config) { c.TestFrac = 1 },
		func(c *config) { c.Limit = 3 },
		func(c *config) { c.Curvature = "bfgs" },
	} {
		cfg := defaultConfig
		cfg.Data = testData
		bad(&cfg)
		var log strings.Builder
		_, err := run(&log, cfg)
		require.Error(t, err)
		require.Empty(t, log.String(), "the configuration is checked before any work")
	}
}

// BenchmarkAdamStep is one Adam step of the digits CNN on a minibatch of 64: the
// loss's gradient with respect to the parameter set (a recording and a reverse
// sweep), then the update. bench/peers.py (cnn) times the same step in PyTorch.
func BenchmarkAdamStep(b *testing.B) {
	pixels, labels, err := loadDigits(testData)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	train, _ := split(pixels, labels, 0.2, 0, rng)
	params, err := initParams(rng)
	if err != nil {
		b.Fatal(err)
	}
	batches, err := optim.NewBatches(train.X, train.Y, optim.BatchConfig{BatchSize: 64, Shuffle: true, Seed: 1, DropLast: true})
	if err != nil {
		b.Fatal(err)
	}
	opt, err := optim.NewAdam(params, optim.AdamConfig{LR: 1e-3})
	if err != nil {
		b.Fatal(err)
	}
	if !batches.Next() {
		b.Fatal("no batch")
	}
	x, y := batches.Batch()
	lab := make([]int, 64)
	for i, v := range y.Float64s() {
		lab[i] = int(v)
	}
	f := crossEntropy(x, lab, newNorms(), nil)
	var g hvp.Gradient
	b.ReportAllocs()
	for b.Loop() {
		_, grads, err := g.Grad(f, params)
		if err != nil {
			b.Fatal(err)
		}
		if err := opt.Step(grads); err != nil {
			b.Fatal(err)
		}
	}
}
