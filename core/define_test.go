package core_test

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

var f64 = cr.Float64Space{}

// Ops defined the new ways, over the scalar ops of scalarops_test.go.
var (
	// add is linear: its pullback passes ybar to both inputs.
	addDef = core.Define(core.Def[float64]{Name: "add", Space: f64, Arity: 2,
		Primal: func(x []float64) ([]float64, error) { return []float64{x[0] + x[1]}, nil },
		Pullback: func(t *core.Tape[float64], x, y, ybar []cr.NodeID) []cr.NodeID {
			return []cr.NodeID{ybar[0], ybar[0]}
		}})
	// cube: xbar = 3 x^2 ybar, so the second order comes from the mul ops.
	cubeDef = core.Define(core.Def[float64]{Name: "cube", Space: f64, Arity: 1,
		Primal: func(x []float64) ([]float64, error) { return []float64{x[0] * x[0] * x[0]}, nil },
		Pullback: func(t *core.Tape[float64], x, y, ybar []cr.NodeID) []cr.NodeID {
			return []cr.NodeID{t.Apply(scaleOp(3), t.Apply(mulOp, t.Apply(mulOp, x[0], x[0]), ybar[0]))}
		}})
	// sincos: x -> (sin x, cos x); xbar = cos(x) sbar - sin(x) cbar, written with the
	// outputs. It applies ops to both cotangents, so when one output is unused (its
	// cotangent absent) the engine records it again with a zero there; sincosAbsent
	// in define_absent_test.go leaves the absent term out instead.
	sincosDef = core.Define(core.Def[float64]{Name: "sincos", Space: f64, Arity: 1, Outputs: 2,
		Primal: func(x []float64) ([]float64, error) {
			s, c := math.Sincos(x[0])
			return []float64{s, c}, nil
		},
		Pullback: func(t *core.Tape[float64], x, y, ybar []cr.NodeID) []cr.NodeID {
			return []cr.NodeID{t.Apply(addDef, t.Apply(mulOp, y[1], ybar[0]), t.Apply(scaleOp(-1), t.Apply(mulOp, y[0], ybar[1])))}
		}})
	// sinh as a composite: (exp(x) - exp(-x)) / 2.
	sinhComposite = core.Composite("sinh", f64, 1, func(t *core.Tape[float64], x []cr.NodeID) []cr.NodeID {
		e := t.Apply(expOp, x[0])
		return []cr.NodeID{t.Apply(scaleOp(0.5), t.Apply(addDef, e, t.Apply(scaleOp(-1), t.Apply(expOp, t.Apply(scaleOp(-1), x[0])))))}
	})
	expOp = unary("exp", func(x float64) (float64, float64, float64) { e := math.Exp(x); return e, e, e })
)

func TestDefinedAndCompositeOpsPassRuletest(t *testing.T) {
	ruletest.Check(t, f64, addDef, []float64{0.3, -1.2}, ruletest.Config{})
	ruletest.Check(t, f64, cubeDef, []float64{0.7}, ruletest.Config{})
	ruletest.Check(t, f64, sinhComposite, []float64{0.7}, ruletest.Config{})
	ruletest.Check(t, f64, core.Composite("sinh", f64, 1, func(t *core.Tape[float64], x []cr.NodeID) []cr.NodeID {
		return []cr.NodeID{t.Apply(sinhComposite, x[0])}
	}, core.Recompute()), []float64{-0.4}, ruletest.Config{})
}

// scalarCheck compares value, gradient and Hessian-vector product of a scalar
// function recorded with rec against f, f' and f”.
func scalarCheck(t *testing.T, rec func(tp *core.Tape[float64], x cr.NodeID) cr.NodeID, f, d1, d2 float64) {
	const x0 = 0.8
	t.Helper()
	tp := newTape()
	x := tp.Leaf(x0)
	y := rec(tp, x)
	require.NoError(t, tp.Err())
	v, _ := tp.Value(y)
	require.InDelta(t, f, v, 1e-14)
	tan, err := tp.ForwardTangents(map[cr.NodeID]float64{x: 1})
	require.NoError(t, err)
	jv, ok := tan.Of(y)
	require.True(t, ok)
	require.InDelta(t, d1, jv, 1e-12)
	g, hv, err := tp.BackwardWithTangents(y, tan)
	require.NoError(t, err)
	gx, _ := g.Of(x)
	hx, _ := hv.Of(x)
	require.InDelta(t, d1, gx, 1e-12)
	require.InDelta(t, d2, hx, 1e-12)
}

