package main

import (
	"encoding/json"
	"fmt"
	"math/rand"
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
