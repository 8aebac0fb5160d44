package tensor

import (
	"math"
	"math/rand/v2"
)

// RandN returns a fresh tensor of independent standard normal entries drawn from rng:
// N(0, 1) for a real dtype, and for a complex one real and imaginary parts each
// N(0, 1/2), so that E|z|^2 = 1. Single-precision entries are the double-precision
// draws rounded (the same rng gives the same values, rounded, in every precision). A
// nil rng draws from math/rand/v2's global source. It panics on a negative dim or an
// invalid dtype, like New; RandNOf returns those as errors.
func RandN(rng *rand.Rand, dt DType, shape ...int) *Dense {
	norm := rand.NormFloat64
	if rng != nil {
		norm = rng.NormFloat64
	}
	t := New(dt, shape...)
	switch dt {
	case Complex128:
		d := t.c128s()
		for i := range d {
			d[i] = complex(norm()*math.Sqrt2/2, norm()*math.Sqrt2/2)
		}
	case Complex64:
		d := t.c64s()
		for i := range d {
			d[i] = complex64(complex(norm()*math.Sqrt2/2, norm()*math.Sqrt2/2))
		}
	case Float32:
		d := t.f32s()
		for i := range d {
			d[i] = float32(norm())
		}
	default:
		d := t.f64s()
		for i := range d {
			d[i] = norm()
		}
	}
	return t
}

// RandUniform returns a fresh tensor of independent entries uniform on [lo, hi) drawn
// from rng; for a complex dtype the real and imaginary parts are each uniform on
// [lo, hi) (single-precision entries are the double-precision draws rounded, so
// they may equal hi). A nil rng draws from math/rand/v2's global source. It panics
// on a negative dim or an invalid dtype, like New; RandUniformOf returns those as
// errors.
func RandUniform(rng *rand.Rand, dt DType, lo, hi float64, shape ...int) *Dense {
	unif := rand.Float64
	if rng != nil {
		unif = rng.Float64
	}
	w := hi - lo
	t := New(dt, shape...)
	switch dt {
	case Complex128:
		d := t.c128s()
		for i := range d {
			d[i] = complex(lo+w*unif(), lo+w*unif())
		}
	case Complex64:
		d := t.c64s()
		for i := range d {
			d[i] = complex64(complex(lo+w*unif(), lo+w*unif()))
		}
	case Float32:
		d := t.f32s()
		for i := range d {
			d[i] = float32(lo + w*unif())
		}
	default:
		d := t.f64s()
		for i := range d {
			d[i] = lo + w*unif()
		}
	}
	return t
}

// Full returns a fresh tensor of dtype dt and the given shape with every element v,
// an int, a real or a complex number (Number): a real tensor holds real(v), a
// single-precision one v rounded. It panics on a negative dim or an invalid dtype,
// like New; FullOf returns those as errors.
func Full[S Number](dt DType, v S, shape ...int) *Dense { return full(dt, Complex128Of(v), shape...) }

// full is Full for a complex128 v.
func full(dt DType, v complex128, shape ...int) *Dense {
	t := New(dt, shape...)
	switch dt {
	case Complex128:
		fill(t.c128s(), v)
	case Complex64:
		fill(t.c64s(), complex64(v))
	case Float32:
		fill(t.f32s(), float32(real(v)))
	default:
		fill(t.f64s(), real(v))
	}
	return t
}

// fill sets every element of s to v.
func fill[T Numeric](s []T, v T) {
	for i := range s {
		s[i] = v
	}
}

// Ones returns a fresh tensor of ones, Full(dt, 1, shape...).
func Ones(dt DType, shape ...int) *Dense { return Full(dt, 1, shape...) }

// RandNOf is RandN reporting a bad request as an error instead of panicking: an
// error wrapping chainrules.ErrInvalidArgument for an invalid dtype, a negative dim
// or a shape too large for memory (see Alloc).
func RandNOf(rng *rand.Rand, dt DType, shape ...int) (*Dense, error) {
	if err := CheckAlloc(dt, shape...); err != nil {
		return nil, err
	}
	return RandN(rng, dt, shape...), nil
}

// RandUniformOf is RandUniform reporting a bad request as an error, as RandNOf.
func RandUniformOf(rng *rand.Rand, dt DType, lo, hi float64, shape ...int) (*Dense, error) {
	if err := CheckAlloc(dt, shape...); err != nil {
		return nil, err
	}
	return RandUniform(rng, dt, lo, hi, shape...), nil
}

// FullOf is Full reporting a bad request as an error, as RandNOf.
func FullOf[S Number](dt DType, v S, shape ...int) (*Dense, error) {
	if err := CheckAlloc(dt, shape...); err != nil {
		return nil, err
	}
	return Full(dt, v, shape...), nil
}
