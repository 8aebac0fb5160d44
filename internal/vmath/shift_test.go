package vmath

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shiftCase draws taps offsets and masks for ch rows of n values read from src
// of srcLen elements, rows srcStride apart: a set bit only where the element
// it reads lies in src (clear bits may point outside it, as they do at a
// convolution's padding).
func shiftCase(rng *rand.Rand, taps, ch, n, srcStride, srcLen int) (off []int32, mask []uint16) {
	chunks := (n + 15) / 16
	off, mask = make([]int32, taps), make([]uint16, taps*chunks)
	for k := range off {
		off[k] = int32(rng.IntN(2*n+1) - n)
		for j := range n {
			lo, hi := int(off[k])+j, (ch-1)*srcStride+int(off[k])+j
			if lo >= 0 && hi < srcLen && rng.IntN(4) != 0 {
				mask[k*chunks+j/16] |= 1 << (j % 16)
			}
		}
	}
	// Bits past n in the last chunk are ignored.
	if n%16 != 0 {
		mask[chunks-1] |= 1 << 15
	}
	return off, mask
}

// TestShiftRows32 and its adjoint ShiftSum32 against the formulas of their
// docs, with the assembly loops and without, bit for bit (values with -0 and
// sums that round), for rows with and without a tail of fewer than 16 and
// padded strides; the elements of dst between rows are left alone.
func TestShiftRows32(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	saved := hasShift512
	defer func() { hasShift512 = saved }()
	for _, s := range [][3]int{{1, 1, 16}, {9, 3, 16}, {9, 2, 64}, {4, 3, 17}, {3, 2, 5}, {25, 4, 100}, {1, 2, 33}} {
		taps, ch, n := s[0], s[1], s[2]
		srcStride := n + rng.IntN(5)
		src := make([]float32, ch*srcStride+n)
		for i := range src {
			src[i] = float32(rng.NormFloat64())
		}
		src[0] = float32(math.Copysign(0, -1))
		off, mask := shiftCase(rng, taps, ch, n, srcStride, len(src))
		chunks := (n + 15) / 16
		bit := func(k, j int) bool { return mask[k*chunks+j/16]>>(j%16)&1 != 0 }
		var got [2][2][]float32 // [asm][rows, sum]
		for a, asm := range []bool{saved, false} {
			hasShift512 = asm
			dstStride := n + 2
			// Two layouts: the rows of a channel after each other, and the
			// channels side by side in each tap's row (a block of samples).
			for _, block := range []bool{false, true} {
				chS, tapS := taps*dstStride, dstStride
				if block {
					chS, tapS = n, ch*n+3
				}
				rows := make([]float32, (ch-1)*chS+(taps-1)*tapS+n+5)
				for i := range rows {
					rows[i] = 7
				}
				ShiftRows32(rows, chS, tapS, src, srcStride, off, mask, ch, n)
				written := make([]bool, len(rows))
				for c := range ch {
					for k := range taps {
						for j := range n {
							want := float32(0)
							if bit(k, j) {
								want = src[c*srcStride+int(off[k])+j]
							}
							at := c*chS + k*tapS + j
							written[at] = true
							require.Equal(t, math.Float32bits(want), math.Float32bits(rows[at]), "rows asm=%v block=%v %v c=%d k=%d j=%d", asm, block, s, c, k, j)
						}
					}
				}
				for i, w := range written {
					if !w {
						require.Equal(t, float32(7), rows[i], "rows asm=%v block=%v %v: element %d between the runs", asm, block, s, i)
					}
				}
				got[a][0] = append(got[a][0], rows...)
			}
			sum := make([]float32, ch*dstStride)
			for i := range sum {
				sum[i] = 7
			}
			ShiftSum32(sum, dstStride, src, srcStride, off, mask, ch, n)
			for c := range ch {
				for j := range dstStride {
					want := float32(7)
					if j < n {
						want = 0
						for k := range taps {
							if bit(k, j) {
								want += src[c*srcStride+int(off[k])+j]
							}
						}
					}
					require.Equal(t, math.Float32bits(want), math.Float32bits(sum[c*dstStride+j]), "sum asm=%v %v c=%d j=%d", asm, s, c, j)
				}
			}
			got[a][1] = sum
		}
		assert.Equal(t, got[0], got[1], "asm and Go differ %v", s)
	}
}

