package ops_test

import (
	"errors"
	"fmt"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/ops"
	"github.com/chainrules-go/chainrules/tensor"
)

// An override installed on a registry from New reaches only the tapes that use that
// registry; the default registry, shared by the process, is untouched.
func Example() {
	reg := ops.New()
	// On tapes that use reg, relu is replaced by its smooth cousin silu.
	err := reg.SetOverride("relu", func(cr.Op[*tensor.Dense]) cr.Op[*tensor.Dense] { return elementwise.SiluOp })
	if err != nil {
		fmt.Println(err)
		return
	}
	x, _ := tensor.FromFloat64([]float64{-1, 2}, 2)
	for _, r := range []struct {
		name string
		reg  *cr.Registry[*tensor.Dense]
	}{{"default", ops.Default()}, {"private", reg}} {
		t := core.NewTape[*tensor.Dense](tensor.Space{}).UseRegistry(r.reg)
		y, err := t.Value(t.Apply(elementwise.ReluOp, t.Leaf(x)))
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: relu(x) = %.4f\n", r.name, y.Float64s())
	}
	// Output:
	// default: relu(x) = [0.0000 2.0000]
	// private: relu(x) = [-0.2689 1.7616]
}

// RegisterAll puts the built-in families next to the caller's own.
func ExampleRegisterAll() {
	reg := cr.NewRegistry[*tensor.Dense]()
	if err := ops.RegisterAll(reg); err != nil {
		fmt.Println(err)
		return
	}
	_, ok := reg.Lookup("einsum")
	fmt.Println("einsum registered:", ok)
	// A second time, every name is taken.
	err := ops.RegisterAll(reg)
	fmt.Println("again:", errors.Is(err, cr.ErrDuplicate))
	// Output:
	// einsum registered: true
	// again: true
}