func TestDefinedOpsSecondOrder(t *testing.T) {
	x0 := 0.8
	scalarCheck(t, func(tp *core.Tape[float64], x cr.NodeID) cr.NodeID { return tp.Apply(cubeDef, x) },
		x0*x0*x0, 3*x0*x0, 6*x0)
	s, c := math.Sincos(x0)
	// sin(x) cos(x) through both outputs of the multi-output op, then its cube.
	scalarCheck(t, func(tp *core.Tape[float64], x cr.NodeID) cr.NodeID {
		o := tp.ApplyMulti(sincosDef, x)
		return tp.Apply(mulOp, o[0], o[1])
	}, s*c, c*c-s*s, -4*s*c)
	// Only the cosine is used: the sine's cotangent is absent.
	scalarCheck(t, func(tp *core.Tape[float64], x cr.NodeID) cr.NodeID {
		return tp.Apply(cubeDef, tp.ApplyMulti(sincosDef, x)[1])
	}, c*c*c, -3*c*c*s, 6*c*s*s-3*c*c*c)
	sh, ch := math.Sinh(x0), math.Cosh(x0)
	scalarCheck(t, func(tp *core.Tape[float64], x cr.NodeID) cr.NodeID {
		return tp.Apply(cubeDef, tp.Apply(sinhComposite, x))
	}, sh*sh*sh, 3*sh*sh*ch, 6*sh*ch*ch+3*sh*sh*sh)
	// A composite holding a multi-output op, kept and recomputed.
	for _, opts := range [][]core.CompositeOption{nil, {core.Recompute()}} {
		sc := core.Composite("sin2", f64, 1, func(tp *core.Tape[float64], x []cr.NodeID) []cr.NodeID {
			o := tp.ApplyMulti(sincosDef, x[0])
			return []cr.NodeID{tp.Apply(scaleOp(2), tp.Apply(mulOp, o[0], o[1]))}
		}, opts...)
		scalarCheck(t, func(tp *core.Tape[float64], x cr.NodeID) cr.NodeID { return tp.Apply(sc, x) },
			math.Sin(2*x0), 2*math.Cos(2*x0), -4*math.Sin(2*x0))
	}
	// A multi-output composite.
	mc := core.Composite("cube_and_sinh", f64, 1, func(tp *core.Tape[float64], x []cr.NodeID) []cr.NodeID {
		return []cr.NodeID{tp.Apply(cubeDef, x[0]), tp.Apply(sinhComposite, x[0])}
	}, core.Outputs(2))
	scalarCheck(t, func(tp *core.Tape[float64], x cr.NodeID) cr.NodeID {
		o := tp.ApplyMulti(mc, x)
		return tp.Apply(mulOp, o[0], o[1])
	}, x0*x0*x0*sh, 3*x0*x0*sh+x0*x0*x0*ch, 6*x0*sh+6*x0*x0*ch+x0*x0*x0*sh)
}

