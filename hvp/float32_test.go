package hvp_test

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/einsum"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// to32 rounds every tensor of a set to float32.
func to32(t *testing.T, xs ...*tensor.Dense) []*tensor.Dense {
	t.Helper()
	out := make([]*tensor.Dense, len(xs))
	for i, x := range xs {
		var err error
		out[i], err = tensor.AsType(x, tensor.Float32)
		require.NoError(t, err)
	}
	return out
}

// requireClose32 checks that the float32 tensors got match the float64 tensors want
// at float32 precision: |got - want| <= tol * max(1, max|want|) elementwise, with
// got of dtype float32 and want's shape.
func requireClose32(t *testing.T, want, got []*tensor.Dense, tol float64, what string) {
	t.Helper()
	require.Len(t, got, len(want), what)
	for k := range want {
		require.Equal(t, tensor.Float32, got[k].DType(), "%s: tensor %d", what, k)
		require.Equal(t, want[k].Shape(), got[k].Shape(), "%s: tensor %d", what, k)
		w := want[k].Contiguous().Float64s()
		scale := 1.0
		for _, v := range w {
			scale = max(scale, math.Abs(v))
		}
		for i, g := range got[k].Contiguous().Float32s() {
			require.InDelta(t, w[i], float64(g), tol*scale, "%s: tensor %d element %d", what, k, i)
		}
	}
}

