//go:build amd64 && !noasm

#include "textflag.h"

// Register use, both kernels:
//   SI = packed A (MR values per k step), DI = packed B (NR values per k step)
//   DX = C, R8 = ldc in bytes, CX = k % 4, BX = k / 4.

// ---------------------------------------------------------------------------
// AVX-512: 8x24 tile. Accumulators Z0..Z23 (row r in Z(3r), Z(3r+1), Z(3r+2)),
// B row in Z24..Z26, A broadcasts in Z27/Z28.

#define ROW512(aoff, bc, c0, c1, c2) \
	VBROADCASTSD aoff(SI), bc; \
	VFMADD231PD  Z24, bc, c0;  \
	VFMADD231PD  Z25, bc, c1;  \
	VFMADD231PD  Z26, bc, c2

// STEP512 performs one k step; a and b are byte offsets from SI and DI.
#define STEP512(a, b) \
	VMOVUPD (b)(DI), Z24;                      \
	VMOVUPD (b+64)(DI), Z25;                   \
	VMOVUPD (b+128)(DI), Z26;                  \
	ROW512((a), Z27, Z0, Z1, Z2);              \
	ROW512((a+8), Z28, Z3, Z4, Z5);            \
	ROW512((a+16), Z27, Z6, Z7, Z8);           \
	ROW512((a+24), Z28, Z9, Z10, Z11);         \
	ROW512((a+32), Z27, Z12, Z13, Z14);        \
	ROW512((a+40), Z28, Z15, Z16, Z17);        \
	ROW512((a+48), Z27, Z18, Z19, Z20);        \
	ROW512((a+56), Z28, Z21, Z22, Z23)

#define SCALE512(s, c0, c1, c2) \
	VMULPD s, c0, c0; \
	VMULPD s, c1, c1; \
	VMULPD s, c2, c2

// BETAROW512 stores c = acc + beta*c for one row and advances DX.
#define BETAROW512(c0, c1, c2) \
	VFMADD231PD (DX), Z25, c0;    \
	VFMADD231PD 64(DX), Z25, c1;  \
	VFMADD231PD 128(DX), Z25, c2; \
	VMOVUPD     c0, (DX);         \
	VMOVUPD     c1, 64(DX);       \
	VMOVUPD     c2, 128(DX);      \
	ADDQ        R8, DX

#define STOREROW512(c0, c1, c2) \
	VMOVUPD c0, (DX);    \
	VMOVUPD c1, 64(DX);  \
	VMOVUPD c2, 128(DX); \
	ADDQ    R8, DX

// PREFETCHROW* touch every cache line of one C row and advance R9.
#define PREFETCHROW512 \
	PREFETCHT0 (R9);    \
	PREFETCHT0 64(R9);  \
	PREFETCHT0 128(R9); \
	PREFETCHT0 184(R9); \
	ADDQ       R8, R9

#define PREFETCHROW256 \
	PREFETCHT0 (R9);   \
	PREFETCHT0 64(R9); \
	PREFETCHT0 88(R9); \
	ADDQ       R8, R9

// Software prefetch distances (bytes ahead, 8 k steps) for B and A.
#define BDIST 1536
#define ADIST 512

// func kern8x24AVX512(k int, a, b, c *float64, ldc int, alpha, beta float64)
TEXT ·kern8x24AVX512(SB), NOSPLIT, $0-56
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ c+24(FP), DX
	MOVQ ldc+32(FP), R8
	SHLQ $3, R8

	// Bring the C tile towards L1 while the k loop runs.
	MOVQ DX, R9
	PREFETCHROW512
	PREFETCHROW512
	PREFETCHROW512
	PREFETCHROW512
	PREFETCHROW512
	PREFETCHROW512
	PREFETCHROW512
	PREFETCHROW512

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

	MOVQ CX, BX
	SHRQ $2, BX
	ANDQ $3, CX
	TESTQ BX, BX
	JZ   tail512

loop512:
	PREFETCHT0 (BDIST+0)(DI)
	PREFETCHT0 (BDIST+64)(DI)
	PREFETCHT0 (BDIST+128)(DI)
	PREFETCHT0 (ADIST+0)(SI)
	STEP512(0, 0)
	PREFETCHT0 (BDIST+192)(DI)
	PREFETCHT0 (BDIST+256)(DI)
	PREFETCHT0 (BDIST+320)(DI)
	PREFETCHT0 (ADIST+64)(SI)
	STEP512(64, 192)
	PREFETCHT0 (BDIST+384)(DI)
	PREFETCHT0 (BDIST+448)(DI)
	PREFETCHT0 (BDIST+512)(DI)
	PREFETCHT0 (ADIST+128)(SI)
	STEP512(128, 384)
	PREFETCHT0 (BDIST+576)(DI)
	PREFETCHT0 (BDIST+640)(DI)
	PREFETCHT0 (BDIST+704)(DI)
	PREFETCHT0 (ADIST+192)(SI)
	STEP512(192, 576)
	ADDQ $256, SI
	ADDQ $768, DI
	DECQ BX
	JNZ  loop512

