package hvp_test

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/optimize"

	cr "github.com/chainrules-go/chainrules/chainrules"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/ops"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// Every op family shipped by the project is in the default registry (ops.New fails
// on a duplicate name, so each is registered once), supplies samples for the
// checker, and has the rules HVP needs.
func TestRegistryIsComplete(t *testing.T) {
	reg := ops.Default()
	entries := reg.Entries()
	required := []string{
		"einsum",
		"sum", "mean", "prod", "amax", "amin", "logsumexp", "var", "std",
		"permute", "transpose", "reshape", "squeeze", "unsqueeze", "broadcast_to", "moveaxis",
		"slice", "narrow", "select", "diagonal", "gather", "index_select", "scatter_add",
		"concat", "stack", "split", "pad", "flip", "roll", "where",
		"neg", "exp", "expm1", "log", "log1p", "sqrt", "rsqrt", "square", "reciprocal", "abs",
		"sin", "cos", "tan", "sinh", "cosh", "tanh", "asin", "acos", "atan", "asinh", "acosh",
		"atanh", "sigmoid", "softplus", "logsigmoid", "relu", "silu", "erf", "conj", "real",
		"imag", "abs2", "angle", "scale", "shift", "pow_scalar",
		"add", "sub", "mul", "div", "pow", "maximum", "minimum", "atan2", "hypot", "xlogy",
	}
	for _, name := range required {
		_, ok := reg.Lookup(name)
		assert.True(t, ok, "%s is not registered", name)
	}
	for _, e := range entries {
		assert.NotNil(t, e.Samples, "%s has no samples", e.Name)
		assert.True(t, e.Forward && e.SecondOrder, "%s lacks a forward or second-order rule", e.Name)
		assert.NotEmpty(t, e.DTypes, "%s lists no dtypes", e.Name)
	}
	t.Logf("%d op families: %v", len(entries), reg.Names())
}

// Every sample of every family of the default registry goes through hvp end to end:
// for f(x) = sum |op(x)|², the Hessian-vector product matches central differences
// of the gradient along v. For a family marked NoDerivative (argmax, one_hot) the
// gradient and the Hessian-vector product are errors wrapping ErrNoRule instead.
func TestEveryFamilyHVPMatchesFiniteDifferences(t *testing.T) {
	for _, e := range ops.Default().Entries() {
		if e.Samples == nil {
			continue // reported by TestRegistryIsComplete
		}
		// Each family draws from a generator of its own, seeded by its name, so
		// that registering another family does not move its samples (a sample
		// of lu_factor moved onto a pivoting tie, where the finite differences
		// straddle a change of pivot, when the layer ops of package nn came).
		seed := fnv.New64a()
		seed.Write([]byte(e.Name))
		rng := rand.New(rand.NewPCG(5, seed.Sum64()))
		for _, s := range e.Samples(rng) {
			t.Run(e.Name+"/"+s.Name, func(t *testing.T) {
				f := func(tp *hvp.Tape, x []cr.NodeID) cr.NodeID {
					// The sum over the op's differentiable outputs.
					var total cr.NodeID
					for m, y := range tp.ApplyMulti(s.Op, x...) {
						if !cr.IsOutputDifferentiable(s.Op, m) {
							continue
						}
						term := tp.Apply(reduce.SumOp(nil, false), tp.Apply(ew.Abs2Op, y))
						if total == 0 {
							total = term
						} else {
							total = tp.Apply(ew.AddOp, total, term)
						}
					}
					return total
				}
				v := make([]*tensor.Dense, len(s.Inputs))
				for k, x := range s.Inputs {
					v[k] = tensor.RandN(rng, x.DType(), x.Shape()...)
					if !cr.IsDifferentiable(s.Op, k) {
						v[k] = tensor.New(x.DType(), x.Shape()...) // indices, pivots: not perturbed
					}
				}
				_, hv, err := hvp.HVP(f, s.Inputs, v)
				if e.NoDerivative {
					require.ErrorIs(t, err, cr.ErrNoRule, "HVP")
					_, _, err = hvp.Grad(f, s.Inputs)
					require.ErrorIs(t, err, cr.ErrNoRule, "Grad")
					return
				}
				require.NoError(t, err)
				// Central differences of the gradient at steps h and 2h, combined by
				// Richardson extrapolation (error O(h^4)): the samples of the
				// factorisations can be near-singular, where the O(h^2) error of a
				// plain central difference reaches the tolerance.
				const h = 1e-4
				diff := func(step float64) [][]complex128 {
					plus, minus := make([]*tensor.Dense, len(v)), make([]*tensor.Dense, len(v))
					for k, x := range s.Inputs {
						plus[k], err = tensor.AddScaled(x, step, v[k])
						require.NoError(t, err)
						minus[k], err = tensor.AddScaled(x, -step, v[k])
						require.NoError(t, err)
					}
					_, gp, err := hvp.Grad(f, plus)
					require.NoError(t, err)
					_, gm, err := hvp.Grad(f, minus)
					require.NoError(t, err)
					out := make([][]complex128, len(gp))
					for k := range gp {
						out[k] = complexes(gp[k], gm[k], step)
					}
					return out
				}
				d1, d2 := diff(h), diff(2*h)
				for k := range hv {
					require.Equal(t, s.Inputs[k].Shape(), hv[k].Shape(), "input %d", k)
					want, got := d1[k], complexes(hv[k], nil, 0)
					for i := range want {
						want[i] = (4*want[i] - d2[k][i]) / 3
					}
					scale := 1.0
					for _, w := range want {
						scale = math.Max(scale, cmplxAbs(w))
					}
					for i := range got {
						if cmplxAbs(got[i]-want[i]) > 1e-5*scale {
							t.Fatalf("input %d, element %d: HVP %v, finite differences %v", k, i, got[i], want[i])
						}
					}
				}
			})
		}
	}
}

