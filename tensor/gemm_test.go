package tensor_test

import (
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/cblas128"
	"gonum.org/v1/gonum/blas/gonum"
	lapackgonum "gonum.org/v1/gonum/lapack/gonum"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// sentinel fills the parts of the slices that a product must not touch.
const sentinel = 777

func randElems[T tensor.Element](rng *rand.Rand, n int) []T {
	out := make([]T, n)
	for i := range out {
		switch p := any(&out[i]).(type) {
		case *float64:
			*p = rng.NormFloat64()
		case *complex128:
			*p = complex(rng.NormFloat64(), rng.NormFloat64())
		}
	}
	return out
}

func abs[T tensor.Element](x T) float64 {
	switch v := any(x).(type) {
	case float64:
		return math.Abs(v)
	case complex128:
		return cmplx.Abs(v)
	}
	panic("unreachable")
}

func isNaN[T tensor.Element](x T) bool {
	switch v := any(x).(type) {
	case float64:
		return math.IsNaN(v)
	case complex128:
		return cmplx.IsNaN(v)
	}
	panic("unreachable")
}

func nan[T tensor.Element]() T {
	var v T
	switch p := any(&v).(type) {
	case *float64:
		*p = math.NaN()
	case *complex128:
		*p = cmplx.NaN()
	}
	return v
}

// refGemm is the triple loop C = alpha op(A) op(B) + beta C (C not read if beta == 0).
func refGemm[T tensor.Element](tA, tB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	for i := range m {
		for j := range n {
			var s T
			for l := range k {
				ia, ib := i*lda+l, l*ldb+j
				if tA {
					ia = l*lda + i
				}
				if tB {
					ib = j*ldb + l
				}
				av, bv := a[ia], b[ib]
				s += av * bv
			}
			if beta == 0 {
				c[i*ldc+j] = alpha * s
			} else {
				c[i*ldc+j] = alpha*s + beta*c[i*ldc+j]
			}
		}
	}
}

// gemmCase is one strided batch of products with its storage.
type gemmCase[T tensor.Element] struct {
	tA, tB                          bool
	m, n, k, batch                  int
	lda, ldb, ldc, strA, strB, strC int
	alpha, beta                     T
	a, b, c                         []T
	colsA, rowsA, colsB, rowsB      int
	nanC                            bool // the live part of C holds NaN (with beta == 0)
	name                            string
}

// randGemmCase draws sizes (with many 0s and 1s, to reach the matrix-vector paths),
// transposes, padded leading dimensions, batch strides (0 for a shared A or B),
// and alpha and beta among 0, 1 and random values.
func randGemmCase[T tensor.Element](rng *rand.Rand) gemmCase[T] {
	dims := []int{0, 1, 1, 2, 3, 5, 8, 17, 33}
	g := gemmCase[T]{
		tA: rng.IntN(2) == 0, tB: rng.IntN(2) == 0,
		m: dims[rng.IntN(len(dims))], n: dims[rng.IntN(len(dims))], k: dims[rng.IntN(len(dims))],
		batch: []int{0, 1, 1, 3}[rng.IntN(4)],
	}
	g.rowsA, g.colsA = g.m, g.k
	if g.tA {
		g.rowsA, g.colsA = g.k, g.m
	}
	g.rowsB, g.colsB = g.k, g.n
	if g.tB {
		g.rowsB, g.colsB = g.n, g.k
	}
	pad := func() int { return []int{0, 0, 1, 3}[rng.IntN(4)] }
	g.lda, g.ldb, g.ldc = max(1, g.colsA)+pad(), max(1, g.colsB)+pad(), max(1, g.n)+pad()
	stride := func(rows, ld int, shared bool) int {
		if shared && rng.IntN(4) == 0 {
			return 0
		}
		return rows*ld + pad()
	}
	g.strA, g.strB, g.strC = stride(g.rowsA, g.lda, true), stride(g.rowsB, g.ldb, true), stride(g.m, g.ldc, false)
	scalars := func() T {
		switch rng.IntN(4) {
		case 0:
			return 0
		case 1:
			return 1
		}
		return randElems[T](rng, 1)[0]
	}
	g.alpha, g.beta = scalars(), scalars()
	size := func(rows, ld, str int) int { return max(0, g.batch-1)*str + rows*ld + pad() }
	g.a = randElems[T](rng, size(g.rowsA, g.lda, g.strA))
	g.b = randElems[T](rng, size(g.rowsB, g.ldb, g.strB))
	g.c = make([]T, size(g.m, g.ldc, g.strC))
	for i := range g.c {
		g.c[i] = sentinel
	}
	g.nanC = g.beta == 0 && rng.IntN(2) == 0
	for p := range g.batch {
		for i := range g.m {
			for j := range g.n {
				v := randElems[T](rng, 1)[0]
				if g.nanC {
					v = nan[T]()
				}
				g.c[p*g.strC+i*g.ldc+j] = v
			}
		}
	}
	g.name = fmt.Sprintf("tA=%v,tB=%v,m=%d,n=%d,k=%d,batch=%d,ld=%d/%d/%d,str=%d/%d/%d,alpha=%v,beta=%v",
		g.tA, g.tB, g.m, g.n, g.k, g.batch, g.lda, g.ldb, g.ldc, g.strA, g.strB, g.strC, g.alpha, g.beta)
	return g
}

// want returns C after the batch, computed by refGemm on a copy.
func (g gemmCase[T]) want() []T {
	c := append([]T(nil), g.c...)
	for p := range g.batch {
		if g.m == 0 || g.n == 0 {
			break
		}
		refGemm(g.tA, g.tB, g.m, g.n, g.k, g.alpha, g.a[min(p*g.strA, len(g.a)):], g.lda, g.b[min(p*g.strB, len(g.b)):], g.ldb, g.beta, c[p*g.strC:], g.ldc)
	}
	return c
}

// assertGemm compares got with want: exactly outside the batch's matrices of C,
// within a rounding bound inside.
func assertGemm[T tensor.Element](t *testing.T, want, got []T, k int) {
	t.Helper()
	require.Len(t, got, len(want))
	tol := 1e-13 * float64(k+2)
	for i := range want {
		if want[i] == sentinel {
			require.Equal(t, want[i], got[i], "element %d outside C was written", i)
			continue
		}
		require.False(t, isNaN(got[i]), "element %d is NaN", i)
		require.LessOrEqual(t, abs(got[i]-want[i]), tol*(1+abs(want[i])), "element %d: got %v, want %v", i, got[i], want[i])
	}
}

func testGemmBatch[T tensor.Element](t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 3))
	defer tensor.UseBLAS64(false)
	for range 400 {
		g := randGemmCase[T](rng)
		want := g.want()
		for _, useBLAS := range []bool{false, true} {
			t.Run(fmt.Sprintf("blas=%v/%s", useBLAS, g.name), func(t *testing.T) {
				tensor.UseBLAS64(useBLAS)
				got := append([]T(nil), g.c...)
				err := tensor.GemmBatch(g.tA, g.tB, g.m, g.n, g.k, g.alpha, g.a, g.lda, g.strA, g.b, g.ldb, g.strB, g.beta, got, g.ldc, g.strC, g.batch)
				require.NoError(t, err)
				assertGemm(t, want, got, g.k)
				if g.batch == 1 {
					got = append([]T(nil), g.c...)
					require.NoError(t, tensor.Gemm(g.tA, g.tB, g.m, g.n, g.k, g.alpha, g.a, g.lda, g.b, g.ldb, g.beta, got, g.ldc))
					assertGemm(t, want, got, g.k)
				}
			})
		}
	}
}

