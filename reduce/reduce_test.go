package reduce_test

import (
	"errors"
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/internal/recordtest"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

// naive reduces x over axes by visiting every element with At and combining the
// elements of each output slice with f, a reference independent of the kernels.
func naive(x *tensor.Dense, axes []int, keep bool, f func([]complex128) complex128) *tensor.Dense {
	shape := x.Shape()
	red := make([]bool, len(shape))
	for _, a := range axes {
		red[(a+len(shape))%len(shape)] = true
	}
	if len(axes) == 0 {
		for k := range red {
			red[k] = true
		}
	}
	var out []int
	for k, d := range shape {
		if !red[k] {
			out = append(out, d)
		} else if keep {
			out = append(out, 1)
		}
	}
	groups := map[string][]complex128{}
	var order []string
	idx := make([]int, len(shape))
	for range x.Size() {
		key := ""
		for k, i := range idx {
			if !red[k] || keep {
				if red[k] {
					i = 0
				}
				key += fmt.Sprint(i, ",")
			}
		}
		if _, ok := groups[key]; !ok {
			order = append(order, key)
		}
		groups[key] = append(groups[key], x.At(idx...))
		for k := len(idx) - 1; k >= 0; k-- {
			idx[k]++
			if idx[k] < shape[k] {
				break
			}
			idx[k] = 0
		}
	}
	y := tensor.New(x.DType(), out...)
	vals := make([]complex128, 0, y.Size())
	for _, key := range order {
		vals = append(vals, f(groups[key]))
	}
	if y.Size() == 1 && len(vals) == 0 { // an empty input reduced to one element
		vals = append(vals, f(nil))
	}
	yi := make([]int, len(out))
	for _, v := range vals {
		y.Set(v, yi...)
		for k := len(yi) - 1; k >= 0; k-- {
			yi[k]++
			if yi[k] < out[k] {
				break
			}
			yi[k] = 0
		}
	}
	return y
}

func refSum(v []complex128) (s complex128) {
	for _, x := range v {
		s += x
	}
	return s
}

func refVar(v []complex128, corr float64) complex128 {
	mu := refSum(v) / complex(float64(len(v)), 0)
	s := 0.0
	for _, x := range v {
		d := cmplx.Abs(x - mu)
		s += d * d
	}
	return complex(s/math.Max(0, float64(len(v))-corr), 0)
}

func TestAgainstNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	type fn = func(x *tensor.Dense, axes []int, keep bool) (*tensor.Dense, error)
	ops := []struct {
		name    string
		f       fn
		ref     func([]complex128) complex128
		complex bool
	}{
		{"sum", reduce.Sum, refSum, true},
		{"mean", reduce.Mean, func(v []complex128) complex128 { return refSum(v) / complex(float64(len(v)), 0) }, true},
		{"prod", reduce.Prod, func(v []complex128) complex128 {
			p := complex(1, 0)
			for _, x := range v {
				p *= x
			}
			return p
		}, true},
		{"amax", reduce.Max, func(v []complex128) complex128 {
			m := math.Inf(-1)
			for _, x := range v {
				m = math.Max(m, real(x))
			}
			return complex(m, 0)
		}, false},
		{"amin", reduce.Min, func(v []complex128) complex128 {
			m := math.Inf(1)
			for _, x := range v {
				m = math.Min(m, real(x))
			}
			return complex(m, 0)
		}, false},
		{"logsumexp", reduce.LogSumExp, func(v []complex128) complex128 {
			s := 0.0
			for _, x := range v {
				s += math.Exp(real(x))
			}
			return complex(math.Log(s), 0)
		}, false},
		{"var", func(x *tensor.Dense, axes []int, keep bool) (*tensor.Dense, error) {
			return reduce.Var(x, axes, 1, keep)
		},
			func(v []complex128) complex128 { return refVar(v, 1) }, true},
		{"std", func(x *tensor.Dense, axes []int, keep bool) (*tensor.Dense, error) {
			return reduce.Std(x, axes, 0, keep)
		},
			func(v []complex128) complex128 { return cmplx.Sqrt(refVar(v, 0)) }, true},
	}
	shapes := []struct {
		shape []int
		axes  []int
	}{
		{[]int{7}, nil}, {[]int{3, 5}, []int{0}}, {[]int{3, 5}, []int{1}}, {[]int{3, 5}, []int{-1, 0}},
		{[]int{2, 3, 4}, []int{1}}, {[]int{2, 3, 4}, []int{0, 2}}, {[]int{2, 1, 3, 4}, []int{0, 3}},
		{[]int{4, 3, 2, 5}, []int{1, 3}}, {[]int{2, 3, 1}, []int{1, 2}}, {[]int{33, 9}, []int{0}},
	}
	for _, o := range ops {
		for _, dt := range []tensor.DType{tensor.Float64, tensor.Complex128} {
			if dt == tensor.Complex128 && !o.complex {
				continue
			}
			for _, s := range shapes {
				for _, keep := range []bool{false, true} {
					t.Run(fmt.Sprintf("%s/%v%v/%v/keep=%v", o.name, dt, s.shape, s.axes, keep), func(t *testing.T) {
						x := tensor.RandN(rng, dt, s.shape...)
						got, err := o.f(x, s.axes, keep)
						require.NoError(t, err)
						want := naive(x, s.axes, keep, o.ref)
						require.Equal(t, want.Shape(), got.Shape())
						assert.True(t, tensor.EqualApprox(got, want, 1e-13, 1e-12), "got %v\nwant %v", got, want)
					})
				}
			}
		}
	}
}

