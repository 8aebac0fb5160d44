package hvp_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/einsum"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

func TestLayout(t *testing.T) {
	l, err := hvp.NewLayout([]int{2, 3}, []int{3}, []int{}, []int{0, 4})
	require.NoError(t, err)
	assert.Equal(t, 4, l.Len())
	assert.Equal(t, 10, l.Dim())
	assert.Equal(t, []int{3}, l.Shape(1))
	lo, hi := l.Span(1)
	assert.Equal(t, [2]int{6, 9}, [2]int{lo, hi})
	lo, hi = l.Span(2)
	assert.Equal(t, [2]int{9, 10}, [2]int{lo, hi}, "a scalar holds one element")
	lo, hi = l.Span(3)
	assert.Equal(t, [2]int{10, 10}, [2]int{lo, hi}, "an empty tensor holds none")
	assert.Equal(t, "[[2 3] [3] [] [0 4]] (10 elements)", l.String())

	flat := []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	views, err := l.Views(flat)
	require.NoError(t, err)
	assert.Equal(t, []int{2, 3}, views[0].Shape())
	assert.Equal(t, 5.0, views[0].AtFloat64(1, 2))
	assert.Equal(t, 9.0, views[2].AtFloat64())
	flat[7] = -7
	assert.Equal(t, -7.0, views[1].AtFloat64(1), "views share the flat storage")
	views[1].SetFloat64(70, 1)
	assert.Equal(t, 70.0, flat[7])

	copies, err := l.Unflatten(flat)
	require.NoError(t, err)
	flat[0] = 100
	assert.Equal(t, 0.0, copies[0].AtFloat64(0, 0), "Unflatten copies")

	back, err := l.Flatten(copies)
	require.NoError(t, err)
	assert.Equal(t, []float64{0, 1, 2, 3, 4, 5, 6, 70, 8, 9}, back)

	dst := make([]float64, 10)
	require.NoError(t, l.FlattenTo(dst, []*tensor.Dense{nil, copies[1], nil, nil}))
	assert.Equal(t, []float64{0, 0, 0, 0, 0, 0, 6, 70, 8, 0}, dst, "nil stands for zeros")

	// Non-contiguous tensors flatten in row-major order.
	m, _ := tensor.FromFloat64([]float64{1, 2, 3, 4, 5, 6}, 3, 2)
	mt, err := m.Transpose(0, 1)
	require.NoError(t, err)
	require.NoError(t, l.FlattenTo(dst, []*tensor.Dense{mt, nil, nil, nil}))
	assert.Equal(t, []float64{1, 3, 5, 2, 4, 6}, dst[:6])

	m2, err := hvp.LayoutOf([]*tensor.Dense{tensor.New(tensor.Float64, 2, 3), tensor.New(tensor.Float64, 3), tensor.Scalar(0), tensor.New(tensor.Float64, 0, 4)})
	require.NoError(t, err)
	assert.True(t, l.Equal(m2))
	assert.False(t, l.Equal(hvp.Layout{}))
	assert.Equal(t, 0, hvp.Layout{}.Dim())
}

func TestLayoutErrors(t *testing.T) {
	_, err := hvp.NewLayout([]int{2, -1})
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
	_, err = hvp.NewLayout([]int{1 << 62}, []int{1 << 62})
	assert.ErrorIs(t, err, cr.ErrInvalidArgument, "a set that overflows int")

	_, err = hvp.LayoutOf([]*tensor.Dense{nil})
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
	_, err = hvp.LayoutOf([]*tensor.Dense{tensor.New(tensor.Complex128, 2)})
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)

	l, err := hvp.NewLayout([]int{2}, []int{3})
	require.NoError(t, err)
	_, err = l.Views(make([]float64, 4))
	assert.ErrorIs(t, err, cr.ErrShapeMismatch)
	_, err = l.Unflatten(make([]float64, 6))
	assert.ErrorIs(t, err, cr.ErrShapeMismatch)
	_, err = l.Flatten([]*tensor.Dense{tensor.New(tensor.Float64, 2)})
	assert.ErrorIs(t, err, cr.ErrShapeMismatch, "too few tensors")
	_, err = l.Flatten([]*tensor.Dense{tensor.New(tensor.Float64, 3), tensor.New(tensor.Float64, 2)})
	assert.ErrorIs(t, err, cr.ErrShapeMismatch, "swapped shapes")
	_, err = l.Flatten([]*tensor.Dense{tensor.New(tensor.Float64, 2), tensor.New(tensor.Complex128, 3)})
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
	assert.ErrorIs(t, l.FlattenTo(make([]float64, 4), []*tensor.Dense{nil, nil}), cr.ErrShapeMismatch)
}

