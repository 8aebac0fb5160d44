package tensor

import (
	"math"
	"math/rand/v2"
)

// RandN returns a fresh tensor of independent standard normal entries drawn from rng:
// N(0, 1) for float64, and for complex128 real and imaginary parts each N(0, 1/2), so
// that E|z|^2 = 1. A nil rng draws from math/rand/v2's global source. It panics on a
// negative dim, like New.
func RandN(rng *rand.Rand, dt DType, shape ...int) *Dense {
	norm := rand.NormFloat64
	if rng != nil {
		norm = rng.NormFloat64
	}
	t := New(dt, shape...)
	if dt == Complex128 {
		for i := range t.c128 {
			t.c128[i] = complex(norm()*math.Sqrt2/2, norm()*math.Sqrt2/2)
		}
		return t
	}
	for i := range t.f64 {
		t.f64[i] = norm()
	}
	return t
}

// RandUniform returns a fresh tensor of independent entries uniform on [lo, hi) drawn
// from rng; for complex128 the real and imaginary parts are each uniform on
// [lo, hi). A nil rng draws from math/rand/v2's global source. It panics on a
// negative dim, like New.
func RandUniform(rng *rand.Rand, dt DType, lo, hi float64, shape ...int) *Dense {
	unif := rand.Float64
	if rng != nil {
		unif = rng.Float64
	}
	w := hi - lo
	t := New(dt, shape...)
	if dt == Complex128 {
		for i := range t.c128 {
			t.c128[i] = complex(lo+w*unif(), lo+w*unif())
		}
		return t
	}
	for i := range t.f64 {
		t.f64[i] = lo + w*unif()
	}
	return t
}

// Full returns a fresh tensor of dtype dt and the given shape with every element v (a
// float64 tensor holds real(v)). It panics on a negative dim, like New.
func Full(dt DType, v complex128, shape ...int) *Dense {
	t := New(dt, shape...)
	if dt == Complex128 {
		for i := range t.c128 {
			t.c128[i] = v
		}
		return t
	}
	r := real(v)
	for i := range t.f64 {
		t.f64[i] = r
	}
	return t
}

// Ones returns a fresh tensor of ones, Full(dt, 1, shape...).
func Ones(dt DType, shape ...int) *Dense { return Full(dt, 1, shape...) }
