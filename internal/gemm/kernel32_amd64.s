//go:build amd64 && !noasm

#include "textflag.h"

// The float32 kernels: the float64 kernels of kernel_amd64.s with single
// precision instructions and twice the columns per vector. A B row (NR values)
// has the same length in bytes as in the float64 kernels, an A column half.
// Register use, both kernels:
//   SI = packed A (MR values per k step), DI = packed B (NR values per k step)
//   DX = C, R8 = ldc in bytes, CX = k % 4, BX = k / 4.

// ---------------------------------------------------------------------------
// AVX-512: 8x48 float32 tile. Accumulators Z0..Z23 (row r in Z(3r), Z(3r+1), Z(3r+2)),
// B row in Z24..Z26, A broadcasts in Z27/Z28.

#define ROW512(aoff, bc, c0, c1, c2) \
	VBROADCASTSS aoff(SI), bc; \
	VFMADD231PS  Z24, bc, c0;  \
	VFMADD231PS  Z25, bc, c1;  \
	VFMADD231PS  Z26, bc, c2

// STEP512 performs one k step; a and b are byte offsets from SI and DI.
#define STEP512(a, b) \
	VMOVUPS (b)(DI), Z24;                      \
	VMOVUPS (b+64)(DI), Z25;                   \
	VMOVUPS (b+128)(DI), Z26;                  \
	ROW512((a), Z27, Z0, Z1, Z2);              \
	ROW512((a+4), Z28, Z3, Z4, Z5);            \
	ROW512((a+8), Z27, Z6, Z7, Z8);            \
	ROW512((a+12), Z28, Z9, Z10, Z11);         \
	ROW512((a+16), Z27, Z12, Z13, Z14);        \
	ROW512((a+20), Z28, Z15, Z16, Z17);        \
	ROW512((a+24), Z27, Z18, Z19, Z20);        \
	ROW512((a+28), Z28, Z21, Z22, Z23)

#define SCALE512(s, c0, c1, c2) \
	VMULPS s, c0, c0; \
	VMULPS s, c1, c1; \
	VMULPS s, c2, c2

// BETAROW512 stores c = acc + beta*c for one row and advances DX.
#define BETAROW512(c0, c1, c2) \
	VFMADD231PS (DX), Z25, c0;    \
	VFMADD231PS 64(DX), Z25, c1;  \
	VFMADD231PS 128(DX), Z25, c2; \
	VMOVUPS     c0, (DX);         \
	VMOVUPS     c1, 64(DX);       \
	VMOVUPS     c2, 128(DX);      \
	ADDQ        R8, DX

#define STOREROW512(c0, c1, c2) \
	VMOVUPS c0, (DX);    \
	VMOVUPS c1, 64(DX);  \
	VMOVUPS c2, 128(DX); \
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

// Software prefetch distances (bytes ahead, 8 k steps: the B rows are as long as in the float64 kernel, the A rows half) for B and A.
#define BDIST 1536
#define ADIST 256

// ZERO512 clears the 24 accumulators Z0..Z23.
#define ZERO512 \
	VPXORQ Z0, Z0, Z0; \
	VPXORQ Z1, Z1, Z1; \
	VPXORQ Z2, Z2, Z2; \
	VPXORQ Z3, Z3, Z3; \
	VPXORQ Z4, Z4, Z4; \
	VPXORQ Z5, Z5, Z5; \
	VPXORQ Z6, Z6, Z6; \
	VPXORQ Z7, Z7, Z7; \
	VPXORQ Z8, Z8, Z8; \
	VPXORQ Z9, Z9, Z9; \
	VPXORQ Z10, Z10, Z10; \
	VPXORQ Z11, Z11, Z11; \
	VPXORQ Z12, Z12, Z12; \
	VPXORQ Z13, Z13, Z13; \
	VPXORQ Z14, Z14, Z14; \
	VPXORQ Z15, Z15, Z15; \
	VPXORQ Z16, Z16, Z16; \
	VPXORQ Z17, Z17, Z17; \
	VPXORQ Z18, Z18, Z18; \
	VPXORQ Z19, Z19, Z19; \
	VPXORQ Z20, Z20, Z20; \
	VPXORQ Z21, Z21, Z21; \
	VPXORQ Z22, Z22, Z22; \
	VPXORQ Z23, Z23, Z23