// TestShiftRows32Bounds: a set bit reading before or past src, and a short dst
// or mask, panic with and without the assembly loops.
func TestShiftRows32Bounds(t *testing.T) {
	saved := hasShift512
	defer func() { hasShift512 = saved }()
	src := make([]float32, 64)
	full := []uint16{0xffff, 0xffff}
	for _, asm := range []bool{saved, false} {
		hasShift512 = asm
		for _, c := range []struct {
			name string
			off  []int32
			mask []uint16
			ch   int
		}{
			{"before src", []int32{-1}, []uint16{1}, 1},
			{"past src", []int32{49}, []uint16{0x8000}, 1},
			{"past src, last channel", []int32{0}, []uint16{0xffff}, 5},
		} {
			assert.Panics(t, func() { ShiftRows32(make([]float32, 16*c.ch), 16, 16, src, 16, c.off, c.mask, c.ch, 16) }, "rows %s asm=%v", c.name, asm)
			assert.Panics(t, func() { ShiftSum32(make([]float32, 16*c.ch), 16, src, 16, c.off, c.mask, c.ch, 16) }, "sum %s asm=%v", c.name, asm)
		}
		// Clear bits may point anywhere.
		assert.NotPanics(t, func() { ShiftRows32(make([]float32, 16), 16, 16, src, 16, []int32{-1000}, []uint16{0}, 1, 16) })
		assert.NotPanics(t, func() { ShiftSum32(make([]float32, 16), 16, src, 16, []int32{1000}, []uint16{0}, 1, 16) })
		assert.Panics(t, func() { ShiftRows32(make([]float32, 31), 32, 16, src, 16, []int32{0, 0}, full, 1, 16) }, "short dst")
		assert.Panics(t, func() { ShiftRows32(make([]float32, 32), 32, 16, src, 16, []int32{0, 0}, full[:1], 1, 16) }, "short mask")
		assert.Panics(t, func() { ShiftSum32(make([]float32, 15), 16, src, 16, []int32{0}, full, 1, 16) }, "short dst")
	}
}

// BenchmarkShiftRows32: the im2col of a block of 32 samples 4x4 of 16 channels,
// 3x3 padding 1 (the columns [16 9, 32 16]), and its adjoint: by sample (a
// sample's 144 runs, each in a different row) and by channel (a channel's 9
// rows, the samples side by side), against GatherRows32's by sample.
func BenchmarkShiftRows32(b *testing.B) {
	const cin, taps, P, B = 16, 9, 16, 32
	const t = B * P
	x := make([]float32, B*cin*P)
	off, mask := make([]int32, taps), make([]uint16, taps)
	back, bmask := make([]int32, taps), make([]uint16, taps)
	idx := make([]int32, cin*taps*P)
	for k := range taps {
		kh, kw := k/3-1, k%3-1
		off[k], back[k] = int32(kh*4+kw), int32(k*t-kh*4-kw)
		for p := range P {
			i, j := p/4+kh, p%4+kw
			idx[k*P+p] = int32(cin*P + p)
			if i >= 0 && i < 4 && j >= 0 && j < 4 {
				mask[k] |= 1 << p
				bmask[k] |= 1 << (i*4 + j)
				idx[k*P+p] = int32(i*4 + j)
			}
		}
	}
	for c := 1; c < cin; c++ {
		for r := range taps * P {
			idx[c*taps*P+r] = idx[r] + int32(c*P)
			if idx[r] >= cin*P {
				idx[c*taps*P+r] = idx[r]
			}
		}
	}
	col := make([]float32, cin*taps*t)
	xb := make([]float32, cin*P+P)
	b.Run("gather/by-sample", func(b *testing.B) {
		for b.Loop() {
			for i := range B {
				copy(xb, x[i*cin*P:(i+1)*cin*P])
				GatherRows32(col[i*P:], t, xb, idx, cin*taps, P)
			}
		}
	})
	b.Run("rows/by-sample", func(b *testing.B) {
		for b.Loop() {
			for i := range B {
				ShiftRows32(col[i*P:], taps*t, t, x[i*cin*P:], P, off, mask, cin, P)
			}
		}
	})
	b.Run("rows/by-channel", func(b *testing.B) {
		for b.Loop() {
			for c := range cin {
				ShiftRows32(col[c*taps*t:], P, t, x[c*P:], cin*P, off, mask, B, P)
			}
		}
	})
	b.Run("sum/by-channel", func(b *testing.B) {
		for b.Loop() {
			for c := range cin {
				ShiftSum32(x[c*P:], cin*P, col[c*taps*t:], P, back, bmask, B, P)
			}
		}
	})
}
