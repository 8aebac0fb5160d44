package reduce_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/internal/recordtest"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// sameFloat reports a == b, with NaN equal to NaN.
func sameFloat(a, b float64) bool { return a == b || (a != a && b != b) }

// TestExtremumRule checks amax and amin, forward, pullback, tangent and second-order
// cotangent, against an element loop through At on data full of ties and NaNs, for
// every kind of axis set (leading, trailing, middle, non-adjacent, all).
func TestExtremumRule(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	axesSets := [][]int{{0}, {1}, {2}, {0, 2}, {1, 2}, {0, 1}, nil}
	for _, shape := range [][]int{{4, 5, 6}, {3, 1, 9}, {2, 17, 3}} {
		for _, nanRate := range []float64{0, 0.05} {
			x := tensor.New(tensor.Float64, shape...)
			xdot := tensor.RandN(rng, tensor.Float64, shape...)
			forEach(shape, func(idx []int) {
				v := float64(rng.IntN(3)) // values 0, 1, 2: ties everywhere
				if rng.Float64() < nanRate {
					v = math.NaN()
				}
				x.Set(complex(v, 0), idx...)
			})
			for _, axes := range axesSets {
				for _, isMin := range []bool{false, true} {
					for _, keep := range []bool{false, true} {
						name := fmt.Sprintf("%v/nan%v/%v/min%v/keep%v", shape, nanRate, axes, isMin, keep)
						t.Run(name, func(t *testing.T) { checkExtremum(t, rng, x, xdot, axes, isMin, keep) })
					}
				}
			}
		}
	}
}

func checkExtremum(t *testing.T, rng *rand.Rand, x, xdot *tensor.Dense, axes []int, isMin, keep bool) {
	shape := x.Shape()
	red := make([]bool, len(shape))
	for _, a := range axes {
		red[a] = true
	}
	if axes == nil {
		for k := range red {
			red[k] = true
		}
	}
	// Reference: the output slot of every element, and per slot the extremum, the
	// number of elements that attain it and the sum of their tangents.
	var outShape []int
	for k, d := range shape {
		if !red[k] {
			outShape = append(outShape, d)
		} else if keep {
			outShape = append(outShape, 1)
		}
	}
	slot := func(idx []int) int {
		o := 0
		for k, i := range idx {
			if !red[k] {
				o = o*shape[k] + i
			}
		}
		return o
	}
	nOut := 1
	for k, d := range shape {
		if !red[k] {
			nOut *= d
		}
	}
	ext := make([]float64, nOut)
	for o := range ext {
		ext[o] = math.Inf(1)
		if !isMin {
			ext[o] = math.Inf(-1)
		}
	}
	forEach(shape, func(idx []int) {
		o, v := slot(idx), x.AtFloat64(idx...)
		switch {
		case ext[o] != ext[o]:
		case v != v, isMin && v < ext[o], !isMin && v > ext[o]:
			ext[o] = v
		}
	})
	cnt := make([]float64, nOut)
	tan := make([]float64, nOut)
	forEach(shape, func(idx []int) {
		if o := slot(idx); sameFloat(x.AtFloat64(idx...), ext[o]) {
			cnt[o]++
			tan[o] += xdot.AtFloat64(idx...)
		}
	})

	op := reduce.MaxOp(axes, keep)
	if isMin {
		op = reduce.MinOp(axes, keep)
	}
	y, rule, err := recordtest.Apply1(op, []cr.NodeID{1}, []*tensor.Dense{x})
	require.NoError(t, err)
	require.Equal(t, len(outShape), y.Rank())
	ys := y.Float64s()
	for o := range ext {
		require.True(t, sameFloat(ext[o], ys[o]), "output %d: got %v, want %v", o, ys[o], ext[o])
	}

	ybar := tensor.RandN(rng, tensor.Float64, y.Shape()...)
	ybardot := tensor.RandN(rng, tensor.Float64, y.Shape()...)
	g, h := ybar.Float64s(), ybardot.Float64s()
	got, err := recordtest.Pullback1(rule, ybar, nil)
	require.NoError(t, err)
	require.Len(t, got, 1)
	dual, err := recordtest.SecondOrder1(rule, y,
		cr.Dual[*tensor.Dense]{Value: ybar, Tangent: ybardot, HasTangent: true},
		func(cr.NodeID) (*tensor.Dense, bool) { return xdot, true }, nil)
	require.NoError(t, err)
	require.True(t, dual[0].Cotangent.HasTangent)
	forEach(shape, func(idx []int) {
		o := slot(idx)
		var want, wantDot float64
		if sameFloat(x.AtFloat64(idx...), ext[o]) {
			want, wantDot = g[o]/cnt[o], h[o]/cnt[o]
		}
		require.InDelta(t, want, got[0].Value.AtFloat64(idx...), 1e-15, "xbar%v", idx)
		require.InDelta(t, want, dual[0].Cotangent.Value.AtFloat64(idx...), 1e-15, "xbar%v (second order)", idx)
		require.InDelta(t, wantDot, dual[0].Cotangent.Tangent.AtFloat64(idx...), 1e-15, "xbardot%v", idx)
	})

	ydot, ok, err := recordtest.Forward1(rule, func(cr.NodeID) (*tensor.Dense, bool) { return xdot, true })
	require.NoError(t, err)
	require.True(t, ok)
	yd := ydot.Float64s()
	for o := range tan {
		assert.InDelta(t, tan[o]/cnt[o], yd[o], 1e-12, "ydot[%d]", o)
	}
}