// complexes returns the elements of a as complex128; with b, the central
// difference (a - b) / 2h.
func complexes(a, b *tensor.Dense, h float64) []complex128 {
	out := append([]complex128(nil), a.Contiguous().AsComplex().Complex128s()...)
	if b == nil {
		return out
	}
	for i, y := range b.Contiguous().AsComplex().Complex128s() {
		out[i] = (out[i] - y) / complex(2*h, 0)
	}
	return out
}

func cmplxAbs(z complex128) float64 { return math.Hypot(real(z), imag(z)) }

// sinToCos replaces sin by cos: a stand-in for a custom rule, visible in values and
// in every derivative.
func sinToCos(cr.Op[*tensor.Dense]) cr.Op[*tensor.Dense] { return ew.CosOp }

// An override installed on a private registry reaches the transforms given that
// registry, and only them: the package-level functions use the default registry, and
// the zero Transforms no registry.
func TestRegistryOverrideIsLocal(t *testing.T) {
	reg := ops.New()
	require.NoError(t, reg.SetOverride("sin", sinToCos))
	sumSin := func(tp *hvp.Tape, x []cr.NodeID) cr.NodeID {
		return tp.Apply(reduce.SumOp(nil, false), tp.Apply(ew.SinOp, x[0]))
	}
	xs := []float64{0.3, -1.1, 2}
	x, err := tensor.FromFloat64(xs, 3)
	require.NoError(t, err)
	ones := tensor.Ones(tensor.Float64, 3)
	// d/dx sum sin = cos, d²: diag(-sin); with the override, sum cos: -sin and diag(-cos).
	var sin, cos, negSin, negCos []float64
	for _, v := range xs {
		sin, cos = append(sin, math.Sin(v)), append(cos, math.Cos(v))
		negSin, negCos = append(negSin, -math.Sin(v)), append(negCos, -math.Cos(v))
	}
	for _, c := range []struct {
		name                 string
		tr                   hvp.Transforms
		grad, hess, primal   []float64
		viaPackageLevelFuncs bool
	}{
		{"package level", hvp.Transforms{}, cos, negSin, sin, true},
		{"default registry", hvp.WithRegistry(ops.Default()), cos, negSin, sin, false},
		{"no registry", hvp.Transforms{}, cos, negSin, sin, false},
		{"fresh registry", hvp.WithRegistry(ops.New()), cos, negSin, sin, false},
		{"overridden registry", hvp.WithRegistry(reg), negSin, negCos, cos, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			grad, vjp, jvp, hv, op, hess, jac := hvp.Grad, hvp.VJP, hvp.JVP, hvp.HVP, hvp.NewOperator, hvp.Hessian, hvp.Jacobian
			obj := hvp.NewObjective
			if !c.viaPackageLevelFuncs {
				grad, vjp, jvp, hv, op, hess, jac = c.tr.Grad, c.tr.VJP, c.tr.JVP, c.tr.HVP, c.tr.NewOperator, c.tr.Hessian, c.tr.Jacobian
				obj = c.tr.NewObjective
			}
			sum := 0.0
			for _, p := range c.primal {
				sum += p
			}

			val, g, err := grad(sumSin, set(x))
			require.NoError(t, err)
			assert.InDelta(t, sum, val.AtFloat64(), 1e-12)
			assert.InDeltaSlice(t, c.grad, g[0].Float64s(), 1e-12)

			_, g, err = vjp(sumSin, []*tensor.Dense{x}, tensor.Scalar(1))
			require.NoError(t, err)
			assert.InDeltaSlice(t, c.grad, g[0].Float64s(), 1e-12)

			_, yd, err := jvp(sumSin, []*tensor.Dense{x}, []*tensor.Dense{ones})
			require.NoError(t, err)
			assert.InDelta(t, c.grad[0]+c.grad[1]+c.grad[2], yd.AtFloat64(), 1e-12)

			_, h, err := hv(sumSin, []*tensor.Dense{x}, []*tensor.Dense{ones})
			require.NoError(t, err)
			assert.InDeltaSlice(t, c.hess, h[0].Float64s(), 1e-12)

			o, err := op(sumSin, set(x))
			require.NoError(t, err)
			assert.InDelta(t, sum, o.Value().AtFloat64(), 1e-12)

			hm, err := hess(sumSin, set(x))
			require.NoError(t, err)
			for i := range xs {
				assert.InDelta(t, c.hess[i], hm.At(i, i), 1e-12)
			}

			sinOf := func(tp *hvp.Tape, x []cr.NodeID) cr.NodeID { return tp.Apply(ew.SinOp, x[0]) }
			jm, err := jac(sinOf, set(x))
			require.NoError(t, err)
			for i := range xs {
				assert.InDelta(t, c.grad[i], jm.At(i, i), 1e-12)
			}

			ob := obj(sumSin, 3)
			assert.InDelta(t, sum, ob.Func(xs), 1e-12)
			hvs := make([]float64, 3)
			require.NoError(t, ob.HessVec(hvs, xs, []float64{1, 1, 1}))
			assert.InDeltaSlice(t, c.hess, hvs, 1e-12)

			// The transforms added with parameter sets follow the registry too.
			tr := c.tr
			if c.viaPackageLevelFuncs {
				tr = hvp.WithRegistry(ops.Default())
			}
			_, _, hs, err := tr.HVPSeed(sinOf, []*tensor.Dense{x}, []*tensor.Dense{ones}, ones)
			require.NoError(t, err)
			assert.InDeltaSlice(t, c.hess, hs[0].Float64s(), 1e-12)
			identity := func(tp *hvp.Tape, x []cr.NodeID) cr.NodeID { return x[0] }
			sumLoss := func(tp *hvp.Tape, y cr.NodeID) cr.NodeID {
				return tp.Apply(reduce.SumOp(nil, false), tp.Apply(ew.SinOp, y))
			}
			_, gn, err := tr.GaussNewton(identity, sumLoss, []*tensor.Dense{x}, []*tensor.Dense{ones})
			require.NoError(t, err)
			assert.InDeltaSlice(t, c.hess, gn[0].Float64s(), 1e-12, "an identity model: G = H_L")
			l, err := hvp.NewLayout([]int{3})
			require.NoError(t, err)
			for _, o := range []*hvp.Objective{
				tr.NewParamObjective(sumSin, l),
				tr.NewModelObjective(identity, sumLoss, l),
				hvp.NewShardedObjective(l, tr.NewShard(sumSin, l), tr.NewModelShard(identity, sumLoss, l)),
			} {
				hvs := make([]float64, 3)
				require.NoError(t, o.HessVec(hvs, xs, []float64{1, 1, 1}))
				for i := range hvs {
					assert.InDelta(t, c.hess[i]*float64(o.Shards()), hvs[i], 1e-12)
				}
			}
		})
	}
}

// NewtonCG follows the registry of the Objective whose HessVec it is given: from
// x = 2, sum sin(x) has its minimum at 3π/2, and sum cos(x), what the override
// records, at π.
func TestNewtonCGUsesTheObjectivesRegistry(t *testing.T) {
	reg := ops.New()
	require.NoError(t, reg.SetOverride("sin", sinToCos))
	sumSin := func(tp *hvp.Tape, x []cr.NodeID) cr.NodeID {
		return tp.Apply(reduce.SumOp(nil, false), tp.Apply(ew.SinOp, x[0]))
	}
	for _, c := range []struct {
		obj  *hvp.Objective
		want float64
	}{
		{hvp.NewObjective(sumSin, 1), 3 * math.Pi / 2},
		{hvp.WithRegistry(reg).NewObjective(sumSin, 1), math.Pi},
	} {
		res, err := optimize.Minimize(c.obj.Problem(), []float64{2}, nil, &hvp.NewtonCG{HessVec: c.obj.HessVec})
		require.NoError(t, err)
		require.NoError(t, c.obj.Err())
		assert.InDelta(t, c.want, res.X[0], 1e-6, fmt.Sprint(res.Status))
	}
}
