//go:build amd64 && !noasm

#include "textflag.h"

// Byte offsets in ·consts32 (see the slot indices in single.go: 32 bytes a slot).
#define S_LOG2E 0
#define S_SHIFT 32
#define S_LN2HI 64
#define S_LN2LO 96
#define S_C7 128
#define S_C6 160
#define S_C5 192
#define S_C4 224
#define S_C3 256
#define S_C2 288
#define S_ONE 320
#define S_EXPHI 352
#define S_EXPLO 384
#define S_TANHHI 416
#define S_TWO 448
#define S_SIGN 480
#define S_BIAS 512
#define S_TWOLOG2E 544
#define S_TANHCAP 576
#define S_T6 608
#define S_T5 640
#define S_T4 672
#define S_T3 704
#define S_T2 736

// ---------------------------------------------------------------------------
// AVX-512, 16 lanes.

// SETUP32_512 loads Z31 log2e, Z30 shift, Z29/Z28 ln2 high and low, Z27..Z22 the
// coefficients c7..c2, Z21 1, Z20/Z19 the clamp bounds of exp, Z18 the sign mask,
// Z17 the cap of tanh's w and Z16 2.
#define SETUP32_512 \
	LEAQ         ·consts32(SB), R8; \
	VBROADCASTSS S_LOG2E(R8), Z31;  \
	VBROADCASTSS S_SHIFT(R8), Z30;  \
	VBROADCASTSS S_LN2HI(R8), Z29;  \
	VBROADCASTSS S_LN2LO(R8), Z28;  \
	VBROADCASTSS S_C7(R8), Z27;     \
	VBROADCASTSS S_C6(R8), Z26;     \
	VBROADCASTSS S_C5(R8), Z25;     \
	VBROADCASTSS S_C4(R8), Z24;     \
	VBROADCASTSS S_C3(R8), Z23;     \
	VBROADCASTSS S_C2(R8), Z22;     \
	VBROADCASTSS S_ONE(R8), Z21;    \
	VBROADCASTSS S_EXPHI(R8), Z20;  \
	VBROADCASTSS S_EXPLO(R8), Z19;  \
	VBROADCASTSS S_SIGN(R8), Z18;   \
	VBROADCASTSS S_TANHHI(R8), Z17; \
	VBROADCASTSS S_TWO(R8), Z16

// CORE32_512 takes x in Z0 and leaves kf = round(x/ln2) in Z2, r = x - kf ln2 in
// Z0 and P(r) = c2 + c3 r + ... + c7 r^5 in Z3. Clobbers Z1.
#define CORE32_512 \
	VMOVAPS      Z0, Z1;       \
	VFMADD213PS  Z30, Z31, Z1; \
	VSUBPS       Z30, Z1, Z2;  \
	VFNMADD231PS Z29, Z2, Z0;  \
	VFNMADD231PS Z28, Z2, Z0;  \
	VMOVAPS      Z27, Z3;      \
	VFMADD213PS  Z26, Z0, Z3;  \
	VFMADD213PS  Z25, Z0, Z3;  \
	VFMADD213PS  Z24, Z0, Z3;  \
	VFMADD213PS  Z23, Z0, Z3;  \
	VFMADD213PS  Z22, Z0, Z3