func TestErrors(t *testing.T) {
	x := tensor.New(tensor.Float64, 2, 3)
	c := tensor.New(tensor.Complex128, 2, 3)
	cases := []struct {
		name string
		op   cr.Op[*tensor.Dense]
		x    *tensor.Dense
		want error
		msg  string
	}{
		{"axis out of range", reduce.SumOp([]int{2}, false), x, cr.ErrInvalidArgument, "sum: axis 2 out of range for rank 2"},
		{"negative out of range", reduce.MeanOp([]int{-3}, false), x, cr.ErrInvalidArgument, "axis -3"},
		{"repeated", reduce.ProdOp([]int{1, -1}, false), x, cr.ErrInvalidArgument, "repeated"},
		{"complex max", reduce.MaxOp(nil, false), c, cr.ErrInvalidArgument, "amax"},
		{"complex logsumexp", reduce.LogSumExpOp(nil, false), c, cr.ErrInvalidArgument, "logsumexp"},
		{"complex nansum", reduce.NanSumOp(nil, false), c, cr.ErrInvalidArgument, "nansum"},
		{"empty max", reduce.MinOp([]int{0}, false), tensor.New(tensor.Float64, 0, 3), cr.ErrInvalidArgument, "empty"},
		{"std axis", reduce.StdOp([]int{5}, 1, false), x, cr.ErrInvalidArgument, "std: axis 5"},
	}
	for _, cs := range cases {
		t.Run(cs.name, func(t *testing.T) {
			_, _, err := recordtest.Apply1(cs.op, []cr.NodeID{0}, []*tensor.Dense{cs.x})
			require.Error(t, err)
			assert.True(t, errors.Is(err, cs.want), "%v", err)
			assert.Contains(t, err.Error(), cs.msg)
		})
	}
}

// TestTies checks the documented tie policy of amax and amin with the checker's
// kink support: at a tie the cotangent is split evenly among the tied elements, and
// the tangent is the mean of their tangents.
func TestTies(t *testing.T) {
	// Row 0 has its maximum 3 twice and its minimum -1 three times; row 1 has no tie.
	x, err := tensor.FromFloat64([]float64{3, -1, 3, -1, -1, 2, 5, 0, 1, 4}, 2, 5)
	require.NoError(t, err)
	weights := map[string][]float64{
		"amax": {0.5, 0, 0.5, 0, 0, 0, 1, 0, 0, 0},
		"amin": {0, 1.0 / 3, 0, 1.0 / 3, 1.0 / 3, 0, 0, 1, 0, 0},
	}
	for name, op := range map[string]cr.Op[*tensor.Dense]{"amax": reduce.MaxOp([]int{1}, false), "amin": reduce.MinOp([]int{1}, false)} {
		t.Run(name, func(t *testing.T) {
			w := weights[name]
			pullback := func(ybar *tensor.Dense) ([]*tensor.Dense, error) {
				out := make([]float64, 10)
				for i := range out {
					out[i] = w[i] * ybar.AtFloat64(i/5)
				}
				xb, err := tensor.FromFloat64(out, 2, 5)
				return []*tensor.Dense{xb}, err
			}
			kink := &ruletest.Kink[*tensor.Dense]{
				Reason:   name + " with ties: the cotangent is split evenly",
				Pullback: pullback,
				// The second-order term is zero (MaxOp's doc), at ties too: the
				// tangent of the cotangent is the split of ybardot alone.
				SecondOrder: func(_, ybardot *tensor.Dense, _ []*tensor.Dense) ([]*tensor.Dense, error) {
					return pullback(ybardot)
				},
				JVP: func(xdot []*tensor.Dense) (*tensor.Dense, error) {
					out := make([]float64, 2)
					for i := range 10 {
						out[i/5] += w[i] * xdot[0].AtFloat64(i/5, i%5)
					}
					return tensor.FromFloat64(out, 2)
				},
			}
			ruletest.Check(t, tensor.Space{}, op, []*tensor.Dense{x}, ruletest.Config{Kink: kink})
		})
	}
}

