package core_test

import (
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/tensor"
)

func newTensorTape() *core.Tape[*tensor.Dense] { return core.NewTape[*tensor.Dense](tensor.Space{}) }

// nilOp returns a nil value, or a rule whose pullback or forward tangent is nil.
type nilOp struct{ value, contribution, tangent bool }

func (nilOp) Name() string    { return "nil_op" }
func (nilOp) NumOutputs() int { return 1 }

func (o nilOp) Apply(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if o.value {
		y[0] = nil
		return &nilRule{in: in[0], o: o}, nil
	}
	y[0] = x[0].Clone()
	return &nilRule{in: in[0], o: o}, nil
}

type nilRule struct {
	in cr.NodeID
	o  nilOp
}

func (r *nilRule) Inputs() []cr.NodeID { return []cr.NodeID{r.in} }

func (r *nilRule) Pullback(ybar []*tensor.Dense, _ []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	v := ybar[0]
	if r.o.contribution {
		v = nil
	}
	return append(dst, cr.Contribution[*tensor.Dense]{Node: r.in, Value: v}), nil
}

func (r *nilRule) Forward(tan cr.TangentOf[*tensor.Dense], ydot []*tensor.Dense, has []bool) error {
	v, ok := tan(r.in)
	if r.o.tangent {
		v = nil
	}
	ydot[0], has[0] = v, ok
	return nil
}

// Nil values (a nil *tensor.Dense) are errors wherever they enter the engine, never
// a nil dereference in a later sweep.
func TestNilValuesAreErrors(t *testing.T) {
	x := tensor.Scalar(2)
	t.Run("leaf", func(t *testing.T) {
		tp := newTensorTape()
		l := tp.Leaf(nil)
		assert.False(t, l.Valid())
		assert.ErrorIs(t, tp.Err(), cr.ErrInvalidArgument)
		assert.ErrorContains(t, tp.Err(), "nil")
		assert.NotPanics(t, func() {
			_, err := tp.Backward(l)
			assert.ErrorIs(t, err, cr.ErrInvalidArgument)
		})
	})
	t.Run("constant", func(t *testing.T) {
		tp := newTensorTape()
		c := tp.Constant(nil)
		assert.ErrorIs(t, tp.Err(), cr.ErrInvalidArgument)
		assert.NotPanics(t, func() {
			_, err := tp.Backward(c)
			assert.Error(t, err)
		})
	})
	t.Run("op output", func(t *testing.T) {
		tp := newTensorTape()
		tp.Apply(nilOp{value: true}, tp.Leaf(x))
		assert.ErrorIs(t, tp.Err(), cr.ErrInvalidArgument)
		assert.ErrorContains(t, tp.Err(), "nil_op")
	})
	t.Run("record", func(t *testing.T) {
		tp := newTensorTape()
		l := tp.Leaf(x)
		tp.Record("nil_op", nil, &nilRule{in: l})
		assert.ErrorIs(t, tp.Err(), cr.ErrInvalidArgument)
	})
	t.Run("seed", func(t *testing.T) {
		tp := newTensorTape()
		y := tp.Apply(nilOp{}, tp.Leaf(x))
		_, err := tp.BackwardSeed(y, nil)
		assert.ErrorIs(t, err, cr.ErrInvalidArgument)
		_, err = tp.ForwardTangents(map[cr.NodeID]*tensor.Dense{tp.Leaf(x): nil})
		assert.ErrorIs(t, err, cr.ErrInvalidArgument)
	})
	t.Run("contribution", func(t *testing.T) {
		tp := newTensorTape()
		y := tp.Apply(nilOp{contribution: true}, tp.Leaf(x))
		_, err := tp.Backward(y)
		assert.ErrorIs(t, err, cr.ErrInvalidArgument)
		assert.ErrorContains(t, err, "nil_op")
	})
	t.Run("tangent", func(t *testing.T) {
		tp := newTensorTape()
		l := tp.Leaf(x)
		tp.Apply(nilOp{tangent: true}, l)
		_, err := tp.ForwardTangents(map[cr.NodeID]*tensor.Dense{l: tensor.Scalar(1)})
		assert.ErrorIs(t, err, cr.ErrInvalidArgument)
	})
	t.Run("hook", func(t *testing.T) {
		tp := newTensorTape()
		l := tp.Leaf(x)
		y := tp.Apply(nilOp{}, l)
		require.NoError(t, tp.AddHook(y, func(*tensor.Dense) (*tensor.Dense, error) { return nil, nil }))
		_, err := tp.Backward(y)
		assert.ErrorIs(t, err, cr.ErrInvalidArgument)
	})
}

