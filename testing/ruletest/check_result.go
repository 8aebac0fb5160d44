package ruletest

import (
	"errors"
	"fmt"
	"math"
	"math/cmplx"
	"slices"
	"strings"
	"testing"
)

// result is the outcome of one check on one input: a failure, a skip, or a pass.
// output names the round of output cotangents ("y1", "all") for a multi-output op.
type result struct {
	check, output, input string
	fail                 *Failure
	skip                 string
}

// report turns results into subtests of t (or plain errors when t is not a
// *testing.T and cannot have subtests). A check that does not apply gets no
// subtest: its reason is logged on t (t.Log), which go test prints only with -v or
// when t fails, so that a passing check prints nothing.
func report(t testing.TB, rs []result) {
	t.Helper()
	for _, r := range rs {
		name := r.check
		if r.output != "" {
			name += "/" + r.output
		}
		if r.input != "" {
			name += "/" + r.input
		}
		if r.fail == nil && r.skip != "" {
			t.Logf("%s: not checked: %s", name, r.skip)
			continue
		}
		if tt, ok := t.(*testing.T); ok {
			tt.Run(name, func(t *testing.T) {
				t.Helper()
				emit(t, r)
			})
			continue
		}
		emit(t, r)
	}
}

func emit(t testing.TB, r result) {
	t.Helper()
	if r.fail != nil {
		t.Error(r.fail)
	}
}

func joinResults(rs []result) error {
	var errs []error
	for _, r := range rs {
		if r.fail != nil {
			errs = append(errs, r.fail)
		}
	}
	return errors.Join(errs...)
}

// label names input k in failures: "x1 float64[3 4]".
func (c *checker[V]) label(k int) string {
	return fmt.Sprintf("x%d %s", k, c.space.Describe(c.inputs[k]))
}

// outLabel names output m in failures: "y1 float64[3 4]".
func (c *checker[V]) outLabel(m int) string {
	return fmt.Sprintf("y%d %s", m, c.space.Describe(c.ys[m]))
}

// selLabel names the outputs of the current round, or "" for a single-output op.
func (c *checker[V]) selLabel() string {
	if !c.multi {
		return ""
	}
	var parts []string
	for m, on := range c.sel.on {
		if on {
			parts = append(parts, c.outLabel(m))
		}
	}
	return strings.Join(parts, " and ")
}

func (c *checker[V]) pass(check, input string) {
	c.res = append(c.res, result{check: check, output: c.sel.name, input: input})
}

func (c *checker[V]) skip(check, input, why string) {
	c.res = append(c.res, result{check: check, output: c.sel.name, input: input, skip: why})
}

func (c *checker[V]) add(check, input string, f *Failure) {
	if f == nil {
		c.pass(check, input)
		return
	}
	f.Rule, f.Check, f.Seed = c.rule, check, c.cfg.Seed
	if f.Output == "" {
		f.Output = c.selLabel()
	}
	c.res = append(c.res, result{check: check, output: c.sel.name, input: input, fail: f})
}

func (c *checker[V]) fail(check, input, detail string, err error) {
	c.add(check, input, &Failure{Input: c.inputLabel(input), Detail: detail, Err: err})
}

func (c *checker[V]) failf(check, input, format string, args ...any) {
	c.fail(check, input, fmt.Sprintf(format, args...), nil)
}

// inputLabel expands a subtest input name "x1" into its failure label.
func (c *checker[V]) inputLabel(input string) string {
	var k int
	if _, err := fmt.Sscanf(input, "x%d", &k); err == nil && k >= 0 && k < len(c.inputs) && input == fmt.Sprintf("x%d", k) {
		return c.label(k)
	}
	return input
}

// compareOut compares the selected slots of got and want (on: which slots) as
// compareVec does, naming the first output that differs.
func (c *checker[V]) compareOut(got, want []V, on []bool, atol, rtol float64) *Failure {
	for m, o := range on {
		if !o {
			continue
		}
		if f := c.compareVec(got[m], want[m], atol, rtol, 0); f != nil {
			if c.multi {
				f.Output = c.outLabel(m)
			}
			return f
		}
	}
	return nil
}

// compareInputs compares got[k] with want[k] for every input k at the exact
// tolerance, as compareVec does, and returns the first difference, labelled with its
// input and its Detail prefixed with what; nil if they agree.
func (c *checker[V]) compareInputs(got, want []V, what string) *Failure {
	for k := range c.inputs {
		if f := c.compareVec(got[k], want[k], c.tol.exactAtol, c.tol.exactRtol, 0); f != nil {
			f.Input, f.Detail = c.label(k), what+f.Detail
			return f
		}
	}
	return nil
}

