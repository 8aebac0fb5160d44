package lapack

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// sterf agrees with gonum's Dsterf up to rounding (within 2 n eps ||T||) and
// converges where it does, on random tridiagonal matrices of many orders, on
// matrices scaled near the ends of the float64 range (Dsterf's scaling), on
// graded ones whose steps run below recipMin (the division form), with zero
// subdiagonal entries (split blocks), on Wilkinson's W21+ (pairs of close
// eigenvalues) and on the tridiagonal matrix of a 512×512 symmetric matrix.
func TestSterf(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	// scale, when set, multiplies d and e (exactly, a power of two) and want is
	// Dsterf's eigenvalues of the unscaled matrix times scale: Dsterf itself
	// panics on blocks that it scales.
	// rel, when set, asks for relative agreement (graded matrices, whose small
	// eigenvalues both compute to many digits).
	type tri struct {
		name  string
		d, e  []float64
		scale float64
		rel   float64
	}
	var cases []tri
	for _, n := range []int{1, 2, 3, 5, 17, 64, 129, 300} {
		d, e := randSlice(rng, n), randSlice(rng, max(n-1, 0))
		cases = append(cases, tri{fmt.Sprint("random ", n), d, e, 0, 0})
		for _, sc := range []float64{0x1p-700, 0x1p700} {
			cases = append(cases, tri{fmt.Sprintf("random %d scaled %g", n, sc), d, e, sc, 0})
		}
		for _, decades := range []float64{140, 300} {
			dg, eg := make([]float64, n), make([]float64, max(n-1, 0))
			for i := range n {
				dg[i] = math.Pow(10, -decades*float64(i)/float64(n)) * (1 + rng.Float64())
				if i < n-1 {
					eg[i] = math.Pow(10, -decades*(float64(i)+0.5)/float64(n)) * rng.NormFloat64()
				}
			}
			cases = append(cases, tri{fmt.Sprintf("graded %d over %g decades", n, decades), dg, eg, 0, 1e-8})
		}
		if n > 3 {
			ez := slices.Clone(e)
			ez[n/2], ez[n/3] = 0, 0
			cases = append(cases, tri{fmt.Sprint("split ", n), slices.Clone(d), ez, 0, 0})
		}
	}
	w := make([]float64, 21)
	for i := range w {
		w[i] = math.Abs(float64(i - 10))
	}
	cases = append(cases, tri{"W21+", w, slices.Repeat([]float64{1}, 20), 0, 0})
	const n = 512
	a := spd(rng, n)
	d, e, tau := make([]float64, n), make([]float64, n-1), make([]float64, n-1)
	sytrdLower(a, n, d, e, tau)
	cases = append(cases, tri{"sytrd 512", d, e, 0, 0})
	for _, c := range cases {
		n := len(c.d)
		norm := 0.0
		for i := range n {
			r := math.Abs(c.d[i])
			if i > 0 {
				r += math.Abs(c.e[i-1])
			}
			if i < n-1 {
				r += math.Abs(c.e[i])
			}
			norm = max(norm, r)
		}
		want, we := slices.Clone(c.d), slices.Clone(c.e)
		okWant := lapackGonum.Dsterf(n, want, we)
		got, ge := slices.Clone(c.d), slices.Clone(c.e)
		if c.scale != 0 {
			for i := range want {
				want[i] *= c.scale
				got[i] *= c.scale
			}
			for i := range ge {
				ge[i] *= c.scale
			}
			norm *= c.scale
		}
		ok := sterf(n, got, ge)
		if ok != okWant {
			t.Errorf("%s: converged %v, Dsterf %v", c.name, ok, okWant)
			continue
		}
		tol := 2 * float64(n) * 0x1p-52 * norm
		for i := range n {
			if c.rel > 0 {
				tol = c.rel * math.Abs(want[i])
			}
			if d := math.Abs(got[i] - want[i]); !(d <= tol) {
				t.Errorf("%s: w[%d] = %v, Dsterf %v (difference %g, tolerance %g)", c.name, i, got[i], want[i], d, tol)
				break
			}
		}
	}
}
