//go:build amd64 && !noasm

package gemm

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

var hasAVX2 = cpu.X86.HasAVX2

// transpose8x8f32 packs blocks groups of 8 k steps of 8 float32 rows (row
// stride lda) as dst[p*stride + r] (see packRows8), with an AVX 8x8 transpose.
//
//go:noescape
func transpose8x8f32(dst *float32, stride int, src *float32, lda int, blocks int)

// transpose8x8f64 is transpose8x8f32 for float64, with AVX-512.
//
//go:noescape
func transpose8x8f64(dst *float64, stride int, src *float64, lda int, blocks int)

var hasAVX512 = cpu.X86.HasAVX512F

// packRows8Asm does the part of packRows8 it can in assembly (float32 with
// AVX2, float64 with AVX-512, whole groups of 8 k steps) and returns the number
// of k steps done. (A float64 version with AVX2, an 8x4 transpose, was no faster
// than the Go loop; the AVX-512 8x8 one, 24 shuffles per 64 values, packs a
// transposed 128x64 B in 1.0 us against 1.9 us, BenchmarkPackTransB.)
func packRows8Asm[R float](dst []R, stride int, a []R, off, lda, kb int) int {
	if kb < 8 {
		return 0
	}
	single := unsafe.Sizeof(R(0)) == 4
	if single && !hasAVX2 || !single && !hasAVX512 {
		return 0
	}
	done := kb &^ 7
	_ = a[off+7*lda+done-1]
	_ = dst[stride*(done-1)+7]
	if single {
		transpose8x8f32((*float32)(unsafe.Pointer(&dst[0])), stride, (*float32)(unsafe.Pointer(&a[off])), lda, done/8)
	} else {
		transpose8x8f64((*float64)(unsafe.Pointer(&dst[0])), stride, (*float64)(unsafe.Pointer(&a[off])), lda, done/8)
	}
	return done
}

// transpose4x4f64 packs groups of 4 k steps of 4 rows of 8-byte values (row
// stride lda) as dst[p*stride + r], with an AVX 4x4 transpose: the complex64 A
// panels of the complex kernel (see cpanelA).
//
//go:noescape
func transpose4x4f64(dst *float64, stride int, src *float64, lda int, blocks int)

// packRows4Asm does the part of packRows4 it can in assembly (float64 with
// AVX2, whole groups of 4 k steps) and returns the number of k steps done.
func packRows4Asm(dst []float64, stride int, a []float64, off, lda, kb int) int {
	if !hasAVX2 || kb < 4 {
		return 0
	}
	done := kb &^ 3
	_ = a[off+3*lda+done-1]
	_ = dst[stride*(done-1)+3]
	transpose4x4f64(&dst[0], stride, &a[off], lda, done/4)
	return done
}

// copyRows32 copies, for each of rows rows, chunks*32 bytes from src (row stride
// srcStride bytes) to dst (row stride dstStride bytes) with AVX moves, and zeroes
// the zchunks*32 bytes after them in dst.
//
//go:noescape
func copyRows32(dst *byte, dstStride int, src *byte, srcStride int, chunks, zchunks, rows int)

// packAcrossAsm packs a micro-panel for packAcross (value (r, p) at x[p*ld+r],
// r < rows, to dst[p*w+r], and 0 for rows <= r < w) with AVX moves when rows and w
// values are whole numbers of 32-byte chunks, and reports whether it did.
func packAcrossAsm[R float](dst []R, w int, x []R, ld, rows, kb int) bool {
	size := int(unsafe.Sizeof(R(0)))
	if !hasAVX2 || kb == 0 || rows == 0 || (rows*size)%32 != 0 || (w*size)%32 != 0 {
		return false
	}
	_ = x[(kb-1)*ld+rows-1]
	_ = dst[kb*w-1]
	copyRows32((*byte)(unsafe.Pointer(&dst[0])), w*size, (*byte)(unsafe.Pointer(&x[0])), ld*size,
		rows*size/32, (w-rows)*size/32, kb)
	return true
}

// copyPanels32 copies, for each of rows rows and each of panels panels, chunks*32
// bytes from src (row stride srcStride bytes, the panels' parts of a row
// contiguous) to dst (panel stride panelStride bytes, row stride rowStride bytes
// within a panel) with AVX moves.
//
//go:noescape
func copyPanels32(dst *byte, panelStride, rowStride int, src *byte, srcStride, chunks, panels, rows int)

// packAcrossRows is a switch for the tests: when false, packAcrossRowsAsm does
// nothing, and packPanels packs every across micro-panel on its own.
var packAcrossRows = true

// packAcrossRowsAsm packs panels full micro-panels of width w whose lines run
// across the storage rows of x (value (r, p) of panel q at x[p*ld+q*w+r], to
// dst[q*w*kb+p*w+r]) with AVX moves, a storage row at a time, and reports whether
// it did (w values must be a whole number of 32-byte chunks). A storage row at a
// time, the reads of x are sequential; a panel at a time (packAcrossAsm) they are
// kb short reads a row apart, a page apart when the rows are 4 KiB long. In a
// float32 product at n = 1024 on one core (48-wide panels of op(B), 192 bytes of
// each row), packing op(B) took 376-420 us a product panel by panel and 224-239
// us row by row (CPU time, interleaved), though a loop that only packs, its
// source and destination cache-hot, is faster panel by panel.
func packAcrossRowsAsm[R float](dst []R, w int, x []R, ld, panels, kb int) bool {
	size := int(unsafe.Sizeof(R(0)))
	if !hasAVX2 || !packAcrossRows || kb == 0 || panels == 0 || (w*size)%32 != 0 {
		return false
	}
	_ = x[(kb-1)*ld+panels*w-1]
	_ = dst[panels*w*kb-1]
	copyPanels32((*byte)(unsafe.Pointer(&dst[0])), w*kb*size, w*size, (*byte)(unsafe.Pointer(&x[0])), ld*size,
		w*size/32, panels, kb)
	return true
}
