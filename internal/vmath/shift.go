package vmath

import "math/bits"

// ShiftRows32 copies masked, shifted runs of src's rows into dst's rows (the
// im2col of a convolution whose columns are shifted copies of its input, as a
// stride-1 convolution with "same" zero padding): with taps = len(off) and
// chunks = ceil(n/16), for c < ch, k < taps and j < n,
//
//	dst[c dstStride + k tapStride + j] = src[c srcStride + off[k] + j]   if bit j%16 of mask[k chunks + j/16] is set,
//	                                   = 0                               otherwise.
//
// (dstStride = taps tapStride puts the rows of channel c after each other;
// dstStride = n, tapStride >= ch n puts the channels side by side in each tap's
// row, as the columns of a block of samples.)
//
// Bits of the last chunk's masks at j >= n are ignored. It panics, as an index
// expression would, when dst or mask is too short or a set bit reads outside
// src; the elements behind clear bits are not read (they may lie outside src).
// With AVX-512 a chunk of 16 is one masked load and one store.
func ShiftRows32(dst []float32, dstStride, tapStride int, src []float32, srcStride int, off []int32, mask []uint16, ch, n int) {
	taps := len(off)
	if ch <= 0 || n <= 0 || taps == 0 {
		return
	}
	chunks := (n + 15) / 16
	if dstStride < 0 || tapStride < 0 || srcStride < 0 {
		panic("vmath: ShiftRows32: negative stride")
	}
	_, _ = dst[(ch-1)*dstStride+(taps-1)*tapStride+n-1], mask[taps*chunks-1]
	checkRuns("ShiftRows32", len(src), off, mask, 0, (ch-1)*srcStride, chunks, n)
	if shiftAsm(len(src), len(dst)) {
		shiftRows32Asm(dst, dstStride, tapStride, src, srcStride, off, mask, ch, n)
		return
	}
	for c := range ch {
		for k, o := range off {
			d, s := dst[c*dstStride+k*tapStride:][:n], c*srcStride+int(o)
			m := mask[k*chunks:][:chunks]
			for j := range d {
				d[j] = 0
				if m[j/16]>>(j%16)&1 != 0 {
					d[j] = src[s+j]
				}
			}
		}
	}
}

// ShiftSum32 is the adjoint of ShiftRows32's pattern (col2im): it sums, for
// each of ch rows of dst, the masked runs of src at the taps' offsets, the taps
// in order from a zero: with taps = len(off) and chunks = ceil(n/16), for c <
// ch and j < n,
//
//	dst[c dstStride + j] = (((0 + t_0) + t_1) + ...) + t_{taps-1},
//	t_k = src[c srcStride + off[k] + j]   if bit j%16 of mask[k chunks + j/16] is set, else no term.
//
// The sums are the same, bit for bit, with AVX-512 (a chunk of 16 in one
// register, one masked add per tap) and without. Bounds as ShiftRows32.
func ShiftSum32(dst []float32, dstStride int, src []float32, srcStride int, off []int32, mask []uint16, ch, n int) {
	taps := len(off)
	if ch <= 0 || n <= 0 {
		return
	}
	chunks := (n + 15) / 16
	if dstStride < 0 || srcStride < 0 {
		panic("vmath: ShiftSum32: negative stride")
	}
	_ = dst[(ch-1)*dstStride+n-1]
	if taps == 0 {
		for c := range ch {
			clear(dst[c*dstStride:][:n])
		}
		return
	}
	_ = mask[taps*chunks-1]
	checkRuns("ShiftSum32", len(src), off, mask, 0, (ch-1)*srcStride, chunks, n)
	if shiftAsm(len(src), len(dst)) {
		shiftSum32Asm(dst, dstStride, src, srcStride, off, mask, ch, n)
		return
	}
	for c := range ch {
		d := dst[c*dstStride:][:n]
		clear(d)
		for k, o := range off {
			s, m := c*srcStride+int(o), mask[k*chunks:][:chunks]
			for j := range d {
				if m[j/16]>>(j%16)&1 != 0 {
					d[j] += src[s+j]
				}
			}
		}
	}
}

// checkRuns panics unless every element that a set bit of mask reads, src[base
// + off[k] + j] for base in [lo, hi], lies in [0, n).
func checkRuns(name string, n int, off []int32, mask []uint16, lo, hi, chunks, width int) {
	for k, o := range off {
		for q, m := range mask[k*chunks : (k+1)*chunks] {
			if q == chunks-1 && width%16 != 0 {
				m &= 1<<(width%16) - 1
			}
			if m == 0 {
				continue
			}
			first := q*16 + bits.TrailingZeros16(m)
			last := q*16 + 15 - bits.LeadingZeros16(m)
			if lo+int(o)+first < 0 || hi+int(o)+last >= n {
				panic("vmath: " + name + ": a run reads outside src")
			}
		}
	}
}
