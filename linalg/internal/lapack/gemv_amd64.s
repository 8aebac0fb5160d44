//go:build amd64 && !noasm

#include "textflag.h"

// The matrix-vector kernels of gemv.go on four rows at a time, in AVX2 + FMA (four
// lanes). The rows start at a, a+lda, a+2 lda, a+3 lda (lda in elements); n is a
// positive multiple of 4.

// func dot4AVX2(a *float64, lda, n int, x *float64, d *[4]float64)
//
// d[q] = sum_{j<n} a[q lda + j] x[j]: eight accumulators (two per row), eight
// columns an iteration, then four.
TEXT ·dot4AVX2(SB), NOSPLIT, $0-40
	MOVQ   a+0(FP), SI
	MOVQ   lda+8(FP), AX
	MOVQ   n+16(FP), CX
	MOVQ   x+24(FP), DX
	MOVQ   d+32(FP), DI
	SHLQ   $3, AX
	LEAQ   (SI)(AX*1), R8
	LEAQ   (R8)(AX*1), R9
	LEAQ   (R9)(AX*1), R10
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7

dot4loop8:
	CMPQ        CX, $8
	JLT         dot4tail
	VMOVUPD     (DX), Y8
	VMOVUPD     32(DX), Y9
	VFMADD231PD (SI), Y8, Y0
	VFMADD231PD 32(SI), Y9, Y4
	VFMADD231PD (R8), Y8, Y1
	VFMADD231PD 32(R8), Y9, Y5
	VFMADD231PD (R9), Y8, Y2
	VFMADD231PD 32(R9), Y9, Y6
	VFMADD231PD (R10), Y8, Y3
	VFMADD231PD 32(R10), Y9, Y7
	ADDQ        $64, SI
	ADDQ        $64, R8
	ADDQ        $64, R9
	ADDQ        $64, R10
	ADDQ        $64, DX
	SUBQ        $8, CX
	JMP         dot4loop8

dot4tail:
	CMPQ        CX, $4
	JLT         dot4done
	VMOVUPD     (DX), Y8
	VFMADD231PD (SI), Y8, Y0
	VFMADD231PD (R8), Y8, Y1
	VFMADD231PD (R9), Y8, Y2
	VFMADD231PD (R10), Y8, Y3

dot4done:
	VADDPD       Y4, Y0, Y0
	VADDPD       Y5, Y1, Y1
	VADDPD       Y6, Y2, Y2
	VADDPD       Y7, Y3, Y3
	// Transpose-and-add: Y0 = (s0, s1, s2, s3) from the four accumulators.
	VHADDPD      Y1, Y0, Y0      // (r0a+r0b, r1a+r1b, r0c+r0d, r1c+r1d)
	VHADDPD      Y3, Y2, Y2      // (r2a+r2b, r3a+r3b, r2c+r2d, r3c+r3d)
	VPERM2F128   $0x20, Y2, Y0, Y8 // low halves: (r0ab, r1ab, r2ab, r3ab)
	VPERM2F128   $0x31, Y2, Y0, Y9 // high halves: (r0cd, r1cd, r2cd, r3cd)
	VADDPD       Y9, Y8, Y8
	VMOVUPD      Y8, (DI)
	VZEROUPPER
	RET

// func axpy4AVX2(a *float64, lda, n int, c *[4]float64, y *float64)
//
// y[j] += sum_q c[q] a[q lda + j] for j < n, four columns an iteration: four
// fused multiply-adds into y (the iterations are independent, so their chains
// overlap).
TEXT ·axpy4AVX2(SB), NOSPLIT, $0-40
	MOVQ         a+0(FP), SI
	MOVQ         lda+8(FP), AX
	MOVQ         n+16(FP), CX
	MOVQ         c+24(FP), BX
	MOVQ         y+32(FP), DI
	SHLQ         $3, AX
	LEAQ         (SI)(AX*1), R8
	LEAQ         (R8)(AX*1), R9
	LEAQ         (R9)(AX*1), R10
	VBROADCASTSD (BX), Y12
	VBROADCASTSD 8(BX), Y13
	VBROADCASTSD 16(BX), Y14
	VBROADCASTSD 24(BX), Y15

