//go:build amd64 && !noasm

#include "textflag.h"

// The kernels of scale.go, 8 elements (two YMM registers) per iteration; each
// block is loaded before it is stored, so dst may be an operand.

// func mulAVX2(dst, a, b *float64, blocks int)
// dst[i] = a[i] b[i]
TEXT ·mulAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), R8
	MOVQ blocks+24(FP), CX
	XORQ AX, AX

mulloop:
	VMOVUPD (SI)(AX*8), Y0
	VMOVUPD 32(SI)(AX*8), Y1
	VMULPD (R8)(AX*8), Y0, Y0
	VMULPD 32(R8)(AX*8), Y1, Y1
	VMOVUPD Y0, (DI)(AX*8)
	VMOVUPD Y1, 32(DI)(AX*8)
	ADDQ $8, AX
	DECQ CX
	JNZ  mulloop
	VZEROUPPER
	RET

// func scaleAVX2(dst, x *float64, blocks int, c float64)
// dst[i] = x[i] c
TEXT ·scaleAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ blocks+16(FP), CX
	VBROADCASTSD c+24(FP), Y15
	XORQ AX, AX

scaleloop:
	VMULPD (SI)(AX*8), Y15, Y0
	VMULPD 32(SI)(AX*8), Y15, Y1
	VMOVUPD Y0, (DI)(AX*8)
	VMOVUPD Y1, 32(DI)(AX*8)
	ADDQ $8, AX
	DECQ CX
	JNZ  scaleloop
	VZEROUPPER
	RET
