package reduce

import "github.com/chainrules-go/chainrules/internal/vmath"

// Tie positions of the lanes' extrema. The tangent (mean) and the pullback (split)
// of an extremum over contiguous lanes both look for the elements of each lane
// that attain its extremum; a Hessian-vector product (kmeans' minimum over the
// centroids) runs both, and a sweep may run either many times. The first call
// scans the lanes once and keeps, for each lane, the index of its one tie; the
// calls then read xdot at that index (mean) or clear the lane and write g there
// (split), and only lanes with several ties go through the element loops.

// lanePositions returns, when the lanes are contiguous (p.Inner == 1), the index in
// lane o of the one element that attains y_o, or -1 when several do. It scans the
// input once, on first use; the result is shared and read-only.
func (t *ties) lanePositions() []int {
	t.posOnce.Do(func() {
		p := t.p
		k := p.Len
		pos := make([]int, p.Count())
		forLanes(p.Lanes, func(lo, hi int) {
			for o := lo; o < hi; o++ {
				pos[o] = onlyTie(t.x[o*k:(o+1)*k], t.y[o], t.nan)
			}
		})
		t.pos = pos
	})
	return t.pos
}

// onlyTieVector is the lane length from which onlyTie searches with vmath's
// vectorised IndexEq (two calls) instead of its element loop.
const onlyTieVector = 32

// onlyTie returns the index of the one element of xs that attains y, or -1 when
// several do (or none: never for an extremum of xs). Without NaN outputs (nan
// false), a lane of onlyTieVector elements or more is searched with vmath.IndexEq:
// the first tie, then another after it; a shorter one by counting its ties.
//
//go:noinline
func onlyTie(xs []float64, y float64, nan bool) int {
	if !nan && len(xs) >= onlyTieVector {
		at := vmath.IndexEq(xs, y)
		if at < 0 || vmath.IndexEq(xs[at+1:], y) >= 0 {
			return -1
		}
		return at
	}
	if !nan {
		// Count the ties without leaving the loop: the compiler makes the
		// update a conditional move, where the early return's branch on a
		// random position mispredicts once a lane (a third of the time).
		at, c := -1, 0
		for k, v := range xs {
			if v == y {
				at = k
				c++
			}
		}
		if c != 1 {
			return -1
		}
		return at
	}
	at := -1
	for k, v := range xs {
		if v == y || (nan && v != v && y != y) {
			if at >= 0 {
				return -1
			}
			at = k
		}
	}
	return at
}