axpy4loop:
	VMOVUPD     (DI), Y0
	VFMADD231PD (SI), Y12, Y0
	VFMADD231PD (R8), Y13, Y0
	VFMADD231PD (R9), Y14, Y0
	VFMADD231PD (R10), Y15, Y0
	VMOVUPD     Y0, (DI)
	ADDQ        $32, SI
	ADDQ        $32, R8
	ADDQ        $32, R9
	ADDQ        $32, R10
	ADDQ        $32, DI
	SUBQ        $4, CX
	JNZ         axpy4loop
	VZEROUPPER
	RET

// func symv4AVX2(a *float64, lda, n int, x *float64, c *[4]float64, y *float64, d *[4]float64)
//
// Both at once over the same four rows: d[q] = sum_{j<n} a[q lda + j] x[j] and
// y[j] += sum_q c[q] a[q lda + j] (each element of a is loaded once). y must not
// overlap the rows.
TEXT ·symv4AVX2(SB), NOSPLIT, $0-56
	MOVQ         a+0(FP), SI
	MOVQ         lda+8(FP), AX
	MOVQ         n+16(FP), CX
	MOVQ         x+24(FP), DX
	MOVQ         c+32(FP), BX
	MOVQ         y+40(FP), DI
	SHLQ         $3, AX
	LEAQ         (SI)(AX*1), R8
	LEAQ         (R8)(AX*1), R9
	LEAQ         (R9)(AX*1), R10
	VBROADCASTSD (BX), Y12
	VBROADCASTSD 8(BX), Y13
	VBROADCASTSD 16(BX), Y14
	VBROADCASTSD 24(BX), Y15
	VXORPD       Y0, Y0, Y0
	VXORPD       Y1, Y1, Y1
	VXORPD       Y2, Y2, Y2
	VXORPD       Y3, Y3, Y3

symv4loop:
	VMOVUPD     (DX), Y8
	VMOVUPD     (DI), Y9
	VMOVUPD     (SI), Y10
	VMOVUPD     (R8), Y11
	VFMADD231PD Y10, Y8, Y0
	VFMADD231PD Y10, Y12, Y9
	VFMADD231PD Y11, Y8, Y1
	VFMADD231PD Y11, Y13, Y9
	VMOVUPD     (R9), Y10
	VMOVUPD     (R10), Y11
	VFMADD231PD Y10, Y8, Y2
	VFMADD231PD Y10, Y14, Y9
	VFMADD231PD Y11, Y8, Y3
	VFMADD231PD Y11, Y15, Y9
	VMOVUPD     Y9, (DI)
	ADDQ        $32, SI
	ADDQ        $32, R8
	ADDQ        $32, R9
	ADDQ        $32, R10
	ADDQ        $32, DX
	ADDQ        $32, DI
	SUBQ        $4, CX
	JNZ         symv4loop
	MOVQ        d+48(FP), DI
	VHADDPD     Y1, Y0, Y0
	VHADDPD     Y3, Y2, Y2
	VPERM2F128  $0x20, Y2, Y0, Y8
	VPERM2F128  $0x31, Y2, Y0, Y9
	VADDPD      Y9, Y8, Y8
	VMOVUPD     Y8, (DI)
	VZEROUPPER
	RET

// func gemvNAVX2(a *float64, lda, m, n int, x, y *float64, incy int, alpha float64)
//
// y[r incy] += alpha sum_{j<n} a[r lda + j] x[j] for r < m: the rows in groups of
// four, each as dot4AVX2. m and n are positive multiples of 4.
TEXT ·gemvNAVX2(SB), NOSPLIT, $0-64
	MOVQ         a+0(FP), SI
	MOVQ         lda+8(FP), AX
	MOVQ         m+16(FP), R11
	MOVQ         y+40(FP), DI
	MOVQ         incy+48(FP), BX
	VBROADCASTSD alpha+56(FP), Y15
	SHLQ         $3, AX
	SHLQ         $3, BX
	LEAQ         (BX)(BX*2), R12
	SHRQ         $2, R11

