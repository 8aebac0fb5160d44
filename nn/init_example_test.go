package nn_test

import (
	"fmt"
	"log"
	"math"
	"math/rand/v2"

	"github.com/chainrules-go/chainrules/nn"
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
