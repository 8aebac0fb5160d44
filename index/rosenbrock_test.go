package index_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

// Small float64 elementwise ops with full rules, local to this test, so that the
// Rosenbrock test checks the slicing rules against ops written next to it as well as
// against the elementwise and reduce packages.

type D = tensor.Dense

// mapF returns the fresh tensor f(x_i, y_i) over tensors of equal shape (y may be
// nil).
func mapF(x, y *D, f func(a, b float64) float64) *D {
	xs := x.Float64s()
	var ys []float64
	if y != nil {
		ys = y.Float64s()
	}
	out := make([]float64, len(xs))
	for i, a := range xs {
		b := 0.0
		if ys != nil {
			b = ys[i]
		}
		out[i] = f(a, b)
	}
	d, _ := tensor.FromFloat64(out, x.Shape()...)
	return d
}

// testRule is the rule of a test op: jvp maps the input tangents (zeros when
// absent) to the output tangent, vjp maps ybar to the input cotangents, and hess,
// if set, gives the second-order term (d/dx J^* ybar)[xdot] of each input.
type testRule struct {
	in     []cr.NodeID
	shapes [][]int
	jvp    func(xdot []*D) *D
	vjp    func(ybar *D) []*D
	hess   func(ybar *D, xdot []*D) []*D
}

func (r *testRule) Inputs() []cr.NodeID { return r.in }

func (r *testRule) Pullback(ybar []*D, _ []bool, dst []cr.Contribution[*D]) ([]cr.Contribution[*D], error) {
	for k, v := range r.vjp(ybar[0]) {
		dst = append(dst, cr.Contribution[*D]{Node: r.in[k], Value: v})
	}
	return dst, nil
}

func (r *testRule) tangents(of cr.TangentOf[*D]) ([]*D, bool) {
	ts, any := make([]*D, len(r.in)), false
	for k, id := range r.in {
		if t, ok := of(id); ok {
			ts[k], any = t, true
		} else {
			ts[k] = tensor.New(tensor.Float64, r.shapes[k]...)
		}
	}
	return ts, any
}

func (r *testRule) Forward(of cr.TangentOf[*D], ydot []*D, has []bool) error {
	ts, any := r.tangents(of)
	if !any {
		return nil
	}
	ydot[0], has[0] = r.jvp(ts), true
	return nil
}

func (r *testRule) PullbackWithTangents(a cr.SecondOrderArgs[*D], dst []cr.DualContribution[*D]) ([]cr.DualContribution[*D], error) {
	ct, of := a.Cotangents[0], a.TangentOf
	xbar := r.vjp(ct.Value)
	dots := make([]*D, len(xbar))
	for k := range dots {
		dots[k] = tensor.New(tensor.Float64, r.shapes[k]...)
	}
	if ct.HasTangent {
		dots = r.vjp(ct.Tangent)
	}
	if r.hess != nil {
		ts, _ := r.tangents(of)
		for k, h := range r.hess(ct.Value, ts) {
			dots[k], _ = tensor.Add(dots[k], h)
		}
	}
	for k := range xbar {
		dst = append(dst, cr.DualContribution[*D]{Node: r.in[k], Cotangent: cr.Dual[*D]{Value: xbar[k], Tangent: dots[k], HasTangent: true}})
	}
	return dst, nil
}

func testOp(name string, f func(x []*D) (*D, *testRule)) cr.Op[*D] {
	return cr.OpFunc[*D]{OpName: name, F: func(in []cr.NodeID, x []*D) (*D, cr.Rule[*D], error) {
		y, r := f(x)
		r.in = append([]cr.NodeID(nil), in...)
		for _, v := range x {
			r.shapes = append(r.shapes, v.Shape())
		}
		return y, r, nil
	}}
}

