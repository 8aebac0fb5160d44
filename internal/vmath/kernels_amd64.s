//go:build amd64 && !noasm

#include "textflag.h"

// Byte offsets in ·consts (see the slot indices in vmath.go: 32 bytes a slot).
#define K_INVLN2 0
#define K_SHIFT 32
#define K_LN2HI 64
#define K_LN2LO 96
#define K_C7 128
#define K_C6 160
#define K_C5 192
#define K_C4 224
#define K_C3 256
#define K_C2 288
#define K_EXPHI 320
#define K_EXPLO 352
#define K_SIXTEENTH 384
#define K_MASK15 416
#define K_OFFSET 448
#define K_MASK20 480
#define K_ONE52 512
#define K_TANHHI 544
#define K_TWO 576
#define K_SIGN 608
#define K_BIAS52 640
#define K_TAB 672

// ---------------------------------------------------------------------------
// AVX-512. Z15..Z31 hold constants and the table; Z0..Z14 are free.

// SETUP512 loads the constants of exp: Z31 16/ln2, Z30 shift, Z29/Z28 ln2/16 high
// and low, Z27..Z22 the coefficients c7..c2, Z21/Z20 hi_0..7/hi_8..15, Z19/Z18
// lo_0..7/lo_8..15, Z17/Z16 the clamp bounds, Z15 1/16.
#define SETUP512 \
	LEAQ         ·consts(SB), R8;     \
	VBROADCASTSD K_INVLN2(R8), Z31;   \
	VBROADCASTSD K_SHIFT(R8), Z30;    \
	VBROADCASTSD K_LN2HI(R8), Z29;    \
	VBROADCASTSD K_LN2LO(R8), Z28;    \
	VBROADCASTSD K_C7(R8), Z27;       \
	VBROADCASTSD K_C6(R8), Z26;       \
	VBROADCASTSD K_C5(R8), Z25;       \
	VBROADCASTSD K_C4(R8), Z24;       \
	VBROADCASTSD K_C3(R8), Z23;       \
	VBROADCASTSD K_C2(R8), Z22;       \
	VMOVUPD      K_TAB(R8), Z21;      \
	VMOVUPD      (K_TAB+64)(R8), Z20;  \
	VMOVUPD      (K_TAB+128)(R8), Z19; \
	VMOVUPD      (K_TAB+192)(R8), Z18; \
	VBROADCASTSD K_EXPHI(R8), Z17;    \
	VBROADCASTSD K_EXPLO(R8), Z16;    \
	VBROADCASTSD K_SIXTEENTH(R8), Z15

// EXPCORE512 takes x in Z0 and leaves t = x 16/ln2 + shift in Z1, kf = t - shift in
// Z2, hi_j in Z5 and b = hi q + (lo q + lo) in Z6. Clobbers Z0..Z6.
#define EXPCORE512 \
	VMOVAPD      Z0, Z1;         \
	VFMADD213PD  Z30, Z31, Z1;   \
	VSUBPD       Z30, Z1, Z2;    \
	VFNMADD231PD Z29, Z2, Z0;    \
	VFNMADD231PD Z28, Z2, Z0;    \
	VMOVAPD      Z27, Z3;        \
	VFMADD213PD  Z26, Z0, Z3;    \
	VFMADD213PD  Z25, Z0, Z3;    \
	VFMADD213PD  Z24, Z0, Z3;    \
	VFMADD213PD  Z23, Z0, Z3;    \
	VFMADD213PD  Z22, Z0, Z3;    \
	VMULPD       Z0, Z0, Z4;     \
	VFMADD213PD  Z0, Z4, Z3;     \
	VMOVAPD      Z21, Z5;        \
	VPERMT2PD    Z20, Z1, Z5;    \
	VMOVAPD      Z19, Z6;        \
	VPERMT2PD    Z18, Z1, Z6;    \
	VFMADD213PD  Z6, Z3, Z6;     \
	VFMADD231PD  Z3, Z5, Z6