func TestDefinedAndCompositeErrors(t *testing.T) {
	opErr := func(t *testing.T, err error, sentinel error, names ...string) {
		t.Helper()
		require.ErrorIs(t, err, sentinel)
		for _, n := range names {
			require.ErrorContains(t, err, n)
		}
	}
	backward := func(op cr.Op[float64]) error {
		tp := newTape()
		x := tp.Leaf(0.5)
		_, err := tp.Backward(tp.Apply(op, x))
		return err
	}
	t.Run("wrong number of cotangents", func(t *testing.T) {
		bad := core.Define(core.Def[float64]{Name: "bad", Space: f64, Arity: 1,
			Primal: func(x []float64) ([]float64, error) { return []float64{x[0]}, nil },
			Pullback: func(t *core.Tape[float64], x, y, ybar []cr.NodeID) []cr.NodeID {
				return []cr.NodeID{ybar[0], ybar[0]}
			}})
		opErr(t, backward(bad), cr.ErrInvalidArgument, "bad", "2 cotangents for 1 inputs")
	})
	t.Run("wrongly shaped cotangent", func(t *testing.T) {
		ts := tensor.Space{}
		bad := core.Define(core.Def[*tensor.Dense]{Name: "bad", Space: ts, Arity: 1,
			Primal: func(x []*tensor.Dense) ([]*tensor.Dense, error) { return []*tensor.Dense{x[0].Clone()}, nil },
			Pullback: func(t *core.Tape[*tensor.Dense], x, y, ybar []cr.NodeID) []cr.NodeID {
				return []cr.NodeID{t.Constant(tensor.New(tensor.Float64, 7))}
			}})
		tp := core.NewTape[*tensor.Dense](ts)
		x := tp.Leaf(tensor.Ones(tensor.Float64, 2, 3))
		_, err := tp.BackwardSeed(tp.Apply(bad, x), tensor.Ones(tensor.Float64, 2, 3))
		opErr(t, err, cr.ErrShapeMismatch, "bad", "cotangent of input 0")
	})
	t.Run("pullback fails", func(t *testing.T) {
		bad := core.Define(core.Def[float64]{Name: "bad", Space: f64, Arity: 1,
			Primal: func(x []float64) ([]float64, error) { return []float64{x[0]}, nil },
			Pullback: func(t *core.Tape[float64], x, y, ybar []cr.NodeID) []cr.NodeID {
				return []cr.NodeID{t.Apply(sinOp, 0)}
			}})
		opErr(t, backward(bad), cr.ErrMissingNode, "bad", "sin")
	})
	t.Run("pullback records leaves", func(t *testing.T) {
		bad := core.Define(core.Def[float64]{Name: "bad", Space: f64, Arity: 1,
			Primal: func(x []float64) ([]float64, error) { return []float64{x[0]}, nil },
			Pullback: func(t *core.Tape[float64], x, y, ybar []cr.NodeID) []cr.NodeID {
				return []cr.NodeID{t.Apply(mulOp, ybar[0], t.Leaf(1))}
			}})
		opErr(t, backward(bad), cr.ErrInvalidArgument, "bad", "leaves")
	})
	t.Run("pullback ignores a used output", func(t *testing.T) {
		bad := core.Define(core.Def[float64]{Name: "bad", Space: f64, Arity: 1, Outputs: 2,
			Primal: func(x []float64) ([]float64, error) { return []float64{x[0], 2 * x[0]}, nil },
			Pullback: func(t *core.Tape[float64], x, y, ybar []cr.NodeID) []cr.NodeID {
				return []cr.NodeID{ybar[0]}
			}})
		tp := newTape()
		x := tp.Leaf(0.5)
		o := tp.ApplyMulti(bad, x)
		_, err := tp.Backward(o[0])
		require.NoError(t, err, "the ignored output was not used")
		_, err = tp.Backward(o[1])
		opErr(t, err, cr.ErrInvalidArgument, "bad", "output 1")
	})
	t.Run("composite body fails", func(t *testing.T) {
		tp := newTape()
		x := tp.Leaf(0.5)
		tp.Apply(core.Composite("outer", f64, 1, func(t *core.Tape[float64], in []cr.NodeID) []cr.NodeID {
			return []cr.NodeID{t.Apply(sinOp, 0)}
		}), x)
		opErr(t, tp.Err(), cr.ErrMissingNode, "outer", "sin")
	})
	t.Run("composite body uses a foreign node", func(t *testing.T) {
		tp := newTape()
		x := tp.Leaf(0.5)
		tp.Apply(core.Composite("outer", f64, 1, func(t *core.Tape[float64], in []cr.NodeID) []cr.NodeID {
			return []cr.NodeID{t.Apply(sinOp, x)}
		}), x)
		opErr(t, tp.Err(), cr.ErrMissingNode, "outer", "sin")
	})
	t.Run("composite body records leaves", func(t *testing.T) {
		tp := newTape()
		x := tp.Leaf(0.5)
		tp.Apply(core.Composite("outer", f64, 1, func(t *core.Tape[float64], in []cr.NodeID) []cr.NodeID {
			return []cr.NodeID{t.Apply(mulOp, in[0], t.Leaf(2))}
		}), x)
		opErr(t, tp.Err(), cr.ErrInvalidArgument, "outer", "leaves")
	})
	t.Run("multi-output composite body returns the wrong number of outputs", func(t *testing.T) {
		bad := core.Composite("outer", f64, 1, func(t *core.Tape[float64], in []cr.NodeID) []cr.NodeID {
			return []cr.NodeID{t.Apply(sinOp, in[0])}
		}, core.Outputs(2))
		tp := newTape()
		o := tp.ApplyMulti(bad, tp.Leaf(0.5))
		require.Len(t, o, 2)
		opErr(t, tp.Err(), cr.ErrInvalidArgument, "outer", "body returned 1 outputs, want 2")
	})
	t.Run("composite error in a sweep names both ops", func(t *testing.T) {
		tp := newTape()
		x := tp.Leaf(0.5)
		y := tp.Apply(core.Composite("outer", f64, 1, func(t *core.Tape[float64], in []cr.NodeID) []cr.NodeID {
			return []cr.NodeID{t.Apply(sinNoTangents, in[0])}
		}), x)
		_, err := tp.ForwardTangents(map[cr.NodeID]float64{x: 1})
		opErr(t, err, cr.ErrNoRule, "outer", "sin1")
		_, err = tp.Backward(y)
		require.NoError(t, err)
	})
}