// square: y = x^2, xbar = 2 x ybar, second-order term 2 xdot ybar.
var squareOp = testOp("test_square", func(x []*D) (*D, *testRule) {
	a := x[0]
	return mapF(a, nil, func(u, _ float64) float64 { return u * u }), &testRule{
		jvp:  func(t []*D) *D { return mapF(a, t[0], func(u, v float64) float64 { return 2 * u * v }) },
		vjp:  func(y *D) []*D { return []*D{mapF(a, y, func(u, v float64) float64 { return 2 * u * v })} },
		hess: func(y *D, t []*D) []*D { return []*D{mapF(t[0], y, func(u, v float64) float64 { return 2 * u * v })} },
	}
})

// affine: y = s x + c.
func affineOp(s, c float64) cr.Op[*D] {
	return testOp("test_affine", func(x []*D) (*D, *testRule) {
		lin := func(t *D) *D { return mapF(t, nil, func(u, _ float64) float64 { return s * u }) }
		return mapF(x[0], nil, func(u, _ float64) float64 { return s*u + c }), &testRule{
			jvp: func(t []*D) *D { return lin(t[0]) },
			vjp: func(y *D) []*D { return []*D{lin(y)} },
		}
	})
}

// sub: y = a - b; add: y = a + b (same shapes).
func linear2(name string, sign float64) cr.Op[*D] {
	return testOp(name, func(x []*D) (*D, *testRule) {
		f := func(u, v float64) float64 { return u + sign*v }
		return mapF(x[0], x[1], f), &testRule{
			jvp: func(t []*D) *D { return mapF(t[0], t[1], f) },
			vjp: func(y *D) []*D { return []*D{y.Clone(), mapF(y, nil, func(u, _ float64) float64 { return sign * u })} },
		}
	})
}

var (
	subOp = linear2("test_sub", -1)
	addOp = linear2("test_add", 1)
)

// sum: y = sum_i x_i, xbar = ybar broadcast.
var sumOp = testOp("test_sum", func(x []*D) (*D, *testRule) {
	shape := x[0].Shape()
	total := func(t *D) *D { return tensor.Scalar(real(tensor.Sum(t))) }
	return total(x[0]), &testRule{
		jvp: func(t []*D) *D { return total(t[0]) },
		vjp: func(y *D) []*D { return []*D{tensor.Full(tensor.Float64, y.At(), shape...)} },
	}
})

// The local ops themselves pass the rule checker.
func TestRosenbrockTestOps(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	x, y := tensor.RandN(rng, tensor.Float64, 4), tensor.RandN(rng, tensor.Float64, 4)
	sp := tensor.Space{}
	ruletest.Check(t, sp, squareOp, []*D{x}, ruletest.Config{})
	ruletest.Check(t, sp, affineOp(-1, 1), []*D{x}, ruletest.Config{})
	ruletest.Check(t, sp, subOp, []*D{x, y}, ruletest.Config{})
	ruletest.Check(t, sp, addOp, []*D{x, y}, ruletest.Config{})
	ruletest.Check(t, sp, sumOp, []*D{x}, ruletest.Config{})
}

// rosenOps are the arithmetic ops the Rosenbrock function needs.
type rosenOps struct {
	square, sub, add, sum cr.Op[*D]
	scale, shift          func(float64) cr.Op[*D]
}

// localOps are the test ops above; libraryOps those of the elementwise and reduce
// packages.
var (
	localOps = rosenOps{
		square: squareOp, sub: subOp, add: addOp, sum: sumOp,
		scale: func(s float64) cr.Op[*D] { return affineOp(s, 0) },
		shift: func(c float64) cr.Op[*D] { return affineOp(1, c) },
	}
	libraryOps = rosenOps{
		square: elementwise.SquareOp, sub: elementwise.SubOp, add: elementwise.AddOp, sum: reduce.SumOp(nil, false),
		scale: func(s float64) cr.Op[*D] { return elementwise.ScaleOp(s) },
		shift: func(c float64) cr.Op[*D] { return elementwise.ShiftOp(c) },
	}
)

