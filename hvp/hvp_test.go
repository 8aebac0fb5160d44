package hvp_test

import (
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
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

func vec(x ...float64) *tensor.Dense {
	t, err := tensor.FromFloat64(x, len(x))
	if err != nil {
		panic(err)
	}
	return t
}

func floats(t *tensor.Dense) []float64 { return t.Contiguous().Float64s() }

// rosenbrock is f(x) = sum_{i<n-1} 100 (x_{i+1} - x_i^2)^2 + (1 - x_i)^2, built from
// slices and elementwise ops.
func rosenbrock(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
	head := t.Apply(index.SliceOp(index.Range{Stop: -1}), x[0])                // x[:-1]
	tail := t.Apply(index.SliceOp(index.Range{Start: 1, Stop: 1 << 30}), x[0]) // x[1:]
	d := t.Apply(ew.SubOp, tail, t.Apply(ew.SquareOp, head))
	a := t.Apply(ew.ScaleOp(100), t.Apply(ew.SquareOp, d))
	b := t.Apply(ew.SquareOp, t.Apply(ew.ShiftOp(-1), head))
	return t.Apply(reduce.SumOp(nil, false), t.Apply(ew.AddOp, a, b))
}

// rosenbrockDerivs returns the closed-form gradient and Hessian.
func rosenbrockDerivs(x []float64) ([]float64, [][]float64) {
	n := len(x)
	g := make([]float64, n)
	h := make([][]float64, n)
	for i := range h {
		h[i] = make([]float64, n)
	}
	for i := 0; i < n-1; i++ {
		d := x[i+1] - x[i]*x[i]
		g[i] += -400*x[i]*d - 2*(1-x[i])
		g[i+1] += 200 * d
		h[i][i] += 1200*x[i]*x[i] - 400*x[i+1] + 2
		h[i][i+1] += -400 * x[i]
		h[i+1][i] += -400 * x[i]
		h[i+1][i+1] += 200
	}
	return g, h
}

func matVec(h [][]float64, v []float64) []float64 {
	out := make([]float64, len(h))
	for i := range h {
		for j, hij := range h[i] {
			out[i] += hij * v[j]
		}
	}
	return out
}

// assertClose checks |got - want| <= tol * max(1, ||want||_inf) elementwise.
func assertClose(t *testing.T, want, got []float64, tol float64, msg string) {
	t.Helper()
	require.Len(t, got, len(want), msg)
	scale := 1.0
	for _, w := range want {
		scale = math.Max(scale, math.Abs(w))
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > tol*scale {
			t.Fatalf("%s: element %d: got %.17g, want %.17g (tol %g)", msg, i, got[i], want[i], tol*scale)
		}
	}
}

func TestRosenbrockGradAndHVP(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, n := range []int{2, 5, 30} {
		x, v := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i], v[i] = 2*rng.Float64()-1, rng.NormFloat64()
		}
		g, h := rosenbrockDerivs(x)
		grad, hv, err := hvp.HVP(rosenbrock, []*tensor.Dense{vec(x...)}, []*tensor.Dense{vec(v...)})
		require.NoError(t, err)
		assertClose(t, g, floats(grad[0]), 1e-12, "gradient")
		assertClose(t, matVec(h, v), floats(hv[0]), 1e-12, "HVP")

		if n <= 5 {
			H, err := hvp.Hessian(rosenbrock, set(vec(x...)))
			require.NoError(t, err)
			for i := range n {
				assertClose(t, h[i], mat.Row(nil, i, H), 1e-12, "Hessian row")
			}
		}
	}
}

func TestSinExpHVP(t *testing.T) {
	// f = sum sin(x) exp(x): H = diag(2 exp(x) cos(x)).
	f := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		return t.Apply(reduce.SumOp(nil, false), t.Apply(ew.MulOp, t.Apply(ew.SinOp, x[0]), t.Apply(ew.ExpOp, x[0])))
	}
	x := []float64{-1.3, 0, 0.4, 2.2}
	v := []float64{0.5, -1, 2, 0.25}
	grad, hv, err := hvp.HVP(f, []*tensor.Dense{vec(x...)}, []*tensor.Dense{vec(v...)})
	require.NoError(t, err)
	wantG, wantH := make([]float64, len(x)), make([]float64, len(x))
	for i, xi := range x {
		wantG[i] = math.Exp(xi) * (math.Sin(xi) + math.Cos(xi))
		wantH[i] = 2 * math.Exp(xi) * math.Cos(xi) * v[i]
	}
	assertClose(t, wantG, floats(grad[0]), 1e-14, "gradient")
	assertClose(t, wantH, floats(hv[0]), 1e-14, "HVP")
}