gemvNrows:
	MOVQ   x+32(FP), DX
	MOVQ   n+24(FP), CX
	LEAQ   (SI)(AX*1), R8
	LEAQ   (R8)(AX*1), R9
	LEAQ   (R9)(AX*1), R10
	MOVQ   SI, R13
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7

gemvNloop8:
	CMPQ        CX, $8
	JLT         gemvNtail
	VMOVUPD     (DX), Y8
	VMOVUPD     32(DX), Y9
	VFMADD231PD (R13), Y8, Y0
	VFMADD231PD 32(R13), Y9, Y4
	VFMADD231PD (R8), Y8, Y1
	VFMADD231PD 32(R8), Y9, Y5
	VFMADD231PD (R9), Y8, Y2
	VFMADD231PD 32(R9), Y9, Y6
	VFMADD231PD (R10), Y8, Y3
	VFMADD231PD 32(R10), Y9, Y7
	ADDQ        $64, R13
	ADDQ        $64, R8
	ADDQ        $64, R9
	ADDQ        $64, R10
	ADDQ        $64, DX
	SUBQ        $8, CX
	JMP         gemvNloop8

gemvNtail:
	CMPQ        CX, $4
	JLT         gemvNsum
	VMOVUPD     (DX), Y8
	VFMADD231PD (R13), Y8, Y0
	VFMADD231PD (R8), Y8, Y1
	VFMADD231PD (R9), Y8, Y2
	VFMADD231PD (R10), Y8, Y3

gemvNsum:
	VADDPD        Y4, Y0, Y0
	VADDPD        Y5, Y1, Y1
	VADDPD        Y6, Y2, Y2
	VADDPD        Y7, Y3, Y3
	VHADDPD       Y1, Y0, Y0
	VHADDPD       Y3, Y2, Y2
	VPERM2F128    $0x20, Y2, Y0, Y8
	VPERM2F128    $0x31, Y2, Y0, Y9
	VADDPD        Y9, Y8, Y8
	VMULPD        Y15, Y8, Y8
	VEXTRACTF128  $1, Y8, X9
	VADDSD        (DI), X8, X10
	VMOVSD        X10, (DI)
	VPERMILPD     $1, X8, X8
	VADDSD        (DI)(BX*1), X8, X10
	VMOVSD        X10, (DI)(BX*1)
	VADDSD        (DI)(BX*2), X9, X10
	VMOVSD        X10, (DI)(BX*2)
	VPERMILPD     $1, X9, X9
	VADDSD        (DI)(R12*1), X9, X10
	VMOVSD        X10, (DI)(R12*1)
	LEAQ          (SI)(AX*4), SI
	LEAQ          (DI)(BX*4), DI
	DECQ          R11
	JNZ           gemvNrows
	VZEROUPPER
	RET

// func gemvTAVX2(a *float64, lda, m, n int, x, y *float64, alpha float64)
//
// y[j] += alpha sum_{r<m} x[r] a[r lda + j] for j < n: the rows in groups of
// four, each as axpy4AVX2 with c = alpha x[r:r+4]. m and n are positive multiples
// of 4.
TEXT ·gemvTAVX2(SB), NOSPLIT, $0-56
	MOVQ         a+0(FP), SI
	MOVQ         lda+8(FP), AX
	MOVQ         m+16(FP), R11
	MOVQ         x+32(FP), DX
	VBROADCASTSD alpha+48(FP), Y11
	SHLQ         $3, AX
	SHRQ         $2, R11

gemvTrows:
	MOVQ         y+40(FP), DI
	MOVQ         n+24(FP), CX
	LEAQ         (SI)(AX*1), R8
	LEAQ         (R8)(AX*1), R9
	LEAQ         (R9)(AX*1), R10
	MOVQ         SI, R13
	VBROADCASTSD (DX), Y12
	VBROADCASTSD 8(DX), Y13
	VBROADCASTSD 16(DX), Y14
	VBROADCASTSD 24(DX), Y15
	VMULPD       Y11, Y12, Y12
	VMULPD       Y11, Y13, Y13
	VMULPD       Y11, Y14, Y14
	VMULPD       Y11, Y15, Y15

