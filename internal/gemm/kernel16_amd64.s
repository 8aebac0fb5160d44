//go:build amd64 && !noasm

#include "textflag.h"

// The 8x16 AVX-512F kernel on unpacked operands, with the strides of
// kern8x24AVX512S (kernel_amd64.s): A's element (r, p) at a + r*rsa + p*csa,
// B's row p at b + p*ldb. Accumulators Z0..Z15 (row r in Z(2r), Z(2r+1)), B row
// in Z24, Z25, A broadcast in Z26. Each element's FMA chain is that of the 8x24
// and 8x8 kernels, so the results are the same bit for bit. Registers: SI = A
// at step p (rows 0-3), R11 = its row 4, R12 = rsa, R13 = 3 rsa, R9 = csa
// (bytes); DI = B row, R10 = ldb (bytes); DX = C, R8 = ldc (bytes).

#define ROW16(c0, c1, src) \
	VBROADCASTSD src, Z26;     \
	VFMADD231PD  Z24, Z26, c0; \
	VFMADD231PD  Z25, Z26, c1

#define BETAROW16(c0, c1) \
	VFMADD231PD (DX), Z27, c0;   \
	VFMADD231PD 64(DX), Z27, c1; \
	VMOVUPD     c0, (DX);        \
	VMOVUPD     c1, 64(DX);      \
	ADDQ        R8, DX

#define STOREROW16(c0, c1) \
	VMOVUPD c0, (DX);   \
	VMOVUPD c1, 64(DX); \
	ADDQ    R8, DX

// func kern8x16AVX512S(k int, a *float64, rsa, csa int, b *float64, ldb int, c *float64, ldc int, alpha, beta float64)
TEXT ·kern8x16AVX512S(SB), NOSPLIT, $0-80
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ rsa+16(FP), R12
	SHLQ $3, R12
	MOVQ csa+24(FP), R9
	SHLQ $3, R9
	MOVQ b+32(FP), DI
	MOVQ ldb+40(FP), R10
	SHLQ $3, R10
	MOVQ c+48(FP), DX
	MOVQ ldc+56(FP), R8
	SHLQ $3, R8
	LEAQ (R12)(R12*2), R13
	LEAQ (SI)(R12*4), R11

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
	TESTQ  CX, CX
	JZ     done16

loop16:
	VMOVUPD (DI), Z24
	VMOVUPD 64(DI), Z25
	ROW16(Z0, Z1, (SI))
	ROW16(Z2, Z3, (SI)(R12*1))
	ROW16(Z4, Z5, (SI)(R12*2))
	ROW16(Z6, Z7, (SI)(R13*1))
	ROW16(Z8, Z9, (R11))
	ROW16(Z10, Z11, (R11)(R12*1))
	ROW16(Z12, Z13, (R11)(R12*2))
	ROW16(Z14, Z15, (R11)(R13*1))
	ADDQ R9, SI
	ADDQ R9, R11
	ADDQ R10, DI
	DECQ CX
	JNZ  loop16

done16:
	VBROADCASTSD alpha+64(FP), Z24
	VMULPD       Z24, Z0, Z0
	VMULPD       Z24, Z1, Z1
	VMULPD       Z24, Z2, Z2
	VMULPD       Z24, Z3, Z3
	VMULPD       Z24, Z4, Z4
	VMULPD       Z24, Z5, Z5
	VMULPD       Z24, Z6, Z6
	VMULPD       Z24, Z7, Z7
	VMULPD       Z24, Z8, Z8
	VMULPD       Z24, Z9, Z9
	VMULPD       Z24, Z10, Z10
	VMULPD       Z24, Z11, Z11
	VMULPD       Z24, Z12, Z12
	VMULPD       Z24, Z13, Z13
	VMULPD       Z24, Z14, Z14
	VMULPD       Z24, Z15, Z15

	MOVQ beta+72(FP), AX
	SHLQ $1, AX
	JZ   store16

	VBROADCASTSD beta+72(FP), Z27
	BETAROW16(Z0, Z1)
	BETAROW16(Z2, Z3)
	BETAROW16(Z4, Z5)
	BETAROW16(Z6, Z7)
	BETAROW16(Z8, Z9)
	BETAROW16(Z10, Z11)
	BETAROW16(Z12, Z13)
	BETAROW16(Z14, Z15)
	VZEROUPPER
	RET

store16:
	STOREROW16(Z0, Z1)
	STOREROW16(Z2, Z3)
	STOREROW16(Z4, Z5)
	STOREROW16(Z6, Z7)
	STOREROW16(Z8, Z9)
	STOREROW16(Z10, Z11)
	STOREROW16(Z12, Z13)
	STOREROW16(Z14, Z15)
	VZEROUPPER
	RET
