package reduce

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// linearFull is what chainrules.UnaryLinearRule returns: a Rule with its forward,
// second-order and recorded forms, affine (chainrules.AffineRule).
type linearFull interface {
	opkit.FullRule
	cr.AffineRule
}

// freshLinear is a linear rule of an op whose outputs are made for the call, with
// the promise of chainrules.FreshStorage: the maps of a linear rule neither
// retain nor later modify what they return (chainrules.LinearRule), so every
// derivative is fresh or a view of its argument, and the op's output is its
// own. A released tape then reuses the storage of the output and of the
// pullbacks (amax's and amin's input-sized cotangents).
type freshLinear struct{ linearFull }

// FreshStorage marks the output and derivatives as reusable once released.
func (freshLinear) FreshStorage() {}

// freshUnaryLinear is chainrules.UnaryLinearRule with the promise of
// chainrules.FreshStorage (see freshLinear); the caller's output must be fresh.
func freshUnaryLinear(in cr.NodeID, apply, adjoint func(*tensor.Dense) (*tensor.Dense, error)) cr.Rule[*tensor.Dense] {
	r := cr.UnaryLinearRule(in, apply, adjoint)
	if l, ok := r.(linearFull); ok {
		return freshLinear{l}
	}
	return r
}