// keepRule violates the Op contract by keeping the slices Apply receives: its
// inputs are in (not a copy) and its pullback reads x.
type keepRule struct {
	in []cr.NodeID
	x  []float64
}

func (r *keepRule) Inputs() []cr.NodeID { return r.in }

func (r *keepRule) Pullback(ybar []float64, _ []bool, dst []cr.Contribution[float64]) ([]cr.Contribution[float64], error) {
	// y = x0 * x1: the cotangents read the kept values.
	return append(dst, cr.Contribution[float64]{Node: r.in[0], Value: ybar[0] * r.x[1]},
		cr.Contribution[float64]{Node: r.in[1], Value: ybar[0] * r.x[0]}), nil
}

var keepMul = cr.OpFunc[float64]{OpName: "keep_mul", F: func(in []cr.NodeID, x []float64) (float64, cr.Rule[float64], error) {
	return x[0] * x[1], &keepRule{in: in, x: x}, nil
}}

// A rule that keeps the in and x slices of Apply cannot corrupt the graph: every
// Apply gets slices of its own.
func TestRetainedInputSlicesCannotCorruptTheGraph(t *testing.T) {
	tp := newTape()
	a, b := tp.Leaf(2), tp.Leaf(3)
	y1 := tp.Apply(keepMul, a, b) // 6
	c, d := tp.Leaf(5), tp.Leaf(7)
	y2 := tp.Apply(keepMul, c, d)   // 35
	y3 := tp.Apply(keepMul, y2, y1) // a later Apply whose inputs follow y1
	y4 := tp.Apply(keepMul, y1, y1)
	require.NoError(t, tp.Err())
	for _, out := range []cr.NodeID{y1, y3, y4} {
		ins, err := tp.Inputs(out)
		require.NoError(t, err)
		for _, in := range ins {
			assert.Less(t, in.Index(), out.Index(), "inputs of %v", out)
		}
	}
	g, err := tp.Backward(y1)
	require.NoError(t, err)
	ga, _ := g.Of(a)
	gb, _ := g.Of(b)
	assert.Equal(t, 3.0, ga)
	assert.Equal(t, 2.0, gb)
	_, ok := g.Of(c)
	assert.False(t, ok)

	g, err = tp.Backward(y3) // y2 * y1 = c d a b
	require.NoError(t, err)
	for _, l := range []struct {
		id   cr.NodeID
		want float64
	}{{a, 105}, {b, 70}, {c, 42}, {d, 30}} {
		got, _ := g.Of(l.id)
		assert.Equal(t, l.want, got)
	}
	g, err = tp.Backward(y4) // (a b)^2
	require.NoError(t, err)
	got, _ := g.Of(a)
	assert.Equal(t, 2*6.0*3, got)
}

// A complex loss has no gradient: Backward with the implicit seed 1 refuses it (as
// PyTorch and JAX do) instead of differentiating its real part; an explicit seed is
// allowed.
func TestComplexLossIsRefused(t *testing.T) {
	tp := newTensorTape()
	z := tp.Leaf(tensor.ScalarComplex(1 + 2i))
	y := tp.Apply(nilOp{}, z)
	_, err := tp.Backward(y)
	require.ErrorIs(t, err, cr.ErrNonScalarLoss)
	assert.ErrorContains(t, err, "real part")
	tan, err := tp.ForwardTangents(map[cr.NodeID]*tensor.Dense{z: tensor.ScalarComplex(1)})
	require.NoError(t, err)
	_, _, err = tp.BackwardWithTangents(y, tan)
	require.ErrorIs(t, err, cr.ErrNonScalarLoss)
	g, err := tp.BackwardSeed(y, tensor.ScalarComplex(1))
	require.NoError(t, err)
	v, ok := g.Of(z)
	require.True(t, ok)
	assert.Equal(t, complex(1, 0), v.At())

	ct := core.NewTape[complex128](cSpace{})
	w := ct.Leaf(1i)
	_, err = ct.Backward(w)
	assert.ErrorIs(t, err, cr.ErrNonScalarLoss)
}

// cSpace is a minimal Space of complex128 scalars.
type cSpace struct{}

var _ cr.Space[complex128] = cSpace{}

