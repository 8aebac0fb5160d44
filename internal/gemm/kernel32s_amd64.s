//go:build amd64 && !noasm

#include "textflag.h"

// The float32 AVX-512 kernels on unpacked operands (the direct path of Sgemm, see
// direct32 in direct_amd64.go): kern8x24AVX512S and kern8x16AVX512S
// (kernel_amd64.s, kernel16_amd64.s) with single precision instructions and
// twice the columns per vector. A's element (r, p) is read at a + r*rsa +
// p*csa and B's row p at b + p*ldb (strides in elements). Each element of C is
// the FMA chain over k of the packed kernels kern8x48AVX512 and kern8x16AVX512
// (kernel32_amd64.s), then the same alpha step (left out for alpha = 1) and beta
// step (one FMA, C not read for beta = ±0), so the results are theirs bit for
// bit. Registers: SI = A at step p (rows 0-3), R11 = its row 4, R12 = rsa, R13 =
// 3 rsa, R9 = csa (bytes); DI = B row, R10 = ldb (bytes); DX = C, R8 = ldc
// (bytes).

#define SARGS \
	MOVQ k+0(FP), CX;      \
	MOVQ a+8(FP), SI;      \
	MOVQ rsa+16(FP), R12;  \
	SHLQ $2, R12;          \
	MOVQ csa+24(FP), R9;   \
	SHLQ $2, R9;           \
	MOVQ b+32(FP), DI;     \
	MOVQ ldb+40(FP), R10;  \
	SHLQ $2, R10;          \
	MOVQ c+48(FP), DX;     \
	MOVQ ldc+56(FP), R8;   \
	SHLQ $2, R8;           \
	LEAQ (R12)(R12*2), R13; \
	LEAQ (SI)(R12*4), R11

// 8x48: accumulators Z0..Z23 (row r in Z(3r), Z(3r+1), Z(3r+2)), B row in
// Z24..Z26, A broadcast in Z27.

#define SROW48(c0, c1, c2, src) \
	VBROADCASTSS src, Z27;     \
	VFMADD231PS  Z24, Z27, c0; \
	VFMADD231PS  Z25, Z27, c1; \
	VFMADD231PS  Z26, Z27, c2

#define SSCALE48(s, c0, c1, c2) \
	VMULPS s, c0, c0; \
	VMULPS s, c1, c1; \
	VMULPS s, c2, c2

#define SBETA48(c0, c1, c2) \
	VFMADD231PS (DX), Z25, c0;    \
	VFMADD231PS 64(DX), Z25, c1;  \
	VFMADD231PS 128(DX), Z25, c2; \
	VMOVUPS     c0, (DX);         \
	VMOVUPS     c1, 64(DX);       \
	VMOVUPS     c2, 128(DX);      \
	ADDQ        R8, DX

#define SSTORE48(c0, c1, c2) \
	VMOVUPS c0, (DX);    \
	VMOVUPS c1, 64(DX);  \
	VMOVUPS c2, 128(DX); \
	ADDQ    R8, DX

// func kern8x48AVX512S(k int, a *float32, rsa, csa int, b *float32, ldb int, c *float32, ldc int, alpha, beta float32)
TEXT ·kern8x48AVX512S(SB), NOSPLIT, $0-72
	SARGS
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	VPXORQ Z4, Z4, Z4
	VPXORQ Z5, Z5, Z5
	VPXORQ Z6, Z6, Z6
	VPXORQ Z7, Z7, Z7
	VPXORQ Z8, Z8, Z8
	VPXORQ Z9, Z9, Z9
	VPXORQ Z10, Z10, Z10
	VPXORQ Z11, Z11, Z11
	VPXORQ Z12, Z12, Z12
	VPXORQ Z13, Z13, Z13
	VPXORQ Z14, Z14, Z14
	VPXORQ Z15, Z15, Z15
	VPXORQ Z16, Z16, Z16
	VPXORQ Z17, Z17, Z17
	VPXORQ Z18, Z18, Z18
	VPXORQ Z19, Z19, Z19
	VPXORQ Z20, Z20, Z20
	VPXORQ Z21, Z21, Z21
	VPXORQ Z22, Z22, Z22
	VPXORQ Z23, Z23, Z23
	TESTQ  CX, CX
	JZ     done48

loop48:
	VMOVUPS (DI), Z24
	VMOVUPS 64(DI), Z25
	VMOVUPS 128(DI), Z26
	SROW48(Z0, Z1, Z2, (SI))
	SROW48(Z3, Z4, Z5, (SI)(R12*1))
	SROW48(Z6, Z7, Z8, (SI)(R12*2))
	SROW48(Z9, Z10, Z11, (SI)(R13*1))
	SROW48(Z12, Z13, Z14, (R11))
	SROW48(Z15, Z16, Z17, (R11)(R12*1))
	SROW48(Z18, Z19, Z20, (R11)(R12*2))
	SROW48(Z21, Z22, Z23, (R11)(R13*1))
	ADDQ R9, SI
	ADDQ R9, R11
	ADDQ R10, DI
	DECQ CX
	JNZ  loop48