// TestFloat32Transforms runs each transform on the MLP in float32 (parameters, data,
// directions and seeds) and compares it with the same transform in float64 at the
// rounded point: the results are float32 and agree to float32 precision.
func TestFloat32Transforms(t *testing.T) {
	X, Y, p := mlpProblem(1, 7, []int{5, 4, 3, 3})
	rng := rand.New(rand.NewPCG(4, 4))
	v := make([]*tensor.Dense, len(p))
	for i, pi := range p {
		v[i] = tensor.RandN(rng, tensor.Float64, pi.Shape()...)
	}
	// The float64 reference runs at the float32 point, so that the two differ by
	// float32 rounding in the computation only.
	p32, v32, d32 := to32(t, p...), to32(t, v...), to32(t, X, Y)
	p64, v64 := make([]*tensor.Dense, len(p)), make([]*tensor.Dense, len(p))
	for i := range p {
		p64[i], _ = tensor.AsType(p32[i], tensor.Float64)
		v64[i], _ = tensor.AsType(v32[i], tensor.Float64)
	}
	X64, _ := tensor.AsType(d32[0], tensor.Float64)
	Y64, _ := tensor.AsType(d32[1], tensor.Float64)
	f32, f64 := mlpLoss(d32[0], d32[1]), mlpLoss(X64, Y64)
	// A function of any output for VJP, JVP and HVPSeed: the logits.
	logits := func(X *tensor.Dense) hvp.Func {
		return func(t *hvp.Tape, p []cr.NodeID) cr.NodeID {
			h := t.Apply(ew.TanhOp, t.Apply(ew.AddOp, t.Apply(einsum.Op("bi,ij->bj"), t.Constant(X), p[0]), p[1]))
			return t.Apply(einsum.Op("bi,ij->bj"), h, p[2])
		}
	}
	g32, g64 := logits(d32[0]), logits(X64)
	ybar := tensor.RandN(rng, tensor.Float64, 7, 3)
	ybar32 := to32(t, ybar)[0]
	ybar, _ = tensor.AsType(ybar32, tensor.Float64)
	const tol = 2e-5

	cases := []struct {
		name string
		run  func(f hvp.Func, g hvp.Func, x, v []*tensor.Dense, ybar *tensor.Dense) ([]*tensor.Dense, error)
	}{
		{"Grad", func(f, _ hvp.Func, x, _ []*tensor.Dense, _ *tensor.Dense) ([]*tensor.Dense, error) {
			val, g, err := hvp.Grad(f, x)
			return append(g, val), err
		}},
		{"HVP", func(f, _ hvp.Func, x, v []*tensor.Dense, _ *tensor.Dense) ([]*tensor.Dense, error) {
			g, hv, err := hvp.HVP(f, x, v)
			return append(g, hv...), err
		}},
		{"HVPRev", func(f, _ hvp.Func, x, v []*tensor.Dense, _ *tensor.Dense) ([]*tensor.Dense, error) {
			g, hv, err := hvp.HVPRev(f, x, v)
			return append(g, hv...), err
		}},
		{"Operator.Apply", func(f, _ hvp.Func, x, v []*tensor.Dense, _ *tensor.Dense) ([]*tensor.Dense, error) {
			op, err := hvp.NewOperator(f, x)
			if err != nil {
				return nil, err
			}
			hv, err := op.Apply(v)
			if err != nil {
				return nil, err
			}
			hv2, err := op.Apply(v[:len(v):len(v)]) // a second product on the same recording
			return append(hv, hv2...), err
		}},
		{"Operator.ApplyBatch", func(f, _ hvp.Func, x, v []*tensor.Dense, _ *tensor.Dense) ([]*tensor.Dense, error) {
			op, err := hvp.NewOperator(f, x)
			if err != nil {
				return nil, err
			}
			w := make([]*tensor.Dense, len(v))
			for i, vi := range v {
				w[i] = tensor.Scale(vi, -0.5)
			}
			hvs, err := op.ApplyBatch([][]*tensor.Dense{v, w, v})
			if err != nil {
				return nil, err
			}
			return slices.Concat(hvs...), nil
		}},
		{"Grad of a gradient penalty (GradOf)", func(f, _ hvp.Func, x, _ []*tensor.Dense, _ *tensor.Dense) ([]*tensor.Dense, error) {
			penalty := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
				g := hvp.GradOf(f)(t, x)
				return hvp.Inner(t, g, g)
			}
			val, g, err := hvp.Grad(penalty, x)
			return append(g, val), err
		}},
		{"DirectionalDerivatives", func(f, _ hvp.Func, x, v []*tensor.Dense, _ *tensor.Dense) ([]*tensor.Dense, error) {
			d, err := hvp.DirectionalDerivatives(f, x, v, 3)
			if err != nil {
				return nil, err
			}
			dt, _ := tensor.FromFloat64(d, len(d))
			if x[0].DType() == tensor.Float32 {
				dt, _ = tensor.AsType(dt, tensor.Float32)
			}
			return []*tensor.Dense{dt}, nil
		}},
		{"Gradient", func(f, _ hvp.Func, x, _ []*tensor.Dense, _ *tensor.Dense) ([]*tensor.Dense, error) {
			var g hvp.Gradient
			if _, _, err := g.Grad(f, x); err != nil {
				return nil, err
			}
			_, gr, err := g.Grad(f, x)
			return gr, err
		}},
		{"VJP", func(_, g hvp.Func, x, _ []*tensor.Dense, ybar *tensor.Dense) ([]*tensor.Dense, error) {
			y, xbar, err := hvp.VJP(g, x[:3], ybar)
			return append(xbar, y), err
		}},
		{"JVP", func(_, g hvp.Func, x, v []*tensor.Dense, _ *tensor.Dense) ([]*tensor.Dense, error) {
			y, yd, err := hvp.JVP(g, x[:3], v[:3])
			return []*tensor.Dense{y, yd}, err
		}},
		{"HVPSeed", func(_, g hvp.Func, x, v []*tensor.Dense, ybar *tensor.Dense) ([]*tensor.Dense, error) {
			y, xbar, hv, err := hvp.HVPSeed(g, x[:3], v[:3], ybar)
			return append(append(xbar, hv...), y), err
		}},
		{"GaussNewton", func(_, g hvp.Func, x, v []*tensor.Dense, ybar *tensor.Dense) ([]*tensor.Dense, error) {
			grad, gv, err := hvp.GaussNewton(g, squaredError(ybar), x[:3], v[:3])
			return append(grad, gv...), err
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want, err := c.run(f64, g64, p64, v64, ybar)
			require.NoError(t, err)
			got, err := c.run(f32, g32, p32, v32, ybar32)
			require.NoError(t, err)
			requireClose32(t, want, got, tol, c.name)
		})
	}
}

// squaredError is the loss sum_i (y_i - target_i)^2 written with elementwise ops,
// which take float32 (nn's mse_loss is double precision only for now).
func squaredError(target *tensor.Dense) hvp.Loss {
	return func(t *hvp.Tape, y cr.NodeID) cr.NodeID {
		r := t.Apply(ew.SubOp, y, t.Constant(target))
		return t.Apply(reduce.SumOp(nil, false), t.Apply(ew.MulOp, r, r))
	}
}

