package main

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"testing"
)

// lstmBenchInput is an lstm input of l layers, c characters of b bits.
func lstmBenchInput(l, c, b int) json.RawMessage {
	rng := rand.New(rand.NewSource(1))
	mat := func(r, k int, bits bool) [][]float64 {
		m := make([][]float64, r)
		for i := range m {
			m[i] = make([]float64, k)
			for j := range m[i] {
				if bits {
					m[i][j] = float64(rng.Intn(2))
				} else {
					m[i][j] = rng.NormFloat64()
				}
			}
		}
		return m
	}
	b2, _ := json.Marshal(map[string]any{
		"main_params": mat(2*l, 4*b, false), "extra_params": mat(3, b, false),
		"state": mat(2*l, b, false), "sequence": mat(c, b, true),
		"min_runs": 1, "min_seconds": 0,
	})
	return b2
}

// BenchmarkLSTM times one evaluation of the lstm objective and of its
// Jacobian at l = 2, c = 1024, b = 7 (GradBench's smallest lstm size).
func BenchmarkLSTM(b *testing.B) {
	input := lstmBenchInput(2, 1024, 7)
	for _, fn := range []string{"objective", "jacobian"} {
		b.Run(fn, func(b *testing.B) {
			j, err := modules["lstm"][fn](input)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := j.run(); err != nil {
					b.Fatal(fmt.Sprint(err))
				}
			}
		})
	}
}

// benchJob times one evaluation of each function of an eval on one input.
func benchJob(b *testing.B, module string, input json.RawMessage, fns ...string) {
	for _, fn := range fns {
		b.Run(fn, func(b *testing.B) {
			j, err := modules[module][fn](input)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				if _, err := j.run(); err != nil {
					b.Fatal(fmt.Sprint(err))
				}
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkLSE times the lse primal and gradient at GradBench's smallest and
// largest sizes, n = 2500 and 1 280 000, at n = 10 000 and 160 000 (where the
// gradient's backward pass leaves the caches), and at n = 16, where both are
// the engine's fixed cost (recording, sweeping) and nothing else.
func BenchmarkLSE(b *testing.B) {
	for _, n := range []int{16, 2500, 10000, 160000, 1280000} {
		rng := rand.New(rand.NewSource(1))
		x := make([]float64, n)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		input, _ := json.Marshal(map[string]any{"x": x, "min_runs": 1, "min_seconds": 0})
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) { benchJob(b, "lse", input, "primal", "gradient") })
	}
}

// BenchmarkKMeans times the kmeans cost and dir at k = 100, n = 10 000, d = 8.
func BenchmarkKMeans(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	mat := func(r, c int) [][]float64 {
		m := make([][]float64, r)
		for i := range m {
			m[i] = make([]float64, c)
			for j := range m[i] {
				m[i][j] = rng.Float64()
			}
		}
		return m
	}
	for _, s := range [][3]int{{10, 1000, 8}, {100, 10000, 8}} {
		input, _ := json.Marshal(map[string]any{"points": mat(s[1], s[2]), "centroids": mat(s[0], s[2]), "min_runs": 1, "min_seconds": 0})
		b.Run(fmt.Sprintf("k=%d,n=%d,d=%d", s[0], s[1], s[2]), func(b *testing.B) { benchJob(b, "kmeans", input, "cost", "dir") })
	}
}

// BenchmarkHT times the ht objective and Jacobian on the input in the file
// named by $GRADBENCH_HT_INPUT (an evaluate message's input, such as one of
// GradBench's hand instances), or else on the first input of
// testdata/golden_ht.json (a synthetic 22-bone model).
func BenchmarkHT(b *testing.B) {
	var input json.RawMessage
	if path := os.Getenv("GRADBENCH_HT_INPUT"); path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		input = data
	} else {
		data, err := os.ReadFile("testdata/golden_ht.json")
		if err != nil {
			b.Fatal(err)
		}
		var g struct {
			Cases []struct {
				Input json.RawMessage `json:"input"`
			} `json:"cases"`
		}
		if err := json.Unmarshal(data, &g); err != nil || len(g.Cases) == 0 {
			b.Fatalf("golden_ht.json: %v", err)
		}
		input = g.Cases[0].Input
	}
	benchJob(b, "ht", input, "objective", "jacobian")
}

// BenchmarkLLSQ times the llsq primal and gradient at m = 128 and GradBench's
// smallest n, 16, and at n = 4096.
func BenchmarkLLSQ(b *testing.B) {
	for _, n := range []int{16, 4096} {
		rng := rand.New(rand.NewSource(1))
		x := make([]float64, 128)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		input, _ := json.Marshal(map[string]any{"x": x, "n": n, "min_runs": 1, "min_seconds": 0})
		b.Run(fmt.Sprintf("n=%d,m=128", n), func(b *testing.B) { benchJob(b, "llsq", input, "primal", "gradient") })
	}
}

// gmmBenchInput is a gmm input of d dimensions, k components and n points
// drawn like GradBench's generator (x and the parameters standard normal, mu
// uniform on [0, 1)), with m = 0 and gamma = 1.
func gmmBenchInput(d, k, n int) json.RawMessage {
	rng := rand.New(rand.NewSource(1))
	mat := func(r, c int, uniform bool) [][]float64 {
		m := make([][]float64, r)
		for i := range m {
			m[i] = make([]float64, c)
			for j := range m[i] {
				if uniform {
					m[i][j] = rng.Float64()
				} else {
					m[i][j] = rng.NormFloat64()
				}
			}
		}
		return m
	}
	input, _ := json.Marshal(map[string]any{
		"d": d, "k": k, "n": n, "x": mat(n, d, false), "m": 0, "gamma": 1.0,
		"alpha": mat(1, k, false)[0], "mu": mat(k, d, true), "q": mat(k, d, false),
		"l": mat(k, d*(d-1)/2, false), "min_runs": 1, "min_seconds": 0,
	})
	return input
}

// BenchmarkGMM times the gmm objective and Jacobian at n = 1000 and the sizes
// d = 2, 10, 20 by k = 5, 10, 25 that bench/gradbench/README.md reports.
func BenchmarkGMM(b *testing.B) {
	for _, d := range []int{2, 10, 20} {
		for _, k := range []int{5, 10, 25} {
			input := gmmBenchInput(d, k, 1000)
			b.Run(fmt.Sprintf("%d_%d_1000", d, k), func(b *testing.B) { benchJob(b, "gmm", input, "objective", "jacobian") })
		}
	}
}
