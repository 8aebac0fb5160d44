package elementwise_test

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/tensor"
)

// TestUserFunctionPanicOnWorker makes a user's elementwise function panic on an
// element that a worker goroutine computes: the panic must come back on the
// caller's goroutine, where it can be recovered, instead of crashing the process.
func TestUserFunctionPanicOnWorker(t *testing.T) {
	old := runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(old)
	const n = 1 << 19
	op := elementwise.Unary("panics_at_last", elementwise.UnarySpec{Real: elementwise.Func1[float64]{
		F: func(x float64) float64 {
			if x == n-1 {
				panic("bad element")
			}
			return x
		},
		D1: func(_, _ float64) float64 { return 1 },
		D2: func(_, _ float64) float64 { return 0 },
	}})
	data := make([]float64, n)
	for i := range data {
		data[i] = float64(i)
	}
	x, err := tensor.FromFloat64(data, n)
	require.NoError(t, err)
	got := func() (r any) {
		defer func() { r = recover() }()
		_, _ = cr.Eval(op, x)
		return nil
	}()
	require.Equal(t, "bad element", got)
}