// resultFailure is the failure of a call of method that returned the per-input
// values got or err: "method failed" with err, or else compareInputs(got, want,
// what). It is nil if the call succeeded and got agrees with want.
func (c *checker[V]) resultFailure(method string, got, want []V, err error, what string) *Failure {
	if err != nil {
		return &Failure{Detail: method + " failed", Err: err}
	}
	return c.compareInputs(got, want, what)
}

// compareVec compares the rule's value got with the reference want:
// |got_i - want_i| <= atol + rtol * max(||got||_inf, ||want||_inf, floor), naming
// the worst element. floor is a known bound on the size of the terms want was
// summed from, when cancellation may make want small. It returns nil when they
// agree.
func (c *checker[V]) compareVec(got, want V, atol, rtol, floor float64) *Failure {
	if !slices.Equal(c.space.Shape(got), c.space.Shape(want)) || c.space.DType(got) != c.space.DType(want) {
		return &Failure{Detail: fmt.Sprintf("rule gives %s, reference is %s", c.space.Describe(got), c.space.Describe(want))}
	}
	g, okG := elements(c.space, got)
	w, okW := elements(c.space, want)
	if !okG || !okW {
		d, err := c.space.Add(got, c.space.Scale(want, -1))
		if err != nil {
			return &Failure{Detail: "cannot subtract", Err: err}
		}
		nd, ng, nw := c.norm(d), c.norm(got), c.norm(want)
		n := float64(max(1, c.space.Size(got)))
		if !(nd <= atol*math.Sqrt(n)+rtol*max(ng, nw, floor)) {
			return &Failure{Detail: fmt.Sprintf("||got - want|| = %.3g with ||got|| = %.6g, ||want|| = %.6g", nd, ng, nw)}
		}
		return nil
	}
	// The scale comes from the finite values alone: an infinity in got must not
	// make every difference pass (Inf <= Inf). A non-finite value where the
	// reference differs is a failure.
	scale, worst, at := floor, -1.0, 0
	for i := range g {
		if a := absC(g[i]); !math.IsInf(a, 0) && !math.IsNaN(a) {
			scale = math.Max(scale, a)
		}
		if a := absC(w[i]); !math.IsInf(a, 0) && !math.IsNaN(a) {
			scale = math.Max(scale, a)
		}
		d := absC(g[i] - w[i])
		if g[i] == w[i] {
			d = 0
		}
		if math.IsNaN(d) {
			d = math.Inf(1)
		}
		if d > worst {
			worst, at = d, i
		}
	}
	if len(g) == 0 || (!math.IsInf(worst, 0) && worst <= atol+rtol*scale) {
		return nil
	}
	var idx []int
	if shape := c.space.Shape(got); len(shape) > 0 {
		idx = unravel(at, shape)
	}
	return &Failure{Index: idx, Got: g[at], Want: w[at], HasValues: true,
		Detail: fmt.Sprintf("tolerance %.3g + %.3g * %.6g", atol, rtol, scale)}
}

// compareScalar compares got with want at tolerance atol + rtol * scale. A
// non-finite got (or want) that differs from the other is a failure whatever the
// scale, which an infinite rule value would make infinite too.
func compareScalar(got, want, scale, atol, rtol float64) *Failure {
	d := math.Abs(got - want)
	if got == want || (!math.IsInf(d, 0) && !math.IsNaN(d) && d <= atol+rtol*scale) {
		return nil
	}
	return &Failure{Got: complex(got, 0), Want: complex(want, 0), HasValues: true,
		Detail: fmt.Sprintf("tolerance %.3g + %.3g * %.6g", atol, rtol, scale)}
}

func formatValue(z complex128) string {
	if imag(z) == 0 {
		return fmt.Sprintf("%.10g", real(z))
	}
	return fmt.Sprintf("(%.10g%+.10gi)", real(z), imag(z))
}

func absC(z complex128) float64 {
	if imag(z) == 0 {
		return math.Abs(real(z))
	}
	return cmplx.Abs(z)
}

// isNaN reports whether either part of z is a NaN.
func isNaN(z complex128) bool { return math.IsNaN(real(z)) || math.IsNaN(imag(z)) }
