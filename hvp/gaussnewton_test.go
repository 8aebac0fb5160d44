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

func randn(rng *rand.Rand, shape ...int) *tensor.Dense {
	return tensor.RandN(rng, tensor.Float64, shape...)
}

// The seeded HVP of a vector function is the HVP of the scalar <ybar, f(x)> written
// out with ybar as a constant, and its xbar is the VJP.
func TestHVPSeedMatchesTheScalarHVP(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	A, b := randn(rng, 4, 3), randn(rng, 3)
	ybar := randn(rng, 4)
	f := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID { // tanh(A x) * b[0] ... a vector of 4
		ax := t.Apply(einsum.Op("ij,j->i"), t.Constant(A), x[0])
		return t.Apply(ew.MulOp, t.Apply(ew.TanhOp, ax), t.Apply(ew.SinOp, t.Apply(reduce.SumOp(nil, false), x[1])))
	}
	scalar := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		return t.Apply(reduce.SumOp(nil, false), t.Apply(ew.MulOp, t.Constant(ybar), f(t, x)))
	}
	x := []*tensor.Dense{randn(rng, 3), b}
	v := []*tensor.Dense{randn(rng, 3), randn(rng, 3)}

	y, xbar, hv, err := hvp.HVPSeed(f, x, v, ybar)
	require.NoError(t, err)
	assert.Equal(t, []int{4}, y.Shape())
	grad, want, err := hvp.HVP(scalar, x, v)
	require.NoError(t, err)
	_, vjp, err := hvp.VJP(f, x, ybar)
	require.NoError(t, err)
	for k := range x {
		assert.InDeltaSlice(t, floats(want[k]), floats(hv[k]), 1e-13, "hv[%d]", k)
		assert.InDeltaSlice(t, floats(grad[k]), floats(xbar[k]), 1e-13, "xbar[%d]", k)
		assert.InDeltaSlice(t, floats(vjp[k]), floats(xbar[k]), 1e-15, "xbar[%d] is the VJP", k)
	}

	// A nil direction is zero; errors.
	_, _, hv, err = hvp.HVPSeed(f, x, []*tensor.Dense{nil, nil}, ybar)
	require.NoError(t, err)
	assert.Equal(t, []float64{0, 0, 0}, floats(hv[0]))
	_, _, _, err = hvp.HVPSeed(f, x, v[:1], ybar)
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
	_, _, _, err = hvp.HVPSeed(f, x, v, nil)
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
	_, _, _, err = hvp.HVPSeed(f, x, v, randn(rng, 3))
	assert.ErrorIs(t, err, cr.ErrShapeMismatch)
}

// A complex output with a complex cotangent: the HVP of Re<ybar, (1+2i) x^2> is
// diag(2 Re(conj(ybar)(1+2i))) v.
func TestHVPSeedComplexOutput(t *testing.T) {
	f := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		return t.Apply(ew.ScaleOp(1+2i), t.Apply(ew.SquareOp, x[0]))
	}
	x := vec(0.5, -1)
	ybar, _ := tensor.FromComplex128([]complex128{2 - 1i, 0.5i}, 2)
	v := vec(1, 3)
	y, _, hv, err := hvp.HVPSeed(f, set(x), set(v), ybar)
	require.NoError(t, err)
	assert.Equal(t, tensor.Complex128, y.DType())
	c := []float64{2 * real(complex(2, 1)*(1+2i)), 2 * real(complex(0, -0.5)*(1+2i))}
	assert.InDeltaSlice(t, []float64{c[0] * 1, c[1] * 3}, floats(hv[0]), 1e-14)
}

// A model linear in its parameters has no second-order terms: its Gauss-Newton matrix
// is its Hessian, here for least squares and for logistic regression.
func TestGaussNewtonOfALinearModelIsTheHessian(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	X := randn(rng, 20, 3)
	linear := func(t *hvp.Tape, p []cr.NodeID) cr.NodeID {
		return t.Apply(ew.AddOp, t.Apply(einsum.Op("nd,d->n"), t.Constant(X), p[0]), p[1])
	}
	labels := make([]float64, 20)
	for i := range labels {
		labels[i] = float64(rng.IntN(2))
	}
	targets, _ := tensor.FromFloat64(labels, 20)
	for name, loss := range map[string]hvp.Loss{
		"mse":      hvp.MSELoss(randn(rng, 20)),
		"logistic": hvp.BCEWithLogitsLoss(targets),
	} {
		x := []*tensor.Dense{randn(rng, 3), tensor.Scalar(0.3)}
		v := []*tensor.Dense{randn(rng, 3), tensor.Scalar(-1)}
		grad, gv, err := hvp.GaussNewton(linear, loss, x, v)
		require.NoError(t, err)
		composed := func(t *hvp.Tape, p []cr.NodeID) cr.NodeID { return loss(t, linear(t, p)) }
		wantGrad, hv, err := hvp.HVP(composed, x, v)
		require.NoError(t, err)
		for k := range x {
			assert.InDeltaSlice(t, floats(hv[k]), floats(gv[k]), 1e-13, "%s: G v = H v for input %d", name, k)
			assert.InDeltaSlice(t, floats(wantGrad[k]), floats(grad[k]), 1e-15, name)
		}
	}
}

