//go:build amd64 && !noasm

#include "textflag.h"

// The fused kernels of fused.go, 8 elements (two YMM registers) per iteration,
// with separate multiplications and subtractions (no FMA), in the order of the
// Go loops, so that the results are those of the Go code bit for bit.

DATA fusedOne<>+0(SB)/8, $1.0
DATA fusedMinusTwo<>+0(SB)/8, $-2.0
GLOBL fusedOne<>(SB), RODATA|NOPTR, $8
GLOBL fusedMinusTwo<>(SB), RODATA|NOPTR, $8

// func mul3AVX2(dst, a, b, d *float64, blocks int, c float64)
// dst[i] = ((c a[i]) b[i]) d[i]
TEXT ·mul3AVX2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), R8
	MOVQ d+24(FP), R9
	MOVQ blocks+32(FP), CX
	VBROADCASTSD c+40(FP), Y15
	XORQ AX, AX

mul3loop:
	VMULPD (SI)(AX*8), Y15, Y0
	VMULPD 32(SI)(AX*8), Y15, Y1
	VMULPD (R8)(AX*8), Y0, Y0
	VMULPD 32(R8)(AX*8), Y1, Y1
	VMULPD (R9)(AX*8), Y0, Y0
	VMULPD 32(R9)(AX*8), Y1, Y1
	VMOVUPD Y0, (DI)(AX*8)
	VMOVUPD Y1, 32(DI)(AX*8)
	ADDQ $8, AX
	DECQ CX
	JNZ  mul3loop
	VZEROUPPER
	RET

// func tanhBackwardAVX2(dst, y, gt *float64, blocks int)
// dst[i] = (1 - y[i] y[i]) g[i]
TEXT ·tanhBackwardAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ y+8(FP), SI
	MOVQ gt+16(FP), R8
	MOVQ blocks+24(FP), CX
	VBROADCASTSD fusedOne<>(SB), Y15
	XORQ AX, AX

tbloop:
	VMOVUPD (SI)(AX*8), Y0
	VMOVUPD 32(SI)(AX*8), Y1
	VMULPD Y0, Y0, Y0
	VMULPD Y1, Y1, Y1
	VSUBPD Y0, Y15, Y0
	VSUBPD Y1, Y15, Y1
	VMULPD (R8)(AX*8), Y0, Y0
	VMULPD 32(R8)(AX*8), Y1, Y1
	VMOVUPD Y0, (DI)(AX*8)
	VMOVUPD Y1, 32(DI)(AX*8)
	ADDQ $8, AX
	DECQ CX
	JNZ  tbloop
	VZEROUPPER
	RET

// func tanhBackwardPullAVX2(gy, gg, v, y, gt *float64, blocks int)
// gy[i] = ((-2 y[i]) g[i]) v[i], gg[i] = (1 - y[i] y[i]) v[i]
TEXT ·tanhBackwardPullAVX2(SB), NOSPLIT, $0-48
	MOVQ gy+0(FP), DI
	MOVQ gg+8(FP), DX
	MOVQ v+16(FP), SI
	MOVQ y+24(FP), R8
	MOVQ gt+32(FP), R9
	MOVQ blocks+40(FP), CX
	VBROADCASTSD fusedOne<>(SB), Y15
	VBROADCASTSD fusedMinusTwo<>(SB), Y14
	XORQ AX, AX

tbploop:
	VMOVUPD (R8)(AX*8), Y0       // y
	VMOVUPD 32(R8)(AX*8), Y1
	VMOVUPD (SI)(AX*8), Y2       // v
	VMOVUPD 32(SI)(AX*8), Y3
	VMULPD Y0, Y14, Y4           // -2 y
	VMULPD Y1, Y14, Y5
	VMULPD (R9)(AX*8), Y4, Y4    // (-2 y) g
	VMULPD 32(R9)(AX*8), Y5, Y5
	VMULPD Y2, Y4, Y4            // ((-2 y) g) v
	VMULPD Y3, Y5, Y5
	VMOVUPD Y4, (DI)(AX*8)
	VMOVUPD Y5, 32(DI)(AX*8)
	VMULPD Y0, Y0, Y0            // y y
	VMULPD Y1, Y1, Y1
	VSUBPD Y0, Y15, Y0           // 1 - y y
	VSUBPD Y1, Y15, Y1
	VMULPD Y2, Y0, Y0            // (1 - y y) v
	VMULPD Y3, Y1, Y1
	VMOVUPD Y0, (DX)(AX*8)
	VMOVUPD Y1, 32(DX)(AX*8)
	ADDQ $8, AX
	DECQ CX
	JNZ  tbploop
	VZEROUPPER
	RET

// func mul3PullAVX2(ga, gb, gd, a, b, d, w *float64, blocks int, c float64)
// ga = ((c b) d) w, gb = ((c a) d) w, gd = ((c a) b) w, 4 elements per iteration.
TEXT ·mul3PullAVX2(SB), NOSPLIT, $0-72
	MOVQ ga+0(FP), DI
	MOVQ gb+8(FP), R10
	MOVQ gd+16(FP), R11
	MOVQ a+24(FP), SI
	MOVQ b+32(FP), R8
	MOVQ d+40(FP), R9
	MOVQ w+48(FP), R12
	MOVQ blocks+56(FP), CX
	VBROADCASTSD c+64(FP), Y15
	XORQ AX, AX