func TestGemmBatch(t *testing.T) {
	t.Run("float64", func(t *testing.T) { testGemmBatch[float64](t, 1) })
	t.Run("complex128", func(t *testing.T) { testGemmBatch[complex128](t, 2) })
	t.Run("interleaved batch", func(t *testing.T) {
		// C stored [M B N]: matrix p starts at column block p of each row.
		const m, n, k, batch = 3, 2, 4, 5
		rng := rand.New(rand.NewPCG(4, 4))
		a, b := randElems[float64](rng, batch*m*k), randElems[float64](rng, k*n)
		got := make([]float64, m*batch*n)
		require.NoError(t, tensor.GemmBatch(false, false, m, n, k, 1, a, k, m*k, b, n, 0, 0, got, batch*n, n, batch))
		want := make([]float64, m*batch*n)
		for p := range batch {
			refGemm(false, false, m, n, k, 1, a[p*m*k:], k, b, n, 0, want[p*n:], batch*n)
		}
		assertGemm(t, want, got, k)
	})
}

// A batch of products large enough to run in parallel, one product per goroutine
// (GOMAXPROCS >= 2), gives exactly the products computed one by one, for both
// dtypes and with a shared B (stride 0). Run with -race.
func TestGemmBatchParallel(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	const m, n, k, batch = 64, 48, 96, 12 // 12 x 294,912 multiply-adds: above 2^21 in all
	t.Run("float64", func(t *testing.T) { testGemmBatchParallel[float64](t, m, n, k, batch) })
	t.Run("complex128", func(t *testing.T) { testGemmBatchParallel[complex128](t, m, n, k, batch) })
}