// TestFloat32FlatMatrices checks the transforms that work on gonum's float64 side —
// the dense Hessian and Jacobian and the flat products — on a float32 set: they
// convert at the boundary and agree with the float64 ones to float32 precision.
func TestFloat32FlatMatrices(t *testing.T) {
	X, Y, p := mlpProblem(2, 4, []int{3, 2, 2, 2})
	p32, d32 := to32(t, p...), to32(t, X, Y)
	p64 := make([]*tensor.Dense, len(p))
	for i := range p {
		p64[i], _ = tensor.AsType(p32[i], tensor.Float64)
	}
	X64, _ := tensor.AsType(d32[0], tensor.Float64)
	Y64, _ := tensor.AsType(d32[1], tensor.Float64)
	f32, f64 := mlpLoss(d32[0], d32[1]), mlpLoss(X64, Y64)

	h64, err := hvp.Hessian(f64, p64)
	require.NoError(t, err)
	h32, err := hvp.Hessian(f32, p32)
	require.NoError(t, err)
	assert.True(t, mat.EqualApprox(h64, h32, 1e-5), "Hessian:\n%v\n%v", mat.Formatted(h64), mat.Formatted(h32))

	model := func(X *tensor.Dense) hvp.Func {
		return func(t *hvp.Tape, p []cr.NodeID) cr.NodeID {
			return t.Apply(ew.TanhOp, t.Apply(ew.AddOp, t.Apply(einsum.Op("bi,ij->bj"), t.Constant(X), p[0]), p[1]))
		}
	}
	j64, err := hvp.Jacobian(model(X64), p64[:2])
	require.NoError(t, err)
	j32, err := hvp.Jacobian(model(d32[0]), p32[:2])
	require.NoError(t, err)
	assert.True(t, mat.EqualApprox(j64, j32, 1e-6), "Jacobian")

	l, err := hvp.LayoutOf(p32)
	require.NoError(t, err)
	assert.Equal(t, tensor.Float32, l.DType(0))
	assert.Contains(t, l.String(), "float32")
	op, err := hvp.NewOperator(f32, p32)
	require.NoError(t, err)
	e := make([]float64, l.Dim())
	col := make([]float64, l.Dim())
	for j := range l.Dim() {
		e[j] = 1
		require.NoError(t, op.ApplyFlat(col, e))
		e[j] = 0
		for i, c := range col {
			require.InDelta(t, h64.At(i, j), c, 1e-5, "H[%d,%d]", i, j)
		}
	}
}

// TestFloat32Objective minimises an MLP loss over a float32 parameter set with
// gonum: the objective evaluates in float32 and converts at gonum's float64 boundary;
// Newton-CG and L-BFGS reach the float64 objective's minimum to float32 precision.
func TestFloat32Objective(t *testing.T) {
	X, Y, p := mlpProblem(3, 12, []int{3, 3, 2, 2})
	p32, d32 := to32(t, p...), to32(t, X, Y)
	X64, _ := tensor.AsType(d32[0], tensor.Float64)
	Y64, _ := tensor.AsType(d32[1], tensor.Float64)
	// A weight decay keeps the minimum finite.
	reg := func(f hvp.Func, c *tensor.Dense) hvp.Func {
		return func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
			s := f(t, x)
			for _, xi := range x {
				sq := t.Apply(reduce.SumOp(nil, false), t.Apply(ew.MulOp, xi, xi))
				s = t.Apply(ew.AddOp, s, t.Apply(ew.MulOp, t.Constant(c), sq))
			}
			return s
		}
	}
	c32 := tensor.ScalarFloat32(0.05)
	f32, f64 := reg(mlpLoss(d32[0], d32[1]), c32), reg(mlpLoss(X64, Y64), tensor.Scalar(0.05))
	l32, err := hvp.LayoutOf(p32)
	require.NoError(t, err)
	l64, err := hvp.NewLayout(func() [][]int {
		var s [][]int
		for _, pi := range p {
			s = append(s, pi.Shape())
		}
		return s
	}()...)
	require.NoError(t, err)
	x0, err := l32.Flatten(p32)
	require.NoError(t, err)
	settings := &optimize.Settings{GradientThreshold: 1e-4}
	for _, m := range []struct {
		name   string
		method func() optimize.Method
	}{
		{"NewtonCG", func() optimize.Method { return &hvp.NewtonCG{} }},
		{"LineSearchNewtonCG", func() optimize.Method { return &hvp.LineSearchNewtonCG{} }},
		{"LBFGS", func() optimize.Method { return &optimize.LBFGS{} }},
	} {
		t.Run(m.name, func(t *testing.T) {
			obj64 := hvp.NewParamObjective(f64, l64)
			want, err := hvp.Minimize(obj64, x0, settings, m.method())
			require.NoError(t, err)
			obj32 := hvp.NewParamObjective(f32, l32)
			got, err := hvp.Minimize(obj32, x0, settings, m.method())
			require.NoError(t, err)
			t.Logf("%s: float64 %v f=%.8g in %d iterations; float32 %v f=%.8g in %d iterations", m.name, want.Status, want.F, want.Stats.MajorIterations, got.Status, got.F, got.Stats.MajorIterations)
			assert.Positive(t, got.Stats.MajorIterations)
			assert.InDelta(t, want.F, got.F, 1e-5)
			for i := range want.X {
				assert.InDelta(t, want.X[i], got.X[i], 2e-3, "x[%d]", i)
			}
			ps, err := l32.Unflatten(got.X)
			require.NoError(t, err)
			assert.Equal(t, tensor.Float32, ps[0].DType())
		})
	}
}