func (cSpace) Zero(complex128) complex128                     { return 0 }
func (cSpace) One(complex128) (complex128, error)             { return 1, nil }
func (cSpace) Add(a, b complex128) (complex128, error)        { return a + b, nil }
func (cSpace) Accumulate(a, b complex128) (complex128, error) { return a + b, nil }
func (cSpace) Scale(a complex128, s float64) complex128       { return complex(s, 0) * a }
func (cSpace) Inner(a, b complex128) (float64, error)         { return real(cmplx.Conj(a) * b), nil }
func (cSpace) Clone(v complex128) complex128                  { return v }
func (cSpace) Shape(complex128) []int                         { return nil }
func (cSpace) Size(complex128) int                            { return 1 }
func (cSpace) DType(complex128) string                        { return "complex128" }
func (cSpace) Describe(complex128) string                     { return "complex128[]" }
func (cSpace) Rand(complex128, *rand.Rand) complex128         { return 0 }

// blockingOp waits inside Apply until released, so that a test can use the tape
// from another goroutine in the meantime.
type blockingOp struct{ entered, release chan struct{} }

func (blockingOp) Name() string    { return "blocking" }
func (blockingOp) NumOutputs() int { return 1 }

func (o blockingOp) Apply(in []cr.NodeID, x, y []float64) (cr.Rule[float64], error) {
	close(o.entered)
	<-o.release
	return sinOp.Apply(in, x, y)
}

// Using one tape from two goroutines at once is detected and reported, never a
// silent duplicate NodeID.
func TestConcurrentUseIsAnError(t *testing.T) {
	for _, second := range []struct {
		name string
		use  func(tp *core.Tape[float64], x cr.NodeID) error
	}{
		{"apply", func(tp *core.Tape[float64], x cr.NodeID) error {
			if id := tp.Apply(sinOp, x); id.Valid() {
				return nil
			}
			return tp.Err()
		}},
		{"leaf", func(tp *core.Tape[float64], x cr.NodeID) error {
			if id := tp.Leaf(1); id.Valid() {
				return nil
			}
			return tp.Err()
		}},
		{"backward", func(tp *core.Tape[float64], x cr.NodeID) error {
			_, err := tp.Backward(x)
			return err
		}},
		{"forward", func(tp *core.Tape[float64], x cr.NodeID) error {
			_, err := tp.ForwardTangents(map[cr.NodeID]float64{x: 1})
			return err
		}},
	} {
		t.Run(second.name, func(t *testing.T) {
			tp := newTape()
			x := tp.Leaf(0.5)
			op := blockingOp{entered: make(chan struct{}), release: make(chan struct{})}
			var wg sync.WaitGroup
			wg.Add(1)
			var first cr.NodeID
			go func() {
				defer wg.Done()
				first = tp.Apply(op, x)
			}()
			<-op.entered
			err := second.use(tp, x)
			close(op.release)
			wg.Wait()
			require.Error(t, err)
			assert.ErrorIs(t, err, cr.ErrInvalidArgument)
			assert.ErrorContains(t, err, "concurrent")
			assert.ErrorContains(t, tp.Err(), "concurrent", "the misuse is sticky")
			assert.Zero(t, first, "the call that held the tape fails too")
			assert.Equal(t, 2, tp.Len())
		})
	}
}

// failOp fails in Apply.
var failOp = cr.OpFunc[float64]{OpName: "fail", F: func([]cr.NodeID, []float64) (float64, cr.Rule[float64], error) {
	return 0, nil, cr.Errorf(cr.ErrInvalidArgument, "bad input")
}}

// shortHere returns the caller's dir/file:line, the form of the call sites that
// Apply-time errors give.
func shortHere() string {
	_, file, line, _ := runtime.Caller(1)
	return fmt.Sprintf("%s/%s:%d", filepath.Base(filepath.Dir(file)), filepath.Base(file), line)
}

