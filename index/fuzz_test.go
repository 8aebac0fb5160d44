package index_test

import (
	"errors"
	"math"
	"testing"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/tensor"
)

// pyNorm normalises a slice bound the way CPython's PySlice_AdjustIndices does for a
// positive step: negative bounds count from the end, then clamp to [0, n].
func pyNorm(i, n int) int {
	if i < 0 {
		i += n
		if i < 0 {
			return 0
		}
	}
	if i > n {
		return n
	}
	return i
}

// FuzzSlice compares Slice on a 1-d tensor holding 0..n-1 with the membership
// definition of Python's x[start:stop:step], and checks that bad steps are errors,
// never panics.
func FuzzSlice(f *testing.F) {
	f.Add(5, 1, 100, 2)
	f.Add(5, -3, -1, 0)
	f.Add(0, 0, 0, 1)
	f.Add(7, 3, 2, 1)
	f.Add(4, 0, 4, -1)
	f.Add(5, 0, 5, math.MaxInt)
	f.Add(5, math.MinInt, math.MaxInt, 1)
	f.Fuzz(func(t *testing.T, n, start, stop, step int) {
		if n < 0 || n > 64 {
			return
		}
		data := make([]float64, n)
		for i := range data {
			data[i] = float64(i)
		}
		x, err := tensor.FromFloat64(data, n)
		if err != nil {
			t.Fatal(err)
		}
		y, err := index.Slice(x, index.Range{Start: start, Stop: stop, Step: step})
		if step < 0 {
			if !errors.Is(err, cr.ErrInvalidArgument) {
				t.Fatalf("step %d: got %v, want ErrInvalidArgument", step, err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if step == 0 {
			step = 1
		}
		lo, hi := pyNorm(start, n), pyNorm(stop, n)
		var want []float64
		for j := range n {
			if j >= lo && j < hi && (j-lo)%step == 0 {
				want = append(want, float64(j))
			}
		}
		got := y.Float64s()
		if len(got) != len(want) {
			t.Fatalf("x[%d:%d:%d] of %d: got %v, want %v", start, stop, step, n, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("x[%d:%d:%d] of %d: got %v, want %v", start, stop, step, n, got, want)
			}
		}
	})
}