done48:
	MOVL alpha+64(FP), AX
	CMPL AX, $0x3f800000
	JEQ  scaled48
	VBROADCASTSS alpha+64(FP), Z24
	SSCALE48(Z24, Z0, Z1, Z2)
	SSCALE48(Z24, Z3, Z4, Z5)
	SSCALE48(Z24, Z6, Z7, Z8)
	SSCALE48(Z24, Z9, Z10, Z11)
	SSCALE48(Z24, Z12, Z13, Z14)
	SSCALE48(Z24, Z15, Z16, Z17)
	SSCALE48(Z24, Z18, Z19, Z20)
	SSCALE48(Z24, Z21, Z22, Z23)

scaled48:
	MOVL beta+68(FP), AX
	SHLL $1, AX
	JZ   store48

	VBROADCASTSS beta+68(FP), Z25
	SBETA48(Z0, Z1, Z2)
	SBETA48(Z3, Z4, Z5)
	SBETA48(Z6, Z7, Z8)
	SBETA48(Z9, Z10, Z11)
	SBETA48(Z12, Z13, Z14)
	SBETA48(Z15, Z16, Z17)
	SBETA48(Z18, Z19, Z20)
	SBETA48(Z21, Z22, Z23)
	VZEROUPPER
	RET

store48:
	SSTORE48(Z0, Z1, Z2)
	SSTORE48(Z3, Z4, Z5)
	SSTORE48(Z6, Z7, Z8)
	SSTORE48(Z9, Z10, Z11)
	SSTORE48(Z12, Z13, Z14)
	SSTORE48(Z15, Z16, Z17)
	SSTORE48(Z18, Z19, Z20)
	SSTORE48(Z21, Z22, Z23)
	VZEROUPPER
	RET

// 8x16: accumulators Z0..Z7 (row r in Zr), B row in Z24, A broadcast in Z26.

#define SROW16(c, src) \
	VBROADCASTSS src, Z26; \
	VFMADD231PS  Z24, Z26, c

#define SBETA16(c) \
	VFMADD231PS (DX), Z25, c; \
	VMOVUPS     c, (DX);      \
	ADDQ        R8, DX

#define SSTORE16(c) \
	VMOVUPS c, (DX); \
	ADDQ    R8, DX

// func kern8x16AVX512S32(k int, a *float32, rsa, csa int, b *float32, ldb int, c *float32, ldc int, alpha, beta float32)
TEXT ·kern8x16AVX512S32(SB), NOSPLIT, $0-72
	SARGS
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	VPXORQ Z4, Z4, Z4
	VPXORQ Z5, Z5, Z5
	VPXORQ Z6, Z6, Z6
	VPXORQ Z7, Z7, Z7
	TESTQ  CX, CX
	JZ     done16

loop16:
	VMOVUPS (DI), Z24
	SROW16(Z0, (SI))
	SROW16(Z1, (SI)(R12*1))
	SROW16(Z2, (SI)(R12*2))
	SROW16(Z3, (SI)(R13*1))
	SROW16(Z4, (R11))
	SROW16(Z5, (R11)(R12*1))
	SROW16(Z6, (R11)(R12*2))
	SROW16(Z7, (R11)(R13*1))
	ADDQ R9, SI
	ADDQ R9, R11
	ADDQ R10, DI
	DECQ CX
	JNZ  loop16

done16:
	MOVL alpha+64(FP), AX
	CMPL AX, $0x3f800000
	JEQ  scaled16
	VBROADCASTSS alpha+64(FP), Z24
	VMULPS       Z24, Z0, Z0
	VMULPS       Z24, Z1, Z1
	VMULPS       Z24, Z2, Z2
	VMULPS       Z24, Z3, Z3
	VMULPS       Z24, Z4, Z4
	VMULPS       Z24, Z5, Z5
	VMULPS       Z24, Z6, Z6
	VMULPS       Z24, Z7, Z7

scaled16:
	MOVL beta+68(FP), AX
	SHLL $1, AX
	JZ   store16

	VBROADCASTSS beta+68(FP), Z25
	SBETA16(Z0)
	SBETA16(Z1)
	SBETA16(Z2)
	SBETA16(Z3)
	SBETA16(Z4)
	SBETA16(Z5)
	SBETA16(Z6)
	SBETA16(Z7)
	VZEROUPPER
	RET

store16:
	SSTORE16(Z0)
	SSTORE16(Z1)
	SSTORE16(Z2)
	SSTORE16(Z3)
	SSTORE16(Z4)
	SSTORE16(Z5)
	SSTORE16(Z6)
	SSTORE16(Z7)
	VZEROUPPER
	RET
