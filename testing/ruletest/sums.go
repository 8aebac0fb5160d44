package ruletest

import (
	"fmt"
	"math"
	"math/cmplx"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

// checkSums checks r when it is a chainrules.SumPullbackRule: for a random
// cotangent ybar, given no sum and given SumSpace.SumOf(ybar), PullbackSum must
// append Pullback's contributions bit for bit (where the Space gives access to
// elements), one sum per contribution, and only sums equal, bit for bit, to
// SumOf of their contribution; and it must leave ybar as it was.
func (c *checker[V]) checkSums(r anyRule[V]) {
	sr, ok := r.r.(cr.SumPullbackRule[V])
	if !ok {
		c.skip(CheckSums, "", "the rule does not implement chainrules.SumPullbackRule")
		return
	}
	ss, ok := c.space.(cr.SumSpace[V])
	if !ok {
		c.failf(CheckSums, "", "the rule implements chainrules.SumPullbackRule but the Space %T is not a chainrules.SumSpace", c.space)
		return
	}
	c.sel = selection{on: []bool{true}}
	ybar := c.unitOut()
	want, err := protected(func() ([]cr.Contribution[V], error) {
		return r.pullback(c.cloneOut(ybar), c.sel.has(), nil)
	})
	if err != nil {
		c.fail(CheckSums, "", "Pullback failed", err)
		return
	}
	given := []cr.CotangentSum{{}}
	if s, ok := ss.SumOf(ybar[0]); ok {
		given = append(given, cr.CotangentSum{Value: s, Known: true})
	}
	for _, sum := range given {
		what := "PullbackSum without the cotangent's sum"
		if sum.Known {
			what = "PullbackSum given the cotangent's sum"
		}
		yb := c.space.Clone(ybar[0])
		var (
			cs   []cr.Contribution[V]
			sums []cr.CotangentSum
		)
		err := protect(func() error {
			var e error
			cs, sums, e = sr.PullbackSum(yb, sum, nil, nil)
			return e
		})
		if err != nil {
			c.fail(CheckSums, "", what+" failed", err)
			return
		}
		if f := c.compareVec(yb, ybar[0], 0, 0, 0); f != nil {
			f.Detail = what + " changed the cotangent: " + f.Detail
			c.add(CheckSums, "", f)
			return
		}
		if len(cs) != len(want) || len(sums) != len(cs) {
			c.failf(CheckSums, "", "%s returned %d contributions and %d sums, Pullback %d contributions", what, len(cs), len(sums), len(want))
			return
		}
		for k, ct := range cs {
			if ct.Node != want[k].Node {
				c.failf(CheckSums, "", "%s: contribution %d is for %v, Pullback's for %v", what, k, ct.Node, want[k].Node)
				return
			}
			if d := bitsDiffer(c.space, ct.Value, want[k].Value); d != "" {
				c.failf(CheckSums, "", "%s: contribution %d differs from Pullback's: %s", what, k, d)
				return
			}
			if !sums[k].Known {
				continue
			}
			s, ok := ss.SumOf(ct.Value)
			if !ok || !sameFloat(s, sums[k].Value) {
				c.failf(CheckSums, "", "%s: contribution %d's sum is %v, SumOf gives %v (ok %v)", what, k, sums[k].Value, s, ok)
				return
			}
		}
	}
	c.pass(CheckSums, "")
}

// bitsDiffer describes the first element where a and b differ in their bits (NaNs
// alike), or returns "" if they agree or the Space gives no access to elements.
func bitsDiffer[V any](space cr.Space[V], a, b V) string {
	ea, oka := elements(space, a)
	eb, okb := elements(space, b)
	if !oka || !okb {
		return ""
	}
	if len(ea) != len(eb) {
		return fmt.Sprintf("%d elements against %d", len(ea), len(eb))
	}
	for i := range ea {
		if !sameFloat(real(ea[i]), real(eb[i])) || !sameFloat(imag(ea[i]), imag(eb[i])) {
			if cmplx.IsNaN(ea[i]) && cmplx.IsNaN(eb[i]) {
				continue
			}
			return fmt.Sprintf("element %d is %v, want %v", i, ea[i], eb[i])
		}
	}
	return ""
}

// sameFloat reports whether a and b have the same bits, or are both NaN.
func sameFloat(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
}
