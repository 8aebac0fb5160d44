package nn_test

import (
	"fmt"

	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/tensor"
)

// layer_norm of float32 input with a weight and a bias runs in single
// precision: the output and every cotangent are float32 (torch 1.13 in float32
// gives y = [-0.3416, -0.8944, 1.9416, 5.0266], xbar = [0.2683, -0.3578,
// -0.0894, 0.1789] and wbar = [-1.3416, 0, 0, 0] here).
func ExampleLayerNormOp_float32() {
	tp := core.NewTape[*tensor.Dense](tensor.Space{})
	xv, _ := tensor.FromFloat32([]float32{1, 2, 3, 4}, 4)
	wv, _ := tensor.FromFloat32([]float32{1, 2, 3, 4}, 4)
	bv, _ := tensor.FromFloat32([]float32{1, 0, 0.6, -0.34}, 4)
	x, w, b := tp.Leaf(xv), tp.Leaf(wv), tp.Leaf(bv)
	y := tp.Apply(nn.LayerNormOp([]int{4}, nn.Affine(true, true), nn.NormEps(0)), x, w, b)
	seed, _ := tensor.FromFloat32([]float32{1, 0, 0, 0}, 4)
	g, _ := tp.BackwardSeed(y, seed)
	yv, _ := tp.Value(y)
	gx, _ := g.Of(x)
	gw, _ := g.Of(w)
	fmt.Println(yv.DType(), gx.DType(), gw.DType())
	fmt.Printf("y = %.4f\nxbar = %.4f\nwbar = %.4f\n", yv.Float32s(), gx.Float32s(), gw.Float32s())
	// Output:
	// float32 float32 float32
	// y = [-0.3416 -0.8944 1.9416 5.0266]
	// xbar = [0.2683 -0.3578 -0.0894 0.1789]
	// wbar = [-1.3416 0.0000 0.0000 0.0000]
}
