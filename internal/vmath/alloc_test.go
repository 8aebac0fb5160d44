package vmath

import (
	"math"
	"testing"
)

func TestMakeNoZero(t *testing.T) {
	for _, n := range []int{0, 1, 100, noZeroBytes / 8, noZeroBytes/8 + 1, 1 << 20} {
		f := MakeNoZero[float64](n)
		c := MakeNoZero[complex128](n)
		if len(f) != n || cap(f) < n || len(c) != n || cap(c) < n {
			t.Fatalf("n = %d: lengths %d, %d", n, len(f), len(c))
		}
		for i := range f { // the memory is usable and distinct
			f[i], c[i] = float64(i), complex(float64(i), -1)
		}
		for i := range f {
			if f[i] != float64(i) || c[i] != complex(float64(i), -1) {
				t.Fatalf("n = %d: element %d reads back %v, %v", n, i, f[i], c[i])
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("a length whose byte size overflows must panic, as make does")
		}
	}()
	_ = MakeNoZero[complex128](math.MaxInt / 8)
}