// Apply-time errors name the node the op would have been and the call site, the
// first caller outside the library, with anomaly mode off or on.
func TestApplyErrorsNameNodeAndSite(t *testing.T) {
	for _, anomaly := range []bool{false, true} {
		tp := newTape()
		require.NoError(t, tp.DetectAnomaly(anomaly))
		x := tp.Leaf(1)
		tp.Apply(sinOp, x)
		_, site := tp.Apply(failOp, x), shortHere()
		err := tp.Err()
		require.ErrorIs(t, err, cr.ErrInvalidArgument)
		var oe *cr.OpError
		require.ErrorAs(t, err, &oe)
		assert.Equal(t, 2, oe.Node.Index())
		assert.True(t, oe.Node.Valid())
		assert.Equal(t, "apply", oe.Phase)
		assert.Contains(t, err.Error(), "fail at node %2 (apply)")
		assert.Contains(t, err.Error(), site, "anomaly %v", anomaly)

		// A foreign node is named as such.
		other := newTape()
		_, site = other.Apply(sinOp, other.Leaf(1), x), shortHere()
		err = other.Err()
		require.ErrorIs(t, err, cr.ErrMissingNode)
		assert.Contains(t, err.Error(), "sin at node %1 (apply)")
		assert.Contains(t, err.Error(), "another tape")
		assert.Contains(t, err.Error(), site)
		assert.NotContains(t, err.Error(), "%invalid")

		// Multi-output ops too.
		mt := newTape()
		mt.Leaf(1)
		_, site = mt.ApplyMulti(toXY{}, mt.Leaf(2), x), shortHere()
		err = mt.Err()
		require.ErrorIs(t, err, cr.ErrMissingNode)
		assert.Contains(t, err.Error(), "toxy at node %2 (apply)")
		assert.Contains(t, err.Error(), site)

		// Inside a checkpoint, the site is the line of the body that failed.
		ct := newTape()
		cx := ct.Leaf(1)
		var inner string
		ct.Checkpoint(func(sub *core.Tape[float64], in []cr.NodeID) cr.NodeID {
			var y cr.NodeID
			y, inner = sub.Apply(failOp, in[0]), shortHere()
			return y
		}, cx)
		assert.Contains(t, ct.Err().Error(), inner)
	}
}

// The forward sweep's errors say "forward", the reverse sweep's "backward".
func TestSeedErrorsNameTheirPhase(t *testing.T) {
	_, lin, err := core.Linearize[*tensor.Dense](tensor.Space{}, func(tp *core.Tape[*tensor.Dense], in []cr.NodeID) []cr.NodeID {
		return []cr.NodeID{tp.Apply(nilOp{}, in[0])}
	}, tensor.Ones(tensor.Float64, 2))
	require.NoError(t, err)
	_, err = lin.Apply(tensor.Ones(tensor.Float64, 3))
	require.ErrorIs(t, err, cr.ErrShapeMismatch)
	assert.Contains(t, err.Error(), "(forward)")
	assert.NotContains(t, err.Error(), "backward")
	_, err = lin.Transpose().Apply(tensor.Ones(tensor.Float64, 3))
	require.ErrorIs(t, err, cr.ErrShapeMismatch)
	assert.Contains(t, err.Error(), "(backward)")
}

// A DualHook that returns an absent tangent says the derivative of its map is zero
// there: the cotangent tangent that reached the node must be dropped, not kept.
func TestDualHookZeroTangentDropsTheStaleOne(t *testing.T) {
	const x0, xd = 0.7, 1.3
	tp := newTape()
	x := tp.Leaf(x0)
	y := tp.Apply(cubeOp, x)
	out := tp.Apply(mulOp, y, y) // ybar = 2y, ybardot = 2 ydot != 0
	// h(ybar) = 1: a constant map, whose derivative is zero.
	require.NoError(t, tp.AddDualHook(y, func(ct cr.Dual[float64]) (cr.Dual[float64], error) {
		require.True(t, ct.HasTangent, "a tangent reaches the hook")
		return cr.Dual[float64]{Value: 1}, nil
	}))
	tan, err := tp.ForwardTangents(map[cr.NodeID]float64{x: xd})
	require.NoError(t, err)
	g, hv, err := tp.BackwardWithTangents(out, tan)
	require.NoError(t, err)
	// xbar = 3x^2 h = 3x^2, so d/de xbar = 6x xdot.
	gx, _ := g.Of(x)
	assert.InDelta(t, 3*x0*x0, gx, 1e-15)
	hx, _ := hv.Of(x)
	assert.InDelta(t, 6*x0*xd, hx, 1e-14)
}

// Linearize's transpose takes outputs in any order, repeated or not.
func TestLinearizeOutputsInAnyOrder(t *testing.T) {
	f := func(tp *core.Tape[float64], in []cr.NodeID) []cr.NodeID {
		y1 := tp.Apply(cubeOp, in[0])
		y2 := tp.Apply(sinOp, in[0])
		return []cr.NodeID{y2, y1, y2, y1}
	}
	const x0 = 0.4
	_, lin, err := core.Linearize[float64](cr.Float64Space{}, f, x0)
	require.NoError(t, err)
	var got []float64
	require.NotPanics(t, func() { got, err = lin.Transpose().Apply(1, 10, 100, 1000) })
	require.NoError(t, err)
	assert.InDelta(t, 101*math.Cos(x0)+1010*3*x0*x0, got[0], 1e-12)
	jv, err := lin.Apply(1)
	require.NoError(t, err)
	assert.InDelta(t, math.Cos(x0), jv[0], 1e-15)
	assert.InDelta(t, 3*x0*x0, jv[1], 1e-15)
}
