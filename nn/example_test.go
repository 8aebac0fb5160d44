package nn_test

import (
	"errors"
	"fmt"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// The gradient of the mean cross-entropy is (softmax(x) - onehot(y)) / N.
func ExampleCrossEntropyOp() {
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	xv, _ := tensor.FromFloat64([]float64{0, 0, 0, 2, 0, 0}, 2, 3)
	x := tp.Leaf(xv)
	loss := tp.Apply(nn.CrossEntropyOp([]int{1, 0}), x)
	labels, logits := []int{1, 0}, tp.Constant(xv) // with label smoothing, as in the package doc:
	tape := tp
	smoothed := tape.Apply(nn.CrossEntropyOp(labels, nn.LabelSmoothing(0.1)), logits)
	g, err := tp.Backward(loss)
	if err != nil {
		fmt.Println(err)
		return
	}
	lv, _ := tp.Value(loss)
	sv, _ := tp.Value(smoothed)
	gx, _ := g.Of(x)
	fmt.Printf("loss = %.4f (smoothed %.4f)\ngrad = %.4f\n", lv.AtFloat64(), sv.AtFloat64(), gx.Float64s())
	// Output:
	// loss = 0.6691 (smoothed 0.7357)
	// grad = [0.1667 -0.3333 0.1667 -0.1065 0.0533 0.0533]
}

// Label smoothing and an ignored label, as in PyTorch's cross_entropy.
func ExampleLabelSmoothing() {
	x, _ := tensor.FromFloat64([]float64{2, 0, 0, 0, 1, 0}, 2, 3)
	plain, _ := nn.CrossEntropy(x, []int{0, -100}, nn.IgnoreIndex(-100))
	smooth, _ := nn.CrossEntropy(x, []int{0, -100}, nn.IgnoreIndex(-100), nn.LabelSmoothing(0.1))
	fmt.Printf("%.4f %.4f\n", plain.AtFloat64(), smooth.AtFloat64())
	// Output: 0.2395 0.3729
}

// cumprod differentiates through zeros: y = [2 0 0], and x_1 = 0 still receives
// dy_1/dx_1 + dy_2/dx_1 = 2 + 2*3.
func ExampleCumprodOp() {
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	xv, _ := tensor.FromFloat64([]float64{2, 0, 3}, 3)
	x := tp.Leaf(xv)
	y := tp.Apply(nn.CumprodOp(0), x)
	g, _ := tp.BackwardSeed(y, tensor.Ones(tensor.Float64, 3))
	yv, _ := tp.Value(y)
	gx, _ := g.Of(x)
	fmt.Println(yv.Float64s(), gx.Float64s())
	// Output: [2 0 0] [1 8 0]
}

// sort returns the values and the indices; only the values carry derivatives.
func ExampleSortOp() {
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	xv, _ := tensor.FromFloat64([]float64{3, 1, 2, 1}, 4)
	x := tp.Leaf(xv)
	out := tp.ApplyMulti(nn.SortOp(0, true), x)
	vals, idx := out[0], out[1]
	// d/dx of the largest value.
	seed, _ := tensor.FromFloat64([]float64{1, 0, 0, 0}, 4)
	g, _ := tp.BackwardSeed(vals, seed)
	v, _ := tp.Value(vals)
	i, _ := tp.Value(idx)
	gx, _ := g.Of(x)
	fmt.Println(v.Float64s(), i.Float64s(), gx.Float64s())
	// Output: [3 2 1 1] [0 2 1 3] [1 0 0 0]
}

// matmul follows PyTorch for a vector times a batch of matrices.
func ExampleMatmulOp() {
	a, _ := tensor.FromFloat64([]float64{1, 2}, 2)
	b, _ := tensor.FromFloat64([]float64{1, 0, 0, 1, 2, 0, 0, 2}, 2, 2, 2)
	y, _ := nn.Matmul(a, b)
	fmt.Println(y)
	// Output: float64[2 2] [[1 2] [2 4]]
}

// The gradient passes where min <= x <= max, bounds included.
func ExampleClampOp() {
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	xv, _ := tensor.FromFloat64([]float64{-2, -1, 0, 1, 2}, 5)
	x := tp.Leaf(xv)
	y := tp.Apply(nn.ClampOp(-1, 1), x)
	g, _ := tp.BackwardSeed(y, tensor.Ones(tensor.Float64, 5))
	yv, _ := tp.Value(y)
	gx, _ := g.Of(x)
	fmt.Println(yv.Float64s(), gx.Float64s())
	// Output: [-1 -1 0 1 1] [0 1 1 1 0]
}

// A loss through argmax is an error, not a zero gradient; under NoGrad the
// indices are constants.
func ExampleArgmaxOp() {
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	xv, _ := tensor.FromFloat64([]float64{0.1, 0.7, 0.2, 0.5, 0.3, 0.2}, 2, 3)
	x := tp.Leaf(xv)
	pred := tp.Apply(nn.ArgmaxOp(1, false), x)
	_, err := tp.Backward(tp.Apply(reduce.SumOp(nil, false), pred))
	fmt.Println(errors.Is(err, cr.ErrNoRule))

	tp.NoGrad(func() { pred = tp.Apply(nn.ArgmaxOp(1, false), x) })
	p, _ := tp.Value(pred)
	labels, _ := nn.Indices(p)
	fmt.Println(labels)
	// Output:
	// true
	// [1 0]
}