tail512:
	TESTQ CX, CX
	JZ    done512

loop512one:
	STEP512(0, 0)
	ADDQ $64, SI
	ADDQ $192, DI
	DECQ CX
	JNZ  loop512one

done512:
	VBROADCASTSD alpha+40(FP), Z24
	SCALE512(Z24, Z0, Z1, Z2)
	SCALE512(Z24, Z3, Z4, Z5)
	SCALE512(Z24, Z6, Z7, Z8)
	SCALE512(Z24, Z9, Z10, Z11)
	SCALE512(Z24, Z12, Z13, Z14)
	SCALE512(Z24, Z15, Z16, Z17)
	SCALE512(Z24, Z18, Z19, Z20)
	SCALE512(Z24, Z21, Z22, Z23)

	// beta == ±0: overwrite C without reading it.
	MOVQ beta+48(FP), AX
	SHLQ $1, AX
	JZ   store512

	VBROADCASTSD beta+48(FP), Z25
	BETAROW512(Z0, Z1, Z2)
	BETAROW512(Z3, Z4, Z5)
	BETAROW512(Z6, Z7, Z8)
	BETAROW512(Z9, Z10, Z11)
	BETAROW512(Z12, Z13, Z14)
	BETAROW512(Z15, Z16, Z17)
	BETAROW512(Z18, Z19, Z20)
	BETAROW512(Z21, Z22, Z23)
	VZEROUPPER
	RET

store512:
	STOREROW512(Z0, Z1, Z2)
	STOREROW512(Z3, Z4, Z5)
	STOREROW512(Z6, Z7, Z8)
	STOREROW512(Z9, Z10, Z11)
	STOREROW512(Z12, Z13, Z14)
	STOREROW512(Z15, Z16, Z17)
	STOREROW512(Z18, Z19, Z20)
	STOREROW512(Z21, Z22, Z23)
	VZEROUPPER
	RET

// ---------------------------------------------------------------------------
// AVX2: 4x12 tile. Accumulators Y0..Y11 (row r in Y(3r), Y(3r+1), Y(3r+2)),
// B row in Y12..Y14, A broadcast in Y15.

#define ROW256(aoff, c0, c1, c2) \
	VBROADCASTSD aoff(SI), Y15; \
	VFMADD231PD  Y12, Y15, c0;  \
	VFMADD231PD  Y13, Y15, c1;  \
	VFMADD231PD  Y14, Y15, c2

#define STEP256(a, b) \
	VMOVUPD (b)(DI), Y12;            \
	VMOVUPD (b+32)(DI), Y13;         \
	VMOVUPD (b+64)(DI), Y14;         \
	ROW256((a), Y0, Y1, Y2);         \
	ROW256((a+8), Y3, Y4, Y5);       \
	ROW256((a+16), Y6, Y7, Y8);      \
	ROW256((a+24), Y9, Y10, Y11)

#define SCALE256(s, c0, c1, c2) \
	VMULPD s, c0, c0; \
	VMULPD s, c1, c1; \
	VMULPD s, c2, c2

#define BETAROW256(c0, c1, c2) \
	VFMADD231PD (DX), Y13, c0;   \
	VFMADD231PD 32(DX), Y13, c1; \
	VFMADD231PD 64(DX), Y13, c2; \
	VMOVUPD     c0, (DX);        \
	VMOVUPD     c1, 32(DX);      \
	VMOVUPD     c2, 64(DX);      \
	ADDQ        R8, DX

#define STOREROW256(c0, c1, c2) \
	VMOVUPD c0, (DX);   \
	VMOVUPD c1, 32(DX); \
	VMOVUPD c2, 64(DX); \
	ADDQ    R8, DX

// Software prefetch distances (bytes ahead) for B and A.
#define BDIST2 768
#define ADIST2 256

// func kern4x12AVX2(k int, a, b, c *float64, ldc int, alpha, beta float64)
TEXT ·kern4x12AVX2(SB), NOSPLIT, $0-56
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ c+24(FP), DX
	MOVQ ldc+32(FP), R8
	SHLQ $3, R8

	MOVQ DX, R9
	PREFETCHROW256
	PREFETCHROW256
	PREFETCHROW256
	PREFETCHROW256

	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11

	MOVQ CX, BX
	SHRQ $2, BX
	ANDQ $3, CX
	TESTQ BX, BX
	JZ   tail256