// func exp32AVX512(dst, x *float32, n int)
TEXT ·exp32AVX512(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	SETUP32_512
	SHRQ $4, CX

loop:
	VMOVUPS     (SI), Z0
	VMAXPS      Z0, Z19, Z0
	VMINPS      Z0, Z20, Z0
	CORE32_512
	VFMADD213PS Z21, Z0, Z3
	VFMADD213PS Z21, Z0, Z3
	VSCALEFPS   Z2, Z3, Z3
	VMOVUPS     Z3, (DI)
	ADDQ        $64, SI
	ADDQ        $64, DI
	DECQ        CX
	JNZ         loop
	VZEROUPPER
	RET

// TANH32HEAD loads 16 values x at off(SI) into X and leaves m (see
// tanh32AVX512) in M: A = min(|x|, 10), then kf = round(A 2log2e) in K, W = 2A
// and r = W - kf ln2 in W, P(r) and q = r + r^2 P(r) in P (r^2 in R2), and
// S = 2^k. Constants as set up by tanh32AVX512.
#define TANH32HEAD(off, X, A, W, K, P, R2, S, M) \
	VMOVUPS      off(SI), X;  \
	VPANDND      X, Z18, A;   \
	VMINPS       A, Z17, A;   \
	VADDPS       A, A, W;     \
	VFMADD213PS  Z30, Z31, A; \
	VSUBPS       Z30, A, K;   \
	VFNMADD231PS Z29, K, W;   \
	VMOVAPS      Z27, P;      \
	VFMADD213PS  Z26, W, P;   \
	VFMADD213PS  Z25, W, P;   \
	VFMADD213PS  Z24, W, P;   \
	VFMADD213PS  Z23, W, P;   \
	VMULPS       W, W, R2;    \
	VFMADD213PS  W, R2, P;    \
	VSCALEFPS    K, Z21, S;   \
	VSUBPS       Z21, S, M;   \
	VFMADD231PS  P, S, M

// TANH32TAIL stores tanh x = sign(x) m/(m + 2) at off(DI), with d = m + 2 in D
// and the quotient in Y.
#define TANH32TAIL(off, X, M, D, Y) \
	VADDPS     Z16, M, D;         \
	VDIVPS     D, M, Y;           \
	VPTERNLOGD $0xd8, Z18, X, Y;  \
	VMOVUPS    Y, off(DI)

// func tanh32AVX512(dst, x *float32, n int)
//
// a = min(|x|, 10) (NaN kept: VMINPS returns its second operand, |x|, when
// either is NaN), w = 2a, k = round(a 2log2e), r = w - k ln2 with ln2 in one
// part (see single.go), q = e^r - 1 = r + r^2 P(r) with the minimax P of degree 4 (T2..T6),
// m = (2^k - 1) + 2^k q, and the quotient m/d, d = m + 2, by VDIVPS, correctly
// rounded. (A reciprocal VRCP14PS refined once, y = y0 + (m - d y0) r0 with
// y0 = m r0, is as accurate but costs three multiply-adds and VRCP14PS where
// the FMA pipes are the bottleneck; on this Zen 5 core the divider is off them,
// and the kernel takes 2.0 ns per 16 values against 2.5.) VPTERNLOGD puts the
// sign of x back. The loop does two blocks of 16 an iteration (TANH32HEAD of
// both, then TANH32TAIL of both: 1.95 ns per 16 values against 2.0 for one a
// iteration), after one block alone when n/16 is odd.
TEXT ·tanh32AVX512(SB), NOSPLIT, $0-24
	MOVQ         dst+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         n+16(FP), CX
	LEAQ         ·consts32(SB), R8
	VBROADCASTSS S_TWOLOG2E(R8), Z31
	VBROADCASTSS S_SHIFT(R8), Z30
	VBROADCASTSS S_LN2HI(R8), Z29
	VBROADCASTSS S_T6(R8), Z27
	VBROADCASTSS S_T5(R8), Z26
	VBROADCASTSS S_T4(R8), Z25
	VBROADCASTSS S_T3(R8), Z24
	VBROADCASTSS S_T2(R8), Z23
	VBROADCASTSS S_ONE(R8), Z21
	VBROADCASTSS S_SIGN(R8), Z18
	VBROADCASTSS S_TANHCAP(R8), Z17
	VBROADCASTSS S_TWO(R8), Z16
	SHRQ         $4, CX
	TESTQ        $1, CX
	JZ           pairs
	TANH32HEAD(0, Z8, Z0, Z1, Z2, Z3, Z4, Z5, Z6)
	TANH32TAIL(0, Z8, Z6, Z7, Z10)
	ADDQ         $64, SI
	ADDQ         $64, DI

pairs:
	SHRQ $1, CX
	JZ   done

loop:
	TANH32HEAD(0, Z8, Z0, Z1, Z2, Z3, Z4, Z5, Z6)
	TANH32HEAD(64, Z11, Z12, Z14, Z13, Z15, Z19, Z20, Z22)
	TANH32TAIL(0, Z8, Z6, Z7, Z10)
	TANH32TAIL(64, Z11, Z22, Z28, Z1)
	ADDQ $128, SI
	ADDQ $128, DI
	DECQ CX
	JNZ  loop

done:
	VZEROUPPER
	RET

// func sigmoid32AVX512(dst, x *float32, n int)
//
// With t = e^-|x|: sigmoid x = 1/(1 + t) for x >= 0 and t/(1 + t) for x < 0, the
// quotient by VDIVPS as in tanh32AVX512.
TEXT ·sigmoid32AVX512(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	SETUP32_512
	SHRQ $4, CX

loop:
	VMOVUPS      (SI), Z8
	VPORD        Z18, Z8, Z0
	VMAXPS       Z0, Z19, Z0
	CORE32_512
	VFMADD213PS  Z21, Z0, Z3
	VFMADD213PS  Z21, Z0, Z3
	VSCALEFPS    Z2, Z3, Z3
	VADDPS       Z21, Z3, Z9
	VXORPS       Z4, Z4, Z4
	VCMPPS       $1, Z4, Z8, K1
	VMOVAPS      Z21, Z6
	VMOVAPS      Z3, K1, Z6
	VDIVPS       Z9, Z6, Z11
	VMOVUPS      Z11, (DI)
	ADDQ         $64, SI
	ADDQ         $64, DI
	DECQ         CX
	JNZ          loop
	VZEROUPPER
	RET

// ---------------------------------------------------------------------------
// AVX2, 8 lanes: Y15 log2e, Y14 shift, Y13/Y12 ln2 high and low, Y11 1; the
// coefficients are memory operands.

#define SETUP32_256 \
	LEAQ    ·consts32(SB), R8; \
	VMOVUPS S_LOG2E(R8), Y15;  \
	VMOVUPS S_SHIFT(R8), Y14;  \
	VMOVUPS S_LN2HI(R8), Y13;  \
	VMOVUPS S_LN2LO(R8), Y12;  \
	VMOVUPS S_ONE(R8), Y11

// CORE32_256 is CORE32_512 on Y registers: x in Y0; leaves t = x log2e + shift in
// Y1, kf in Y2, r in Y0 and P(r) in Y3.
#define CORE32_256 \
	VMOVAPS      Y0, Y1;          \
	VFMADD213PS  Y14, Y15, Y1;    \
	VSUBPS       Y14, Y1, Y2;     \
	VFNMADD231PS Y13, Y2, Y0;     \
	VFNMADD231PS Y12, Y2, Y0;     \
	VMOVUPS      S_C7(R8), Y3;    \
	VFMADD213PS  S_C6(R8), Y0, Y3; \
	VFMADD213PS  S_C5(R8), Y0, Y3; \
	VFMADD213PS  S_C4(R8), Y0, Y3; \
	VFMADD213PS  S_C3(R8), Y0, Y3; \
	VFMADD213PS  S_C2(R8), Y0, Y3

// func exp32AVX2(dst, x *float32, n int)
//
// Y10/Y9 hold the clamp bounds and Y8 the exponent bias 127. The product with 2^k
// is (p 2^k1) 2^k2, k1 = floor(k/2), k2 = k - k1, both powers normal: the first
// product is exact and the second rounds once (to a subnormal, 0 or +Inf too).
TEXT ·exp32AVX2(SB), NOSPLIT, $0-24
	MOVQ    dst+0(FP), DI
	MOVQ    x+8(FP), SI
	MOVQ    n+16(FP), CX
	SETUP32_256
	VMOVUPS S_EXPHI(R8), Y10
	VMOVUPS S_EXPLO(R8), Y9
	VMOVUPS S_BIAS(R8), Y8
	SHRQ    $3, CX

loop:
	VMOVUPS     (SI), Y0
	VMAXPS      Y0, Y9, Y0
	VMINPS      Y0, Y10, Y0
	CORE32_256
	VFMADD213PS Y11, Y0, Y3
	VFMADD213PS Y11, Y0, Y3
	VPSUBD      Y14, Y1, Y1
	VPSRAD      $1, Y1, Y4
	VPSUBD      Y4, Y1, Y1
	VPADDD      Y8, Y4, Y4
	VPSLLD      $23, Y4, Y4
	VPADDD      Y8, Y1, Y1
	VPSLLD      $23, Y1, Y1
	VMULPS      Y4, Y3, Y3
	VMULPS      Y1, Y3, Y3
	VMOVUPS     Y3, (DI)
	ADDQ        $32, SI
	ADDQ        $32, DI
	DECQ        CX
	JNZ         loop
	VZEROUPPER
	RET

// func tanh32AVX2(dst, x *float32, n int)
//
// Y10 holds the cap of w, Y9 the bias 127 and Y6 the sign mask; k is in [0, 29],
// so 2^k is one normal power.
TEXT ·tanh32AVX2(SB), NOSPLIT, $0-24
	MOVQ    dst+0(FP), DI
	MOVQ    x+8(FP), SI
	MOVQ    n+16(FP), CX
	SETUP32_256
	VMOVUPS S_TANHHI(R8), Y10
	VMOVUPS S_BIAS(R8), Y9
	VMOVUPS S_SIGN(R8), Y6
	SHRQ    $3, CX

loop:
	VMOVUPS     (SI), Y8
	VANDPS      Y6, Y8, Y7
	VANDNPS     Y8, Y6, Y0
	VADDPS      Y0, Y0, Y0
	VMINPS      Y0, Y10, Y0
	CORE32_256
	VMULPS      Y0, Y0, Y4
	VFMADD213PS Y0, Y4, Y3
	VPSUBD      Y14, Y1, Y1
	VPADDD      Y9, Y1, Y1
	VPSLLD      $23, Y1, Y1
	VSUBPS      Y11, Y1, Y5
	VFMADD231PS Y3, Y1, Y5
	VADDPS      S_TWO(R8), Y5, Y2
	VDIVPS      Y2, Y5, Y5
	VORPS       Y7, Y5, Y5
	VMOVUPS     Y5, (DI)
	ADDQ        $32, SI
	ADDQ        $32, DI
	DECQ        CX
	JNZ         loop
	VZEROUPPER
	RET

// func sigmoid32AVX2(dst, x *float32, n int)
//
// As sigmoid32AVX512: Y9 holds the lower clamp bound of exp, Y10 the exponent bias
// 127 and Y6 the sign mask; e^-|x| is one product with 2^k, k in [-150, 0], taken
// as two normal powers as in exp32AVX2. VBLENDVPS picks t where the sign of x is
// set (x < 0, and -0, where both numerators are 1).
TEXT ·sigmoid32AVX2(SB), NOSPLIT, $0-24
	MOVQ    dst+0(FP), DI
	MOVQ    x+8(FP), SI
	MOVQ    n+16(FP), CX
	SETUP32_256
	VMOVUPS S_EXPLO(R8), Y9
	VMOVUPS S_BIAS(R8), Y10
	VMOVUPS S_SIGN(R8), Y6
	SHRQ    $3, CX

loop:
	VMOVUPS     (SI), Y8
	VORPS       Y6, Y8, Y0
	VMAXPS      Y0, Y9, Y0
	CORE32_256
	VFMADD213PS Y11, Y0, Y3
	VFMADD213PS Y11, Y0, Y3
	VPSUBD      Y14, Y1, Y1
	VPSRAD      $1, Y1, Y4
	VPSUBD      Y4, Y1, Y1
	VPADDD      Y10, Y4, Y4
	VPSLLD      $23, Y4, Y4
	VPADDD      Y10, Y1, Y1
	VPSLLD      $23, Y1, Y1
	VMULPS      Y4, Y3, Y3
	VMULPS      Y1, Y3, Y3
	VADDPS      Y11, Y3, Y2
	VBLENDVPS   Y8, Y3, Y11, Y5
	VDIVPS      Y2, Y5, Y5
	VMOVUPS     Y5, (DI)
	ADDQ        $32, SI
	ADDQ        $32, DI
	DECQ        CX
	JNZ         loop
	VZEROUPPER
	RET
