package nn_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/tensor"
)

// TestConv32ParallelBitIdentical: float32 convolutions on the implicit GEMM
// (the weight gradient summed by fixed parts of the batch) and on the block
// kernels of small images (im2col by shifted runs, products in column strips)
// give, with GOMAXPROCS 2 and 3, the output and both gradients of GOMAXPROCS 1
// bit for bit; so does float64 on the implicit GEMM.
func TestConv32ParallelBitIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for _, c := range []struct {
		dt   tensor.DType
		x, w []int
	}{
		{tensor.Float32, []int{7, 8, 20, 18}, []int{6, 8, 3, 3}}, // implicit GEMM, parts of 1 and 2 samples
		{tensor.Float64, []int{7, 8, 20, 18}, []int{6, 8, 3, 3}},
		{tensor.Float32, []int{40, 6, 4, 4}, []int{8, 6, 3, 3}}, // blocks, 640 columns in strips
		{tensor.Float32, []int{9, 3, 8, 8}, []int{5, 3, 3, 3}},
	} {
		t.Run(fmt.Sprint(c.dt, c.x), func(t *testing.T) {
			x, w := tensor.RandN(rng, c.dt, c.x...), tensor.RandN(rng, c.dt, c.w...)
			op := nn.Conv2dOp(nn.Padding(1))
			y, err := cr.Eval(op, x, w)
			require.NoError(t, err)
			g := tensor.RandN(rng, c.dt, y.Shape()...)
			run := func(procs int) []*tensor.Dense {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				out := make([]*tensor.Dense, 1)
				rule, err := op.Apply([]cr.NodeID{0, 1}, []*tensor.Dense{x, w}, out)
				require.NoError(t, err)
				cts, err := rule.Pullback([]*tensor.Dense{g}, []bool{true, true}, nil)
				require.NoError(t, err)
				require.Len(t, cts, 2)
				return []*tensor.Dense{out[0], cts[0].Value, cts[1].Value}
			}
			want := run(1)
			for _, procs := range []int{2, 3} {
				got := run(procs)
				for i := range want {
					if c.dt == tensor.Float32 {
						require.Equal(t, want[i].Contiguous().Float32s(), got[i].Contiguous().Float32s(), "procs %d result %d", procs, i)
					} else {
						require.Equal(t, want[i].Contiguous().Float64s(), got[i].Contiguous().Float64s(), "procs %d result %d", procs, i)
					}
				}
			}
		})
	}
}
