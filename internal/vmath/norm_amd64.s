//go:build amd64 && !noasm

#include "textflag.h"

// The normalisation kernels of norm.go in AVX2, with separate multiplications,
// additions and subtractions (no FMA) in the order of the Go loops, each lane of
// an accumulator the partial sum of the Go code's element i mod 8 (mod 16 for
// sumDev), so that the results are those of the Go code bit for bit.

// func sumDevAVX2(x *float64, blocks int, mu float64, s *[32]float64)
// s[i mod 16] += d, s[16 + i mod 16] += d d, d = x[i] - mu, 16 elements a block.
TEXT ·sumDevAVX2(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), SI
	MOVQ blocks+8(FP), CX
	VBROADCASTSD mu+16(FP), Y15
	MOVQ s+24(FP), DI
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11
	VXORPD Y12, Y12, Y12
	VXORPD Y13, Y13, Y13
	VXORPD Y14, Y14, Y14
	VMOVAPD Y14, Y7

sumdevloop:
	VMOVUPD (SI), Y0
	VMOVUPD 32(SI), Y1
	VMOVUPD 64(SI), Y2
	VMOVUPD 96(SI), Y3
	VSUBPD Y15, Y0, Y0
	VSUBPD Y15, Y1, Y1
	VSUBPD Y15, Y2, Y2
	VSUBPD Y15, Y3, Y3
	VADDPD Y0, Y8, Y8
	VADDPD Y1, Y9, Y9
	VADDPD Y2, Y10, Y10
	VADDPD Y3, Y11, Y11
	VMULPD Y0, Y0, Y0
	VMULPD Y1, Y1, Y1
	VMULPD Y2, Y2, Y2
	VMULPD Y3, Y3, Y3
	VADDPD Y0, Y12, Y12
	VADDPD Y1, Y13, Y13
	VADDPD Y2, Y14, Y14
	VADDPD Y3, Y7, Y7
	ADDQ $128, SI
	DECQ CX
	JNZ  sumdevloop
	VMOVUPD Y8, (DI)
	VMOVUPD Y9, 32(DI)
	VMOVUPD Y10, 64(DI)
	VMOVUPD Y11, 96(DI)
	VMOVUPD Y12, 128(DI)
	VMOVUPD Y13, 160(DI)
	VMOVUPD Y14, 192(DI)
	VMOVUPD Y7, 224(DI)
	VZEROUPPER
	RET

// func normApplyAVX2(y, x, w, b *float64, blocks int, mu, rs float64)
// y[i] = ((x[i] - mu) rs) w[i] + b[i]
TEXT ·normApplyAVX2(SB), NOSPLIT, $0-56
	MOVQ y+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ w+16(FP), R8
	MOVQ b+24(FP), R9
	MOVQ blocks+32(FP), CX
	VBROADCASTSD mu+40(FP), Y14
	VBROADCASTSD rs+48(FP), Y15
	XORQ AX, AX

normapplyloop:
	VMOVUPD (SI)(AX*8), Y0
	VMOVUPD 32(SI)(AX*8), Y1
	VSUBPD Y14, Y0, Y0
	VSUBPD Y14, Y1, Y1
	VMULPD Y15, Y0, Y0
	VMULPD Y15, Y1, Y1
	VMULPD (R8)(AX*8), Y0, Y0
	VMULPD 32(R8)(AX*8), Y1, Y1
	VADDPD (R9)(AX*8), Y0, Y0
	VADDPD 32(R9)(AX*8), Y1, Y1
	VMOVUPD Y0, (DI)(AX*8)
	VMOVUPD Y1, 32(DI)(AX*8)
	ADDQ $8, AX
	DECQ CX
	JNZ  normapplyloop
	VZEROUPPER
	RET

// func normPullSumsAVX2(x, gt, w, wa, ba *float64, blocks int, mu, rs float64, s *[16]float64)
// h = (x - mu) rs; wa += g h; ba += g; gw = g w; s[i mod 8] += gw; s[8 + i mod 8] += gw h
TEXT ·normPullSumsAVX2(SB), NOSPLIT, $0-72
	MOVQ x+0(FP), SI
	MOVQ gt+8(FP), DX
	MOVQ w+16(FP), R8
	MOVQ wa+24(FP), R9
	MOVQ ba+32(FP), R10
	MOVQ blocks+40(FP), CX
	VBROADCASTSD mu+48(FP), Y14
	VBROADCASTSD rs+56(FP), Y15
	MOVQ s+64(FP), DI
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11
	XORQ AX, AX