m3ploop:
	VMOVUPD (R8)(AX*8), Y1       // b
	VMOVUPD (R9)(AX*8), Y2       // d
	VMOVUPD (R12)(AX*8), Y3      // w
	VMULPD (SI)(AX*8), Y15, Y4   // c a
	VMULPD Y1, Y15, Y5           // c b
	VMULPD Y2, Y5, Y5            // (c b) d
	VMULPD Y3, Y5, Y5            // ((c b) d) w
	VMOVUPD Y5, (DI)(AX*8)
	VMULPD Y2, Y4, Y6            // (c a) d
	VMULPD Y3, Y6, Y6            // ((c a) d) w
	VMOVUPD Y6, (R10)(AX*8)
	VMULPD Y1, Y4, Y7            // (c a) b
	VMULPD Y3, Y7, Y7            // ((c a) b) w
	VMOVUPD Y7, (R11)(AX*8)
	ADDQ $4, AX
	DECQ CX
	JNZ  m3ploop
	VZEROUPPER
	RET

// func addAVX2(dst, a, b *float64, blocks int)
// dst[i] = a[i] + b[i]; dst may be a or b (each block is loaded before it is stored).
TEXT ·addAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), R8
	MOVQ blocks+24(FP), CX
	XORQ AX, AX

addloop:
	VMOVUPD (SI)(AX*8), Y0
	VMOVUPD 32(SI)(AX*8), Y1
	VADDPD (R8)(AX*8), Y0, Y0
	VADDPD 32(R8)(AX*8), Y1, Y1
	VMOVUPD Y0, (DI)(AX*8)
	VMOVUPD Y1, 32(DI)(AX*8)
	ADDQ $8, AX
	DECQ CX
	JNZ  addloop
	VZEROUPPER
	RET

// func add32AVX2(dst, a, b *float32, blocks int)
// dst[i] = a[i] + b[i] for 16*blocks float32 elements, two YMM registers a block.
TEXT ·add32AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), R8
	MOVQ blocks+24(FP), CX
	XORQ AX, AX

add32loop:
	VMOVUPS (SI)(AX*4), Y0
	VMOVUPS 32(SI)(AX*4), Y1
	VADDPS  (R8)(AX*4), Y0, Y0
	VADDPS  32(R8)(AX*4), Y1, Y1
	VMOVUPS Y0, (DI)(AX*4)
	VMOVUPS Y1, 32(DI)(AX*4)
	ADDQ    $16, AX
	DECQ    CX
	JNZ     add32loop
	VZEROUPPER
	RET

DATA fused32One<>+0(SB)/4, $0x3f800000
DATA fused32MinusTwo<>+0(SB)/4, $0xc0000000
GLOBL fused32One<>(SB), RODATA|NOPTR, $4
GLOBL fused32MinusTwo<>(SB), RODATA|NOPTR, $4

// func tanhPull32AVX2(dst, y, v *float32, blocks int)
// dst[i] = ((1 - y[i]) (1 + y[i])) v[i], 8 float32 a block.
TEXT ·tanhPull32AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ y+8(FP), SI
	MOVQ v+16(FP), R8
	MOVQ blocks+24(FP), CX
	VBROADCASTSS fused32One<>(SB), Y15
	XORQ AX, AX

tanhpull32loop:
	VMOVUPS (SI)(AX*4), Y0
	VSUBPS  Y0, Y15, Y1
	VADDPS  Y0, Y15, Y2
	VMULPS  Y2, Y1, Y1
	VMULPS  (R8)(AX*4), Y1, Y1
	VMOVUPS Y1, (DI)(AX*4)
	ADDQ    $8, AX
	DECQ    CX
	JNZ     tanhpull32loop
	VZEROUPPER
	RET

// func tanhPullTangent32AVX2(xb, xbd, y, w, wd, xd *float32, blocks int)
// d = (1 - y)(1 + y); xb = d w; xbd = d wd + (((-2 y) d) xd) w; 8 float32 a block.
TEXT ·tanhPullTangent32AVX2(SB), NOSPLIT, $0-56
	MOVQ xb+0(FP), DI
	MOVQ xbd+8(FP), SI
	MOVQ y+16(FP), R8
	MOVQ w+24(FP), R9
	MOVQ wd+32(FP), R10
	MOVQ xd+40(FP), R11
	MOVQ blocks+48(FP), CX
	VBROADCASTSS fused32One<>(SB), Y15
	VBROADCASTSS fused32MinusTwo<>(SB), Y14
	XORQ AX, AX

tanhpulltan32loop:
	VMOVUPS (R8)(AX*4), Y0
	VSUBPS  Y0, Y15, Y1
	VADDPS  Y0, Y15, Y2
	VMULPS  Y2, Y1, Y1
	VMOVUPS (R9)(AX*4), Y3
	VMULPS  Y3, Y1, Y4
	VMOVUPS Y4, (DI)(AX*4)
	VMULPS  Y0, Y14, Y5
	VMULPS  Y1, Y5, Y5
	VMULPS  (R11)(AX*4), Y5, Y5
	VMULPS  Y3, Y5, Y5
	VMULPS  (R10)(AX*4), Y1, Y6
	VADDPS  Y5, Y6, Y6
	VMOVUPS Y6, (SI)(AX*4)
	ADDQ    $8, AX
	DECQ    CX
	JNZ     tanhpulltan32loop
	VZEROUPPER
	RET
