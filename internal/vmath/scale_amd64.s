//go:build amd64 && !noasm

#include "textflag.h"

// The kernels of scale.go, 8 elements (two YMM registers) per iteration; each
// block is loaded before it is stored, so dst may be an operand.

DATA scaleSignBit<>+0(SB)/8, $0x8000000000000000
GLOBL scaleSignBit<>(SB), RODATA|NOPTR, $8

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

// func negAVX2(dst, x *float64, blocks int)
// dst[i] = -x[i] (sign bit flipped)
TEXT ·negAVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ blocks+16(FP), CX
	VBROADCASTSD scaleSignBit<>(SB), Y15
	XORQ AX, AX

negloop:
	VXORPD (SI)(AX*8), Y15, Y0
	VXORPD 32(SI)(AX*8), Y15, Y1
	VMOVUPD Y0, (DI)(AX*8)
	VMOVUPD Y1, 32(DI)(AX*8)
	ADDQ $8, AX
	DECQ CX
	JNZ  negloop
	VZEROUPPER
	RET

// func indexEqAVX2(x *float64, blocks int, y float64) int
// The start of the first block of 8 with an element == y (ordered, non-signalling
// equality), or 8*blocks.
TEXT ·indexEqAVX2(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), SI
	MOVQ blocks+8(FP), CX
	VBROADCASTSD y+16(FP), Y15
	XORQ AX, AX

ieqloop:
	VCMPPD $0, (SI)(AX*8), Y15, Y0
	VCMPPD $0, 32(SI)(AX*8), Y15, Y1
	VORPD Y1, Y0, Y0
	VPTEST Y0, Y0
	JNZ  ieqfound
	ADDQ $8, AX
	DECQ CX
	JNZ  ieqloop

ieqfound:
	MOVQ AX, ret+24(FP)
	VZEROUPPER
	RET

// func axpyAVX2(y, x *float64, blocks int, s float64)
// y[i] += s x[i] (a product, then a sum: no FMA)
TEXT ·axpyAVX2(SB), NOSPLIT, $0-32
	MOVQ y+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ blocks+16(FP), CX
	VBROADCASTSD s+24(FP), Y15
	XORQ AX, AX

axpyloop:
	VMULPD (SI)(AX*8), Y15, Y0
	VMULPD 32(SI)(AX*8), Y15, Y1
	VADDPD (DI)(AX*8), Y0, Y0
	VADDPD 32(DI)(AX*8), Y1, Y1
	VMOVUPD Y0, (DI)(AX*8)
	VMOVUPD Y1, 32(DI)(AX*8)
	ADDQ $8, AX
	DECQ CX
	JNZ  axpyloop
	VZEROUPPER
	RET

// func mulSumAVX2(dst, a, b *float64, blocks int, s *[8]float64)
// dst[i] = a[i] b[i]; s[l] += dst[8k+l] (Y2: lanes 0-3, Y3: lanes 4-7)
TEXT ·mulSumAVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), R8
	MOVQ blocks+24(FP), CX
	MOVQ s+32(FP), DX
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	XORQ AX, AX

mulsumloop:
	VMOVUPD (SI)(AX*8), Y0
	VMOVUPD 32(SI)(AX*8), Y1
	VMULPD (R8)(AX*8), Y0, Y0
	VMULPD 32(R8)(AX*8), Y1, Y1
	VMOVUPD Y0, (DI)(AX*8)
	VMOVUPD Y1, 32(DI)(AX*8)
	VADDPD Y0, Y2, Y2
	VADDPD Y1, Y3, Y3
	ADDQ $8, AX
	DECQ CX
	JNZ  mulsumloop
	VMOVUPD Y2, (DX)
	VMOVUPD Y3, 32(DX)
	VZEROUPPER
	RET

// func scaleSumAVX2(dst, x *float64, blocks int, c float64, s *[8]float64)
// dst[i] = x[i] c; s[l] += dst[8k+l]
TEXT ·scaleSumAVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ blocks+16(FP), CX
	VBROADCASTSD c+24(FP), Y15
	MOVQ s+32(FP), DX
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	XORQ AX, AX

scalesumloop:
	VMULPD (SI)(AX*8), Y15, Y0
	VMULPD 32(SI)(AX*8), Y15, Y1
	VMOVUPD Y0, (DI)(AX*8)
	VMOVUPD Y1, 32(DI)(AX*8)
	VADDPD Y0, Y2, Y2
	VADDPD Y1, Y3, Y3
	ADDQ $8, AX
	DECQ CX
	JNZ  scalesumloop
	VMOVUPD Y2, (DX)
	VMOVUPD Y3, 32(DX)
	VZEROUPPER
	RET
