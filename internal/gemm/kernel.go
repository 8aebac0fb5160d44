package gemm

// kernel describes a micro-kernel for element type R and the block sizes tuned
// for it.
type kernel[R float] struct {
	name   string
	mr, nr int // register tile
	mc, kc int // packed A block (multiple of mr) and depth of a rank-kc update
	nc     int // packed B block (multiple of nr)
	// aw is the number of packed A values per row of the tile and k step: 1 for
	// the real kernels, 2 for a complex kernel (real and imaginary parts; see
	// cpanelA). Zero means 1.
	aw int
	// fn computes the mr x nr tile C = alpha*A*B + beta*C from an mr x k
	// micro-panel a and a k x nr micro-panel b (both packed k-major). C has
	// row stride ldc. If beta == 0, C is not read.
	fn func(k int, a, b, c []R, ldc int, alpha, beta R)
	// edge, if set, computes an mr x edgeN tile like fn from an mr x k
	// micro-panel a and the first edgeN columns of a k x nr micro-panel b read
	// with row stride ldb: the right edge of a C whose width leaves at most
	// edgeN columns after the nr-wide tiles (n = 32 with nr = 24 and edgeN = 8;
	// n = 256 or 10 with nr = 48 and edgeN = 16), where fn would compute up to
	// nr - 1 columns of padding. Its results must be those of fn bit for bit.
	edge  func(k int, a, b []R, ldb int, c []R, ldc int, alpha, beta R)
	edgeN int
}

// aWidth returns kn.aw, at least 1.
func (kn *kernel[R]) aWidth() int { return max(kn.aw, 1) }

// kern is the float64 kernel used by Dgemm and Zgemm, and kern32 the float32
// kernel used by Sgemm and Cgemm: the fastest ones available, chosen at init.
// Tests switch them to exercise every kernel.
var (
	kern   = kernels()[0]
	kern32 = kernels32()[0]
)

// generic and generic32 are the portable kernels.
var (
	generic   = &kernel[float64]{name: "go4x4", mr: 4, nr: 4, mc: 128, kc: 256, nc: 2048, fn: kernGeneric[float64]}
	generic32 = &kernel[float32]{name: "go4x4", mr: 4, nr: 4, mc: 128, kc: 256, nc: 2048, fn: kernGeneric[float32]}
)

// kernels returns the float64 kernels usable on this machine, fastest first.
func kernels() []*kernel[float64] {
	return append(asmKernels(), generic)
}

// kernels32 returns the float32 kernels usable on this machine, fastest first.
func kernels32() []*kernel[float32] {
	return append(asmKernels32(), generic32)
}

// kernGeneric is the 4x4 portable micro-kernel.
func kernGeneric[R float](k int, a, b, c []R, ldc int, alpha, beta R) {
	var c00, c01, c02, c03 R
	var c10, c11, c12, c13 R
	var c20, c21, c22, c23 R
	var c30, c31, c32, c33 R
	a = a[:4*k]
	b = b[:4*k]
	for p := 0; p < 4*k; p += 4 {
		ap := a[p : p+4 : p+4]
		bp := b[p : p+4 : p+4]
		a0, a1, a2, a3 := ap[0], ap[1], ap[2], ap[3]
		b0, b1, b2, b3 := bp[0], bp[1], bp[2], bp[3]
		c00 += a0 * b0
		c01 += a0 * b1
		c02 += a0 * b2
		c03 += a0 * b3
		c10 += a1 * b0
		c11 += a1 * b1
		c12 += a1 * b2
		c13 += a1 * b3
		c20 += a2 * b0
		c21 += a2 * b1
		c22 += a2 * b2
		c23 += a2 * b3
		c30 += a3 * b0
		c31 += a3 * b1
		c32 += a3 * b2
		c33 += a3 * b3
	}
	storeRow4(c[:4], alpha, beta, c00, c01, c02, c03)
	storeRow4(c[ldc:ldc+4], alpha, beta, c10, c11, c12, c13)
	storeRow4(c[2*ldc:2*ldc+4], alpha, beta, c20, c21, c22, c23)
	storeRow4(c[3*ldc:3*ldc+4], alpha, beta, c30, c31, c32, c33)
}

func storeRow4[R float](c []R, alpha, beta, v0, v1, v2, v3 R) {
	c = c[:4]
	if beta == 0 {
		c[0], c[1], c[2], c[3] = alpha*v0, alpha*v1, alpha*v2, alpha*v3
		return
	}
	c[0] = alpha*v0 + beta*c[0]
	c[1] = alpha*v1 + beta*c[1]
	c[2] = alpha*v2 + beta*c[2]
	c[3] = alpha*v3 + beta*c[3]
}