// An MLP's six parameter tensors as one parameter set: the Objective's value,
// gradient, Hessian-vector products and dense Hessian agree with the tensor
// transforms (Grad, HVP, Hessian, Operator) on the same set, flattened by the Layout.
func TestParameterSetsAreConsistent(t *testing.T) {
	X, Y, params := mlpProblem(4, 6, []int{3, 4, 2})
	f := mlpLoss4(X, Y)
	l, err := hvp.LayoutOf(params)
	require.NoError(t, err)
	require.Equal(t, 3*4+4+4*2+2, l.Dim())
	x, err := l.Flatten(params)
	require.NoError(t, err)

	obj := hvp.NewParamObjective(f, l)
	val, grad, err := hvp.Grad(f, params)
	require.NoError(t, err)
	assert.Equal(t, val.AtFloat64(), obj.Func(x))
	g := make([]float64, l.Dim())
	obj.Grad(g, x)
	wantG, err := l.Flatten(grad)
	require.NoError(t, err)
	assert.Equal(t, wantG, g)

	rng := rand.New(rand.NewPCG(5, 5))
	v := make([]float64, l.Dim())
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	vs, err := l.Unflatten(v)
	require.NoError(t, err)
	_, hv, err := hvp.HVP(f, params, vs)
	require.NoError(t, err)
	wantHV, err := l.Flatten(hv)
	require.NoError(t, err)
	gotHV := make([]float64, l.Dim())
	require.NoError(t, obj.HessVec(gotHV, x, v))
	assert.Equal(t, wantHV, gotHV)

	op, err := hvp.NewOperator(f, params)
	require.NoError(t, err)
	opHV := make([]float64, l.Dim())
	require.NoError(t, op.ApplyFlat(opHV, v))
	assert.Equal(t, wantHV, opHV)
	opG := make([]float64, l.Dim())
	require.NoError(t, op.GradFlat(opG))
	assert.Equal(t, wantG, opG)
	ol, err := op.Layout()
	require.NoError(t, err)
	assert.True(t, ol.Equal(l))

	H, err := hvp.Hessian(f, params)
	require.NoError(t, err)
	objH := mat.NewSymDense(l.Dim(), nil)
	obj.Hess(objH, x)
	assert.True(t, mat.EqualApprox(H, objH, 1e-14))
	// The Hessian's action is the HVP.
	var hvDense mat.VecDense
	hvDense.MulVec(H, mat.NewVecDense(len(v), v))
	for i := range v {
		assert.InDelta(t, wantHV[i], hvDense.AtVec(i), 1e-12)
	}
	// And it is the derivative of the gradient: central differences along e_i.
	const h = 1e-5
	for _, i := range []int{0, 5, l.Dim() - 1} {
		xp, xm := append([]float64(nil), x...), append([]float64(nil), x...)
		xp[i] += h
		xm[i] -= h
		gp, gm := make([]float64, len(x)), make([]float64, len(x))
		obj.Grad(gp, xp)
		obj.Grad(gm, xm)
		for j := range x {
			assert.InDelta(t, (gp[j]-gm[j])/(2*h), H.At(j, i), 1e-7, "H[%d][%d]", j, i)
		}
	}
	require.NoError(t, obj.Err())

	J, err := hvp.Jacobian(func(t *hvp.Tape, p []cr.NodeID) cr.NodeID { return mlpOutputs(t, X, p) }, params)
	require.NoError(t, err)
	r, c := J.Dims()
	assert.Equal(t, [2]int{6 * 2, l.Dim()}, [2]int{r, c})
}

// The objective's leaves are views of one copy of gonum's point: a later change to
// gonum's slice does not reach the recording, and Grad at the same point reuses it.
func TestParamObjectiveCopiesThePointOnce(t *testing.T) {
	X, Y, params := mlpProblem(4, 6, []int{3, 4, 2})
	l, err := hvp.LayoutOf(params)
	require.NoError(t, err)
	obj := hvp.NewParamObjective(mlpLoss4(X, Y), l)
	x, err := l.Flatten(params)
	require.NoError(t, err)
	f0 := obj.Func(x)
	saved := append([]float64(nil), x...)
	g := make([]float64, len(x))
	obj.Grad(g, x)
	x[0] += 1 // gonum reuses its buffers
	obj.Func(x)
	obj.Grad(g, saved)
	assert.Equal(t, f0, obj.Func(saved))
	assert.Equal(t, 2, obj.Recordings, "two points, each recorded once")
	assert.Equal(t, 1, obj.Gradients, "the gradient at the first point is cached")
}

