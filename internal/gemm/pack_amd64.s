//go:build amd64 && !noasm

#include "textflag.h"

// func transpose8x8f32(dst *float32, stride int, src *float32, lda int, blocks int)
//
// For each of blocks groups of 8 k steps, loads 8 floats from each of 8 rows
// (src + r*lda + 8*b) and stores the 8x8 transpose: the 8 values of step p go
// to dst + (8*b+p)*stride, contiguous. stride and lda are in elements. The
// same columns of the next 8 rows (the next group of packRows8, whose rows are
// often 4 KiB apart, a page each, where the hardware prefetchers stop) are
// prefetched: packing A of a 1024^3 float32 product took 241-321 us without,
// 220-253 us with (CPU time, alternated runs, load average 7).
TEXT ·transpose8x8f32(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ stride+8(FP), R12
	MOVQ src+16(FP), SI
	MOVQ lda+24(FP), R9
	MOVQ blocks+32(FP), CX
	SHLQ $2, R12             // stride in bytes
	SHLQ $2, R9              // lda in bytes
	LEAQ (R9)(R9*2), R10     // 3*lda
	LEAQ (R12)(R12*2), R13   // 3*stride
	MOVQ R12, R14
	SHLQ $3, R14             // 8*stride: dst advance per block
	TESTQ CX, CX
	JZ   done

loop:
	LEAQ (SI)(R9*4), R11     // row 4
	LEAQ (R11)(R9*4), AX     // row 8: the next group of rows, prefetched
	PREFETCHT0 (AX)
	PREFETCHT0 (AX)(R9*1)
	PREFETCHT0 (AX)(R9*2)
	PREFETCHT0 (AX)(R10*1)
	LEAQ (AX)(R9*4), AX
	PREFETCHT0 (AX)
	PREFETCHT0 (AX)(R9*1)
	PREFETCHT0 (AX)(R9*2)
	PREFETCHT0 (AX)(R10*1)
	VMOVUPS (SI), Y0
	VMOVUPS (SI)(R9*1), Y1
	VMOVUPS (SI)(R9*2), Y2
	VMOVUPS (SI)(R10*1), Y3
	VMOVUPS (R11), Y4
	VMOVUPS (R11)(R9*1), Y5
	VMOVUPS (R11)(R9*2), Y6
	VMOVUPS (R11)(R10*1), Y7

	VUNPCKLPS Y1, Y0, Y8     // a00 a10 a01 a11 | a04 a14 a05 a15
	VUNPCKHPS Y1, Y0, Y9     // a02 a12 a03 a13 | a06 a16 a07 a17
	VUNPCKLPS Y3, Y2, Y10
	VUNPCKHPS Y3, Y2, Y11
	VUNPCKLPS Y5, Y4, Y12
	VUNPCKHPS Y5, Y4, Y13
	VUNPCKLPS Y7, Y6, Y14
	VUNPCKHPS Y7, Y6, Y15

	VSHUFPS $0x44, Y10, Y8, Y0   // a00 a10 a20 a30 | a04 a14 a24 a34
	VSHUFPS $0xEE, Y10, Y8, Y1   // a01 a11 a21 a31 | a05 ...
	VSHUFPS $0x44, Y11, Y9, Y2   // a02 ... | a06 ...
	VSHUFPS $0xEE, Y11, Y9, Y3   // a03 ... | a07 ...
	VSHUFPS $0x44, Y14, Y12, Y4  // a40 a50 a60 a70 | a44 ...
	VSHUFPS $0xEE, Y14, Y12, Y5
	VSHUFPS $0x44, Y15, Y13, Y6
	VSHUFPS $0xEE, Y15, Y13, Y7

	LEAQ (DI)(R12*4), R11    // dst row 4
	VPERM2F128 $0x20, Y4, Y0, Y8
	VMOVUPS Y8, (DI)
	VPERM2F128 $0x20, Y5, Y1, Y9
	VMOVUPS Y9, (DI)(R12*1)
	VPERM2F128 $0x20, Y6, Y2, Y10
	VMOVUPS Y10, (DI)(R12*2)
	VPERM2F128 $0x20, Y7, Y3, Y11
	VMOVUPS Y11, (DI)(R13*1)
	VPERM2F128 $0x31, Y4, Y0, Y8
	VMOVUPS Y8, (R11)
	VPERM2F128 $0x31, Y5, Y1, Y9
	VMOVUPS Y9, (R11)(R12*1)
	VPERM2F128 $0x31, Y6, Y2, Y10
	VMOVUPS Y10, (R11)(R12*2)
	VPERM2F128 $0x31, Y7, Y3, Y11
	VMOVUPS Y11, (R11)(R13*1)

	ADDQ $32, SI
	ADDQ R14, DI
	DECQ CX
	JNZ  loop

done:
	VZEROUPPER
	RET


// func copyRows32(dst *byte, dstStride int, src *byte, srcStride int, chunks int, zchunks int, rows int)
//
// For each of rows rows, copies chunks*32 bytes from src (row stride srcStride
// bytes) to dst (row stride dstStride bytes) with 32-byte AVX moves, then zeroes
// the zchunks*32 bytes after them in dst: the micro-panels of packAcross, a k
// step's 8 or 24 float64 values each, and the zero padding of a partial panel.
TEXT ·copyRows32(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ dstStride+8(FP), R8
	MOVQ src+16(FP), SI
	MOVQ srcStride+24(FP), R9
	MOVQ chunks+32(FP), DX
	MOVQ zchunks+40(FP), R10
	MOVQ rows+48(FP), CX
	VXORPD Y1, Y1, Y1
	TESTQ CX, CX
	JZ   copydone
	TESTQ DX, DX
	JZ   copydone

copyrow:
	XORQ AX, AX
	MOVQ DX, BX

copychunk:
	VMOVUPD (SI)(AX*1), Y0
	VMOVUPD Y0, (DI)(AX*1)
	ADDQ $32, AX
	DECQ BX
	JNZ  copychunk
	MOVQ R10, BX
	TESTQ BX, BX
	JZ   copynext

zerochunk:
	VMOVUPD Y1, (DI)(AX*1)
	ADDQ $32, AX
	DECQ BX
	JNZ  zerochunk

copynext:
	ADDQ R9, SI
	ADDQ R8, DI
	DECQ CX
	JNZ  copyrow

copydone:
	VZEROUPPER
	RET

// func transpose4x4f64(dst *float64, stride int, src *float64, lda int, blocks int)
//
// transpose8x8f32 for 4 rows of 8-byte values (the complex64 A panels of
// cpanelA): for each of blocks groups of 4 k steps, loads 4 values from each of
// 4 rows (src + r*lda + 4*b) and stores the values of step p at
// dst + (4*b+p)*stride, contiguous. stride and lda are in elements. As in
// transpose8x8f32, the same columns of the next 4 rows are prefetched: packing
// A of a 1024^3 complex64 product took 701-765 us without, 448-483 us with
// (CPU time, four alternated runs, load average 8-10).
TEXT ·transpose4x4f64(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ stride+8(FP), R12
	MOVQ src+16(FP), SI
	MOVQ lda+24(FP), R9
	MOVQ blocks+32(FP), CX
	SHLQ $3, R12             // stride in bytes
	SHLQ $3, R9              // lda in bytes
	LEAQ (R9)(R9*2), R10     // 3*lda
	LEAQ (R12)(R12*2), R13   // 3*stride
	MOVQ R12, R14
	SHLQ $2, R14             // 4*stride: dst advance per block
	TESTQ CX, CX
	JZ   done4

loop4:
	LEAQ (SI)(R9*4), AX      // row 4: the next group of rows, prefetched
	PREFETCHT0 (AX)
	PREFETCHT0 (AX)(R9*1)
	PREFETCHT0 (AX)(R9*2)
	PREFETCHT0 (AX)(R10*1)
	VMOVUPD (SI), Y0
	VMOVUPD (SI)(R9*1), Y1
	VMOVUPD (SI)(R9*2), Y2
	VMOVUPD (SI)(R10*1), Y3

	VUNPCKLPD Y1, Y0, Y4     // a00 a10 | a02 a12
	VUNPCKHPD Y1, Y0, Y5     // a01 a11 | a03 a13
	VUNPCKLPD Y3, Y2, Y6     // a20 a30 | a22 a32
	VUNPCKHPD Y3, Y2, Y7     // a21 a31 | a23 a33

	VPERM2F128 $0x20, Y6, Y4, Y0 // a00 a10 a20 a30
	VPERM2F128 $0x20, Y7, Y5, Y1 // a01 ...
	VPERM2F128 $0x31, Y6, Y4, Y2 // a02 ...
	VPERM2F128 $0x31, Y7, Y5, Y3 // a03 ...
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, (DI)(R12*1)
	VMOVUPD Y2, (DI)(R12*2)
	VMOVUPD Y3, (DI)(R13*1)

	ADDQ $32, SI
	ADDQ R14, DI
	DECQ CX
	JNZ  loop4

done4:
	VZEROUPPER
	RET

// func transpose8x8f64(dst *float64, stride int, src *float64, lda int, blocks int)
//
// transpose8x8f32 for float64 with AVX-512: for each of blocks groups of 8 k
// steps, loads 8 values from each of 8 rows (src + r*lda + 8*b) into Z0-Z7 and
// stores the 8 values of step p at dst + (8*b+p)*stride, contiguous. Three
// stages of shuffles: pairs of rows (VUNPCKLPD/VUNPCKHPD: steps 2j and 2j+1 of
// rows 2i, 2i+1 in 128-bit lane j), then 128-bit lanes (VSHUFF64X2) of
// four rows and of eight. stride and lda are in elements.
TEXT ·transpose8x8f64(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ stride+8(FP), R12
	MOVQ src+16(FP), SI
	MOVQ lda+24(FP), R9
	MOVQ blocks+32(FP), CX
	SHLQ $3, R12             // stride in bytes
	SHLQ $3, R9              // lda in bytes
	LEAQ (R9)(R9*2), R10     // 3*lda
	LEAQ (R12)(R12*2), R13   // 3*stride
	MOVQ R12, R14
	SHLQ $3, R14             // 8*stride: dst advance per block
	TESTQ CX, CX
	JZ   done64

loop64:
	LEAQ (SI)(R9*4), R11     // row 4
	VMOVUPD (SI), Z0
	VMOVUPD (SI)(R9*1), Z1
	VMOVUPD (SI)(R9*2), Z2
	VMOVUPD (SI)(R10*1), Z3
	VMOVUPD (R11), Z4
	VMOVUPD (R11)(R9*1), Z5
	VMOVUPD (R11)(R9*2), Z6
	VMOVUPD (R11)(R10*1), Z7

	// Z8 = r0[0] r1[0] | r0[2] r1[2] | r0[4] r1[4] | r0[6] r1[6], Z9 the odd steps.
	VUNPCKLPD Z1, Z0, Z8
	VUNPCKHPD Z1, Z0, Z9
	VUNPCKLPD Z3, Z2, Z10
	VUNPCKHPD Z3, Z2, Z11
	VUNPCKLPD Z5, Z4, Z12
	VUNPCKHPD Z5, Z4, Z13
	VUNPCKLPD Z7, Z6, Z14
	VUNPCKHPD Z7, Z6, Z15

	// Rows 0-3: Z16 = (r0 r1)[0] (r0 r1)[4] (r2 r3)[0] (r2 r3)[4], Z17 steps 2
	// and 6, Z18 steps 1 and 5, Z19 steps 3 and 7; Z20-Z23 likewise rows 4-7.
	VSHUFF64X2 $0x88, Z10, Z8, Z16
	VSHUFF64X2 $0xDD, Z10, Z8, Z17
	VSHUFF64X2 $0x88, Z11, Z9, Z18
	VSHUFF64X2 $0xDD, Z11, Z9, Z19
	VSHUFF64X2 $0x88, Z14, Z12, Z20
	VSHUFF64X2 $0xDD, Z14, Z12, Z21
	VSHUFF64X2 $0x88, Z15, Z13, Z22
	VSHUFF64X2 $0xDD, Z15, Z13, Z23

	LEAQ (DI)(R12*4), R11    // dst row 4
	VSHUFF64X2 $0x88, Z20, Z16, Z0 // step 0
	VSHUFF64X2 $0x88, Z22, Z18, Z1 // step 1
	VSHUFF64X2 $0x88, Z21, Z17, Z2 // step 2
	VSHUFF64X2 $0x88, Z23, Z19, Z3 // step 3
	VSHUFF64X2 $0xDD, Z20, Z16, Z4 // step 4
	VSHUFF64X2 $0xDD, Z22, Z18, Z5 // step 5
	VSHUFF64X2 $0xDD, Z21, Z17, Z6 // step 6
	VSHUFF64X2 $0xDD, Z23, Z19, Z7 // step 7
	VMOVUPD Z0, (DI)
	VMOVUPD Z1, (DI)(R12*1)
	VMOVUPD Z2, (DI)(R12*2)
	VMOVUPD Z3, (DI)(R13*1)
	VMOVUPD Z4, (R11)
	VMOVUPD Z5, (R11)(R12*1)
	VMOVUPD Z6, (R11)(R12*2)
	VMOVUPD Z7, (R11)(R13*1)

	ADDQ $64, SI
	ADDQ R14, DI
	DECQ CX
	JNZ  loop64

done64:
	VZEROUPPER
	RET

// func copyPanels32(dst *byte, panelStride, rowStride int, src *byte, srcStride, chunks, panels, rows int)
//
// For each of rows rows r and each of panels panels q, copies chunks*32 bytes
// from src + r*srcStride + q*chunks*32 to dst + q*panelStride + r*rowStride with
// 32-byte AVX moves: full micro-panels whose lines run across the storage rows,
// packed a storage row at a time (packAcrossRowsAsm), so that the reads of each
// row are sequential. The bytes two rows ahead are prefetched into L2
// (PREFETCHT1: the next rows are other pages, where the hardware prefetchers
// stop): packing op(B) of a 1024^3 float32 product took 228-290 us without,
// 199-240 us with (ten alternated runs; T0 was as fast but slowed the kernels).
TEXT ·copyPanels32(SB), NOSPLIT, $0-64
	MOVQ dst+0(FP), DI
	MOVQ panelStride+8(FP), R8
	MOVQ rowStride+16(FP), R11
	MOVQ src+24(FP), SI
	MOVQ srcStride+32(FP), R9
	MOVQ chunks+40(FP), DX
	MOVQ panels+48(FP), R10
	MOVQ rows+56(FP), CX
	SHLQ $5, DX
	TESTQ CX, CX
	JZ   panelsdone
	TESTQ DX, DX
	JZ   panelsdone
	TESTQ R10, R10
	JZ   panelsdone

panelsrow:
	MOVQ SI, R12
	MOVQ DI, R13
	MOVQ R10, BX

panelsone:
	XORQ AX, AX
	LEAQ (R12)(R9*2), R14    // the same bytes two rows ahead, prefetched

panelschunk:
	PREFETCHT1 (R14)(AX*1)
	VMOVUPD (R12)(AX*1), Y0
	VMOVUPD Y0, (R13)(AX*1)
	ADDQ $32, AX
	CMPQ AX, DX
	JB   panelschunk
	ADDQ DX, R12
	ADDQ R8, R13
	DECQ BX
	JNZ  panelsone
	ADDQ R9, SI
	ADDQ R11, DI
	DECQ CX
	JNZ  panelsrow

panelsdone:
	VZEROUPPER
	RET