// KLOOP512 is the k loop of the 8x48 tile: four rank-1 updates an iteration
// (k/4 of them), then one at a time for k mod 4, with the B and A panels
// prefetched ahead (BDIST, ADIST); it leaves SI and DI past the panels and jumps
// to done. kern8x48AVX512 and kernC4x24AVX512 (whose A panel holds the real and
// imaginary parts of 4 rows as 8 rows) share it.
#define KLOOP512(loop, one, tail, done) \
	MOVQ CX, BX; \
	SHRQ $2, BX; \
	ANDQ $3, CX; \
	TESTQ BX, BX; \
	JZ   tail; \
loop: \
	PREFETCHT0 (BDIST+0)(DI); \
	PREFETCHT0 (BDIST+64)(DI); \
	PREFETCHT0 (BDIST+128)(DI); \
	PREFETCHT0 (ADIST+0)(SI); \
	STEP512(0, 0); \
	PREFETCHT0 (BDIST+192)(DI); \
	PREFETCHT0 (BDIST+256)(DI); \
	PREFETCHT0 (BDIST+320)(DI); \
	STEP512(32, 192); \
	PREFETCHT0 (BDIST+384)(DI); \
	PREFETCHT0 (BDIST+448)(DI); \
	PREFETCHT0 (BDIST+512)(DI); \
	PREFETCHT0 (ADIST+64)(SI); \
	STEP512(64, 384); \
	PREFETCHT0 (BDIST+576)(DI); \
	PREFETCHT0 (BDIST+640)(DI); \
	PREFETCHT0 (BDIST+704)(DI); \
	STEP512(96, 576); \
	ADDQ $128, SI; \
	ADDQ $768, DI; \
	DECQ BX; \
	JNZ  loop; \
tail: \
	TESTQ CX, CX; \
	JZ    done; \
one: \
	STEP512(0, 0); \
	ADDQ $32, SI; \
	ADDQ $192, DI; \
	DECQ CX; \
	JNZ  one

// func kern8x48AVX512(k int, a, b, c *float32, ldc int, alpha, beta float32)
TEXT ·kern8x48AVX512(SB), NOSPLIT, $0-48
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ c+24(FP), DX
	MOVQ ldc+32(FP), R8
	SHLQ $2, R8

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

	ZERO512

	KLOOP512(loop512, loop512one, tail512, done512)

done512:
	// alpha == 1 (the products of tensor and einsum): the scaling would
	// change no bit (x*1 = x for every float32 x the FMAs can produce), so it
	// is left out.
	MOVL alpha+40(FP), AX
	CMPL AX, $0x3f800000
	JEQ  scaled512
	VBROADCASTSS alpha+40(FP), Z24
	SCALE512(Z24, Z0, Z1, Z2)
	SCALE512(Z24, Z3, Z4, Z5)
	SCALE512(Z24, Z6, Z7, Z8)
	SCALE512(Z24, Z9, Z10, Z11)
	SCALE512(Z24, Z12, Z13, Z14)
	SCALE512(Z24, Z15, Z16, Z17)
	SCALE512(Z24, Z18, Z19, Z20)
	SCALE512(Z24, Z21, Z22, Z23)

scaled512:
	// beta == ±0: overwrite C without reading it.
	MOVL beta+44(FP), AX
	SHLL $1, AX
	JZ   store512

	VBROADCASTSS beta+44(FP), Z25
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
// AVX2: 4x24 float32 tile. Accumulators Y0..Y11 (row r in Y(3r), Y(3r+1), Y(3r+2)),
// B row in Y12..Y14, A broadcast in Y15.

#define ROW256(aoff, c0, c1, c2) \
	VBROADCASTSS aoff(SI), Y15; \
	VFMADD231PS  Y12, Y15, c0;  \
	VFMADD231PS  Y13, Y15, c1;  \
	VFMADD231PS  Y14, Y15, c2

#define STEP256(a, b) \
	VMOVUPS (b)(DI), Y12;            \
	VMOVUPS (b+32)(DI), Y13;         \
	VMOVUPS (b+64)(DI), Y14;         \
	ROW256((a), Y0, Y1, Y2);         \
	ROW256((a+4), Y3, Y4, Y5);       \
	ROW256((a+8), Y6, Y7, Y8);       \
	ROW256((a+12), Y9, Y10, Y11)