// EXP512 sets Z5 = e^Z0: clamp, core, (hi + b) 2^floor(kf/16). Clobbers Z0..Z6.
#define EXP512 \
	VMINPD    Z0, Z17, Z0; \
	VMAXPD    Z0, Z16, Z0; \
	EXPCORE512;            \
	VADDPD    Z6, Z5, Z5;  \
	VMULPD    Z15, Z2, Z2; \
	VSCALEFPD Z2, Z5, Z5

// func expAVX512(dst, x *float64, n int, m, c float64)
TEXT ·expAVX512(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	SETUP512
	VBROADCASTSD m+24(FP), Z14
	VBROADCASTSD c+32(FP), Z13
	SHRQ $3, CX

loop:
	VMOVUPD (SI), Z0
	VSUBPD  Z14, Z0, Z0
	EXP512
	VMULPD  Z13, Z5, Z5
	VMOVUPD Z5, (DI)
	ADDQ    $64, SI
	ADDQ    $64, DI
	DECQ    CX
	JNZ     loop
	VZEROUPPER
	RET

// func expVecAVX512(dst, x, m, c *float64, n int)
TEXT ·expVecAVX512(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ m+16(FP), DX
	MOVQ c+24(FP), R9
	MOVQ n+32(FP), CX
	SETUP512
	SHRQ $3, CX

loop:
	VMOVUPD (SI), Z0
	VSUBPD  (DX), Z0, Z0
	EXP512
	VMULPD  (R9), Z5, Z5
	VMOVUPD Z5, (DI)
	ADDQ    $64, SI
	ADDQ    $64, DI
	ADDQ    $64, DX
	ADDQ    $64, R9
	DECQ    CX
	JNZ     loop
	VZEROUPPER
	RET

// func addExpAVX512(acc, x, m *float64, n int)
TEXT ·addExpAVX512(SB), NOSPLIT, $0-32
	MOVQ acc+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ m+16(FP), DX
	MOVQ n+24(FP), CX
	SETUP512
	SHRQ $3, CX

loop:
	VMOVUPD (SI), Z0
	VSUBPD  (DX), Z0, Z0
	EXP512
	VADDPD  (DI), Z5, Z5
	VMOVUPD Z5, (DI)
	ADDQ    $64, SI
	ADDQ    $64, DI
	ADDQ    $64, DX
	DECQ    CX
	JNZ     loop
	VZEROUPPER
	RET

// func sumExpAVX512(x *float64, n int, m float64, s *[8]float64)
TEXT ·sumExpAVX512(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ s+24(FP), DI
	SETUP512
	VBROADCASTSD m+16(FP), Z14
	VPXORQ       Z7, Z7, Z7
	SHRQ         $3, CX

loop:
	VMOVUPD (SI), Z0
	VSUBPD  Z14, Z0, Z0
	EXP512
	VADDPD  Z5, Z7, Z7
	ADDQ    $64, SI
	DECQ    CX
	JNZ     loop
	VMOVUPD Z7, (DI)
	VZEROUPPER
	RET

// func tanhAVX512(dst, x *float64, n int)
//
// Z17 = 44, Z16 = 2, Z15 = sign mask, Z14 = 2^20-1, Z13 = 1023<<52 replace the exp
// clamp constants.
TEXT ·tanhAVX512(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	SETUP512
	VBROADCASTSD K_TANHHI(R8), Z17
	VBROADCASTSD K_TWO(R8), Z16
	VBROADCASTSD K_SIGN(R8), Z15
	VBROADCASTSD K_MASK20(R8), Z14
	VBROADCASTSD K_BIAS52(R8), Z13
	SHRQ         $3, CX

loop:
	VMOVUPD (SI), Z8
	VPANDQ  Z15, Z8, Z7
	VPANDNQ Z8, Z15, Z0
	VADDPD  Z0, Z0, Z0
	VMINPD  Z0, Z17, Z0
	EXPCORE512
	VPANDQ  Z14, Z1, Z8
	VPSRLQ  $4, Z8, Z8
	VPSLLQ  $52, Z8, Z8
	VPSUBQ  Z8, Z13, Z9
	VPADDQ  Z8, Z13, Z8
	VSUBPD  Z9, Z5, Z5
	VADDPD  Z6, Z5, Z5
	VMULPD  Z8, Z5, Z5
	VADDPD  Z16, Z5, Z9
	VDIVPD  Z9, Z5, Z5
	VPORQ   Z7, Z5, Z5
	VMOVUPD Z5, (DI)
	ADDQ    $64, SI
	ADDQ    $64, DI
	DECQ    CX
	JNZ     loop
	VZEROUPPER
	RET

// VRANGEPD with imm8 = 5 selects the maximum and 4 the minimum, with the sign of
// the selected value: it orders -0 below +0 as Go's max and min do, but returns the
// other operand for a quiet NaN. RANGE512 therefore also sets the lanes where either
// operand is unordered to Z31 (all ones, a NaN).
#define RANGEMAX 5
#define RANGEMIN 4

// RANGE512 sets a = op(a, b) with Go's max (imm 5) or min (imm 4). Clobbers k.
#define RANGE512(imm, b, a, k) \
	VCMPPD   $3, b, a, k;    \
	VRANGEPD $imm, b, a, a;  \
	VMOVAPD  Z31, k, a

// EXTREME512 reduces x[0:n] (SI, CX; n a multiple of 8) into 8 lanes at s (DI)
// with four accumulators Z0..Z3.
#define EXTREME512(imm) \
	VPTERNLOGD $0xff, Z31, Z31, Z31;  \
	VMOVUPD    (SI), Z0;              \
	VMOVAPD    Z0, Z1;                \
	VMOVAPD    Z0, Z2;                \
	VMOVAPD    Z0, Z3;                \
	MOVQ       CX, BX;                \
	SHRQ       $5, BX;                \
	ANDQ       $31, CX;               \
	SHRQ       $3, CX;                \
	TESTQ      BX, BX;                \
	JZ         tail;                  \
loop32:                               \
	VMOVUPD    (SI), Z4;              \
	VMOVUPD    64(SI), Z5;            \
	VMOVUPD    128(SI), Z6;           \
	VMOVUPD    192(SI), Z7;           \
	RANGE512(imm, Z4, Z0, K1);        \
	RANGE512(imm, Z5, Z1, K2);        \
	RANGE512(imm, Z6, Z2, K3);        \
	RANGE512(imm, Z7, Z3, K4);        \
	ADDQ       $256, SI;              \
	DECQ       BX;                    \
	JNZ        loop32;                \
tail:                                 \
	TESTQ      CX, CX;                \
	JZ         done;                  \
loop8:                                \
	VMOVUPD    (SI), Z4;              \
	RANGE512(imm, Z4, Z0, K1);        \
	ADDQ       $64, SI;               \
	DECQ       CX;                    \
	JNZ        loop8;                 \
done:                                 \
	RANGE512(imm, Z1, Z0, K1);        \
	RANGE512(imm, Z3, Z2, K2);        \
	RANGE512(imm, Z2, Z0, K1);        \
	VMOVUPD    Z0, (DI);              \
	VZEROUPPER;                       \
	RET

// func maxAVX512(x *float64, n int, s *[8]float64)
TEXT ·maxAVX512(SB), NOSPLIT, $0-24
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ s+16(FP), DI
	EXTREME512(RANGEMAX)

// func minAVX512(x *float64, n int, s *[8]float64)
TEXT ·minAVX512(SB), NOSPLIT, $0-24
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ s+16(FP), DI
	EXTREME512(RANGEMIN)

// INTO512 sets acc[j] = op(acc[j], x[j]) for j < n (DI, SI, CX; n a multiple of 8).
#define INTO512(imm) \
	VPTERNLOGD $0xff, Z31, Z31, Z31;  \
	MOVQ       CX, BX;                \
	SHRQ       $5, BX;                \
	ANDQ       $31, CX;               \
	SHRQ       $3, CX;                \
	TESTQ      BX, BX;                \
	JZ         tail;                  \
loop32:                               \
	VMOVUPD    (DI), Z0;              \
	VMOVUPD    64(DI), Z1;            \
	VMOVUPD    128(DI), Z2;           \
	VMOVUPD    192(DI), Z3;           \
	VMOVUPD    (SI), Z4;              \
	VMOVUPD    64(SI), Z5;            \
	VMOVUPD    128(SI), Z6;           \
	VMOVUPD    192(SI), Z7;           \
	RANGE512(imm, Z4, Z0, K1);        \
	RANGE512(imm, Z5, Z1, K2);        \
	RANGE512(imm, Z6, Z2, K3);        \
	RANGE512(imm, Z7, Z3, K4);        \
	VMOVUPD    Z0, (DI);              \
	VMOVUPD    Z1, 64(DI);            \
	VMOVUPD    Z2, 128(DI);           \
	VMOVUPD    Z3, 192(DI);           \
	ADDQ       $256, SI;              \
	ADDQ       $256, DI;              \
	DECQ       BX;                    \
	JNZ        loop32;                \
tail:                                 \
	TESTQ      CX, CX;                \
	JZ         done;                  \
loop8:                                \
	VMOVUPD    (DI), Z0;              \
	VMOVUPD    (SI), Z4;              \
	RANGE512(imm, Z4, Z0, K1);        \
	VMOVUPD    Z0, (DI);              \
	ADDQ       $64, SI;               \
	ADDQ       $64, DI;               \
	DECQ       CX;                    \
	JNZ        loop8;                 \
done:                                 \
	VZEROUPPER;                       \
	RET

// func maxIntoAVX512(acc, x *float64, n int)
TEXT ·maxIntoAVX512(SB), NOSPLIT, $0-24
	MOVQ acc+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	INTO512(RANGEMAX)

// func minIntoAVX512(acc, x *float64, n int)
TEXT ·minIntoAVX512(SB), NOSPLIT, $0-24
	MOVQ acc+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	INTO512(RANGEMIN)

// ---------------------------------------------------------------------------
// AVX2+FMA. Constants are memory operands at R8 (4 copies each); Y15 = shift,
// Y14/Y13 = the clamp bounds; R9 = the table.

#define SETUP256 \
	LEAQ         ·consts(SB), R8;  \
	LEAQ         K_TAB(R8), R9;    \
	VBROADCASTSD K_SHIFT(R8), Y15; \
	VBROADCASTSD K_EXPHI(R8), Y14; \
	VBROADCASTSD K_EXPLO(R8), Y13

// EXPCORE256 is EXPCORE512 on 4 lanes (table by gathers). Clobbers Y0..Y7, Y9.
#define EXPCORE256 \
	VMOVAPD      Y0, Y1;                 \
	VFMADD132PD  K_INVLN2(R8), Y15, Y1;  \
	VSUBPD       Y15, Y1, Y2;            \
	VFNMADD231PD K_LN2HI(R8), Y2, Y0;    \
	VFNMADD231PD K_LN2LO(R8), Y2, Y0;    \
	VMOVUPD      K_C7(R8), Y3;           \
	VFMADD213PD  K_C6(R8), Y0, Y3;       \
	VFMADD213PD  K_C5(R8), Y0, Y3;       \
	VFMADD213PD  K_C4(R8), Y0, Y3;       \
	VFMADD213PD  K_C3(R8), Y0, Y3;       \
	VFMADD213PD  K_C2(R8), Y0, Y3;       \
	VMULPD       Y0, Y0, Y4;             \
	VFMADD213PD  Y0, Y4, Y3;             \
	VPAND        K_MASK15(R8), Y1, Y7;   \
	VPXOR        Y5, Y5, Y5;             \
	VPCMPEQQ     Y9, Y9, Y9;             \
	VGATHERQPD   Y9, (R9)(Y7*8), Y5;     \
	VPXOR        Y6, Y6, Y6;             \
	VPCMPEQQ     Y9, Y9, Y9;             \
	VGATHERQPD   Y9, 128(R9)(Y7*8), Y6;  \
	VFMADD213PD  Y6, Y3, Y6;             \
	VFMADD231PD  Y3, Y5, Y6

// EXP256 sets Y5 = e^Y0. The scale 2^m, m = floor(k/16), is applied as two exact
// factors 2^m1 2^m2, m1 = floor(m/2): with kk = k + 32768 >= 0, M = kk>>4 = m + 2048
// and M1 = M>>1 = m1 + 1024. Clobbers Y0..Y9.
#define EXP256 \
	VMINPD      Y0, Y14, Y0;         \
	VMAXPD      Y0, Y13, Y0;         \
	EXPCORE256;                      \
	VADDPD      Y6, Y5, Y5;          \
	VPADDQ      K_OFFSET(R8), Y1, Y7; \
	VPAND       K_MASK20(R8), Y7, Y7; \
	VPSRLQ      $4, Y7, Y7;          \
	VPSRLQ      $1, Y7, Y8;          \
	VPSUBQ      Y8, Y7, Y7;          \
	VPSLLQ      $52, Y8, Y8;         \
	VPSLLQ      $52, Y7, Y7;         \
	VPSUBQ      K_ONE52(R8), Y8, Y8; \
	VPSUBQ      K_ONE52(R8), Y7, Y7; \
	VMULPD      Y8, Y5, Y5;          \
	VMULPD      Y7, Y5, Y5

// func expAVX2(dst, x *float64, n int, m, c float64)
TEXT ·expAVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	SETUP256
	VBROADCASTSD m+24(FP), Y12
	VBROADCASTSD c+32(FP), Y11
	SHRQ $2, CX

loop:
	VMOVUPD (SI), Y0
	VSUBPD  Y12, Y0, Y0
	EXP256
	VMULPD  Y11, Y5, Y5
	VMOVUPD Y5, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	DECQ    CX
	JNZ     loop
	VZEROUPPER
	RET

// func expVecAVX2(dst, x, m, c *float64, n int)
TEXT ·expVecAVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ m+16(FP), DX
	MOVQ c+24(FP), R10
	MOVQ n+32(FP), CX
	SETUP256
	SHRQ $2, CX

loop:
	VMOVUPD (SI), Y0
	VSUBPD  (DX), Y0, Y0
	EXP256
	VMULPD  (R10), Y5, Y5
	VMOVUPD Y5, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	ADDQ    $32, DX
	ADDQ    $32, R10
	DECQ    CX
	JNZ     loop
	VZEROUPPER
	RET

// func addExpAVX2(acc, x, m *float64, n int)
TEXT ·addExpAVX2(SB), NOSPLIT, $0-32
	MOVQ acc+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ m+16(FP), DX
	MOVQ n+24(FP), CX
	SETUP256
	SHRQ $2, CX

loop:
	VMOVUPD (SI), Y0
	VSUBPD  (DX), Y0, Y0
	EXP256
	VADDPD  (DI), Y5, Y5
	VMOVUPD Y5, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	ADDQ    $32, DX
	DECQ    CX
	JNZ     loop
	VZEROUPPER
	RET

// func sumExpAVX2(x *float64, n int, m float64, s *[8]float64)
//
// Y10 sums elements 8i..8i+3 and Y11 elements 8i+4..8i+7: partial sum l gets the
// elements equal to l mod 8, as in the other implementations.
TEXT ·sumExpAVX2(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ s+24(FP), DI
	SETUP256
	VBROADCASTSD m+16(FP), Y12
	VPXOR        Y10, Y10, Y10
	VPXOR        Y11, Y11, Y11
	SHRQ         $3, CX

loop:
	VMOVUPD (SI), Y0
	VSUBPD  Y12, Y0, Y0
	EXP256
	VADDPD  Y5, Y10, Y10
	VMOVUPD 32(SI), Y0
	VSUBPD  Y12, Y0, Y0
	EXP256
	VADDPD  Y5, Y11, Y11
	ADDQ    $64, SI
	DECQ    CX
	JNZ     loop
	VMOVUPD Y10, (DI)
	VMOVUPD Y11, 32(DI)
	VZEROUPPER
	RET

// func tanhAVX2(dst, x *float64, n int)
//
// Y14 = 44; Y10 = x, Y11 = its sign bit.
TEXT ·tanhAVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	SETUP256
	VBROADCASTSD K_TANHHI(R8), Y14
	SHRQ         $2, CX

loop:
	VMOVUPD (SI), Y10
	VANDPD  K_SIGN(R8), Y10, Y11
	VXORPD  Y11, Y10, Y0
	VADDPD  Y0, Y0, Y0
	VMINPD  Y0, Y14, Y0
	EXPCORE256
	VPAND   K_MASK20(R8), Y1, Y7
	VPSRLQ  $4, Y7, Y7
	VPSLLQ  $52, Y7, Y7
	VMOVDQU K_BIAS52(R8), Y8
	VPSUBQ  Y7, Y8, Y8
	VPADDQ  K_BIAS52(R8), Y7, Y7
	VSUBPD  Y8, Y5, Y5
	VADDPD  Y6, Y5, Y5
	VMULPD  Y7, Y5, Y5
	VADDPD  K_TWO(R8), Y5, Y8
	VDIVPD  Y8, Y5, Y5
	VORPD   Y11, Y5, Y5
	VMOVUPD Y5, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	DECQ    CX
	JNZ     loop
	VZEROUPPER
	RET

// MAX256 sets a = max(a, b) with Go's semantics. VMAXPD returns b when the two are
// equal or either is NaN; the result is then ANDed with a where a == b (so that
// max(±0, ∓0) = +0) and ORed with all ones where a is NaN.
#define MAX256(a, b, t1, t2) \
	VMAXPD b, a, t1;     \
	VCMPPD $4, b, a, t2; \
	VORPD  a, t2, t2;    \
	VANDPD t2, t1, t1;   \
	VCMPPD $3, a, a, t2; \
	VORPD  t2, t1, a

// MIN256 sets a = min(a, b): VMINPD, ORed with a where a == b (min(±0, ∓0) = -0)
// and with all ones where a is NaN.
#define MIN256(a, b, t1, t2) \
	VMINPD b, a, t1;     \
	VCMPPD $0, b, a, t2; \
	VANDPD a, t2, t2;    \
	VORPD  t2, t1, t1;   \
	VCMPPD $3, a, a, t2; \
	VORPD  t2, t1, a

// EXTREME256 reduces x[0:n] (SI, CX; n a multiple of 8) into 8 lanes at s (DI)
// with four accumulators Y0..Y3.
#define EXTREME256(OP) \
	VMOVUPD (SI), Y0;             \
	VMOVUPD 32(SI), Y1;           \
	VMOVAPD Y0, Y2;               \
	VMOVAPD Y1, Y3;               \
	MOVQ    CX, BX;               \
	SHRQ    $4, BX;               \
	ANDQ    $15, CX;              \
	TESTQ   BX, BX;               \
	JZ      tail;                 \
loop16:                           \
	VMOVUPD (SI), Y4;             \
	VMOVUPD 32(SI), Y5;           \
	VMOVUPD 64(SI), Y6;           \
	VMOVUPD 96(SI), Y7;           \
	OP(Y0, Y4, Y8, Y9);           \
	OP(Y1, Y5, Y10, Y11);         \
	OP(Y2, Y6, Y12, Y13);         \
	OP(Y3, Y7, Y14, Y15);         \
	ADDQ    $128, SI;             \
	DECQ    BX;                   \
	JNZ     loop16;               \
tail:                             \
	TESTQ   CX, CX;               \
	JZ      done;                 \
	VMOVUPD (SI), Y4;             \
	VMOVUPD 32(SI), Y5;           \
	OP(Y0, Y4, Y8, Y9);           \
	OP(Y1, Y5, Y10, Y11);         \
done:                             \
	OP(Y0, Y2, Y8, Y9);           \
	OP(Y1, Y3, Y10, Y11);         \
	VMOVUPD Y0, (DI);             \
	VMOVUPD Y1, 32(DI);           \
	VZEROUPPER;                   \
	RET

// func maxAVX2(x *float64, n int, s *[8]float64)
TEXT ·maxAVX2(SB), NOSPLIT, $0-24
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ s+16(FP), DI
	EXTREME256(MAX256)

// func minAVX2(x *float64, n int, s *[8]float64)
TEXT ·minAVX2(SB), NOSPLIT, $0-24
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ s+16(FP), DI
	EXTREME256(MIN256)

// INTO256 sets acc[j] = op(acc[j], x[j]) for j < n (DI, SI, CX; n a multiple of 8).
#define INTO256(OP) \
	SHRQ    $3, CX;         \
loop:                       \
	VMOVUPD (DI), Y0;       \
	VMOVUPD 32(DI), Y1;     \
	VMOVUPD (SI), Y4;       \
	VMOVUPD 32(SI), Y5;     \
	OP(Y0, Y4, Y8, Y9);     \
	OP(Y1, Y5, Y10, Y11);   \
	VMOVUPD Y0, (DI);       \
	VMOVUPD Y1, 32(DI);     \
	ADDQ    $64, SI;        \
	ADDQ    $64, DI;        \
	DECQ    CX;             \
	JNZ     loop;           \
	VZEROUPPER;             \
	RET

// func maxIntoAVX2(acc, x *float64, n int)
TEXT ·maxIntoAVX2(SB), NOSPLIT, $0-24
	MOVQ acc+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	INTO256(MAX256)

// func minIntoAVX2(acc, x *float64, n int)
TEXT ·minIntoAVX2(SB), NOSPLIT, $0-24
	MOVQ acc+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	INTO256(MIN256)

// func dotAVX512(x, y *float64, n int, s *[32]float64)
//
// n is a positive multiple of 32. Z0..Z3 hold partial sums 0-7, 8-15, 16-23 and
// 24-31: element i is fused-multiply-added into partial sum i mod 32, as in the
// other implementations.
TEXT ·dotAVX512(SB), NOSPLIT, $0-32
	MOVQ   x+0(FP), SI
	MOVQ   y+8(FP), DX
	MOVQ   n+16(FP), CX
	MOVQ   s+24(FP), DI
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	SHRQ   $5, CX

dotloop512:
	VMOVUPD     (SI), Z4
	VMOVUPD     64(SI), Z5
	VMOVUPD     128(SI), Z6
	VMOVUPD     192(SI), Z7
	VFMADD231PD (DX), Z4, Z0
	VFMADD231PD 64(DX), Z5, Z1
	VFMADD231PD 128(DX), Z6, Z2
	VFMADD231PD 192(DX), Z7, Z3
	ADDQ        $256, SI
	ADDQ        $256, DX
	DECQ        CX
	JNZ         dotloop512
	VMOVUPD     Z0, (DI)
	VMOVUPD     Z1, 64(DI)
	VMOVUPD     Z2, 128(DI)
	VMOVUPD     Z3, 192(DI)
	VZEROUPPER
	RET

// func dotAVX2(x, y *float64, n int, s *[32]float64)
//
// n is a positive multiple of 32. Y0..Y7 hold partial sums 0-3, 4-7, ..., 28-31,
// the layout of dotAVX512.
TEXT ·dotAVX2(SB), NOSPLIT, $0-32
	MOVQ  x+0(FP), SI
	MOVQ  y+8(FP), DX
	MOVQ  n+16(FP), CX
	MOVQ  s+24(FP), DI
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	VPXOR Y4, Y4, Y4
	VPXOR Y5, Y5, Y5
	VPXOR Y6, Y6, Y6
	VPXOR Y7, Y7, Y7
	SHRQ  $5, CX

dotloop256:
	VMOVUPD     (SI), Y8
	VMOVUPD     32(SI), Y9
	VMOVUPD     64(SI), Y10
	VMOVUPD     96(SI), Y11
	VFMADD231PD (DX), Y8, Y0
	VFMADD231PD 32(DX), Y9, Y1
	VFMADD231PD 64(DX), Y10, Y2
	VFMADD231PD 96(DX), Y11, Y3
	VMOVUPD     128(SI), Y8
	VMOVUPD     160(SI), Y9
	VMOVUPD     192(SI), Y10
	VMOVUPD     224(SI), Y11
	VFMADD231PD 128(DX), Y8, Y4
	VFMADD231PD 160(DX), Y9, Y5
	VFMADD231PD 192(DX), Y10, Y6
	VFMADD231PD 224(DX), Y11, Y7
	ADDQ        $256, SI
	ADDQ        $256, DX
	DECQ        CX
	JNZ         dotloop256
	VMOVUPD     Y0, (DI)
	VMOVUPD     Y1, 32(DI)
	VMOVUPD     Y2, 64(DI)
	VMOVUPD     Y3, 96(DI)
	VMOVUPD     Y4, 128(DI)
	VMOVUPD     Y5, 160(DI)
	VMOVUPD     Y6, 192(DI)
	VMOVUPD     Y7, 224(DI)
	VZEROUPPER
	RET