// forEach calls f with every index of shape in row-major order.
func forEach(shape []int, f func(idx []int)) {
	n := 1
	for _, d := range shape {
		n *= d
	}
	idx := make([]int, len(shape))
	for range n {
		f(idx)
		for k := len(idx) - 1; k >= 0; k-- {
			idx[k]++
			if idx[k] < shape[k] {
				break
			}
			idx[k] = 0
		}
	}
}

// TestExtremumNaNPositions puts a single NaN at every position of a slice, for the
// row kernel (last axis reduced) and the column kernel (first axis reduced): the
// slice's result must be NaN and the others not.
func TestExtremumNaNPositions(t *testing.T) {
	const n, m = 37, 6
	for _, mk := range []func([]int, bool) cr.Op[*tensor.Dense]{reduce.MaxOp, reduce.MinOp} {
		for p := range n {
			for _, rows := range []bool{true, false} {
				shape, axis := []int{m, n}, 1
				if !rows {
					shape, axis = []int{n, m}, 0
				}
				x := tensor.RandN(rand.New(rand.NewPCG(uint64(p), 3)), tensor.Float64, shape...)
				j := p % m
				if rows {
					x.Set(complex(math.NaN(), 0), j, p)
				} else {
					x.Set(complex(math.NaN(), 0), p, j)
				}
				y, _, err := recordtest.Apply1(mk([]int{axis}, false), []cr.NodeID{1}, []*tensor.Dense{x})
				require.NoError(t, err)
				for o, v := range y.Float64s() {
					assert.Equal(t, o == j, math.IsNaN(v), "NaN at %d, rows %v: output %d = %v", p, rows, o, v)
				}
			}
		}
	}
}

// TestExtremumSignedZeros checks that amax counts +0 above -0 and amin -0 below +0
// wherever the deciding zero sits, along rows and columns of 16 (vector blocks and
// tails).
func TestExtremumSignedZeros(t *testing.T) {
	const n = 17
	negZero := math.Copysign(0, -1)
	for _, isMin := range []bool{false, true} {
		fill, odd := negZero, 0.0
		if isMin {
			fill, odd = 0.0, negZero
		}
		for p := range n {
			for axis := range 2 {
				data := make([]float64, n*n)
				for i := range data {
					data[i] = fill
				}
				for o := range n { // one odd zero in every slice, at position p
					if axis == 1 {
						data[o*n+p] = odd
					} else {
						data[p*n+o] = odd
					}
				}
				x, err := tensor.FromFloat64(data, n, n)
				require.NoError(t, err)
				y, err := reduce.Max(x, []int{axis}, false)
				if isMin {
					y, err = reduce.Min(x, []int{axis}, false)
				}
				require.NoError(t, err)
				for o, v := range y.Float64s() {
					assert.Equal(t, math.Signbit(odd), math.Signbit(v), "min=%v axis %d zero at %d: output %d = %v", isMin, axis, p, o, v)
				}
			}
		}
	}
}
