package einsum_test

import (
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/cblas128"
	"gonum.org/v1/gonum/blas/gonum"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/einsum"
	"github.com/chainrules-go/chainrules/tensor"
)

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

// Every contraction of einsum is a matrix product of package tensor, so
// tensor.UseBLAS64(true) sends them to the installed BLAS: plain, batched and
// complex evaluations and the pullbacks; with it off, none reaches the BLAS.
func TestUseBLAS64ReachesEinsum(t *testing.T) {
	cnt := countingBLAS{dgemm: new(atomic.Int64), zgemm: new(atomic.Int64)}
	saved64, saved128 := blas64.Implementation(), cblas128.Implementation()
	blas64.Use(cnt)
	cblas128.Use(cnt)
	defer func() {
		blas64.Use(saved64)
		cblas128.Use(saved128)
		tensor.UseBLAS64(false)
	}()
	rng := rand.New(rand.NewPCG(1, 2))
	a, b := tensor.RandN(rng, tensor.Float64, 6, 5), tensor.RandN(rng, tensor.Float64, 5, 4)
	ba, bb := tensor.RandN(rng, tensor.Float64, 3, 6, 5), tensor.RandN(rng, tensor.Float64, 3, 5, 4)
	ca, cb := tensor.RandN(rng, tensor.Complex128, 6, 5), tensor.RandN(rng, tensor.Complex128, 5, 4)
	seed := tensor.RandN(rng, tensor.Float64, 6, 4)

	cases := []struct {
		name         string
		run          func(t *testing.T)
		dgemm, zgemm int64 // calls with UseBLAS64(true)
	}{
		{"ij,jk->ik", func(t *testing.T) {
			_, err := einsum.Eval("ij,jk->ik", a, b)
			require.NoError(t, err)
		}, 1, 0},
		{"batched bij,bjk->bik", func(t *testing.T) {
			_, err := einsum.Eval("bij,bjk->bik", ba, bb)
			require.NoError(t, err)
		}, 3, 0},
		{"complex ij,jk->ik", func(t *testing.T) {
			_, err := einsum.Eval("ij,jk->ik", ca, cb)
			require.NoError(t, err)
		}, 0, 1},
		{"pullback of ij,jk->ik", func(t *testing.T) {
			tape := core.NewTape[*tensor.Dense](tensor.Space{})
			x, y := tape.Leaf(a), tape.Leaf(b)
			z := tape.Apply(einsum.Op("ij,jk->ik"), x, y)
			require.NoError(t, tape.Err())
			g, err := tape.BackwardSeed(z, seed)
			require.NoError(t, err)
			for _, id := range []cr.NodeID{x, y} {
				_, ok := g.Of(id)
				require.True(t, ok)
			}
		}, 3, 0}, // the forward product, then Abar = Cbar B^T and Bbar = A^T Cbar
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, on := range []bool{false, true} {
				tensor.UseBLAS64(on)
				cnt.dgemm.Store(0)
				cnt.zgemm.Store(0)
				tc.run(t)
				wantD, wantZ := int64(0), int64(0)
				if on {
					wantD, wantZ = tc.dgemm, tc.zgemm
				}
				require.Equal(t, wantD, cnt.dgemm.Load(), "Dgemm calls with UseBLAS64(%v)", on)
				require.Equal(t, wantZ, cnt.zgemm.Load(), "Zgemm calls with UseBLAS64(%v)", on)
			}
		})
	}
}