func testGemmBatchParallel[T tensor.Element](t *testing.T, m, n, k, batch int) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, strideB := range []int{k * n, 0} {
		a, b := randElems[T](rng, batch*m*k), randElems[T](rng, max(batch*strideB, k*n))
		got := make([]T, batch*m*n)
		require.NoError(t, tensor.GemmBatch(true, false, m, n, k, 1, a, m, m*k, b, n, strideB, 0, got, n, m*n, batch))
		want := make([]T, batch*m*n)
		for p := range batch {
			require.NoError(t, tensor.Gemm(true, false, m, n, k, 1, a[p*m*k:], m, b[p*strideB:], n, 0, want[p*m*n:], n))
		}
		assert.Equal(t, want, got, "stride of B %d", strideB)
	}
}

func TestGemmBatchErrors(t *testing.T) {
	a, b, c := make([]float64, 12), make([]float64, 12), make([]float64, 12)
	huge := math.MaxInt / 2
	tests := []struct {
		name                      string
		tA, tB                    bool
		m, n, k                   int
		lda, sa, ldb, sb, ldc, sc int
		batch                     int
	}{
		{"negative m", false, false, -1, 2, 2, 2, 0, 2, 0, 2, 0, 1},
		{"negative n", false, false, 2, -1, 2, 2, 0, 2, 0, 2, 0, 1},
		{"negative k", false, false, 2, 2, -1, 2, 0, 2, 0, 2, 0, 1},
		{"negative batch", false, false, 2, 2, 2, 2, 0, 2, 0, 2, 0, -1},
		{"negative stride", false, false, 2, 2, 2, 2, -4, 2, 0, 2, 0, 1},
		{"lda < k", false, false, 2, 2, 3, 2, 0, 2, 0, 2, 0, 1},
		{"lda < m (transA)", true, false, 3, 2, 2, 2, 0, 2, 0, 2, 0, 1},
		{"ldb < n", false, false, 2, 3, 2, 2, 0, 2, 0, 3, 0, 1},
		{"ldb < k (transB)", false, true, 2, 2, 3, 3, 0, 2, 0, 2, 0, 1},
		{"ldc < n", false, false, 2, 3, 2, 2, 0, 3, 0, 2, 0, 1},
		{"ldc 0 with n 0", false, false, 2, 0, 2, 2, 0, 1, 0, 0, 0, 1},
		{"short a", false, false, 4, 1, 4, 4, 0, 1, 0, 1, 0, 1},
		{"short b", false, false, 1, 4, 4, 4, 0, 4, 0, 4, 0, 1},
		{"short c", false, false, 4, 4, 1, 1, 0, 4, 0, 4, 0, 1},
		{"c shorter than a row", false, false, 1, 16, 1, 1, 0, 16, 0, 16, 0, 1},
		{"short batch of c", false, false, 2, 2, 2, 2, 0, 2, 0, 2, 4, 4},
		{"short batch of a", false, false, 2, 2, 2, 2, 9, 2, 0, 2, 0, 2},
		{"huge m", false, false, huge, 2, 2, 2, 0, 2, 0, 2, 0, 1},
		{"huge ld", false, false, 2, 2, 2, huge, 0, 2, 0, 2, 0, 1},
		{"huge stride", false, false, 1, 1, 1, 1, huge, 1, 0, 1, 0, 3},
		{"huge batch", false, false, 1, 1, 1, 1, 1, 1, 1, 1, 1, huge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for i := range c {
				c[i] = sentinel
			}
			err := tensor.GemmBatch(tc.tA, tc.tB, tc.m, tc.n, tc.k, 1.0, a, tc.lda, tc.sa, b, tc.ldb, tc.sb, 0, c, tc.ldc, tc.sc, tc.batch)
			require.ErrorIs(t, err, cr.ErrInvalidArgument)
			for _, v := range c {
				require.Equal(t, float64(sentinel), v, "C changed on error")
			}
		})
	}
	t.Run("Gemm", func(t *testing.T) {
		err := tensor.Gemm(false, false, 2, 2, 2, 1i, make([]complex128, 3), 2, make([]complex128, 4), 2, 0, make([]complex128, 4), 2)
		require.ErrorIs(t, err, cr.ErrInvalidArgument)
	})
	t.Run("empty operands with k 0", func(t *testing.T) {
		c := []float64{1, 2, 3, 4}
		require.NoError(t, tensor.GemmBatch(false, false, 2, 2, 0, 1.0, nil, 1, 0, nil, 2, 0, 0.5, c, 2, 0, 1))
		assert.Equal(t, []float64{0.5, 1, 1.5, 2}, c)
	})
}