// TestFloat32BadInput checks the errors of float32 parameter sets used wrongly.
func TestFloat32BadInput(t *testing.T) {
	x32 := []*tensor.Dense{tensor.Ones(tensor.Float32, 3)}
	x64 := []*tensor.Dense{tensor.Ones(tensor.Float64, 3)}
	v64 := []*tensor.Dense{tensor.Ones(tensor.Float64, 3)}
	v32 := []*tensor.Dense{tensor.Ones(tensor.Float32, 3)}
	data64 := tensor.Ones(tensor.Float64, 3)
	// f64Objective mixes float64 data into the computation: a float32 set given to
	// it has not been converted.
	f64Objective := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		return t.Apply(reduce.SumOp(nil, false), t.Apply(ew.MulOp, x[0], t.Constant(data64)))
	}
	sum := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		return t.Apply(reduce.SumOp(nil, false), t.Apply(ew.MulOp, x[0], x[0]))
	}
	cases := []struct {
		name string
		run  func() error
		want []string // substrings of the message
	}{
		{"Grad of a float64 objective", func() error { _, _, err := hvp.Grad(f64Objective, x32); return err }, []string{"float32", "float64", "parameter 0"}},
		{"HVP of a float64 objective", func() error { _, _, err := hvp.HVP(f64Objective, x32, v32); return err }, []string{"float32", "float64"}},
		{"Eval of a float64 objective", func() error { _, err := hvp.Eval(f64Objective, x32); return err }, []string{"float32", "float64"}},
		{"Objective of a float64 objective", func() error {
			l, _ := hvp.NewLayoutOf(tensor.Float32, []int{3})
			obj := hvp.NewParamObjective(f64Objective, l)
			_, err := hvp.Minimize(obj, []float64{1, 2, 3}, nil, &hvp.NewtonCG{})
			return err
		}, []string{"float32", "float64"}},
		{"float64 direction for float32 parameter", func() error { _, _, err := hvp.HVP(sum, x32, v64); return err }, []string{"direction 0", "float64", "parameter 0", "float32"}},
		{"float32 direction for float64 parameter", func() error { _, _, err := hvp.HVP(sum, x64, v32); return err }, []string{"direction 0", "float32", "parameter 0", "float64"}},
		{"float64 tangent for float32 parameter", func() error { _, _, err := hvp.JVP(sum, x32, v64); return err }, []string{"hvp.JVP", "direction 0"}},
		{"complex64 parameter", func() error { _, err := hvp.LayoutOf([]*tensor.Dense{tensor.Ones(tensor.Complex64, 2)}); return err }, []string{"tensor 0", "complex64"}},
		{"complex64 layout", func() error { _, err := hvp.NewLayoutOf(tensor.Complex64, []int{2}); return err }, []string{"complex64"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.run()
			require.Error(t, err)
			assert.True(t, errors.Is(err, cr.ErrInvalidArgument), "%v", err)
			for _, s := range c.want {
				assert.Contains(t, err.Error(), s)
			}
		})
	}
	// A mixed set follows tensor.PromoteTypes: a float64 tensor in it makes the
	// computation float64, and each gradient has its parameter's dtype.
	mixed := func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		return t.Apply(reduce.SumOp(nil, false), t.Apply(ew.MulOp, x[0], x[1]))
	}
	val, g, err := hvp.Grad(mixed, []*tensor.Dense{x32[0], x64[0]})
	require.NoError(t, err)
	assert.Equal(t, tensor.Float64, val.DType())
	assert.Equal(t, tensor.Float32, g[0].DType())
	assert.Equal(t, tensor.Float64, g[1].DType())
}

