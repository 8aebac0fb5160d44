package tensor_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chainrules-go/chainrules/tensor"
)

// The packed kernels (default) and gonum's BLAS agree on products of every layout.
func TestMatMulBackendsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	defer tensor.UseBLAS64(false)
	for _, dt := range []tensor.DType{tensor.Float64, tensor.Complex128} {
		for _, sz := range [][3]int{{1, 1, 1}, {1, 37, 5}, {37, 1, 5}, {13, 17, 97}, {64, 64, 64}, {130, 70, 33}} {
			m, k, n := sz[0], sz[1], sz[2]
			a, b := tensor.RandN(rng, dt, m, k), tensor.RandN(rng, dt, n, k)
			bt, err := b.Transpose(0, 1) // a strided (column-major) operand
			require.NoError(t, err)
			t.Run(fmt.Sprintf("%v/%dx%dx%d", dt, m, k, n), func(t *testing.T) {
				tensor.UseBLAS64(false)
				ours, err := tensor.MatMul(a, bt)
				require.NoError(t, err)
				tensor.UseBLAS64(true)
				ref, err := tensor.MatMul(a, bt)
				require.NoError(t, err)
				require.True(t, tensor.EqualApprox(ours, ref, 1e-12, 1e-12), "backends disagree")
			})
		}
	}
}

func BenchmarkMatMulBackends(b *testing.B) {
	defer tensor.UseBLAS64(false)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{256, 512} {
		x, y := tensor.RandN(rng, tensor.Float64, n, n), tensor.RandN(rng, tensor.Float64, n, n)
		for _, gonum := range []bool{false, true} {
			name := "packed"
			if gonum {
				name = "gonum"
			}
			b.Run(fmt.Sprintf("%s/%d", name, n), func(b *testing.B) {
				b.ReportAllocs()
				tensor.UseBLAS64(gonum)
				for b.Loop() {
					if _, err := tensor.MatMul(x, y); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(2*float64(n*n*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

func TestSpaceIsFinite(t *testing.T) {
	var s tensor.Space
	inf := func(re, im float64) *tensor.Dense {
		d, _ := tensor.FromComplex128([]complex128{1, complex(re, im)}, 2)
		return d
	}
	tests := []struct {
		name string
		v    *tensor.Dense
		want bool
	}{
		{"finite float64", tensor.Ones(tensor.Float64, 3), true},
		{"nan float64", tensor.Full(tensor.Float64, math.NaN(), 2), false},
		{"finite complex", inf(2, 3), true},
		{"inf imag", inf(0, math.Inf(-1)), false},
		{"nan real", inf(math.NaN(), 0), false},
		{"empty", tensor.New(tensor.Float64, 0), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { require.Equal(t, tc.want, s.IsFinite(tc.v)) })
	}
}