normpullsumsloop:
	VMOVUPD (SI)(AX*8), Y0
	VMOVUPD 32(SI)(AX*8), Y1
	VSUBPD Y14, Y0, Y0
	VSUBPD Y14, Y1, Y1
	VMULPD Y15, Y0, Y0           // h
	VMULPD Y15, Y1, Y1
	VMOVUPD (DX)(AX*8), Y2       // g
	VMOVUPD 32(DX)(AX*8), Y3
	VMULPD Y0, Y2, Y4            // g h
	VMULPD Y1, Y3, Y5
	VADDPD (R9)(AX*8), Y4, Y4    // wa + g h
	VADDPD 32(R9)(AX*8), Y5, Y5
	VMOVUPD Y4, (R9)(AX*8)
	VMOVUPD Y5, 32(R9)(AX*8)
	VADDPD (R10)(AX*8), Y2, Y4   // ba + g
	VADDPD 32(R10)(AX*8), Y3, Y5
	VMOVUPD Y4, (R10)(AX*8)
	VMOVUPD Y5, 32(R10)(AX*8)
	VMULPD (R8)(AX*8), Y2, Y2    // gw
	VMULPD 32(R8)(AX*8), Y3, Y3
	VADDPD Y2, Y8, Y8
	VADDPD Y3, Y9, Y9
	VMULPD Y0, Y2, Y2            // gw h
	VMULPD Y1, Y3, Y3
	VADDPD Y2, Y10, Y10
	VADDPD Y3, Y11, Y11
	ADDQ $8, AX
	DECQ CX
	JNZ  normpullsumsloop
	VMOVUPD Y8, (DI)
	VMOVUPD Y9, 32(DI)
	VMOVUPD Y10, 64(DI)
	VMOVUPD Y11, 96(DI)
	VZEROUPPER
	RET

// func normPullBarAVX2(out, x, gt, w *float64, blocks int, mu, rs, mg, mgx float64)
// out[i] = rs ((w[i] g[i] - mg) - ((x[i] - mu) rs) mgx)
TEXT ·normPullBarAVX2(SB), NOSPLIT, $0-72
	MOVQ out+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ gt+16(FP), DX
	MOVQ w+24(FP), R8
	MOVQ blocks+32(FP), CX
	VBROADCASTSD mu+40(FP), Y12
	VBROADCASTSD rs+48(FP), Y13
	VBROADCASTSD mg+56(FP), Y14
	VBROADCASTSD mgx+64(FP), Y15
	XORQ AX, AX

normpullbarloop:
	VMOVUPD (SI)(AX*8), Y0
	VMOVUPD 32(SI)(AX*8), Y1
	VSUBPD Y12, Y0, Y0
	VSUBPD Y12, Y1, Y1
	VMULPD Y13, Y0, Y0
	VMULPD Y13, Y1, Y1
	VMULPD Y15, Y0, Y0           // ((x - mu) rs) mgx
	VMULPD Y15, Y1, Y1
	VMOVUPD (R8)(AX*8), Y2
	VMOVUPD 32(R8)(AX*8), Y3
	VMULPD (DX)(AX*8), Y2, Y2    // w g
	VMULPD 32(DX)(AX*8), Y3, Y3
	VSUBPD Y14, Y2, Y2           // w g - mg
	VSUBPD Y14, Y3, Y3
	VSUBPD Y0, Y2, Y2
	VSUBPD Y1, Y3, Y3
	VMULPD Y13, Y2, Y2
	VMULPD Y13, Y3, Y3
	VMOVUPD Y2, (DI)(AX*8)
	VMOVUPD Y3, 32(DI)(AX*8)
	ADDQ $8, AX
	DECQ CX
	JNZ  normpullbarloop
	VZEROUPPER
	RET