// TestFloat32ShardedObjective splits a float32 least-squares fit into two local
// shards and checks the objective's value, gradient, Hessian-vector and
// Gauss-Newton products on gonum's float64 slices against the one-shard float64
// objective, and that Newton-CG with Gauss-Newton curvature fits it.
func TestFloat32ShardedObjective(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	X := tensor.RandN(rng, tensor.Float64, 10, 3)
	Y := tensor.RandN(rng, tensor.Float64, 10, 2)
	X32, Y32 := to32(t, X, Y)[0], to32(t, X, Y)[1]
	X, _ = tensor.AsType(X32, tensor.Float64)
	Y, _ = tensor.AsType(Y32, tensor.Float64)
	model := func(X *tensor.Dense) hvp.Func {
		return func(t *hvp.Tape, p []cr.NodeID) cr.NodeID {
			return t.Apply(ew.TanhOp, t.Apply(ew.AddOp, t.Apply(einsum.Op("bi,ij->bj"), t.Constant(X), p[0]), p[1]))
		}
	}
	half := func(x *tensor.Dense, lo, hi int) *tensor.Dense {
		s, err := x.Slice(0, lo, hi, 1)
		require.NoError(t, err)
		return s.Contiguous()
	}
	l32, err := hvp.NewLayoutOf(tensor.Float32, []int{3, 2}, []int{2})
	require.NoError(t, err)
	l64, err := hvp.NewLayout([]int{3, 2}, []int{2})
	require.NoError(t, err)
	obj32 := hvp.NewShardedObjective(l32,
		hvp.NewModelShard(model(half(X32, 0, 4)), squaredError(half(Y32, 0, 4)), l32),
		hvp.NewModelShard(model(half(X32, 4, 10)), squaredError(half(Y32, 4, 10)), l32))
	obj64 := hvp.NewModelObjective(model(X), squaredError(Y), l64)
	x := []float64{0.1, -0.2, 0.3, 0.05, -0.4, 0.2, 0.01, -0.03}
	v := []float64{1, 0, -1, 0.5, 0.25, 0, 1, -1}
	n := len(x)
	g32, g64 := make([]float64, n), make([]float64, n)
	f32, f64 := obj32.Problem().Func(x), obj64.Problem().Func(x)
	assert.InDelta(t, f64, f32, 1e-5*max(1, math.Abs(f64)))
	obj32.Problem().Grad(g32, x)
	obj64.Problem().Grad(g64, x)
	h32, h64, gn32, gn64 := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	require.NoError(t, obj32.HessVec(h32, x, v))
	require.NoError(t, obj64.HessVec(h64, x, v))
	require.NoError(t, obj32.GaussNewtonVec(gn32, x, v))
	require.NoError(t, obj64.GaussNewtonVec(gn64, x, v))
	for i := range n {
		assert.InDelta(t, g64[i], g32[i], 1e-4, "gradient %d", i)
		assert.InDelta(t, h64[i], h32[i], 1e-4, "Hessian-vector product %d", i)
		assert.InDelta(t, gn64[i], gn32[i], 1e-4, "Gauss-Newton product %d", i)
	}
	require.NoError(t, obj32.Err())

	settings := &optimize.Settings{GradientThreshold: 1e-4}
	want, err := hvp.Minimize(obj64, x, settings, &hvp.NewtonCG{Curvature: hvp.GaussNewtonCurvature})
	require.NoError(t, err)
	got, err := hvp.Minimize(obj32, x, settings, &hvp.NewtonCG{Curvature: hvp.GaussNewtonCurvature})
	require.NoError(t, err)
	assert.InDelta(t, want.F, got.F, 1e-4)
	assert.Positive(t, obj32.GaussNewtonProducts)
}

// TestFloat32SaveLoadParams round-trips a float32 parameter set through .npz and
// checks it against float32 and float64 layouts.
func TestFloat32SaveLoadParams(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	params := to32(t, tensor.RandN(rng, tensor.Float64, 4, 3), tensor.RandN(rng, tensor.Float64, 3))
	var buf bytes.Buffer
	require.NoError(t, hvp.SaveParams(&buf, params))
	r := bytes.NewReader(buf.Bytes())
	l32, err := hvp.LayoutOf(params)
	require.NoError(t, err)
	got, err := hvp.LoadParamsLayout(r, int64(buf.Len()), l32)
	require.NoError(t, err)
	for k := range params {
		require.Equal(t, tensor.Float32, got[k].DType())
		require.Equal(t, params[k].Float32s(), got[k].Float32s())
	}
	l64, err := hvp.NewLayout([]int{4, 3}, []int{3})
	require.NoError(t, err)
	_, err = hvp.LoadParamsLayout(r, int64(buf.Len()), l64)
	require.Error(t, err)
	assert.True(t, errors.Is(err, cr.ErrInvalidArgument), "%v", err)
	assert.Contains(t, err.Error(), "arr_0 is float32, the layout holds float64")
}
