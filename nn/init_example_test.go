package nn_test

import (
	"fmt"
	"log"
	"math"
	"math/rand/v2"

	"github.com/chainrules-go/chainrules/nn"
	"github.com/chainrules-go/chainrules/tensor"
)

// InitLinear draws a Linear(784, 128) layer as PyTorch initialises it: the weight
// [out, in] and the bias inside ±1/sqrt(784).
func ExampleInitLinear() {
	rng := rand.New(rand.NewPCG(1, 2))
	w, b, err := nn.InitLinear(rng, 784, 128, true)
	if err != nil {
		log.Fatal(err)
	}
	fanIn, fanOut, err := nn.Fans(w.Shape())
	if err != nil {
		log.Fatal(err)
	}
	largest := 0.0
	for _, x := range append(w.Float64s(), b.Float64s()...) {
		largest = max(largest, math.Abs(x))
	}
	fmt.Println(w.Shape(), b.Shape(), fanIn, fanOut)
	fmt.Printf("max |x| = %.4f <= 1/sqrt(784) = %.4f\n", largest, 1/math.Sqrt(784))
	// Output:
	// [128 784] [128] 784 128
	// max |x| = 0.0357 <= 1/sqrt(784) = 0.0357
}

// WithDType draws a float32 Conv2d(3, 16, 5) layer, as torch.nn.Conv2d does with
// its default dtype: the float64 draws of the same seed, rounded once.
func ExampleWithDType() {
	w, b, err := nn.InitConv(rand.New(rand.NewPCG(1, 2)), 3, 16, []int{5, 5}, 1, true, nn.WithDType(tensor.Float32))
	if err != nil {
		log.Fatal(err)
	}
	w64, _, err := nn.InitConv(rand.New(rand.NewPCG(1, 2)), 3, 16, []int{5, 5}, 1, true)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(w.DType(), w.Shape(), b.DType(), b.Shape())
	fmt.Println(w.Float32s()[0] == float32(w64.Float64s()[0]))
	// Output:
	// float32 [16 3 5 5] float32 [16]
	// true
}