#define SCALE256(s, c0, c1, c2) \
	VMULPS s, c0, c0; \
	VMULPS s, c1, c1; \
	VMULPS s, c2, c2

#define BETAROW256(c0, c1, c2) \
	VFMADD231PS (DX), Y13, c0;   \
	VFMADD231PS 32(DX), Y13, c1; \
	VFMADD231PS 64(DX), Y13, c2; \
	VMOVUPS     c0, (DX);        \
	VMOVUPS     c1, 32(DX);      \
	VMOVUPS     c2, 64(DX);      \
	ADDQ        R8, DX

#define STOREROW256(c0, c1, c2) \
	VMOVUPS c0, (DX);   \
	VMOVUPS c1, 32(DX); \
	VMOVUPS c2, 64(DX); \
	ADDQ    R8, DX

// Software prefetch distances (bytes ahead) for B and A.
#define BDIST2 768
#define ADIST2 128

// func kern4x24AVX2(k int, a, b, c *float32, ldc int, alpha, beta float32)
TEXT ·kern4x24AVX2(SB), NOSPLIT, $0-48
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ c+24(FP), DX
	MOVQ ldc+32(FP), R8
	SHLQ $2, R8

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
	STEP256(16, 96)
	PREFETCHT0 (BDIST2+192)(DI)
	PREFETCHT0 (BDIST2+256)(DI)
	STEP256(32, 192)
	PREFETCHT0 (BDIST2+320)(DI)
	STEP256(48, 288)
	ADDQ $64, SI
	ADDQ $384, DI
	DECQ BX
	JNZ  loop256

tail256:
	TESTQ CX, CX
	JZ    done256

loop256one:
	STEP256(0, 0)
	ADDQ $16, SI
	ADDQ $96, DI
	DECQ CX
	JNZ  loop256one

done256:
	VBROADCASTSS alpha+40(FP), Y12
	SCALE256(Y12, Y0, Y1, Y2)
	SCALE256(Y12, Y3, Y4, Y5)
	SCALE256(Y12, Y6, Y7, Y8)
	SCALE256(Y12, Y9, Y10, Y11)

	MOVL beta+44(FP), AX
	SHLL $1, AX
	JZ   store256

	VBROADCASTSS beta+44(FP), Y13
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
// AVX-512 complex64: 4x24 complex tile (4 rows of C, 48 float32 each) on the
// loop of kern8x48AVX512. Packed A holds, per k step, re and im of the 4 rows
// (8 values: row 2i of the real kernel is re A[i,p], row 2i+1 im A[i,p]);
// packed B holds the 24 complex values of op(B)'s row p, interleaved. So
// Z(6i..6i+2) accumulate re A[i,p] * B[p,:] and Z(6i+3..6i+5) im A[i,p] * B[p,:];
// at the end C[i,:] = acc_re + (-im, re)-swap of acc_im:
// (ar br - ai bi, ar bi + ai br).

// CMUL512 turns the accumulators of one complex row into the products: c =
// c*1 -/+ swap(s) (VFMADDSUB213PS subtracts in even, real, lanes), Z29 = 1.
#define CMUL512(c0, c1, c2, s0, s1, s2) \
	VPERMILPS      $0xb1, s0, s0; \
	VPERMILPS      $0xb1, s1, s1; \
	VPERMILPS      $0xb1, s2, s2; \
	VFMADDSUB213PS s0, Z29, c0;   \
	VFMADDSUB213PS s1, Z29, c1;   \
	VFMADDSUB213PS s2, Z29, c2

// func kernC4x24AVX512(k int, a, b, c *float32, ldc int, alpha, beta float32)
// (ldc in float32 values; alpha and beta real.)
TEXT ·kernC4x24AVX512(SB), NOSPLIT, $0-48
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ c+24(FP), DX
	MOVQ ldc+32(FP), R8
	SHLQ $2, R8

	MOVQ DX, R9
	PREFETCHROW512
	PREFETCHROW512
	PREFETCHROW512
	PREFETCHROW512

	ZERO512

	KLOOP512(cloop512, cloop512one, ctail512, cdone512)