// countingBLAS is gonum's BLAS counting its Dgemm and Zgemm calls.
type countingBLAS struct {
	gonum.Implementation
	dgemm, zgemm *atomic.Int64
}

func (c countingBLAS) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, cc []float64, ldc int) {
	c.dgemm.Add(1)
	c.Implementation.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, cc, ldc)
}

func (c countingBLAS) Zgemm(tA, tB blas.Transpose, m, n, k int, alpha complex128, a []complex128, lda int, b []complex128, ldb int, beta complex128, cc []complex128, ldc int) {
	c.zgemm.Add(1)
	c.Implementation.Zgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, cc, ldc)
}

// installCounting installs a countingBLAS as blas64's and cblas128's
// implementation until the test ends.
func installCounting(t *testing.T) countingBLAS {
	c := countingBLAS{dgemm: new(atomic.Int64), zgemm: new(atomic.Int64)}
	saved64, saved128 := blas64.Implementation(), cblas128.Implementation()
	blas64.Use(c)
	cblas128.Use(c)
	t.Cleanup(func() {
		blas64.Use(saved64)
		cblas128.Use(saved128)
		tensor.UseBLAS64(false)
	})
	return c
}

// UseBLAS64 sends every product of Gemm, GemmBatch, MatMul and BatchMatMul to the
// installed BLAS, whatever its shape, and none when off.
func TestUseBLAS64ReachesBLAS(t *testing.T) {
	cnt := installCounting(t)
	rng := rand.New(rand.NewPCG(5, 5))
	x, y := tensor.RandN(rng, tensor.Float64, 4, 3), tensor.RandN(rng, tensor.Float64, 3, 5)
	xb, yb := tensor.RandN(rng, tensor.Complex128, 2, 4, 3), tensor.RandN(rng, tensor.Complex128, 2, 3, 1)
	run := func() {
		_, err := tensor.MatMul(x, y) // 1 Dgemm
		require.NoError(t, err)
		_, err = tensor.BatchMatMul(xb, yb, false, false) // 2 Zgemm (matrix-vector)
		require.NoError(t, err)
		c := make([]float64, 4)
		require.NoError(t, tensor.Gemm(false, false, 2, 2, 3, 1, make([]float64, 6), 3, make([]float64, 6), 2, 0, c, 2)) // 1 Dgemm
		require.NoError(t, tensor.GemmBatch(false, false, 2, 2, 0, 1, nil, 1, 0, nil, 2, 0, 0, c, 2, 0, 1))              // k = 0: none
	}
	for _, on := range []bool{false, true} {
		cnt.dgemm.Store(0)
		cnt.zgemm.Store(0)
		tensor.UseBLAS64(on)
		run()
		wantD, wantZ := int64(0), int64(0)
		if on {
			wantD, wantZ = 2, 2
		}
		assert.Equal(t, wantD, cnt.dgemm.Load(), "Dgemm calls with UseBLAS64(%v)", on)
		assert.Equal(t, wantZ, cnt.zgemm.Load(), "Zgemm calls with UseBLAS64(%v)", on)
	}
}