loop256:
	PREFETCHT0 (BDIST2+0)(DI)
	PREFETCHT0 (BDIST2+64)(DI)
	STEP256(0, 0)
	PREFETCHT0 (BDIST2+128)(DI)
	PREFETCHT0 (ADIST2+0)(SI)
	STEP256(32, 96)
	PREFETCHT0 (BDIST2+192)(DI)
	PREFETCHT0 (BDIST2+256)(DI)
	STEP256(64, 192)
	PREFETCHT0 (BDIST2+320)(DI)
	PREFETCHT0 (ADIST2+64)(SI)
	STEP256(96, 288)
	ADDQ $128, SI
	ADDQ $384, DI
	DECQ BX
	JNZ  loop256

tail256:
	TESTQ CX, CX
	JZ    done256

loop256one:
	STEP256(0, 0)
	ADDQ $32, SI
	ADDQ $96, DI
	DECQ CX
	JNZ  loop256one

done256:
	VBROADCASTSD alpha+40(FP), Y12
	SCALE256(Y12, Y0, Y1, Y2)
	SCALE256(Y12, Y3, Y4, Y5)
	SCALE256(Y12, Y6, Y7, Y8)
	SCALE256(Y12, Y9, Y10, Y11)

	MOVQ beta+48(FP), AX
	SHLQ $1, AX
	JZ   store256

	VBROADCASTSD beta+48(FP), Y13
	BETAROW256(Y0, Y1, Y2)
	BETAROW256(Y3, Y4, Y5)
	BETAROW256(Y6, Y7, Y8)
	BETAROW256(Y9, Y10, Y11)
	VZEROUPPER
	RET

store256:
	STOREROW256(Y0, Y1, Y2)
	STOREROW256(Y3, Y4, Y5)
	STOREROW256(Y6, Y7, Y8)
	STOREROW256(Y9, Y10, Y11)
	VZEROUPPER
	RET

// ---------------------------------------------------------------------------
// AVX-512: 8x8 edge tile (kern8x8AVX512S below), for the last 8 columns of a C
// whose width leaves 8 after the 24-wide tiles (n = 32: 24 + 8), where the 8x24
// kernel would compute 16 columns of padding. Accumulators Z0..Z7 (row r in Zr),
// B row in Z8; A is broadcast from memory into each FMA. Each element is the same
// FMA chain over k as in kern8x24AVX512, then the same alpha and beta steps, so
// the results are those of the 8x24 kernel bit for bit.

#define BETAROW8(c) \
	VFMADD231PD (DX), Z10, c; \
	VMOVUPD     c, (DX);      \
	ADDQ        R8, DX

#define STOREROW8(c) \
	VMOVUPD c, (DX); \
	ADDQ    R8, DX

// ---------------------------------------------------------------------------
// AVX-512 kernels on unpacked operands, for thin products (see direct.go):
// A's element (r, p) is read at a + r*rsa + p*csa and B's row p at b + p*ldb
// (strides in elements), so that neither operand needs packing. The FMA chain
// of each element is that of the packed kernels, so the results are the same bit
// for bit. Registers: SI = A at step p (rows 0-3), R11 = its row 4, R12 = rsa,
// R13 = 3 rsa, R9 = csa (bytes); DI = B row, R10 = ldb (bytes).

#define ROWS512(c0, c1, c2, src) \
	VBROADCASTSD src, Z27;     \
	VFMADD231PD  Z24, Z27, c0; \
	VFMADD231PD  Z25, Z27, c1; \
	VFMADD231PD  Z26, Z27, c2

// func kern8x24AVX512S(k int, a *float64, rsa, csa int, b *float64, ldb int, c *float64, ldc int, alpha, beta float64)
TEXT ·kern8x24AVX512S(SB), NOSPLIT, $0-80
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
	VPXORQ Z16, Z16, Z16
	VPXORQ Z17, Z17, Z17
	VPXORQ Z18, Z18, Z18
	VPXORQ Z19, Z19, Z19
	VPXORQ Z20, Z20, Z20
	VPXORQ Z21, Z21, Z21
	VPXORQ Z22, Z22, Z22
	VPXORQ Z23, Z23, Z23
	TESTQ  CX, CX
	JZ     doneS