cdone512:
	MOVL         $0x3f800000, AX
	VPBROADCASTD AX, Z29
	CMUL512(Z0, Z1, Z2, Z3, Z4, Z5)
	CMUL512(Z6, Z7, Z8, Z9, Z10, Z11)
	CMUL512(Z12, Z13, Z14, Z15, Z16, Z17)
	CMUL512(Z18, Z19, Z20, Z21, Z22, Z23)

	VBROADCASTSS alpha+40(FP), Z24
	SCALE512(Z24, Z0, Z1, Z2)
	SCALE512(Z24, Z6, Z7, Z8)
	SCALE512(Z24, Z12, Z13, Z14)
	SCALE512(Z24, Z18, Z19, Z20)

	// beta == ±0: overwrite C without reading it.
	MOVL beta+44(FP), AX
	SHLL $1, AX
	JZ   cstore512

	VBROADCASTSS beta+44(FP), Z25
	BETAROW512(Z0, Z1, Z2)
	BETAROW512(Z6, Z7, Z8)
	BETAROW512(Z12, Z13, Z14)
	BETAROW512(Z18, Z19, Z20)
	VZEROUPPER
	RET

cstore512:
	STOREROW512(Z0, Z1, Z2)
	STOREROW512(Z6, Z7, Z8)
	STOREROW512(Z12, Z13, Z14)
	STOREROW512(Z18, Z19, Z20)
	VZEROUPPER
	RET

// func scaleC64AVX512(x *float32, n int, re, im float32)
//
// Multiplies the n/2 complex values of x (interleaved parts; n a multiple of
// 16) by re + i im: (vr re - vi im, vi re + vr im), the product rounded once per
// part after the exact vr re (or vi re) and the rounded vi im (or vr im).
TEXT ·scaleC64AVX512(SB), NOSPLIT, $0-24
	MOVQ         x+0(FP), DI
	MOVQ         n+8(FP), CX
	VBROADCASTSS re+16(FP), Z1
	VBROADCASTSS im+20(FP), Z2
	SHRQ         $4, CX
	JZ           sdone

sloop:
	VMOVUPS        (DI), Z0
	VPERMILPS      $0xb1, Z0, Z3 // (vi, vr)
	VMULPS         Z2, Z3, Z3    // (vi im, vr im)
	VFMADDSUB213PS Z3, Z1, Z0    // (vr re - vi im, vi re + vr im)
	VMOVUPS        Z0, (DI)
	ADDQ           $64, DI
	DECQ           CX
	JNZ            sloop

sdone:
	VZEROUPPER
	RET

// ---------------------------------------------------------------------------
// AVX-512: 8x16 float32 edge tile (see kernel.edge). Accumulators Z0..Z7 (row r
// in Zr), the B row in Z24..Z27 (one a k step of the unrolled loop); the A values
// come broadcast inside the FMAs. Each accumulator is the FMA chain of
// kern8x48AVX512's lane in the same k order, and the epilogue is the same, so the
// results are those of the 8x48 kernel bit for bit.
// Registers: SI = packed A (8 values per k step), DI = B row p (row stride R10
// bytes), DX = C, R8 = ldc in bytes, CX = k % 4, BX = k / 4, R11 = 3 ldb bytes.

#define EROW16(aoff, bz) \
	VFMADD231PS.BCST (aoff)(SI), bz, Z0;    \
	VFMADD231PS.BCST (aoff+4)(SI), bz, Z1;  \
	VFMADD231PS.BCST (aoff+8)(SI), bz, Z2;  \
	VFMADD231PS.BCST (aoff+12)(SI), bz, Z3; \
	VFMADD231PS.BCST (aoff+16)(SI), bz, Z4; \
	VFMADD231PS.BCST (aoff+20)(SI), bz, Z5; \
	VFMADD231PS.BCST (aoff+24)(SI), bz, Z6; \
	VFMADD231PS.BCST (aoff+28)(SI), bz, Z7

