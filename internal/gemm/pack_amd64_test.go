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

// packPanels packs across micro-panels a storage row at a time
// (packAcrossRowsAsm) into the values that it writes a panel at a time
// (packAcrossAsm and the Go loop), for float32 and float64, panel widths of one
// and of several 32-byte chunks, blocks of one, two and more full panels with
// and without a partial last one, and offsets into the source.
func TestPackAcrossRows(t *testing.T) {
	testPackAcrossRows[float32](t, []int{8, 48})
	testPackAcrossRows[float64](t, []int{8, 24})
}

func testPackAcrossRows[R float](t *testing.T, widths []int) {
	rng := rand.New(rand.NewPCG(3, 4))
	defer func() { packAcrossRows = true }()
	for _, w := range widths {
		for _, nb := range []int{w, 2 * w, 2*w + 3, 5*w + w/2, 7 * w} {
			for _, kb := range []int{1, 5, 64} {
				const i0, p0 = 3, 2
				ld := i0 + nb + 5
				x := make([]R, (p0+kb)*ld)
				for i := range x {
					x[i] = R(rng.NormFloat64())
				}
				size := roundUp(nb, w) * kb
				var got, want []R
				for _, rows := range []bool{true, false} {
					dst := make([]R, size+7)
					for i := range dst {
						dst[i] = -1e30
					}
					packAcrossRows = rows
					packPanels(dst, w, x, ld, true, i0, nb, p0, kb)
					if rows {
						got = dst
					} else {
						want = dst
					}
				}
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("%T w=%d nb=%d kb=%d: dst[%d] = %v row by row, %v panel by panel", R(0), w, nb, kb, i, got[i], want[i])
					}
				}
			}
		}
	}
}
