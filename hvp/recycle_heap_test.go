package hvp_test

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/einsum"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/tensor"
)

// The products of an Operator, applied again and again to one recording (as CG
// does), must hand their sweeps' temporaries back (Tape.RecycleSweeps): the live
// heap must not grow with the number of products.
func TestOperatorProductsKeepHeapFlat(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	w := tensor.RandN(rng, tensor.Float64, 256, 256)
	x := tensor.RandN(rng, tensor.Float64, 2048, 256)
	y := tensor.RandN(rng, tensor.Float64, 2048, 256)
	model := func(tp *hvp.Tape, p []cr.NodeID) cr.NodeID {
		return tp.Apply(ew.TanhOp, tp.Apply(einsum.Op("ij,jk->ik"), tp.Constant(x), p[0]))
	}
	op, err := hvp.NewModelOperator(model, hvp.MSELoss(y), []*tensor.Dense{w})
	require.NoError(t, err)
	v := []*tensor.Dense{tensor.RandN(rng, tensor.Float64, 256, 256)}
	flat := make([]float64, 256*256)
	heap := func() uint64 {
		var ms runtime.MemStats
		// Two collections: the first moves the buffer pool's free buffers to
		// its victim cache, the second drops them, so that what is measured is
		// memory still referenced, not how many free buffers the pool happens
		// to hold (under the race detector sync.Pool drops a random quarter of
		// what it is handed, so that number varies from run to run).
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	for _, tc := range []struct {
		name    string
		product func() error
	}{
		{"GaussNewton", func() error { _, err := op.GaussNewton(v); return err }},
		{"Apply", func() error { _, err := op.Apply(v); return err }},
		{"ApplyFlat", func() error { return op.ApplyFlat(flat, v[0].Float64s()) }},
	} {
		require.NoError(t, tc.product())
		before := heap()
		for range 10 {
			require.NoError(t, tc.product())
		}
		grown := int64(heap()) - int64(before)
		require.Less(t, grown, int64(8<<20), "%s: live heap grew by %d MB over 10 products", tc.name, grown>>20)
	}
	runtime.KeepAlive(op)
}