// func kern8x16AVX512(k int, a, b *float32, ldb int, c *float32, ldc int, alpha, beta float32)
TEXT ·kern8x16AVX512(SB), NOSPLIT, $0-56
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ ldb+24(FP), R10
	SHLQ $2, R10
	MOVQ c+32(FP), DX
	MOVQ ldc+40(FP), R8
	SHLQ $2, R8
	LEAQ (R10)(R10*2), R11

	MOVQ DX, R9
	PREFETCHT0 (R9)
	ADDQ       R8, R9
	PREFETCHT0 (R9)
	ADDQ       R8, R9
	PREFETCHT0 (R9)
	ADDQ       R8, R9
	PREFETCHT0 (R9)
	ADDQ       R8, R9
	PREFETCHT0 (R9)
	ADDQ       R8, R9
	PREFETCHT0 (R9)
	ADDQ       R8, R9
	PREFETCHT0 (R9)
	ADDQ       R8, R9
	PREFETCHT0 (R9)

	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	VPXORQ Z4, Z4, Z4
	VPXORQ Z5, Z5, Z5
	VPXORQ Z6, Z6, Z6
	VPXORQ Z7, Z7, Z7

	MOVQ  CX, BX
	SHRQ  $2, BX
	ANDQ  $3, CX
	TESTQ BX, BX
	JZ    etail16

eloop16:
	VMOVUPS (DI), Z24
	VMOVUPS (DI)(R10*1), Z25
	VMOVUPS (DI)(R10*2), Z26
	VMOVUPS (DI)(R11*1), Z27
	EROW16(0, Z24)
	EROW16(32, Z25)
	EROW16(64, Z26)
	EROW16(96, Z27)
	ADDQ $128, SI
	LEAQ (DI)(R10*4), DI
	DECQ BX
	JNZ  eloop16

etail16:
	TESTQ CX, CX
	JZ    edone16

eone16:
	VMOVUPS (DI), Z24
	EROW16(0, Z24)
	ADDQ $32, SI
	ADDQ R10, DI
	DECQ CX
	JNZ  eone16

edone16:
	// alpha == 1: no scaling, as in kern8x48AVX512.
	MOVL alpha+48(FP), AX
	CMPL AX, $0x3f800000
	JEQ  escaled16
	VBROADCASTSS alpha+48(FP), Z24
	VMULPS       Z24, Z0, Z0
	VMULPS       Z24, Z1, Z1
	VMULPS       Z24, Z2, Z2
	VMULPS       Z24, Z3, Z3
	VMULPS       Z24, Z4, Z4
	VMULPS       Z24, Z5, Z5
	VMULPS       Z24, Z6, Z6
	VMULPS       Z24, Z7, Z7

escaled16:
	// beta == ±0: overwrite C without reading it.
	MOVL beta+52(FP), AX
	SHLL $1, AX
	JZ   estore16

	VBROADCASTSS beta+52(FP), Z25
	VFMADD231PS  (DX), Z25, Z0
	VMOVUPS      Z0, (DX)
	ADDQ         R8, DX
	VFMADD231PS  (DX), Z25, Z1
	VMOVUPS      Z1, (DX)
	ADDQ         R8, DX
	VFMADD231PS  (DX), Z25, Z2
	VMOVUPS      Z2, (DX)
	ADDQ         R8, DX
	VFMADD231PS  (DX), Z25, Z3
	VMOVUPS      Z3, (DX)
	ADDQ         R8, DX
	VFMADD231PS  (DX), Z25, Z4
	VMOVUPS      Z4, (DX)
	ADDQ         R8, DX
	VFMADD231PS  (DX), Z25, Z5
	VMOVUPS      Z5, (DX)
	ADDQ         R8, DX
	VFMADD231PS  (DX), Z25, Z6
	VMOVUPS      Z6, (DX)
	ADDQ         R8, DX
	VFMADD231PS  (DX), Z25, Z7
	VMOVUPS      Z7, (DX)
	VZEROUPPER
	RET

estore16:
	VMOVUPS Z0, (DX)
	ADDQ    R8, DX
	VMOVUPS Z1, (DX)
	ADDQ    R8, DX
	VMOVUPS Z2, (DX)
	ADDQ    R8, DX
	VMOVUPS Z3, (DX)
	ADDQ    R8, DX
	VMOVUPS Z4, (DX)
	ADDQ    R8, DX
	VMOVUPS Z5, (DX)
	ADDQ    R8, DX
	VMOVUPS Z6, (DX)
	ADDQ    R8, DX
	VMOVUPS Z7, (DX)
	VZEROUPPER
	RET