// TestProdZeros checks the gradient of prod where one or several factors are zero
// against the product of the other factors, computed directly.
func TestProdZeros(t *testing.T) {
	for _, data := range [][]float64{{2, 0, 3, 4}, {0, 5, 0, 7}, {0, 0, 0, 2}, {1.5, -2, 3, 0.5}} {
		x, err := tensor.FromFloat64(data, 4)
		require.NoError(t, err)
		op := reduce.ProdOp(nil, false)
		_, rule, err := recordtest.Apply1(op, []cr.NodeID{1}, []*tensor.Dense{x})
		require.NoError(t, err)
		got, err := recordtest.Pullback1(rule, tensor.Scalar(1), nil)
		require.NoError(t, err)
		for k := range data {
			others := 1.0
			for m, v := range data {
				if m != k {
					others *= v
				}
			}
			assert.Equal(t, others, got[0].Value.AtFloat64(k), "%v: d/dx%d", data, k)
		}
	}
}

func TestLogSumExpLarge(t *testing.T) {
	x, err := tensor.FromFloat64([]float64{1000, 1000, 999, -1e308, 1e3 + 1}, 5)
	require.NoError(t, err)
	y, err := reduce.LogSumExp(x, nil, false)
	require.NoError(t, err)
	want := 1001 + math.Log(1+2*math.Exp(-1)+math.Exp(-2))
	assert.InDelta(t, want, y.AtFloat64(), 1e-12)
	_, rule, err := recordtest.Apply1(reduce.LogSumExpOp(nil, false), []cr.NodeID{1}, []*tensor.Dense{x})
	require.NoError(t, err)
	g, err := recordtest.Pullback1(rule, tensor.Scalar(1), nil)
	require.NoError(t, err)
	for k, v := range x.Float64s() {
		assert.InDelta(t, math.Exp(v-want), g[0].Value.AtFloat64(k), 1e-15)
	}
	// All -Inf gives -Inf, an empty slice too.
	ninf, _ := tensor.FromFloat64([]float64{math.Inf(-1), math.Inf(-1)}, 2)
	y, err = reduce.LogSumExp(ninf, nil, false)
	require.NoError(t, err)
	assert.True(t, math.IsInf(y.AtFloat64(), -1))
	y, err = reduce.LogSumExp(tensor.New(tensor.Float64, 0), nil, false)
	require.NoError(t, err)
	assert.True(t, math.IsInf(y.AtFloat64(), -1))
}

func TestNaN(t *testing.T) {
	nan := math.NaN()
	x, err := tensor.FromFloat64([]float64{1, nan, 3, 4, 5, 6}, 2, 3)
	require.NoError(t, err)
	s, err := reduce.NanSum(x, []int{1}, false)
	require.NoError(t, err)
	assert.Equal(t, []float64{4, 15}, s.Float64s())
	m, err := reduce.NanMean(x, []int{1}, false)
	require.NoError(t, err)
	assert.Equal(t, []float64{2, 5}, m.Float64s())
	mx, err := reduce.Max(x, []int{1}, false)
	require.NoError(t, err)
	assert.True(t, math.IsNaN(mx.Float64s()[0]))
	assert.Equal(t, 6.0, mx.Float64s()[1])
	_, rule, err := recordtest.Apply1(reduce.NanMeanOp([]int{1}, false), []cr.NodeID{1}, []*tensor.Dense{x})
	require.NoError(t, err)
	g, err := recordtest.Pullback1(rule, tensor.Ones(tensor.Float64, 2), nil)
	require.NoError(t, err)
	assert.Equal(t, []float64{0.5, 0, 0.5, 1.0 / 3, 1.0 / 3, 1.0 / 3}, g[0].Value.Float64s())
}