// A pullback that is not linear in ybar gives wrong derived rules; the checker's
// linearity check names the problem.
func TestDefinedNonlinearPullbackIsReported(t *testing.T) {
	bad := core.Define(core.Def[float64]{Name: "bad", Space: f64, Arity: 1,
		Primal: func(x []float64) ([]float64, error) { return []float64{x[0] * x[0]}, nil },
		Pullback: func(t *core.Tape[float64], x, y, ybar []cr.NodeID) []cr.NodeID {
			return []cr.NodeID{t.Apply(mulOp, t.Apply(scaleOp(2), x[0]), t.Apply(mulOp, ybar[0], ybar[0]))}
		}})
	err := ruletest.Verify(f64, bad, []float64{0.7}, ruletest.Config{})
	require.Error(t, err)
	var linear bool
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var f *ruletest.Failure
		if errors.As(e, &f) && f.Check == ruletest.CheckLinearity {
			linear = true
		}
	}
	require.True(t, linear, "the linearity check reports the nonlinear pullback: %v", err)
}

// A defined op whose pullback ignores a differentiable output's cotangent is
// refused by every sweep: reverse when the output is used, and forward (where the
// transposed pullback would give that output a zero tangent).
func TestDefineIgnoredOutputIsRefusedInEverySweep(t *testing.T) {
	ignoring := core.Define(core.Def[float64]{Name: "ignores_y1", Space: f64, Arity: 1, Outputs: 2,
		Primal: func(x []float64) ([]float64, error) { return []float64{2 * x[0], x[0] * x[0]}, nil },
		Pullback: func(t *core.Tape[float64], _, _, ybar []cr.NodeID) []cr.NodeID {
			return []cr.NodeID{t.Apply(scaleOp(2), ybar[0])} // forgets 2x ybar[1]
		}})
	tp := newTape()
	x := tp.Leaf(0.5)
	ys := tp.ApplyMulti(ignoring, x)
	_, err := tp.Backward(ys[1])
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
	_, err = tp.ForwardTangents(map[cr.NodeID]float64{x: 1})
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
	require.ErrorContains(t, err, "ignores the cotangent of output 1")
}

// TestDefineArityErrorNamesTheOp checks that a defined op given the wrong number of
// inputs says which op it is, also when evaluated without a tape.
func TestDefineArityErrorNamesTheOp(t *testing.T) {
	op := core.Define(core.Def[float64]{Name: "copy", Space: cr.Float64Space{}, Arity: 1,
		Primal:   func(x []float64) ([]float64, error) { return []float64{x[0]}, nil },
		Pullback: func(t *core.Tape[float64], x, y, ybar []cr.NodeID) []cr.NodeID { return []cr.NodeID{ybar[0]} }})
	_, err := cr.Eval(op, 1.0, 2.0)
	require.ErrorIs(t, err, cr.ErrInvalidArgument)
	require.ErrorContains(t, err, "copy takes 1 inputs, got 2")
}