gemvTloop:
	VMOVUPD     (DI), Y0
	VFMADD231PD (R13), Y12, Y0
	VFMADD231PD (R8), Y13, Y0
	VFMADD231PD (R9), Y14, Y0
	VFMADD231PD (R10), Y15, Y0
	VMOVUPD     Y0, (DI)
	ADDQ        $32, R13
	ADDQ        $32, R8
	ADDQ        $32, R9
	ADDQ        $32, R10
	ADDQ        $32, DI
	SUBQ        $4, CX
	JNZ         gemvTloop
	LEAQ        (SI)(AX*4), SI
	ADDQ        $32, DX
	DECQ        R11
	JNZ         gemvTrows
	VZEROUPPER
	RET

// func symv4AVX512(a *float64, lda, n int, x *float64, c *[4]float64, y *float64, d *[4]float64)
//
// symv4AVX2 in AVX-512 (eight lanes): d[q] = sum_{j<n} a[q lda + j] x[j] and
// y[j] += sum_q c[q] a[q lda + j] for j < n, eight columns an iteration; n is a
// positive multiple of 8.
TEXT ·symv4AVX512(SB), NOSPLIT, $0-56
	MOVQ         a+0(FP), SI
	MOVQ         lda+8(FP), AX
	MOVQ         n+16(FP), CX
	MOVQ         x+24(FP), DX
	MOVQ         c+32(FP), BX
	MOVQ         y+40(FP), DI
	SHLQ         $3, AX
	LEAQ         (SI)(AX*1), R8
	LEAQ         (R8)(AX*1), R9
	LEAQ         (R9)(AX*1), R10
	VBROADCASTSD (BX), Z12
	VBROADCASTSD 8(BX), Z13
	VBROADCASTSD 16(BX), Z14
	VBROADCASTSD 24(BX), Z15
	VPXORQ       Z0, Z0, Z0
	VPXORQ       Z1, Z1, Z1
	VPXORQ       Z2, Z2, Z2
	VPXORQ       Z3, Z3, Z3

symv8loop:
	VMOVUPD     (DX), Z8
	VMOVUPD     (DI), Z9
	VMOVUPD     (SI), Z10
	VMOVUPD     (R8), Z11
	VFMADD231PD Z10, Z8, Z0
	VFMADD231PD Z10, Z12, Z9
	VFMADD231PD Z11, Z8, Z1
	VFMADD231PD Z11, Z13, Z9
	VMOVUPD     (R9), Z10
	VMOVUPD     (R10), Z11
	VFMADD231PD Z10, Z8, Z2
	VFMADD231PD Z10, Z14, Z9
	VFMADD231PD Z11, Z8, Z3
	VFMADD231PD Z11, Z15, Z9
	VMOVUPD     Z9, (DI)
	ADDQ        $64, SI
	ADDQ        $64, R8
	ADDQ        $64, R9
	ADDQ        $64, R10
	ADDQ        $64, DX
	ADDQ        $64, DI
	SUBQ        $8, CX
	JNZ         symv8loop
	MOVQ        d+48(FP), DI
	// Fold each accumulator to four lanes, then as symv4AVX2.
	VEXTRACTF64X4 $1, Z0, Y4
	VEXTRACTF64X4 $1, Z1, Y5
	VEXTRACTF64X4 $1, Z2, Y6
	VEXTRACTF64X4 $1, Z3, Y7
	VADDPD        Y4, Y0, Y0
	VADDPD        Y5, Y1, Y1
	VADDPD        Y6, Y2, Y2
	VADDPD        Y7, Y3, Y3
	VHADDPD       Y1, Y0, Y0
	VHADDPD       Y3, Y2, Y2
	VPERM2F128    $0x20, Y2, Y0, Y8
	VPERM2F128    $0x31, Y2, Y0, Y9
	VADDPD        Y9, Y8, Y8
	VMOVUPD       Y8, (DI)
	VZEROUPPER
	RET