func TestParamObjectiveInvalid(t *testing.T) {
	obj := hvp.NewParamObjective(rosenbrock, hvp.Layout{})
	assert.Equal(t, 0, obj.Dim())
	assert.True(t, math.IsNaN(obj.Func(nil)))
	assert.ErrorIs(t, obj.Err(), cr.ErrInvalidArgument)

	l, _ := hvp.NewLayout([]int{2}, []int{3})
	obj = hvp.NewParamObjective(rosenbrock, l)
	assert.True(t, math.IsNaN(obj.Func(make([]float64, 4))))
	assert.ErrorIs(t, obj.Err(), cr.ErrShapeMismatch)
}

// mlpOutputs records the logits of a two-layer tanh network with parameters (W1, b1,
// W2, b2).
func mlpOutputs(t *hvp.Tape, X *tensor.Dense, p []cr.NodeID) cr.NodeID {
	matmul := einsum.Op("bi,ij->bj")
	h := t.Apply(ew.TanhOp, t.Apply(ew.AddOp, t.Apply(matmul, t.Constant(X), p[0]), p[1]))
	return t.Apply(ew.AddOp, t.Apply(matmul, h, p[2]), p[3])
}

// mlpLoss4 is the cross-entropy of mlpOutputs against one-hot labels Y.
func mlpLoss4(X, Y *tensor.Dense) hvp.Func {
	return func(t *hvp.Tape, p []cr.NodeID) cr.NodeID {
		z := mlpOutputs(t, X, p)
		lse := t.Apply(reduce.LogSumExpOp([]int{1}, false), z)
		picked := t.Apply(einsum.Op("bc,bc->b"), z, t.Constant(Y))
		return t.Apply(reduce.MeanOp(nil, false), t.Apply(ew.SubOp, lse, picked))
	}
}

// A parameter set — an MLP's weights and biases, of any shapes — and its flat view,
// which gonum works on.
func ExampleLayout() {
	w1, b1 := tensor.New(tensor.Float64, 2, 3), tensor.New(tensor.Float64, 3)
	w2, b2 := tensor.New(tensor.Float64, 3, 1), tensor.Scalar(0.5)
	params := []*tensor.Dense{w1, b1, w2, b2}
	w1.SetFloat64(1, 0, 2)
	l, err := hvp.LayoutOf(params)
	if err != nil {
		panic(err)
	}
	x, _ := l.Flatten(params) // once, for the starting point
	fmt.Println(l, x)
	views, _ := l.Views(x) // no copy: what an Objective hands its Func
	x[2] = 7
	fmt.Println(views[0].AtFloat64(0, 2))
	lo, hi := l.Span(3)
	fmt.Println(lo, hi)
	// Output:
	// [[2 3] [3] [3 1] []] (13 elements) [0 0 1 0 0 0 0 0 0 0 0 0 0.5]
	// 7
	// 12 13
}

// A linear model with a weight vector and a scalar bias, fitted as a parameter set:
// the loss is written on the two tensors, gonum sees one flat point of 3 + 1
// elements, and the result comes back as tensors. (Several tensors of any shapes work
// the same way: examples/mlpfit fits an MLP's six.)
func ExampleNewParamObjective() {
	X, _ := tensor.FromFloat64([]float64{1, 0, 2, 0, 1, 1, 1, 1, 0, 2, 1, 1, 0, 2, 1}, 5, 3)
	Y, _ := tensor.FromFloat64([]float64{4.5, 1.5, 1, 3.5, 1}, 5) // X (1, -0.5, 1.5) + 0.5
	loss := func(t *hvp.Tape, p []cr.NodeID) cr.NodeID {
		pred := t.Apply(ew.AddOp, t.Apply(einsum.Op("nd,d->n"), t.Constant(X), p[0]), p[1])
		return t.Apply(reduce.MeanOp(nil, false), t.Apply(ew.SquareOp, t.Apply(ew.SubOp, pred, t.Constant(Y))))
	}
	params := []*tensor.Dense{tensor.New(tensor.Float64, 3), tensor.Scalar(0)} // w, b
	l, _ := hvp.LayoutOf(params)
	obj := hvp.NewParamObjective(loss, l)
	x0, _ := l.Flatten(params)
	res, err := hvp.Minimize(obj, x0, nil, &hvp.NewtonCG{})
	if err != nil {
		panic(err)
	}
	fitted, _ := l.Unflatten(res.X)
	fmt.Printf("%v: w = %.4f, b = %.4f\n", res.Status, fitted[0].Float64s(), fitted[1].AtFloat64())
	// Output:
	// GradientThreshold: w = [1.0000 -0.5000 1.5000], b = 0.5000
}