// The rules reject cotangents and tangents of the wrong shape with an error wrapping
// ErrShapeMismatch instead of panicking, on both kernel layouts (reducing the last
// axis, where lanes are contiguous, and the first, where they are strided).
func TestRuleShapeErrors(t *testing.T) {
	x := tensor.RandN(rand.New(rand.NewPCG(3, 4)), tensor.Float64, 3, 4)
	bad := []*tensor.Dense{nil, tensor.New(tensor.Float64, 5), tensor.New(tensor.Float64, 4, 3, 1)}
	for _, mk := range []func([]int, bool) cr.Op[*tensor.Dense]{
		reduce.SumOp, reduce.MeanOp, reduce.NanSumOp, reduce.NanMeanOp, reduce.ProdOp,
		reduce.MaxOp, reduce.MinOp, reduce.LogSumExpOp,
		func(a []int, k bool) cr.Op[*tensor.Dense] { return reduce.VarOp(a, 1, k) },
		func(a []int, k bool) cr.Op[*tensor.Dense] { return reduce.StdOp(a, 1, k) },
	} {
		for _, axis := range []int{0, 1} {
			op := mk([]int{axis}, false)
			t.Run(fmt.Sprintf("%s/axis%d", op.Name(), axis), func(t *testing.T) {
				y, rule, err := recordtest.Apply1(op, []cr.NodeID{1}, []*tensor.Dense{x})
				require.NoError(t, err)
				for _, b := range bad {
					require.NotPanics(t, func() {
						_, err = recordtest.Pullback1(rule, b, nil)
						assert.ErrorIs(t, err, cr.ErrShapeMismatch, "cotangent %v", b)
						_, ok, err := recordtest.Forward1(rule, func(cr.NodeID) (*tensor.Dense, bool) { return b, true })
						assert.False(t, ok)
						assert.ErrorIs(t, err, cr.ErrShapeMismatch, "tangent %v", b)
						_, err = recordtest.SecondOrder1(rule, y,
							cr.Dual[*tensor.Dense]{Value: tensor.Ones(tensor.Float64, y.Shape()...), Tangent: b, HasTangent: true},
							func(cr.NodeID) (*tensor.Dense, bool) { return nil, false }, nil)
						assert.ErrorIs(t, err, cr.ErrShapeMismatch, "cotangent tangent %v", b)
					})
				}
			})
		}
	}
}

// Ties split the cotangent on the strided layout too: amax over axis 0 of the
// transpose is amax over axis 1, transposed.
func TestTiesStrided(t *testing.T) {
	x, err := tensor.FromFloat64([]float64{3, -1, 3, -1, -1, 2, 5, 0, 1, 4}, 2, 5)
	require.NoError(t, err)
	xt := x.Clone()
	xt, err = xt.Transpose(0, 1)
	require.NoError(t, err)
	xt = xt.Contiguous()
	for _, mk := range []func([]int, bool) cr.Op[*tensor.Dense]{reduce.MaxOp, reduce.MinOp} {
		_, r1, err := recordtest.Apply1(mk([]int{1}, false), []cr.NodeID{1}, []*tensor.Dense{x})
		require.NoError(t, err)
		_, r0, err := recordtest.Apply1(mk([]int{0}, false), []cr.NodeID{1}, []*tensor.Dense{xt})
		require.NoError(t, err)
		ybar, _ := tensor.FromFloat64([]float64{2, -3}, 2)
		g1, err := recordtest.Pullback1(r1, ybar, nil)
		require.NoError(t, err)
		g0, err := recordtest.Pullback1(r0, ybar, nil)
		require.NoError(t, err)
		want, err := g1[0].Value.Transpose(0, 1)
		require.NoError(t, err)
		assert.True(t, tensor.EqualApprox(want, g0[0].Value, 0, 0), "%v vs %v", want, g0[0].Value)

		xdot := tensor.RandN(rand.New(rand.NewPCG(5, 6)), tensor.Float64, 2, 5)
		xdotT, _ := xdot.Transpose(0, 1)
		of := func(v *tensor.Dense) cr.TangentOf[*tensor.Dense] {
			return func(cr.NodeID) (*tensor.Dense, bool) { return v, true }
		}
		y1, ok1, err1 := recordtest.Forward1(r1, of(xdot))
		y0, ok0, err0 := recordtest.Forward1(r0, of(xdotT.Contiguous()))
		require.NoError(t, errors.Join(err0, err1))
		assert.True(t, ok0 && ok1)
		assert.True(t, tensor.EqualApprox(y1, y0, 0, 0), "%v vs %v", y1, y0)
	}
}

// A lane of nanmean that is all NaN has a NaN value and a zero tangent: no element
// carries weight.
func TestNanMeanAllNaN(t *testing.T) {
	nan := math.NaN()
	x, err := tensor.FromFloat64([]float64{nan, 1, nan, 3}, 2, 2)
	require.NoError(t, err)
	y, rule, err := recordtest.Apply1(reduce.NanMeanOp([]int{0}, false), []cr.NodeID{1}, []*tensor.Dense{x})
	require.NoError(t, err)
	assert.True(t, math.IsNaN(y.AtFloat64(0)))
	assert.Equal(t, 2.0, y.AtFloat64(1))
	yd, ok, err := recordtest.Forward1(rule, func(cr.NodeID) (*tensor.Dense, bool) {
		return tensor.Ones(tensor.Float64, 2, 2), true
	})
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, []float64{0, 1}, yd.Float64s())
}
