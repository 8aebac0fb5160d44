package reduce_test

import (
	"fmt"

	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// The package documentation's recording: the mean over rows of a logsumexp. Each
// row's gradient is a softmax divided by the number of rows, so it sums to 1/32.
func Example_recording() {
	tape := core.NewTape[*tensor.Dense](tensor.Space{})
	x := tape.Leaf(tensor.RandN(nil, tensor.Float64, 32, 10))
	loss := tape.Apply(reduce.MeanOp(nil, false), tape.Apply(reduce.LogSumExpOp([]int{1}, false), x))
	grads, err := tape.Backward(loss)
	if err != nil {
		panic(err)
	}
	gx, _ := grads.Of(x)
	rows, _ := reduce.Sum(gx, []int{1}, false)
	fmt.Printf("%.5f\n", rows.Float64s()[:3])
	// Output:
	// [0.03125 0.03125 0.03125]
}