// For a non-linear model the Gauss-Newton matrix is J^T H_L J with J the model's
// Jacobian and H_L the loss's Hessian, both computed densely here; it is symmetric
// positive semi-definite for mean squared error and cross-entropy, where the Hessian
// is not.
func TestGaussNewtonIsJTHJ(t *testing.T) {
	X, _, params := mlpProblem(9, 5, []int{3, 4, 2})
	rng := rand.New(rand.NewPCG(9, 9))
	model := func(t *hvp.Tape, p []cr.NodeID) cr.NodeID { return mlpOutputs(t, X, p) }
	labels := []int{0, 1, 1, 0, 1}
	l, err := hvp.LayoutOf(params)
	require.NoError(t, err)
	J, err := hvp.Jacobian(model, params)
	require.NoError(t, err)
	for name, loss := range map[string]hvp.Loss{
		"mse":           hvp.MSELoss(randn(rng, 5, 2)),
		"cross-entropy": hvp.CrossEntropyLoss(labels),
	} {
		logits, _, err := hvp.VJP(model, params, tensor.Ones(tensor.Float64, 5, 2))
		require.NoError(t, err)
		HL, err := hvp.Hessian(func(t *hvp.Tape, z []cr.NodeID) cr.NodeID { return loss(t, z[0]) }, set(logits))
		require.NoError(t, err)
		var G mat.Dense
		G.Product(J.T(), HL, J)

		op, err := hvp.NewModelOperator(model, loss, params)
		require.NoError(t, err)
		v := make([]float64, l.Dim())
		for trial := range 3 {
			for i := range v {
				v[i] = rng.NormFloat64()
			}
			gv := make([]float64, l.Dim())
			require.NoError(t, op.GaussNewtonFlat(gv, v))
			var want mat.VecDense
			want.MulVec(&G, mat.NewVecDense(len(v), v))
			for i := range v {
				require.InDelta(t, want.AtVec(i), gv[i], 1e-12, "%s trial %d element %d", name, trial, i)
			}
			vGv := 0.0
			for i := range v {
				vGv += v[i] * gv[i]
			}
			assert.GreaterOrEqual(t, vGv, -1e-14, "%s: v^T G v >= 0", name)
		}
		// The same operator gives the exact Hessian; it differs from G.
		hv := make([]float64, l.Dim())
		require.NoError(t, op.ApplyFlat(hv, v))
		var Gv mat.VecDense
		Gv.MulVec(&G, mat.NewVecDense(len(v), v))
		diff := 0.0
		for i := range v {
			diff = math.Max(diff, math.Abs(hv[i]-Gv.AtVec(i)))
		}
		assert.Greater(t, diff, 1e-6, "%s: the model's curvature is not in G", name)
	}
}

// The seeded HVP of a vector function: with y = x^3 elementwise and ybar = (1, 2),
// <ybar, y> has Hessian diag(6 ybar x).
func ExampleHVPSeed() {
	cube := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID { return t.Apply(ew.PowScalarOp(3), x[0]) }
	x, _ := tensor.FromFloat64([]float64{1, -2}, 2)
	v, _ := tensor.FromFloat64([]float64{1, 1}, 2)
	ybar, _ := tensor.FromFloat64([]float64{1, 2}, 2)
	y, xbar, hv, err := hvp.HVPSeed(cube, []*tensor.Dense{x}, []*tensor.Dense{v}, ybar)
	if err != nil {
		panic(err)
	}
	fmt.Println(y.Float64s(), xbar[0].Float64s(), hv[0].Float64s())
	// Output:
	// [1 -8] [3 24] [6 -24]
}

// expModel is the curve p0 exp(p1 t) at the sample times.
func expModel(times *tensor.Dense) hvp.Func {
	return func(t *hvp.Tape, p []cr.NodeID) cr.NodeID {
		rate := t.Apply(ew.ExpOp, t.Apply(ew.MulOp, p[1], t.Constant(times)))
		return t.Apply(ew.MulOp, p[0], rate)
	}
}

