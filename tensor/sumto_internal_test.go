package tensor

import (
	"math"
	"math/rand/v2"
	"testing"
)

// SumTo's row paths (sumRows, for leading axes of a contiguous float64 tensor,
// and sumRowsShort for rows shorter than vecMin) give the strided walk's results
// bit for bit, and sumRows is taken where it applies.
func TestSumToRowsMatchWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, c := range []struct {
		from, to []int
		rows     bool
	}{
		{[]int{1024, 32}, []int{32}, true},
		{[]int{1024, 32}, []int{1, 32}, true},
		{[]int{3, 5, 40}, []int{5, 40}, true},
		{[]int{3, 5, 40}, []int{40}, true},
		{[]int{7, 16}, []int{16}, true},
		{[]int{7, 8}, []int{8}, false}, // shorter rows than vecMin: sumRowsShort
		{[]int{10000, 10}, []int{1, 10}, false},
		{[]int{1, 10}, []int{10}, false},
		{[]int{9, 2}, []int{2}, false},
		{[]int{3, 2, 4}, []int{2, 4}, false},
		{[]int{1001, 15}, []int{1, 15}, false},
		{[]int{50, 1}, []int{1}, false}, // one output: the walk's vmath.Sum
		{[]int{6, 32}, []int{6, 1}, false},
		{[]int{4, 3, 32}, []int{3, 1}, false},
	} {
		x := RandUniform(rng, Float64, -1e3, 1e3, c.from...)
		got, err := SumTo(x, c.to)
		if err != nil {
			t.Fatal(err)
		}
		want := New(Float64, c.to...)
		st := make([]int, len(x.shape))
		want.broadcastStrides(st, x.shape)
		sumInto(want.f64s(), x.f64s(), x.shape, st, x.strides, x.offset)
		for i, v := range want.f64s() {
			if math.Float64bits(got.f64s()[i]) != math.Float64bits(v) {
				t.Fatalf("%v to %v: [%d] = %v, walk %v", c.from, c.to, i, got.f64s()[i], v)
			}
		}
		if taken := sumsLeading(c.to, x) && len(want.f64s()) >= vecMin; taken != c.rows {
			t.Fatalf("%v to %v: row path %v, want %v", c.from, c.to, taken, c.rows)
		}
	}
}
