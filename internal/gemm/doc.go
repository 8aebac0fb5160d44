// Package gemm is a pure-Go (plus Go assembly) general matrix multiply for
// float64, complex128, float32 and complex64, in the style of BLIS / GotoBLAS.
// Its only caller is package tensor (GemmBatch, the one path of the project's
// matrix products, and the gonum BLAS adapter tensor.BLAS); nothing else
// imports it (tensor.GemmBatch reaches [Sgemm] and [Cgemm] for its float32 and
// complex64 dtypes).
//
// # API
//
// [Dgemm], [Zgemm], [Sgemm] and [Cgemm] compute C = alpha*op(A)*op(B) + beta*C
// for row-major matrices with the conventions of gonum's blas64 and blas32
// (lda, ldb, ldc are row strides, op(X) is X or its plain transpose). Arguments
// are validated like gonum's Implementation: programmer errors (negative sizes,
// strides smaller than a row, slices too short) panic with a "gemm: ..."
// message. When beta == 0, C is overwritten and never read, so NaN or Inf in C
// do not propagate.
//
// # Design
//
// The product is computed with the five-loop blocked algorithm of BLIS:
//
//	for jc in steps of NC over the columns of C          (B panel in L3)
//	  for pc in steps of KC over k                        pack B[pc:pc+KC, jc:jc+NC]
//	    for ic in steps of MC over the rows of C          pack A[ic:ic+MC, pc:pc+KC] (L2)
//	      for jr in steps of NR                           B micro-panel (L1)
//	        for ir in steps of MR                         micro-kernel: MR x NR tile of C
//
// Packing copies a block of op(A) into micro-panels of MR rows stored
// k-major (MR consecutive values per k step) and a block of op(B) into
// micro-panels of NR columns stored k-major, so that the micro-kernel reads
// both operands with unit stride. Transposition and arbitrary strides are
// absorbed by the packing routines; the kernels only ever see one layout.
// Panels are zero-padded to full MR/NR, so the kernels never branch on edge
// sizes: a full tile is written straight into C, a partial tile is computed
// into a small scratch tile and then merged into C element by element.
//
// # Micro-kernels
//
// The micro-kernel keeps an MR x NR tile of C in vector registers; each k
// step loads NR values of B as vectors, broadcasts MR values of A and issues
// MR*NR/lanes fused multiply-adds, with enough independent accumulators to
// cover the FMA latency on two FMA ports. A row of the tile is a set of whole
// vectors, so writing back a row-major C needs no shuffles.
//
//   - AVX-512 (kern8x24AVX512): 8 x 24, 24 zmm accumulators, 3 zmm for B,
//     broadcasts in the remaining registers: 24 FMAs per 3 vector loads and
//     8 broadcasts per k step, unrolled 4 times, with software prefetch of
//     both panels 8 k steps ahead (worth about 10% at n >= 512, because the
//     48 KiB B micro-panel plus the A micro-panel do not quite fit in the
//     48 KiB L1 and partly stream from L2). Block sizes MC=96, KC=256,
//     NC=3072: the packed A block (MC*KC*8 = 192 KiB) stays in the 2 MiB L2,
//     the packed B block in L2/L3. In isolation the kernel runs at the FMA
//     peak (about 67 GFLOP/s on one Sapphire Rapids core).
//   - AVX2+FMA (kern4x12AVX2): 4 x 12, 12 ymm accumulators, 3 ymm for B and
//     one broadcast register (all 16 ymm), same structure. MC=96, KC=256,
//     NC=3072.
//   - Portable Go (kernGeneric): 4 x 4 with scalar accumulators, used on
//     other architectures and with the noasm build tag.
//
// The float32 kernels are the same two with single-precision instructions:
// a zmm holds 16 floats, so the 8 x 48 tile (kern8x48AVX512) has the same
// register plan as 8 x 24 in float64 (24 accumulators, 3 B vectors, 2
// broadcast registers: 24 FMAs per 3 loads and 8 broadcasts per k step) and
// twice the flops per FMA. The alternatives are worse: 16 x 32 needs 32
// accumulators, leaving no register for B; 14 x 32 (28 accumulators, 2 B
// vectors) has 28 FMAs per 2 loads and 14 broadcasts, so more load-port
// work per FMA. A B row is 192 bytes, as in float64, so the prefetch
// distances are unchanged; the block sizes are KC=192 (a 36 KiB B
// micro-panel, leaving room in L1 for the A micro-panel) and MC=384, measured
// about 4% faster than the float64 kernel's KC=256. The AVX2 kernel is 4 x 24
// (kern4x24AVX2, 12 ymm accumulators). [Sgemm] is about twice as fast as
// [Dgemm] in GFLOP/s. At that speed packing is a larger share of the time, so
// full float32 panels of 8 rows are packed with an AVX 8x8 transpose
// (transpose8x8f32): about 7% of the time of a 1024 product in the Go loop,
// under 3% in assembly (CPU profiles). A 48-wide tile leaves a narrow last
// tile in common widths (n = 256 = 5 x 48 + 16, n = 784 = 16 x 48 + 16, n = 10),
// which the 8 x 16 edge kernel (kern8x16AVX512, kernel.edge) computes instead
// of a padded 8 x 48 one: 8 accumulators, one B vector and 8 FMAs with an
// embedded broadcast of A per k step. The MLP's 256x256 products went from 150
// to 134 us and its n = 10 ones from 29 to 15 us (one goroutine, best of 12
// interleaved runs on a loaded machine).
//
// # Thin products
//
// The products of a small network on a batch (1024x32 times 32x32, and X^T G
// with k = 1024 in the weight gradients) are too thin for the packed loop
// nest: packing cost as much as the multiply-adds, and a C 32 wide is one
// 24-wide tile and one of 8 valid columns computed 24 wide. Three things serve
// them, all bit-identical to the packed path:
//
//   - an 8 x 8 AVX-512 edge kernel (kernel.edge, kern8x8AVX512S) computes the
//     last 8 columns of such a C without padding;
//   - panels whose lines run across the storage rows (op(A) = A^T, op(B) = B)
//     are packed with 32-byte AVX moves (copyRows32), the zero padding written in
//     the same pass; a block of two or more full such panels (op(B) = B in the
//     large products) is packed a storage row at a time (copyPanels32), so that
//     its reads are sequential: at n = 1024 on one core, packing op(B) took
//     376-420 us of a float32 product panel by panel and 224-239 us row by row;
//   - the direct path (direct): for float64 with the AVX-512 kernel on one
//     goroutine, m and n multiples of 8, n <= 256 and k n <= 32768, the
//     kernels kern8x24AVX512S, kern8x16AVX512S and kern8x8AVX512S read A's
//     elements where they are, with its row and column strides, and B's rows
//     with its row stride, so neither operand is packed (B only when
//     transposed, with an AVX-512 8x8 transpose), row tiles outer and k in KC
//     blocks as in the loop nest. A 1024x32x32 product took 38 us packed and
//     takes 18 us direct, X^T G 32x32x1024 54 and 18 us (CPU time, one core of
//     a loaded Zen machine).
//
// The float32 direct path (direct32) is the same on the float32 AVX-512 kernels,
// kern8x48AVX512S and kern8x16AVX512S32, for m a multiple of 8, n = 48 q or 48 q
// + 16 up to 256 and B up to 800 KiB: the products of a float32 MLP on a batch
// of 256 (784-256-256-10), 6 to 8% faster than packed in CPU time.
//
// The direct path also serves batches of small products, the heads of
// attention (tensor.GemmBatch): 128x128x64 with B transposed, 128x64x128 with
// A transposed or not. Both operands fit in L2, so packing them for every
// product only cost time (a third of it, with the Go loop's packing of a
// transposed operand); direct, they take 16 to 17 us instead of 19 to 21
// (BenchmarkDgemmAttention, one Zen 5 core), and make no allocation.
//
// The driver (packing, blocking, parallel split) is written once, generic over
// the real element type (float32 | float64); the micro-kernels are the only
// per-type code.
//
// The kernel is selected at init from golang.org/x/sys/cpu (AVX-512F, then
// AVX2+FMA, then Go). Alpha and beta are applied by the kernel at write-back:
// the tile is computed as alpha*AB + beta*C with beta == 0 meaning "do not
// read C"; the first KC block uses the caller's beta and later blocks beta=1.
//
// # Parallelism
//
// Products with m*n*k >= 2^21 run on runtime.GOMAXPROCS(0) goroutines (read at
// each call; DgemmOn, ZgemmOn, SgemmOn and CgemmOn take the number), smaller
// ones on the calling goroutine. By default the larger of m and n is cut into
// slabs of whole tiles, one per goroutine, or two when the larger is more than
// 256 times the number of goroutines (a multiple of the goroutines either way,
// so that on idle cores they end together), which the goroutines take from a
// counter as they become free (a goroutine on a core busy with another process
// takes fewer); each slab runs the serial loop
// nest with its own packing buffers, so it packs its own copy of the shared
// operand. Every element of C sees the same rank-KC updates in the same order
// with the same tiles as in the serial algorithm, so the result is bit-identical
// whatever the number of goroutines.
//
// The alternative, BLIS's scheme (sharedPacking; taken whatever that switch says
// when the slabs would be narrower than 256, as in an MLP's 256-wide products):
// the goroutines share the packed B operand. The serial loop nest is cut into
// blocks (jc, pc, i0) — a KC x NC block of op(B) times a block of up to 1024 rows
// of op(A) — and each B block is packed once, into buffers shared by all
// goroutines (three, so that blocks are packed ahead), in pack units (strips) of
// 96 columns; the products are computed in compute units (rows of op(A), at most
// MC and 192, as equal as whole tiles allow and a multiple of the goroutines in
// number, times the whole packed B block, each strip awaited as the unit comes
// to it; one strip wide when C has too few rows to split), each packing its rows
// of A into its goroutine's own buffer. All units form one sequence taken in
// order from an atomic counter, without barriers: a unit waits only for the
// units it depends on, all at least a block earlier in the sequence, spinning
// for up to 100 us before it parks (vmath.Spin). The worker goroutines of both
// schemes come from vmath's worker pool (spawn, vmath.Go), whose idle goroutines poll for 200 us
// before they park, so that back-to-back products do not each wait for the
// runtime to wake a sleeping thread (40-63 us per product with a go statement,
// 3-7 us from the pool, on the project's 2-core virtual machine). When the pool
// finds its hand-offs late (the machine's cores busy with other processes), it
// backs off for a while and both schemes run on the calling goroutine alone
// (vmath.Helpers): the same slabs or units in the same sequence, so the same bits.
//
// Measured on two Zen 5 cores (n=1024, 68 interleaved rounds, medians of the
// per-round ratio of 2 goroutines to 1): the slab split 1.92x on an idle machine
// and 0.99x with a busy-loop process on one core, the shared scheme 1.76x and
// 0.90x. Likely reasons (not isolated): a slab's part of B (512 KiB) fits the L2
// of its core, where the shared B block (2 MiB at n=1024) is streamed from L3 by
// both cores, and slabs never wait for one another; CPU time per product is
// about the same for both. Sharing should pay with more cores, where the copies
// of the shared operand cost more (not measured).
//
// A panic in a worker goroutine (a bug, since arguments are checked first) is
// recovered there and re-raised on the caller's goroutine as a [*WorkerPanic]
// once every worker has stopped; [ForEach] does the same once every call under
// way has returned (a goroutine that has not started yet is not waited for).
//
// # Complex
//
// [Zgemm] (and [Cgemm] on the float32 kernels) reuses the real kernels through
// the "1m" embedding. With C viewed
// as a real m x 2n matrix (interleaved real and imaginary parts, which is its
// memory layout), A as a real m x 2k matrix (likewise) and B expanded to the
// real 2k x 2n matrix with 2x2 blocks [re im; -im re], the real product is
// exactly the complex product. Packing performs the expansion (and folds in
// the complex alpha), so Zgemm runs at the speed of Dgemm on 8*m*n*k real
// flops, the same count as the classical 4M method.
//
// [Cgemm] with the AVX-512 kernel has a complex kernel of its own
// (kernC4x24AVX512, kernel.aw = 2): a 4 x 24 complex tile (4 x 48 float32) on
// the k loop of kern8x48AVX512, unchanged. Its packed A holds, per k step,
// re A[i,p] and im A[i,p] of the 4 rows (the 8 broadcast values of the real
// kernel; packed as 4 rows of 8-byte elements, with an AVX 4x4 transpose,
// transpose4x4f64), its packed B the 24 complex
// values of row p of alpha*op(B), interleaved (op(B) packed as a matrix of
// 8-byte values, then multiplied by alpha with AVX-512 unless alpha is 1). So the 24 accumulators hold
// re A[i,p] B[p,:] and im A[i,p] B[p,:] for each row, and the write-back
// forms C[i,:] = (Σ ar br - Σ ai bi, Σ ar bi + Σ ai br) with one VPERMILPS
// (swapping the parts of the second sum) and one VFMADDSUB per vector. Against
// 1m, B is packed at half the size without the 2x2 expansion, and k is not
// doubled, so C is read and written half as often. At n = 1024 on one Zen 5
// core, processor-time GFLOP/s of interleaved runs: 1m 234, the complex kernel
// 243 with A packed by the Go loop and 247 with the transpose, numpy's
// complex64 matmul (OpenBLAS 0.3.21, SkylakeX) 247; the kernel itself takes
// about 90% of the time, packing the rest. Timed inside the loop nest (the
// thread's CPU clock), since B is packed a storage row at a time and the
// transposes prefetch the next rows: 34 ms of kernels, 0.47 ms packing A and
// 0.55 ms packing B a product (float32 at n = 1024: 8.4 ms, 0.19 and 0.19 ms).
package gemm