// crossEntropy is L(W) = 1/n sum_i [logsumexp_c (X W)_ic - (X W)_{i y_i}] for data X
// (n x d) and labels y, with W (d x c).
func crossEntropy(X *tensor.Dense, labels []int, c int) hvp.Func {
	n := X.Shape()[0]
	onehot := make([]float64, n*c)
	for i, y := range labels {
		onehot[i*c+y] = 1
	}
	Y, _ := tensor.FromFloat64(onehot, n, c)
	return func(t *hvp.Tape, w []cr.NodeID) cr.NodeID {
		x, y := t.Constant(X), t.Constant(Y)
		z := t.Apply(einsum.Op("nd,dc->nc"), x, w[0])
		lse := t.Apply(reduce.LogSumExpOp([]int{1}, false), z)
		picked := t.Apply(einsum.Op("nc,nc->n"), z, y)
		return t.Apply(reduce.MeanOp(nil, false), t.Apply(ew.SubOp, lse, picked))
	}
}

func TestSoftmaxCrossEntropyHVP(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n, d, c = 6, 3, 4
	X := tensor.RandN(rng, tensor.Float64, n, d)
	labels := []int{0, 3, 1, 1, 2, 0}
	W := tensor.RandN(rng, tensor.Float64, d, c)
	V := tensor.RandN(rng, tensor.Float64, d, c)
	_, hv, err := hvp.HVP(crossEntropy(X, labels, c), []*tensor.Dense{W}, []*tensor.Dense{V})
	require.NoError(t, err)

	// Closed form: with p_i = softmax(z_i) and u_i = (X V)_i, the HVP is
	// 1/n sum_i x_i (p_i * u_i - p_i <p_i, u_i>)^T.
	want := make([]float64, d*c)
	for i := range n {
		z, u := make([]float64, c), make([]float64, c)
		for k := range c {
			for j := range d {
				z[k] += X.AtFloat64(i, j) * W.AtFloat64(j, k)
				u[k] += X.AtFloat64(i, j) * V.AtFloat64(j, k)
			}
		}
		m, s := math.Inf(-1), 0.0
		for _, zk := range z {
			m = math.Max(m, zk)
		}
		p := make([]float64, c)
		for k := range c {
			p[k] = math.Exp(z[k] - m)
			s += p[k]
		}
		pu := 0.0
		for k := range c {
			p[k] /= s
			pu += p[k] * u[k]
		}
		for j := range d {
			for k := range c {
				want[j*c+k] += X.AtFloat64(i, j) * (p[k]*u[k] - p[k]*pu) / n
			}
		}
	}
	assertClose(t, want, floats(hv[0]), 1e-12, "cross-entropy HVP")
}

func TestEinsumEnergyHVP(t *testing.T) {
	// E(A) = tr(A^3) = einsum(ij,jk,ki->): grad = 3 (A^2)^T, H[V] = 3 (A V + V A)^T.
	f := func(t *hvp.Tape, a []cr.NodeID) cr.NodeID {
		return t.Apply(einsum.Op("ij,jk,ki->"), a[0], a[0], a[0])
	}
	rng := rand.New(rand.NewPCG(5, 6))
	const n = 5
	A, V := tensor.RandN(rng, tensor.Float64, n, n), tensor.RandN(rng, tensor.Float64, n, n)
	grad, hv, err := hvp.HVP(f, []*tensor.Dense{A}, []*tensor.Dense{V})
	require.NoError(t, err)
	Am := mat.NewDense(n, n, floats(A))
	Vm := mat.NewDense(n, n, floats(V))
	var A2, AV, VA mat.Dense
	A2.Mul(Am, Am)
	AV.Mul(Am, Vm)
	VA.Mul(Vm, Am)
	wantG, wantH := make([]float64, n*n), make([]float64, n*n)
	for i := range n {
		for j := range n {
			wantG[i*n+j] = 3 * A2.At(j, i)
			wantH[i*n+j] = 3 * (AV.At(j, i) + VA.At(j, i))
		}
	}
	assertClose(t, wantG, floats(grad[0]), 1e-12, "gradient")
	assertClose(t, wantH, floats(hv[0]), 1e-12, "HVP")
}

func TestHVPSymmetryAndFiniteDifferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	const n = 8
	x, u, v := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range x {
		x[i], u[i], v[i] = rng.Float64()*2-1, rng.NormFloat64(), rng.NormFloat64()
	}
	op, err := hvp.NewOperator(rosenbrock, set(vec(x...)))
	require.NoError(t, err)
	hu, err := op.Apply(set(vec(u...)))
	require.NoError(t, err)
	hvv, err := op.Apply(set(vec(v...)))
	require.NoError(t, err)
	dot := func(a, b []float64) (s float64) {
		for i := range a {
			s += a[i] * b[i]
		}
		return s
	}
	uHv, vHu := dot(u, floats(hvv[0])), dot(v, floats(hu[0]))
	assert.InDelta(t, uHv, vHu, 1e-12*math.Abs(uHv))

	// Central differences of the gradient along v.
	const h = 1e-5
	xp, xm := make([]float64, n), make([]float64, n)
	for i := range x {
		xp[i], xm[i] = x[i]+h*v[i], x[i]-h*v[i]
	}
	_, gp, err := hvp.Grad(rosenbrock, set(vec(xp...)))
	require.NoError(t, err)
	_, gm, err := hvp.Grad(rosenbrock, set(vec(xm...)))
	require.NoError(t, err)
	fd := make([]float64, n)
	for i := range fd {
		fd[i] = (floats(gp[0])[i] - floats(gm[0])[i]) / (2 * h)
	}
	assertClose(t, fd, floats(hvv[0]), 1e-7, "HVP vs finite differences of the gradient")
}

func TestJVPAndVJPAgree(t *testing.T) {
	// f(x) = tanh(x) * x, elementwise: J = diag(tanh'(x) x + tanh(x)).
	f := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID { return t.Apply(ew.MulOp, t.Apply(ew.TanhOp, x[0]), x[0]) }
	x := vec(0.3, -1.2, 2)
	v, w := vec(1, 2, 3), vec(-1, 0.5, 4)
	_, jv, err := hvp.JVP(f, []*tensor.Dense{x}, []*tensor.Dense{v})
	require.NoError(t, err)
	_, jw, err := hvp.VJP(f, []*tensor.Dense{x}, w)
	require.NoError(t, err)
	a, _ := tensor.Dot(w, jv)
	b, _ := tensor.Dot(jw[0], v)
	assert.InDelta(t, real(a), real(b), 1e-13)
	J, err := hvp.Jacobian(f, set(x))
	require.NoError(t, err)
	for i, xi := range floats(x) {
		th := math.Tanh(xi)
		assert.InDelta(t, (1-th*th)*xi+th, J.At(i, i), 1e-14)
	}
}

func TestErrors(t *testing.T) {
	x := vec(1, 2, 3)
	identity := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID { return t.Apply(ew.SinOp, x[0]) }
	_, _, err := hvp.Grad(identity, set(x))
	assert.ErrorIs(t, err, cr.ErrNonScalarLoss)

	_, _, err = hvp.HVP(rosenbrock, []*tensor.Dense{x}, []*tensor.Dense{vec(1, 2)})
	assert.ErrorIs(t, err, cr.ErrShapeMismatch)

	_, _, err = hvp.HVP(rosenbrock, []*tensor.Dense{x}, nil)
	assert.ErrorIs(t, err, cr.ErrInvalidArgument)

	// An op without second-order rules: the error names it.
	firstOnly := cr.OpFunc[*tensor.Dense]{OpName: "first_order_sin", F: func(in []cr.NodeID, v []*tensor.Dense) (*tensor.Dense, cr.Rule[*tensor.Dense], error) {
		y, rule, err := ew.SinOp.Apply(in, v)
		return y, struct{ cr.Rule[*tensor.Dense] }{rule}, err
	}}
	f := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		return t.Apply(reduce.SumOp(nil, false), t.Apply(firstOnly, x[0]))
	}
	_, _, err = hvp.HVP(f, []*tensor.Dense{x}, []*tensor.Dense{x})
	assert.ErrorIs(t, err, cr.ErrNoRule, "the forward sweep meets the op first")
	assert.ErrorContains(t, err, "first_order_sin")
}
