//go:build amd64 && !noasm

#include "textflag.h"

// func shiftRows32AVX512(dst *float32, dstStride, tapStride int, src *float32, srcStride int, off *int32, mask *uint16, taps, ch, full int, tail uint16)
//
// R8 = dst at channel c, R11 = its row of tap k, DI = the chunk; SI = src row of
// channel c, CX = the run of tap k; BX = off[k], R12 = end of off; DX =
// mask[k chunks + q] (contiguous over the taps of a channel); R9 = full, R14 =
// chunks left, R13 = channels left, K2 = the tail's mask. A chunk is a masked
// load with zeroing (masked-off lanes are neither read nor fault) and a store.
TEXT ·shiftRows32AVX512(SB), NOSPLIT, $0-82
	MOVQ    dst+0(FP), R8
	MOVQ    src+24(FP), SI
	MOVQ    off+40(FP), R10
	MOVQ    taps+56(FP), R12
	LEAQ    (R10)(R12*4), R12
	MOVQ    ch+64(FP), R13
	MOVQ    full+72(FP), R9
	MOVWLZX tail+80(FP), AX
	KMOVW   AX, K2

rchan:
	MOVQ R10, BX
	MOVQ mask+48(FP), DX
	MOVQ R8, R11

rtap:
	MOVLQSX (BX), AX
	LEAQ    (SI)(AX*4), CX
	MOVQ    R11, DI
	MOVQ    R9, R14
	TESTQ   R14, R14
	JZ      rtail

rchunk:
	KMOVW     (DX), K1
	VMOVUPS.Z (CX), K1, Z0
	VMOVUPS   Z0, (DI)
	ADDQ      $64, CX
	ADDQ      $64, DI
	ADDQ      $2, DX
	DECQ      R14
	JNZ       rchunk

rtail:
	KORTESTW  K2, K2
	JZ        rnext
	KMOVW     (DX), K1
	KANDW     K1, K2, K1
	VMOVUPS.Z (CX), K1, Z0
	VMOVUPS   Z0, K2, (DI)
	ADDQ      $2, DX

rnext:
	ADDQ tapStride+16(FP), R11
	ADDQ $4, BX
	CMPQ BX, R12
	JNE  rtap
	ADDQ dstStride+8(FP), R8
	ADDQ srcStride+32(FP), SI
	DECQ R13
	JNZ  rchan
	VZEROUPPER
	RET

// func shiftSum32AVX512(dst *float32, dstStride int, src *float32, srcStride int, off *int32, mask *uint16, taps, ch, full int, tail uint16)
//
// R8 = dst row of channel c, DI = its chunk q; SI = src at channel c, CX = SI
// + 64 q; R10/R12 = off and its end, BX = off[k]; R11 = mask + 2 q, DX =
// mask[k chunks + q], R9 = 2 chunks (a tap's stride in mask); R14 = full chunks
// left, R13 = channels left, K2 = the tail's mask. Z0 sums the taps of a chunk
// in order from zero, each a masked add (masked-off lanes are neither read nor
// fault and keep the sum).
TEXT ·shiftSum32AVX512(SB), NOSPLIT, $0-74
	MOVQ    dst+0(FP), R8
	MOVQ    src+16(FP), SI
	MOVQ    off+32(FP), R10
	MOVQ    taps+48(FP), R12
	LEAQ    (R10)(R12*4), R12
	MOVQ    ch+56(FP), R13
	MOVWLZX tail+72(FP), AX
	KMOVW   AX, K2
	MOVQ    full+64(FP), R9
	TESTQ   AX, AX
	JZ      snotail
	INCQ    R9

snotail:
	SHLQ $1, R9

schan:
	MOVQ  R8, DI
	MOVQ  SI, CX
	MOVQ  mask+40(FP), R11
	MOVQ  full+64(FP), R14
	TESTQ R14, R14
	JZ    stail

schunk:
	VPXORD Z0, Z0, Z0
	MOVQ   R10, BX
	MOVQ   R11, DX

stap:
	MOVLQSX (BX), AX
	KMOVW   (DX), K1
	VADDPS  (CX)(AX*4), Z0, K1, Z0
	ADDQ    $4, BX
	ADDQ    R9, DX
	CMPQ    BX, R12
	JNE     stap
	VMOVUPS Z0, (DI)
	ADDQ    $64, DI
	ADDQ    $64, CX
	ADDQ    $2, R11
	DECQ    R14
	JNZ     schunk

stail:
	KORTESTW K2, K2
	JZ       snext
	VPXORD   Z0, Z0, Z0
	MOVQ     R10, BX
	MOVQ     R11, DX

stailtap:
	MOVLQSX (BX), AX
	KMOVW   (DX), K1
	KANDW   K1, K2, K1
	VADDPS  (CX)(AX*4), Z0, K1, Z0
	ADDQ    $4, BX
	ADDQ    R9, DX
	CMPQ    BX, R12
	JNE     stailtap
	VMOVUPS Z0, K2, (DI)

snext:
	ADDQ dstStride+8(FP), R8
	ADDQ srcStride+24(FP), SI
	DECQ R13
	JNZ  schan
	VZEROUPPER
	RET
