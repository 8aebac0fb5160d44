package opkit_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// The sum over an axis, row by row: the inner loop is contiguous.
func ExampleLanes_Rows() {
	x, _ := tensor.FromFloat64([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
	lanes, _ := opkit.LanesOf(x.Shape(), 0) // [Outer 1, Len 2, Inner 3]
	xs, out := x.Float64s(), make([]float64, lanes.Count())
	for o, off := range lanes.Rows() {
		acc, row := out[o:o+lanes.Inner], xs[off:off+lanes.Inner]
		for j, v := range row {
			acc[j] += v
		}
	}
	fmt.Println(out)
	// Output: [5 7 9]
}

// A cumulative sum along an axis, written twice: lane by lane (each lane strided by
// Inner), and row by row with a running row, the form whose inner loop is contiguous.
func ExampleLanes() {
	x, _ := tensor.FromFloat64([]float64{
		1, 2, 3,
		4, 5, 6,

		7, 8, 9,
		10, 11, 12,
	}, 2, 2, 3)
	lanes, _ := opkit.LanesOf(x.Shape(), 1) // [Outer 2, Len 2, Inner 3]
	xs := x.Float64s()

	y := make([]float64, len(xs))
	for _, l := range lanes.All() {
		var s float64
		for k := range l.Len {
			s += xs[l.At(k)]
			y[l.At(k)] = s
		}
	}
	fmt.Println(y)

	z := make([]float64, len(xs))
	acc := make([]float64, lanes.Count()) // the running sum of every lane
	for o, off := range lanes.Rows() {
		run, row, out := acc[o:o+lanes.Inner], xs[off:off+lanes.Inner], z[off:off+lanes.Inner]
		for j, v := range row {
			run[j] += v
			out[j] = run[j]
		}
	}
	fmt.Println(z)
	// Output:
	// [1 2 3 5 7 9 7 8 9 17 19 21]
	// [1 2 3 5 7 9 7 8 9 17 19 21]
}

func TestLanesOf(t *testing.T) {
	for _, c := range []struct {
		shape []int
		axis  int
		want  opkit.Lanes
	}{
		{[]int{2, 3, 4}, 0, opkit.Lanes{Outer: 1, Len: 2, Inner: 12}},
		{[]int{2, 3, 4}, 1, opkit.Lanes{Outer: 2, Len: 3, Inner: 4}},
		{[]int{2, 3, 4}, -1, opkit.Lanes{Outer: 6, Len: 4, Inner: 1}},
		{[]int{5}, 0, opkit.Lanes{Outer: 1, Len: 5, Inner: 1}},
		{[]int{2, 0, 3}, 2, opkit.Lanes{Outer: 0, Len: 3, Inner: 1}},
	} {
		l, err := opkit.LanesOf(c.shape, c.axis)
		require.NoError(t, err)
		assert.Equal(t, c.want, l, "%v axis %d", c.shape, c.axis)
	}
	for _, c := range []struct {
		shape []int
		axis  int
	}{{[]int{2, 3}, 2}, {[]int{2, 3}, -3}, {nil, 0}, {[]int{2, -1}, 0}} {
		_, err := opkit.LanesOf(c.shape, c.axis)
		assert.ErrorIs(t, err, chainrules.ErrInvalidArgument, "%v axis %d", c.shape, c.axis)
	}
}

// Every lane and every row visits the elements their definitions name, in order,
// including shapes with empty axes; breaking out of the loop stops the iterator.
func TestLanesVisit(t *testing.T) {
	for _, l := range []opkit.Lanes{{2, 3, 4}, {1, 5, 1}, {3, 1, 2}, {2, 0, 3}, {0, 2, 2}, {2, 3, 0}} {
		o := 0
		for got, lane := range l.All() {
			require.Equal(t, o, got)
			i, j := o/l.Inner, o%l.Inner
			require.Equal(t, l.Len, lane.Len)
			for k := range l.Len {
				require.Equal(t, (i*l.Len+k)*l.Inner+j, lane.At(k), "%v lane %d element %d", l, o, k)
			}
			o++
		}
		assert.Equal(t, l.Count(), o, "%v lanes", l)

		n := 0
		for got, off := range l.Rows() {
			i, k := n/l.Len, n%l.Len
			require.Equal(t, i*l.Inner, got, "%v row %d", l, n)
			require.Equal(t, (i*l.Len+k)*l.Inner, off, "%v row %d", l, n)
			n++
		}
		if l.Inner > 0 {
			assert.Equal(t, l.Outer*l.Len, n, "%v rows", l)
		} else {
			assert.Zero(t, n)
		}
	}
	l := opkit.Lanes{Outer: 3, Len: 2, Inner: 2}
	n := 0
	for range l.All() {
		if n++; n == 2 {
			break
		}
	}
	for range l.Rows() {
		if n++; n == 4 {
			break
		}
	}
	assert.Equal(t, 4, n)
	assert.Equal(t, 12, l.Size())
}