// rosenbrock records f(x) = sum_{i<n-1} 100 (x_{i+1} - x_i^2)^2 + (1 - x_i)^2 with
// x[1:] and x[:-1] taken by Slice.
func rosenbrock(tape *core.Tape[*D], ops rosenOps, x cr.NodeID) cr.NodeID {
	hi := tape.Apply(index.SliceOp(index.Range{Start: 1, Stop: index.End}), x)
	lo := tape.Apply(index.SliceOp(index.Range{Stop: -1}), x)
	d := tape.Apply(ops.sub, hi, tape.Apply(ops.square, lo))
	t1 := tape.Apply(ops.scale(100), tape.Apply(ops.square, d))
	t2 := tape.Apply(ops.square, tape.Apply(ops.shift(1), tape.Apply(ops.scale(-1), lo)))
	return tape.Apply(ops.sum, tape.Apply(ops.add, t1, t2))
}

// rosenbrockClosed returns f(x), its gradient and H v in closed form:
//
//	g_i = -400 x_i (x_{i+1} - x_i^2) - 2 (1 - x_i)  [i < n-1]  + 200 (x_i - x_{i-1}^2)  [i > 0]
//	H_ii = 1200 x_i^2 - 400 x_{i+1} + 2  [i < n-1]  + 200  [i > 0]
//	H_{i,i+1} = H_{i+1,i} = -400 x_i
func rosenbrockClosed(x, v []float64) (f float64, g, hv []float64) {
	n := len(x)
	g, hv = make([]float64, n), make([]float64, n)
	for i := range n {
		if i < n-1 {
			d := x[i+1] - x[i]*x[i]
			f += 100*d*d + (1-x[i])*(1-x[i])
			g[i] += -400*x[i]*d - 2*(1-x[i])
			hv[i] += (1200*x[i]*x[i]-400*x[i+1]+2)*v[i] - 400*x[i]*v[i+1]
		}
		if i > 0 {
			g[i] += 200 * (x[i] - x[i-1]*x[i-1])
			hv[i] += 200*v[i] - 400*x[i-1]*v[i-1]
		}
	}
	return f, g, hv
}

func TestRosenbrock(t *testing.T) {
	t.Run("local ops", func(t *testing.T) { testRosenbrock(t, localOps) })
	t.Run("elementwise and reduce", func(t *testing.T) { testRosenbrock(t, libraryOps) })
}

func testRosenbrock(t *testing.T, ops rosenOps) {
	rng := rand.New(rand.NewPCG(10, 10))
	for _, n := range []int{2, 3, 7, 50} {
		xv := tensor.RandUniform(rng, tensor.Float64, -2, 2, n)
		vv := tensor.RandN(rng, tensor.Float64, n)
		tape := core.NewTape[*D](tensor.Space{})
		x := tape.Leaf(xv)
		out := rosenbrock(tape, ops, x)
		require.NoError(t, tape.Err())

		f, g, hv := rosenbrockClosed(xv.Float64s(), vv.Float64s())
		fv, err := tape.Value(out)
		require.NoError(t, err)
		require.InDelta(t, f, fv.AtFloat64(), 1e-12*f)

		grad, err := tape.Backward(out)
		require.NoError(t, err)
		gx, ok := grad.Of(x)
		require.True(t, ok)
		want, _ := tensor.FromFloat64(g, n)
		require.True(t, tensor.EqualApprox(gx, want, 1e-11, 1e-12), "n=%d: gradient %v, want %v", n, gx, want)

		tan, err := tape.ForwardTangents(map[cr.NodeID]*D{x: vv})
		require.NoError(t, err)
		g2, hvp, err := tape.BackwardWithTangents(out, tan)
		require.NoError(t, err)
		gx2, _ := g2.Of(x)
		require.True(t, tensor.EqualApprox(gx2, want, 1e-11, 1e-12))
		hx, ok := hvp.Of(x)
		require.True(t, ok)
		wantH, _ := tensor.FromFloat64(hv, n)
		require.True(t, tensor.EqualApprox(hx, wantH, 1e-10, 1e-12), "n=%d: Hv %v, want %v", n, hx, wantH)
	}
}