loopS:
	VMOVUPD (DI), Z24
	VMOVUPD 64(DI), Z25
	VMOVUPD 128(DI), Z26
	ROWS512(Z0, Z1, Z2, (SI))
	ROWS512(Z3, Z4, Z5, (SI)(R12*1))
	ROWS512(Z6, Z7, Z8, (SI)(R12*2))
	ROWS512(Z9, Z10, Z11, (SI)(R13*1))
	ROWS512(Z12, Z13, Z14, (R11))
	ROWS512(Z15, Z16, Z17, (R11)(R12*1))
	ROWS512(Z18, Z19, Z20, (R11)(R12*2))
	ROWS512(Z21, Z22, Z23, (R11)(R13*1))
	ADDQ R9, SI
	ADDQ R9, R11
	ADDQ R10, DI
	DECQ CX
	JNZ  loopS

doneS:
	VBROADCASTSD alpha+64(FP), Z24
	SCALE512(Z24, Z0, Z1, Z2)
	SCALE512(Z24, Z3, Z4, Z5)
	SCALE512(Z24, Z6, Z7, Z8)
	SCALE512(Z24, Z9, Z10, Z11)
	SCALE512(Z24, Z12, Z13, Z14)
	SCALE512(Z24, Z15, Z16, Z17)
	SCALE512(Z24, Z18, Z19, Z20)
	SCALE512(Z24, Z21, Z22, Z23)

	MOVQ beta+72(FP), AX
	SHLQ $1, AX
	JZ   storeS

	VBROADCASTSD beta+72(FP), Z25
	BETAROW512(Z0, Z1, Z2)
	BETAROW512(Z3, Z4, Z5)
	BETAROW512(Z6, Z7, Z8)
	BETAROW512(Z9, Z10, Z11)
	BETAROW512(Z12, Z13, Z14)
	BETAROW512(Z15, Z16, Z17)
	BETAROW512(Z18, Z19, Z20)
	BETAROW512(Z21, Z22, Z23)
	VZEROUPPER
	RET

storeS:
	STOREROW512(Z0, Z1, Z2)
	STOREROW512(Z3, Z4, Z5)
	STOREROW512(Z6, Z7, Z8)
	STOREROW512(Z9, Z10, Z11)
	STOREROW512(Z12, Z13, Z14)
	STOREROW512(Z15, Z16, Z17)
	STOREROW512(Z18, Z19, Z20)
	STOREROW512(Z21, Z22, Z23)
	VZEROUPPER
	RET

// func kern8x8AVX512S(k int, a *float64, rsa, csa int, b *float64, ldb int, c *float64, ldc int, alpha, beta float64)
TEXT ·kern8x8AVX512S(SB), NOSPLIT, $0-80
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
	TESTQ  CX, CX
	JZ     done8S

loop8S:
	VMOVUPD          (DI), Z8
	VFMADD231PD.BCST (SI), Z8, Z0
	VFMADD231PD.BCST (SI)(R12*1), Z8, Z1
	VFMADD231PD.BCST (SI)(R12*2), Z8, Z2
	VFMADD231PD.BCST (SI)(R13*1), Z8, Z3
	VFMADD231PD.BCST (R11), Z8, Z4
	VFMADD231PD.BCST (R11)(R12*1), Z8, Z5
	VFMADD231PD.BCST (R11)(R12*2), Z8, Z6
	VFMADD231PD.BCST (R11)(R13*1), Z8, Z7
	ADDQ             R9, SI
	ADDQ             R9, R11
	ADDQ             R10, DI
	DECQ             CX
	JNZ              loop8S

done8S:
	VBROADCASTSD alpha+64(FP), Z9
	VMULPD       Z9, Z0, Z0
	VMULPD       Z9, Z1, Z1
	VMULPD       Z9, Z2, Z2
	VMULPD       Z9, Z3, Z3
	VMULPD       Z9, Z4, Z4
	VMULPD       Z9, Z5, Z5
	VMULPD       Z9, Z6, Z6
	VMULPD       Z9, Z7, Z7

	MOVQ beta+72(FP), AX
	SHLQ $1, AX
	JZ   store8S

	VBROADCASTSD beta+72(FP), Z10
	BETAROW8(Z0)
	BETAROW8(Z1)
	BETAROW8(Z2)
	BETAROW8(Z3)
	BETAROW8(Z4)
	BETAROW8(Z5)
	BETAROW8(Z6)
	BETAROW8(Z7)
	VZEROUPPER
	RET

store8S:
	STOREROW8(Z0)
	STOREROW8(Z1)
	STOREROW8(Z2)
	STOREROW8(Z3)
	STOREROW8(Z4)
	STOREROW8(Z5)
	STOREROW8(Z6)
	STOREROW8(Z7)
	VZEROUPPER
	RET
