package vmath

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGatherRows32: GatherRows32 against the index expression, for row lengths
// with and without a tail of fewer than 16, padded row strides, and indices
// anywhere in src (its first and last element included); with the assembly
// kernel and without it.
func TestGatherRows32(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	src := make([]float32, 1000)
	for i := range src {
		src[i] = float32(i) + 0.5
	}
	saved := hasGather512
	defer func() { hasGather512 = saved }()
	for _, asm := range []bool{saved, false} {
		hasGather512 = asm
		for _, s := range [][2]int{{1, 16}, {3, 16}, {5, 17}, {4, 40}, {2, 5}, {7, 64}, {1, 1}} {
			rows, p := s[0], s[1]
			for _, pad := range []int{0, 3} {
				stride := p + pad
				idx := make([]int32, rows*p)
				for i := range idx {
					idx[i] = int32(rng.IntN(len(src)))
				}
				idx[0], idx[len(idx)-1] = 0, int32(len(src)-1)
				dst := make([]float32, rows*stride)
				for i := range dst {
					dst[i] = -1
				}
				GatherRows32(dst, stride, src, idx, rows, p)
				for r := range rows {
					for j := range stride {
						want := float32(-1)
						if j < p {
							want = src[idx[r*p+j]]
						}
						require.Equal(t, want, dst[r*stride+j], "asm=%v rows=%d p=%d stride=%d r=%d j=%d", asm, rows, p, stride, r, j)
					}
				}
			}
		}
	}
}

// TestGatherRows32Bounds: an index outside src, negative or past its end, in a
// block of 16 or in the tail, panics and loads nothing outside src; a short dst
// or idx panics too.
func TestGatherRows32Bounds(t *testing.T) {
	src := make([]float32, 64)
	for _, c := range []struct {
		name string
		at   int
		v    int32
	}{{"past the end, first block", 3, 64}, {"negative, second block", 20, -1}, {"past the end, tail", 33, 1 << 30}} {
		idx := make([]int32, 2*17)
		idx[c.at] = c.v
		dst := make([]float32, 2*17)
		assert.Panics(t, func() { GatherRows32(dst, 17, src, idx, 2, 17) }, c.name)
	}
	assert.Panics(t, func() { GatherRows32(make([]float32, 16), 16, src, make([]int32, 32), 2, 16) }, "short dst")
	assert.Panics(t, func() { GatherRows32(make([]float32, 32), 16, src, make([]int32, 16), 2, 16) }, "short idx")
}

func BenchmarkGatherRows32(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	src := make([]float32, 16*16+16)
	const rows, p = 144, 16
	idx := make([]int32, rows*p)
	for i := range idx {
		idx[i] = int32(rng.IntN(len(src)))
	}
	dst := make([]float32, rows*p*64)
	saved := hasGather512
	defer func() { hasGather512 = saved }()
	for _, asm := range []bool{saved, false} {
		name := "go"
		if asm {
			name = "avx512"
		}
		b.Run(name, func(b *testing.B) {
			hasGather512 = asm
			for b.Loop() {
				GatherRows32(dst, p*64, src, idx, rows, p)
			}
		})
	}
}
