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

// The float32 kernels: arithmetic in float32 lanes (8 a YMM register) where the
// Go code computes in float32, and each float32 result widened (VCVTPS2PD, 4 a
// register) where it adds in float64.

// func sumDev32AVX2(x *float32, blocks int, mu float64, s *[32]float64)
// sumDevAVX2 on x widened, 16 elements a block.
TEXT ·sumDev32AVX2(SB), NOSPLIT, $0-32
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

sumdev32loop:
	VCVTPS2PD (SI), Y0
	VCVTPS2PD 16(SI), Y1
	VCVTPS2PD 32(SI), Y2
	VCVTPS2PD 48(SI), Y3
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
	ADDQ $64, SI
	DECQ CX
	JNZ  sumdev32loop
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

// func normApply32AVX2(y, x, w, b *float32, blocks int, mu, rs float32)
// y[i] = ((x[i] - mu) rs) w[i] + b[i] in float32
TEXT ·normApply32AVX2(SB), NOSPLIT, $0-48
	MOVQ y+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ w+16(FP), R8
	MOVQ b+24(FP), R9
	MOVQ blocks+32(FP), CX
	VBROADCASTSS mu+40(FP), Y14
	VBROADCASTSS rs+44(FP), Y15
	XORQ AX, AX

normapply32loop:
	VMOVUPS (SI)(AX*4), Y0
	VSUBPS Y14, Y0, Y0
	VMULPS Y15, Y0, Y0
	VMULPS (R8)(AX*4), Y0, Y0
	VADDPS (R9)(AX*4), Y0, Y0
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ $8, AX
	DECQ CX
	JNZ  normapply32loop
	VZEROUPPER
	RET

// func normPullSums32AVX2(x, gt, w *float32, wa, ba *float64, blocks int, mu, rs float32, s *[16]float64)
// h = (x - mu) rs, g h and gw = g w in float32; wa += g h, ba += g, s[i mod 8]
// += gw and s[8 + i mod 8] += gw h in float64.
TEXT ·normPullSums32AVX2(SB), NOSPLIT, $0-64
	MOVQ x+0(FP), SI
	MOVQ gt+8(FP), DX
	MOVQ w+16(FP), R8
	MOVQ wa+24(FP), R9
	MOVQ ba+32(FP), R10
	MOVQ blocks+40(FP), CX
	VBROADCASTSS mu+48(FP), Y14
	VBROADCASTSS rs+52(FP), Y15
	MOVQ s+56(FP), DI
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11
	XORQ AX, AX

normpullsums32loop:
	VMOVUPS (SI)(AX*4), Y0
	VSUBPS Y14, Y0, Y0
	VMULPS Y15, Y0, Y0           // h
	VMOVUPS (DX)(AX*4), Y1       // g
	VMULPS Y0, Y1, Y2            // g h
	VCVTPS2PD X2, Y3
	VEXTRACTF128 $1, Y2, X4
	VCVTPS2PD X4, Y4
	VADDPD (R9)(AX*8), Y3, Y3    // wa + g h
	VADDPD 32(R9)(AX*8), Y4, Y4
	VMOVUPD Y3, (R9)(AX*8)
	VMOVUPD Y4, 32(R9)(AX*8)
	VCVTPS2PD X1, Y3             // g
	VEXTRACTF128 $1, Y1, X4
	VCVTPS2PD X4, Y4
	VADDPD (R10)(AX*8), Y3, Y3   // ba + g
	VADDPD 32(R10)(AX*8), Y4, Y4
	VMOVUPD Y3, (R10)(AX*8)
	VMOVUPD Y4, 32(R10)(AX*8)
	VMULPS (R8)(AX*4), Y1, Y1    // gw
	VCVTPS2PD X1, Y3
	VEXTRACTF128 $1, Y1, X4
	VCVTPS2PD X4, Y4
	VADDPD Y3, Y8, Y8
	VADDPD Y4, Y9, Y9
	VMULPS Y0, Y1, Y1            // gw h
	VCVTPS2PD X1, Y3
	VEXTRACTF128 $1, Y1, X4
	VCVTPS2PD X4, Y4
	VADDPD Y3, Y10, Y10
	VADDPD Y4, Y11, Y11
	ADDQ $8, AX
	DECQ CX
	JNZ  normpullsums32loop
	VMOVUPD Y8, (DI)
	VMOVUPD Y9, 32(DI)
	VMOVUPD Y10, 64(DI)
	VMOVUPD Y11, 96(DI)
	VZEROUPPER
	RET

// func normPullBar32AVX2(out, x, gt, w *float32, blocks int, mu, rs, mg, mgx float32)
// out[i] = rs ((w[i] g[i] - mg) - ((x[i] - mu) rs) mgx) in float32
TEXT ·normPullBar32AVX2(SB), NOSPLIT, $0-56
	MOVQ out+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ gt+16(FP), DX
	MOVQ w+24(FP), R8
	MOVQ blocks+32(FP), CX
	VBROADCASTSS mu+40(FP), Y12
	VBROADCASTSS rs+44(FP), Y13
	VBROADCASTSS mg+48(FP), Y14
	VBROADCASTSS mgx+52(FP), Y15
	XORQ AX, AX

normpullbar32loop:
	VMOVUPS (SI)(AX*4), Y0
	VSUBPS Y12, Y0, Y0
	VMULPS Y13, Y0, Y0
	VMULPS Y15, Y0, Y0           // ((x - mu) rs) mgx
	VMOVUPS (R8)(AX*4), Y2
	VMULPS (DX)(AX*4), Y2, Y2    // w g
	VSUBPS Y14, Y2, Y2
	VSUBPS Y0, Y2, Y2
	VMULPS Y13, Y2, Y2
	VMOVUPS Y2, (DI)(AX*4)
	ADDQ $8, AX
	DECQ CX
	JNZ  normpullbar32loop
	VZEROUPPER
	RET

// func dot32AVX2(x, y *float32, blocks int, s *[8]float64)
// s[i mod 8] += x[i] y[i], the product in float32, the sum in float64.
TEXT ·dot32AVX2(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), DX
	MOVQ blocks+16(FP), CX
	MOVQ s+24(FP), DI
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9

dot32loop:
	VMOVUPS (SI), Y0
	VMULPS (DX), Y0, Y0
	VCVTPS2PD X0, Y1
	VEXTRACTF128 $1, Y0, X2
	VCVTPS2PD X2, Y2
	VADDPD Y1, Y8, Y8
	VADDPD Y2, Y9, Y9
	ADDQ $32, SI
	ADDQ $32, DX
	DECQ CX
	JNZ  dot32loop
	VMOVUPD Y8, (DI)
	VMOVUPD Y9, 32(DI)
	VZEROUPPER
	RET

// func max32AVX2(x *float32, blocks int, m *[16]float32)
// m[i mod 16] = (m > x[i]) ? m : x[i] (VMAXPS x, m: the second source when the
// first is not greater, NaN included), 16 elements a block.
TEXT ·max32AVX2(SB), NOSPLIT, $0-24
	MOVQ x+0(FP), SI
	MOVQ blocks+8(FP), CX
	MOVQ m+16(FP), DI
	VMOVUPS (DI), Y8
	VMOVUPS 32(DI), Y9

max32loop:
	VMAXPS (SI), Y8, Y8
	VMAXPS 32(SI), Y9, Y9
	ADDQ $64, SI
	DECQ CX
	JNZ  max32loop
	VMOVUPS Y8, (DI)
	VMOVUPS Y9, 32(DI)
	VZEROUPPER
	RET
