package lapack

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// TestStedc checks the divide-and-conquer eigenvectors of symmetric tridiagonal
// matrices (random, Wilkinson's W+, glued copies, constant diagonal with tiny
// off-diagonal, repeated eigenvalues through zero couplings, graded): the
// eigenvalues against Dsterf's, T Z = Z diag(w) and Z^T Z = I.
func TestStedc(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	type tri struct{ d, e []float64 }
	cases := map[string]tri{}
	for _, n := range []int{33, 64, 65, 100, 257} {
		d, e := randSlice(rng, n), randSlice(rng, n-1)
		cases["random"+strconv.Itoa(n)] = tri{d, e}
		wd, we := make([]float64, n), make([]float64, n-1)
		for i := range n {
			wd[i] = math.Abs(float64(i - n/2))
			if i < n-1 {
				we[i] = 1
			}
		}
		cases["wilkinson"+strconv.Itoa(n)] = tri{wd, we}
		cd, ce := make([]float64, n), make([]float64, n-1)
		for i := range n {
			cd[i] = 1
			if i < n-1 {
				ce[i] = 1e-9 * rng.Float64()
			}
		}
		cases["constant"+strconv.Itoa(n)] = tri{cd, ce}
		gd, ge := make([]float64, n), make([]float64, n-1)
		for i := range n {
			gd[i] = math.Pow(2, -float64(i%40))
			if i < n-1 {
				ge[i] = gd[i] * 0.5
			}
		}
		cases["graded"+strconv.Itoa(n)] = tri{gd, ge}
		// Glued Wilkinson matrices: copies of W21 coupled by 1e-10.
		ld, le := make([]float64, n), make([]float64, n-1)
		for i := range n {
			ld[i] = math.Abs(float64(i%21 - 10))
			if i < n-1 {
				le[i] = 1
				if i%21 == 20 {
					le[i] = 1e-10
				}
			}
		}
		cases["glued"+strconv.Itoa(n)] = tri{ld, le}
	}
	for name, c := range cases {
		n := len(c.d)
		w, z := make([]float64, n), make([]float64, n*n)
		if !tridiagEigDC(c.d, c.e, w, z) {
			t.Errorf("%s: stedc failed", name)
			continue
		}
		wr := slices.Clone(c.d)
		lapackGonum.Dsterf(n, wr, slices.Clone(c.e))
		norm := 0.0
		for i := range n {
			s := math.Abs(c.d[i])
			if i > 0 {
				s += math.Abs(c.e[i-1])
			}
			if i < n-1 {
				s += math.Abs(c.e[i])
			}
			norm = math.Max(norm, s)
		}
		for i := range n {
			if math.Abs(w[i]-wr[i]) > 1e-13*norm*float64(n) {
				t.Errorf("%s: w[%d] = %v, Dsterf %v", name, i, w[i], wr[i])
				break
			}
		}
		res, orth := 0.0, 0.0
		for j := range n {
			for i := range n {
				tz := c.d[i] * z[i*n+j]
				if i > 0 {
					tz += c.e[i-1] * z[(i-1)*n+j]
				}
				if i < n-1 {
					tz += c.e[i] * z[(i+1)*n+j]
				}
				res = math.Max(res, math.Abs(tz-w[j]*z[i*n+j]))
			}
		}
		g := make([]float64, n*n)
		Gemm(true, false, n, n, n, 1, z, n, z, n, 0, g, n)
		for i := range n {
			g[i*n+i]--
		}
		orth = maxAbsSlice(g)
		if res > 1e-13*norm*float64(n) || orth > 1e-13*float64(n) {
			t.Errorf("%s: residual %g (norm %g), orthogonality %g", name, res, norm, orth)
		}
	}
}