// gonumPanic returns what f panics with (nil if it returns).
func gonumPanic(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

var transposes = []blas.Transpose{blas.NoTrans, blas.Trans, blas.ConjTrans}

// testBLASGemm checks tensor.BLAS's Dgemm or Zgemm against gonum's on random cases.
func testBLASGemm[T tensor.Element](t *testing.T, seed uint64, ours, ref func(tA, tB blas.Transpose, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int)) {
	rng := rand.New(rand.NewPCG(seed, 7))
	for range 1500 {
		g := randGemmCase[T](rng)
		if g.batch != 1 {
			continue
		}
		// Trans and ConjTrans both set the transpose flag of the layout.
		tA, tB := blas.NoTrans, blas.NoTrans
		if g.tA {
			tA = transposes[1+rng.IntN(2)]
		}
		if g.tB {
			tB = transposes[1+rng.IntN(2)]
		}
		t.Run(fmt.Sprintf("%c%c/%s", tA, tB, g.name), func(t *testing.T) {
			want := append([]T(nil), g.c...)
			got := append([]T(nil), g.c...)
			ref(tA, tB, g.m, g.n, g.k, g.alpha, g.a, g.lda, g.b, g.ldb, g.beta, want, g.ldc)
			ours(tA, tB, g.m, g.n, g.k, g.alpha, g.a, g.lda, g.b, g.ldb, g.beta, got, g.ldc)
			if g.nanC && g.m > 0 && g.n > 0 && (g.alpha != 0 || g.k == 0) {
				// gonum also leaves no NaN of C behind when beta is 0.
				require.False(t, isNaN(want[0]))
			}
			assertGemm(t, want, got, g.k)
		})
	}
	// Invalid arguments: the same panic as gonum's, with the same message.
	x := make([]T, 12)
	bad := []struct {
		name          string
		tA, tB        blas.Transpose
		m, n, k       int
		lda, ldb, ldc int
		la, lb, lc    int
	}{
		{"bad transA", 'X', blas.NoTrans, 2, 2, 2, 2, 2, 2, 4, 4, 4},
		{"bad transB", blas.NoTrans, 0, 2, 2, 2, 2, 2, 2, 4, 4, 4},
		{"m < 0", blas.NoTrans, blas.NoTrans, -1, 2, 2, 2, 2, 2, 4, 4, 4},
		{"n < 0", blas.NoTrans, blas.NoTrans, 2, -1, 2, 2, 2, 2, 4, 4, 4},
		{"k < 0", blas.NoTrans, blas.NoTrans, 2, 2, -1, 2, 2, 2, 4, 4, 4},
		{"lda", blas.NoTrans, blas.NoTrans, 2, 2, 3, 2, 2, 2, 12, 12, 12},
		{"lda trans", blas.Trans, blas.NoTrans, 3, 2, 2, 2, 2, 2, 12, 12, 12},
		{"ldb", blas.NoTrans, blas.NoTrans, 2, 3, 2, 2, 2, 3, 12, 12, 12},
		{"ldb conjtrans", blas.NoTrans, blas.ConjTrans, 2, 2, 3, 3, 2, 2, 12, 12, 12},
		{"ldc", blas.NoTrans, blas.NoTrans, 2, 3, 2, 2, 3, 2, 12, 12, 12},
		{"ldc with m 0", blas.NoTrans, blas.NoTrans, 0, 3, 2, 2, 3, 2, 12, 12, 12},
		{"short a", blas.NoTrans, blas.NoTrans, 2, 2, 2, 2, 2, 2, 3, 4, 4},
		{"short a with k 0", blas.NoTrans, blas.NoTrans, 3, 2, 0, 2, 2, 2, 3, 4, 6},
		{"short b", blas.NoTrans, blas.Trans, 2, 2, 2, 2, 2, 2, 4, 3, 4},
		{"short c", blas.NoTrans, blas.NoTrans, 2, 2, 2, 2, 2, 2, 4, 4, 3},
	}
	for _, tc := range bad {
		t.Run("panic/"+tc.name, func(t *testing.T) {
			call := func(f func(tA, tB blas.Transpose, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int)) any {
				return gonumPanic(func() {
					f(tc.tA, tc.tB, tc.m, tc.n, tc.k, 1, x[:tc.la], tc.lda, x[:tc.lb], tc.ldb, 0, make([]T, tc.lc), tc.ldc)
				})
			}
			want := call(ref)
			require.NotNil(t, want, "gonum accepts these arguments")
			require.Equal(t, want, call(ours))
		})
	}
	t.Run("valid with short a and k 0 transposed", func(t *testing.T) {
		c := []T{1, 2, 3, 4}
		ours(blas.Trans, blas.NoTrans, 2, 2, 0, 1, nil, 2, nil, 2, 2, c, 2)
		assert.Equal(t, []T{2, 4, 6, 8}, c)
	})
}

func TestBLASDgemm(t *testing.T) {
	testBLASGemm[float64](t, 8, tensor.BLAS{}.Dgemm, gonum.Implementation{}.Dgemm)
}

func TestBLASZgemm(t *testing.T) {
	testBLASGemm[complex128](t, 9, tensor.BLAS{}.Zgemm, gonum.Implementation{}.Zgemm)
}

// BLAS installed as blas64's implementation serves gonum's LAPACK and tensor's
// products under UseBLAS64 without recursion, and gives the products of the
// default path.
func TestBLASInstalled(t *testing.T) {
	saved := blas64.Implementation()
	defer blas64.Use(saved)
	defer tensor.UseBLAS64(false)
	blas64.Use(tensor.BLAS{})
	tensor.UseBLAS64(true)
	rng := rand.New(rand.NewPCG(6, 6))
	x, y := tensor.RandN(rng, tensor.Float64, 300, 200), tensor.RandN(rng, tensor.Float64, 200, 100)
	got, err := tensor.MatMul(x, y)
	require.NoError(t, err)
	tensor.UseBLAS64(false)
	want, err := tensor.MatMul(x, y)
	require.NoError(t, err)
	require.True(t, tensor.EqualApprox(got, want, 1e-12, 1e-12))

	// A blocked LU factorisation (n above gonum's block size) through blas64.
	const n = 200
	a := tensor.RandN(rng, tensor.Float64, n, n).Float64s()
	lu := append([]float64(nil), a...)
	ipiv := make([]int, n)
	require.True(t, lapackgonum.Implementation{}.Dgetrf(n, n, lu, n, ipiv))
	// P A = L U: rebuild L U with the product and compare with the pivoted A.
	l, u := make([]float64, n*n), make([]float64, n*n)
	for i := range n {
		for j := range n {
			switch {
			case i > j:
				l[i*n+j] = lu[i*n+j]
			case i == j:
				l[i*n+j] = 1
				u[i*n+j] = lu[i*n+j]
			default:
				u[i*n+j] = lu[i*n+j]
			}
		}
	}
	prod := make([]float64, n*n)
	require.NoError(t, tensor.Gemm(false, false, n, n, n, 1, l, n, u, n, 0, prod, n))
	pa := append([]float64(nil), a...)
	for i := range n {
		if p := ipiv[i]; p != i {
			for j := range n {
				pa[i*n+j], pa[p*n+j] = pa[p*n+j], pa[i*n+j]
			}
		}
	}
	for i := range prod {
		require.InDelta(t, pa[i], prod[i], 1e-10)
	}
}
