// sterf is derived from gonum's lapack/gonum/dsterf.go:
//
// Copyright ©2016 The Gonum Authors. All rights reserved.
// Use of that source code is governed by Gonum's BSD-style licence:
//
// Copyright ©2013 The Gonum Authors. All rights reserved.
//
// Redistribution and use in source and binary forms, with or without
// modification, are permitted provided that the following conditions are met:
//     * Redistributions of source code must retain the above copyright
//       notice, this list of conditions and the following disclaimer.
//     * Redistributions in binary form must reproduce the above copyright
//       notice, this list of conditions and the following disclaimer in the
//       documentation and/or other materials provided with the distribution.
//     * Neither the name of the Gonum project nor the names of its authors and
//       contributors may be used to endorse or promote products derived from this
//       software without specific prior written permission.
//
// THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS" AND
// ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE IMPLIED
// WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE ARE
// DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT HOLDER OR CONTRIBUTORS BE LIABLE
// FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL
// DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS OR
// SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER
// CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY,
// OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE
// OF THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.

package lapack

import (
	"math"

	"gonum.org/v1/gonum/lapack"
)

// recipMin is the least p for which sterf's sweeps divide through reciprocals.
const recipMin = 0x1p-900

// sterf is gonum's Dsterf (lapack/gonum/dsterf.go, Copyright ©2016 The Gonum
// Authors, BSD-style licence, from LAPACK's DSTERF): all eigenvalues of the
// symmetric tridiagonal matrix with diagonal d and subdiagonal e, in ascending
// order into d (e clobbered), by the Pal-Walker-Kahan variant of the QL or QR
// algorithm, and whether it converged. It differs in the inner loop of the two
// sweeps only. Each step there is a chain of dependent operations,
//
//	r = p + e_i^2,  c = p / r,  s = e_i^2 / r,  gamma = c (d_i - sigma) - s gamma',  p' = gamma^2 / c,
//
// whose two divisions, one after the other, make the latency of a step; with
// p/c = r (r = p / c) the step is computed as
//
//	u = 1/r,  v = 1/p,  c = p u,  s = e_i^2 u,  gamma = c (d_i - sigma) - s gamma',  p' = gamma^2 (r v),
//
// where 1/p is computed beside 1/r, so that one division is on the chain (2.40
// -> 2.01 ms for the eigenvalues of the tridiagonal matrix of a 512×512 symmetric
// matrix, on one core). Each operation has a relative error of a few units in the
// last place either way, so the eigenvalues agree with Dsterf's up to rounding
// (TestSterf). Below recipMin (where 1/p could overflow), and when c = 0, the
// step is Dsterf's. Its scaling of a block whose norm is near the ends of the
// float64 range passes the block to Dlascl as a column of leading dimension 1:
// Dsterf passes n, which Dlascl (row-major) takes for the distance between rows,
// and panics on a block of more than one row ("insufficient length of a").
func sterf(n int, d, e []float64) (ok bool) {
	if n < 0 {
		panic("lapack: n < 0")
	}

	// Quick return if possible.
	if n == 0 {
		return true
	}

	switch {
	case len(d) < n:
		panic("lapack: d too short")
	case len(e) < n-1:
		panic("lapack: e too short")
	}

	if n == 1 {
		return true
	}

	const (
		none = 0 // The values are not scaled.
		down = 1 // The values are scaled below ssfmax threshold.
		up   = 2 // The values are scaled below ssfmin threshold.
	)

	// Determine the unit roundoff for this environment.
	eps := 0x1p-53
	eps2 := eps * eps
	safmin := 0x1p-1022
	safmax := 1 / safmin
	ssfmax := math.Sqrt(safmax) / 3
	ssfmin := math.Sqrt(safmin) / eps2

	// Compute the eigenvalues of the tridiagonal matrix.
	maxit := 30
	nmaxit := n * maxit
	jtot := 0

	l1 := 0

	for {
		if l1 > n-1 {
			lapackGonum.Dlasrt(lapack.SortIncreasing, n, d)
			return true
		}
		if l1 > 0 {
			e[l1-1] = 0
		}
		var m int
		for m = l1; m < n-1; m++ {
			if math.Abs(e[m]) <= math.Sqrt(math.Abs(d[m]))*math.Sqrt(math.Abs(d[m+1]))*eps {
				e[m] = 0
				break
			}
		}

		l := l1
		lsv := l
		lend := m
		lendsv := lend
		l1 = m + 1
		if lend == 0 {
			continue
		}

		// Scale submatrix in rows and columns l to lend.
		anorm := lapackGonum.Dlanst(lapack.MaxAbs, lend-l+1, d[l:], e[l:])
		iscale := none
		if anorm == 0 {
			continue
		}
		if anorm > ssfmax {
			iscale = down
			lapackGonum.Dlascl(lapack.General, 0, 0, anorm, ssfmax, lend-l+1, 1, d[l:], 1)
			lapackGonum.Dlascl(lapack.General, 0, 0, anorm, ssfmax, lend-l, 1, e[l:], 1)
		} else if anorm < ssfmin {
			iscale = up
			lapackGonum.Dlascl(lapack.General, 0, 0, anorm, ssfmin, lend-l+1, 1, d[l:], 1)
			lapackGonum.Dlascl(lapack.General, 0, 0, anorm, ssfmin, lend-l, 1, e[l:], 1)
		}

		el := e[l:lend]
		for i, v := range el {
			el[i] *= v
		}

		// Choose between QL and QR iteration.
		if math.Abs(d[lend]) < math.Abs(d[l]) {
			lend = lsv
			l = lendsv
		}
		if lend >= l {
			// QL Iteration.
			// Look for small sub-diagonal element.
			for {
				if l != lend {
					for m = l; m < lend; m++ {
						if math.Abs(e[m]) <= eps2*(math.Abs(d[m]*d[m+1])) {
							break
						}
					}
				} else {
					m = lend
				}
				if m < lend {
					e[m] = 0
				}
				p := d[l]
				if m == l {
					// Eigenvalue found.
					l++
					if l > lend {
						break
					}
					continue
				}
				// If remaining matrix is 2 by 2, use Dlae2 to compute its eigenvalues.
				if m == l+1 {
					d[l], d[l+1] = lapackGonum.Dlae2(d[l], math.Sqrt(e[l]), d[l+1])
					e[l] = 0
					l += 2
					if l > lend {
						break
					}
					continue
				}
				if jtot == nmaxit {
					break
				}
				jtot++

				// Form shift.
				rte := math.Sqrt(e[l])
				sigma := (d[l+1] - p) / (2 * rte)
				r := lapackGonum.Dlapy2(sigma, 1)
				sigma = p - (rte / (sigma + math.Copysign(r, sigma)))

				c := 1.0
				s := 0.0
				gamma := d[m] - sigma
				p = gamma * gamma

				// Inner loop.
				for i := m - 1; i >= l; i-- {
					bb := e[i]
					r := p + bb
					if i != m-1 {
						e[i+1] = s * r
					}
					oldc := c
					oldgam := gamma
					alpha := d[i]
					if p >= recipMin {
						u, v := 1/r, 1/p
						c, s = p*u, bb*u
						gamma = c*(alpha-sigma) - s*oldgam
						d[i+1] = oldgam + (alpha - gamma)
						p = (gamma * gamma) * (r * v)
					} else {
						c = p / r
						s = bb / r
						gamma = c*(alpha-sigma) - s*oldgam
						d[i+1] = oldgam + (alpha - gamma)
						if c != 0 {
							p = (gamma * gamma) / c
						} else {
							p = oldc * bb
						}
					}
				}
				e[l] = s * p
				d[l] = sigma + gamma
			}
		} else {
			for {
				// QR Iteration.
				// Look for small super-diagonal element.
				for m = l; m > lend; m-- {
					if math.Abs(e[m-1]) <= eps2*math.Abs(d[m]*d[m-1]) {
						break
					}
				}
				if m > lend {
					e[m-1] = 0
				}
				p := d[l]
				if m == l {
					// Eigenvalue found.
					l--
					if l < lend {
						break
					}
					continue
				}

				// If remaining matrix is 2 by 2, use Dlae2 to compute its eigenvalues.
				if m == l-1 {
					d[l], d[l-1] = lapackGonum.Dlae2(d[l], math.Sqrt(e[l-1]), d[l-1])
					e[l-1] = 0
					l -= 2
					if l < lend {
						break
					}
					continue
				}
				if jtot == nmaxit {
					break
				}
				jtot++

				// Form shift.
				rte := math.Sqrt(e[l-1])
				sigma := (d[l-1] - p) / (2 * rte)
				r := lapackGonum.Dlapy2(sigma, 1)
				sigma = p - (rte / (sigma + math.Copysign(r, sigma)))

				c := 1.0
				s := 0.0
				gamma := d[m] - sigma
				p = gamma * gamma

				// Inner loop.
				for i := m; i < l; i++ {
					bb := e[i]
					r := p + bb
					if i != m {
						e[i-1] = s * r
					}
					oldc := c
					oldgam := gamma
					alpha := d[i+1]
					if p >= recipMin {
						u, v := 1/r, 1/p
						c, s = p*u, bb*u
						gamma = c*(alpha-sigma) - s*oldgam
						d[i] = oldgam + alpha - gamma
						p = (gamma * gamma) * (r * v)
					} else {
						c = p / r
						s = bb / r
						gamma = c*(alpha-sigma) - s*oldgam
						d[i] = oldgam + alpha - gamma
						if c != 0 {
							p = (gamma * gamma) / c
						} else {
							p = oldc * bb
						}
					}
				}
				e[l-1] = s * p
				d[l] = sigma + gamma
			}
		}

		// Undo scaling if necessary
		switch iscale {
		case down:
			lapackGonum.Dlascl(lapack.General, 0, 0, ssfmax, anorm, lendsv-lsv+1, 1, d[lsv:], 1)
		case up:
			lapackGonum.Dlascl(lapack.General, 0, 0, ssfmin, anorm, lendsv-lsv+1, 1, d[lsv:], 1)
		}

		// Check for no convergence to an eigenvalue after a total of n*maxit iterations.
		if jtot >= nmaxit {
			break
		}
	}
	for _, v := range e[:n-1] {
		if v != 0 {
			return false
		}
	}
	lapackGonum.Dlasrt(lapack.SortIncreasing, n, d)
	return true
}
