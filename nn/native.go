package nn

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// Native single precision. The convolutions and the pools run their kernels in
// float32 itself when every input is float32 (the float32 GEMM, float32
// gathers and sums), at about half the time and memory of widening; a float32
// input next to a float64 one still goes through applySingle (the result is
// float64, as in PyTorch). Their kernels are generic over floating.

// floating is the element type of the native kernels: float64, or float32 for
// single-precision operands.
type floating interface{ float32 | float64 }

// allFloat32 reports whether every tensor of x is float32 (none nil): the
// inputs an op with native float32 kernels runs on without widening.
func allFloat32(x []*tensor.Dense) bool {
	for _, t := range x {
		if t == nil || t.DType() != tensor.Float32 {
			return false
		}
	}
	return len(x) > 0
}

// dtypeOf returns the dtype whose elements have type T.
func dtypeOf[T floating]() tensor.DType {
	var z T
	if _, ok := any(z).(float32); ok {
		return tensor.Float32
	}
	return tensor.Float64
}

// elemsOf returns the row-major elements of t, which has T's dtype, aliasing its
// storage when it is contiguous: for reading only.
func elemsOf[T floating](t *tensor.Dense) []T {
	if dtypeOf[T]() == tensor.Float32 {
		return any(t.Contiguous().Float32s()).([]T)
	}
	return any(float64s(t)).([]T)
}

// realAs returns t converted to dt (float32 or float64) when it is the other
// real dtype (a cotangent or tangent of the other precision, rounded or widened
// as tensor.AsType), and t itself otherwise; the callers check the result.
func realAs(t *tensor.Dense, dt tensor.DType) *tensor.Dense {
	if t == nil || t.DType() == dt || t.DType().IsComplex() {
		return t
	}
	c, err := tensor.AsType(t, dt)
	if err != nil {
		return t // AsType fails only on nil or an invalid dtype, which the caller reports
	}
	return c
}

// denseOf returns the tensor of T's dtype that holds v (keeping the slice),
// whose length the caller sized from shape.
func denseOf[T floating](v []T, shape []int) *tensor.Dense {
	d, err := tensor.FromSlice(v, shape...)
	if err != nil {
		panic(err) // the callers size v from shape: a mismatch is a bug here
	}
	return d
}

// checkRealApplyNative is checkRealApply for an op with native float32 kernels:
// opkit.CheckApplyAll (any dtype reaches the op), then checkReal (complex
// input is an error).
func checkRealApplyNative(name string, in []cr.NodeID, x []*tensor.Dense, want int) error {
	if err := opkit.CheckApplyAll(name, in, x, want); err != nil {
		return err
	}
	return checkReal(name, x...)
}
