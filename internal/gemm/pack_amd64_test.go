//go:build amd64 && !noasm

package gemm

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkPackTransB packs a transposed 128x64 B (attention's K) into 24-wide
// panels as the direct path does, with the AVX-512 transpose and with the Go loop.
func BenchmarkPackTransB(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, k = 128, 64
	src, dst := randSlice(rng, n*k), make([]float64, (n/24+1)*24*k)
	saved := hasAVX512
	defer func() { hasAVX512 = saved }()
	for _, asm := range []bool{true, false} {
		name := "go"
		if asm {
			if !saved {
				continue
			}
			name = "avx512"
		}
		b.Run(name, func(b *testing.B) {
			hasAVX512 = asm
			for b.Loop() {
				packTransB(dst, src, k, n, k)
			}
		})
	}
}
