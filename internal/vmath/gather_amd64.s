//go:build amd64 && !noasm

#include "textflag.h"

// func gather32AVX512(dst *float32, dstStride int, src *float32, idx *int32, rows, p, n, lim int) bool
//
// DI = dst row, R9 = dstStride (bytes), SI = src, DX = idx row, R10 = p (bytes),
// BX = rows left, R11 = n/16; Z2 = lim in every lane. Each block of 16 indices is
// compared with lim (unsigned, so negative ones fail too) before VPGATHERDD loads
// it.
TEXT ·gather32AVX512(SB), NOSPLIT, $0-65
	MOVQ         dst+0(FP), DI
	MOVQ         dstStride+8(FP), R9
	SHLQ         $2, R9
	MOVQ         src+16(FP), SI
	MOVQ         idx+24(FP), DX
	MOVQ         rows+32(FP), BX
	MOVQ         p+40(FP), R10
	SHLQ         $2, R10
	MOVQ         n+48(FP), R11
	SHRQ         $4, R11
	MOVQ         lim+56(FP), AX
	MOVQ         AX, X2
	VPBROADCASTD X2, Z2

row:
	MOVQ DI, R12
	MOVQ DX, R13
	MOVQ R11, CX

block:
	VMOVDQU32  (R13), Z1
	VPCMPUD    $1, Z2, Z1, K1
	KMOVW      K1, AX
	CMPL       AX, $0xffff
	JNE        bad
	VPXORD     Z0, Z0, Z0
	VPGATHERDD (SI)(Z1*4), K1, Z0
	VMOVDQU32  Z0, (R12)
	ADDQ       $64, R12
	ADDQ       $64, R13
	DECQ       CX
	JNZ        block
	ADDQ       R9, DI
	ADDQ       R10, DX
	DECQ       BX
	JNZ        row
	VZEROUPPER
	MOVB       $1, ret+64(FP)
	RET

bad:
	VZEROUPPER
	MOVB $0, ret+64(FP)
	RET