// The Gauss-Newton product of a least-squares fit: J^T H_L J v for the model
// p0 exp(p1 t) and the mean squared error (H_L = 2/3 I), next to the exact Hessian's
// product, which adds the residuals' curvature.
func ExampleGaussNewton() {
	times, _ := tensor.FromFloat64([]float64{0, 0.5, 1}, 3)
	data, _ := tensor.FromFloat64([]float64{2, 1, 0.5}, 3)
	p := []*tensor.Dense{tensor.Scalar(1), tensor.Scalar(-1)}
	v := []*tensor.Dense{tensor.Scalar(1), tensor.Scalar(0)}
	_, gv, err := hvp.GaussNewton(expModel(times), hvp.MSELoss(data), p, v)
	if err != nil {
		panic(err)
	}
	op, _ := hvp.NewModelOperator(expModel(times), hvp.MSELoss(data), p)
	hv, _ := op.Apply(v)
	fmt.Printf("G v = (%.4f, %.4f)\nH v = (%.4f, %.4f)\n", gv[0].AtFloat64(), gv[1].AtFloat64(), hv[0].AtFloat64(), hv[1].AtFloat64())
	// Output:
	// G v = (1.0021, 0.2129)
	// H v = (1.0021, 0.1009)
}

// Newton-CG with the Gauss-Newton matrix fits the curve: an objective made from a
// model and a loss gives both curvatures, and the method's Curvature picks one.
func ExampleNewtonCG_gaussNewton() {
	ts := []float64{0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75}
	ys := make([]float64, len(ts))
	for i, ti := range ts {
		ys[i] = 2 * math.Exp(-1.5*ti)
	}
	times, _ := tensor.FromFloat64(ts, len(ts))
	data, _ := tensor.FromFloat64(ys, len(ys))
	l, _ := hvp.NewLayout([]int{}, []int{}) // two scalars
	obj := hvp.NewModelObjective(expModel(times), hvp.MSELoss(data), l)
	res, err := hvp.Minimize(obj, []float64{1, 0}, nil, &hvp.NewtonCG{Curvature: hvp.GaussNewtonCurvature})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%v: p = (%.6f, %.6f); Gauss-Newton products: %v, Hessian-vector products: %d\n",
		res.Status, res.X[0], res.X[1], obj.GaussNewtonProducts > 0, obj.HVPs)
	// Output:
	// GradientThreshold: p = (2.000000, -1.500000); Gauss-Newton products: true, Hessian-vector products: 0
}

func TestGaussNewtonErrors(t *testing.T) {
	times, _ := tensor.FromFloat64([]float64{0, 1}, 2)
	data, _ := tensor.FromFloat64([]float64{1, 2}, 2)
	p := []*tensor.Dense{tensor.Scalar(1), tensor.Scalar(0.5)}
	v := []*tensor.Dense{tensor.Scalar(1), tensor.Scalar(1)}

	op, err := hvp.NewOperator(func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		return hvp.MSELoss(data)(t, expModel(times)(t, x))
	}, p)
	require.NoError(t, err)
	_, err = op.GaussNewton(v)
	assert.ErrorIs(t, err, cr.ErrInvalidArgument, "no model/loss split")

	_, err = hvp.NewModelOperator(nil, hvp.MSELoss(data), p)
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
	complexModel := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID { return t.Apply(ew.ScaleOp(1i), expModel(times)(t, x)) }
	realPart := func(t *hvp.Tape, y cr.NodeID) cr.NodeID {
		return t.Apply(reduce.SumOp(nil, false), t.Apply(ew.RealOp, t.Apply(ew.SquareOp, y)))
	}
	_, err = hvp.NewModelOperator(complexModel, realPart, p)
	assert.ErrorIs(t, err, cr.ErrInvalidArgument, "a complex model output")

	mop, err := hvp.NewModelOperator(expModel(times), hvp.MSELoss(data), p)
	require.NoError(t, err)
	_, err = mop.GaussNewton(v[:1])
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
	gv, err := mop.GaussNewton([]*tensor.Dense{nil, nil})
	require.NoError(t, err)
	assert.Equal(t, []float64{0}, floats(gv[0]), "J v = 0")

	// An objective without a model and a loss has no Gauss-Newton products; the
	// error reaches Err, and NewtonCG with that curvature fails with it.
	l, _ := hvp.NewLayout([]int{}, []int{})
	obj := hvp.NewParamObjective(func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		return hvp.MSELoss(data)(t, expModel(times)(t, x))
	}, l)
	dst := make([]float64, 2)
	assert.ErrorIs(t, obj.GaussNewtonVec(dst, []float64{1, 0.5}, []float64{1, 1}), cr.ErrInvalidArgument)
	obj.ClearErr()
	res, err := hvp.Minimize(obj, []float64{1, 0.5}, nil, &hvp.NewtonCG{Curvature: hvp.GaussNewtonCurvature})
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)
	assert.Equal(t, "Failure", res.Status.String())
	assert.Equal(t, "Gauss-Newton", hvp.GaussNewtonCurvature.String())
	assert.Equal(t, "Hessian", hvp.HessianCurvature.String())
}
