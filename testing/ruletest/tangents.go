package ruletest

import (
	"math"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

// ---- output cotangents: one slot per output, meaningful where c.sel.on ----

// unitOut returns random cotangents on the selected outputs, of unit norm in
// total; the other slots hold V's zero value, as the engine passes them.
func (c *checker[V]) unitOut() []V {
	out := make([]V, len(c.ys))
	total := 0.0
	for m, on := range c.sel.on {
		if on {
			out[m] = c.space.Rand(c.ys[m], c.rng)
			n := c.norm(out[m])
			total += n * n
		}
	}
	if total > 0 && !math.IsInf(total, 0) && !math.IsNaN(total) {
		for m, on := range c.sel.on {
			if on {
				out[m] = c.space.Scale(out[m], 1/math.Sqrt(total))
			}
		}
	}
	return out
}

// zeroOut returns zero cotangents on the selected outputs.
func (c *checker[V]) zeroOut() []V {
	out := make([]V, len(c.ys))
	for m, on := range c.sel.on {
		if on {
			out[m] = c.space.Zero(c.ys[m])
		}
	}
	return out
}

// cloneOut returns private copies of the selected slots of v.
func (c *checker[V]) cloneOut(v []V) []V {
	out := make([]V, len(v))
	for m, on := range c.sel.on {
		if on {
			out[m] = c.space.Clone(v[m])
		}
	}
	return out
}

// combineOut returns a v + b w on the selected outputs.
func (c *checker[V]) combineOut(a float64, v []V, b float64, w []V) ([]V, error) {
	out := make([]V, len(v))
	for m, on := range c.sel.on {
		if on {
			s, err := c.space.Add(c.space.Scale(v[m], a), c.space.Scale(w[m], b))
			if err != nil {
				return nil, err
			}
			out[m] = s
		}
	}
	return out, nil
}

// innerOut returns sum_m <a_m, b_m> over the selected outputs and the sum of the
// Cauchy-Schwarz bounds.
func (c *checker[V]) innerOut(a, b []V) (v, bound float64, err error) {
	return c.innerSum(a, b, c.sel.on)
}

// dualOut returns the cotangent pairs (v_m, t_m) of the selected outputs (t nil:
// tangents absent).
func (c *checker[V]) dualOut(v, t []V) []cr.Dual[V] {
	ct := make([]cr.Dual[V], len(c.ys))
	for m, on := range c.sel.on {
		if on {
			ct[m].Value = v[m]
			if t != nil {
				ct[m].Tangent, ct[m].HasTangent = t[m], true
			}
		}
	}
	return ct
}

// mulIOut returns i times the complex selected slots of v, the real ones as they
// are, or false when no selected output is complex.
func (c *checker[V]) mulIOut(v []V) ([]V, bool) {
	out, any := slices.Clone(v), false
	for m, on := range c.sel.on {
		if on && c.cplxY[m] {
			if iv, ok := c.mulI(v[m]); ok {
				out[m], any = iv, true
			}
		}
	}
	return out, any
}

// variantsOut returns ybar and, when a selected output is complex, its imaginary
// variant (see mulIOut).
func (c *checker[V]) variantsOut(v []V) []variant[[]V] {
	out := []variant[[]V]{{v: v, name: "real"}}
	if iv, ok := c.mulIOut(v); ok {
		out = append(out, variant[[]V]{v: iv, name: "imaginary"})
	}
	return out
}

// unit returns a random value like v scaled to unit norm (zero stays zero).
func (c *checker[V]) unit(like V) V {
	return c.normalize(c.space.Rand(like, c.rng))
}

func (c *checker[V]) normalize(v V) V {
	n := c.norm(v)
	if n == 0 || math.IsNaN(n) || math.IsInf(n, 0) {
		return v
	}
	return c.space.Scale(v, 1/n)
}

func (c *checker[V]) norm(v V) float64 {
	s, err := c.space.Inner(v, v)
	if err != nil {
		return math.NaN()
	}
	return math.Sqrt(math.Max(s, 0))
}

// mulI returns i*v for a complex value, through element access (see ElementSpace).
func (c *checker[V]) mulI(v V) (V, bool) {
	e, ok := elements(c.space, v)
	if !ok {
		return v, false
	}
	for i, z := range e {
		e[i] = complex(-imag(z), real(z))
	}
	w, ok, err := fromElements(c.space, v, e)
	return w, ok && err == nil
}

// variants returns v and, for a complex value, i*v: the real and imaginary
// directions of PyTorch's gradcheck.
func (c *checker[V]) variants(v V, complexValue bool) []variant[V] {
	out := []variant[V]{{v: v, name: "real"}}
	if complexValue {
		if iv, ok := c.mulI(v); ok {
			out = append(out, variant[V]{v: iv, name: "imaginary"})
		}
	}
	return out
}

type variant[V any] struct {
	v    V
	name string
}

// maxAbs returns max_i |x_i| over the inputs that move, falling back to the RMS
// value when elements are not accessible.
func (c *checker[V]) maxAbs(present []bool) float64 {
	m := 0.0
	for k, x := range c.inputs {
		if !present[k] {
			continue
		}
		if e, ok := elements(c.space, x); ok {
			for _, z := range e {
				m = math.Max(m, absC(z))
			}
			continue
		}
		if n := c.space.Size(x); n > 0 {
			m = math.Max(m, c.norm(x)/math.Sqrt(float64(n)))
		}
	}
	return m
}

// only returns directions with v at input k and nothing elsewhere.
func (c *checker[V]) only(k int, v V) ([]V, []bool) {
	dirs, present := make([]V, len(c.inputs)), make([]bool, len(c.inputs))
	dirs[k], present[k] = v, true
	return dirs, present
}

// joint returns a random direction over every differentiable input, of unit norm
// in total.
func (c *checker[V]) joint() ([]V, []bool) {
	dirs, present := make([]V, len(c.inputs)), make([]bool, len(c.inputs))
	total := 0.0
	for k, x := range c.inputs {
		if c.diff[k] {
			dirs[k], present[k] = c.space.Rand(x, c.rng), true
			n := c.norm(dirs[k])
			total += n * n
		}
	}
	if total > 0 {
		for k := range dirs {
			if present[k] {
				dirs[k] = c.space.Scale(dirs[k], 1/math.Sqrt(total))
			}
		}
	}
	return dirs, present
}

// jointI returns i times a joint direction on its complex inputs, or false if no
// input is complex.
func (c *checker[V]) jointI(dirs []V, present []bool) ([]V, bool) {
	out, any := make([]V, len(dirs)), false
	for k, v := range dirs {
		out[k] = v
		if present[k] && c.cplx[k] {
			if iv, ok := c.mulI(v); ok {
				out[k], any = iv, true
			}
		}
	}
	return out, any
}

// inner returns <a, b> and ||a|| ||b||, its Cauchy-Schwarz bound.
func (c *checker[V]) inner(a, b V) (v, bound float64, err error) {
	v, err = c.space.Inner(a, b)
	return v, c.norm(a) * c.norm(b), err
}

// innerSum returns sum_k <a_k, b_k> over the present inputs and the sum of bounds.
func (c *checker[V]) innerSum(a, b []V, present []bool) (v, bound float64, err error) {
	for k := range a {
		if !present[k] {
			continue
		}
		x, bd, e := c.inner(a[k], b[k])
		if e != nil {
			return 0, 0, e
		}
		v, bound = v+x, bound+bd
	}
	return v, bound, nil
}

// renormalize scales the present directions to unit total norm.
func (c *checker[V]) renormalize(dirs []V, present []bool) []V {
	total := 0.0
	for k, v := range dirs {
		if present[k] {
			n := c.norm(v)
			total += n * n
		}
	}
	if total == 0 {
		return dirs
	}
	out := slices.Clone(dirs)
	for k := range out {
		if present[k] {
			out[k] = c.space.Scale(out[k], 1/math.Sqrt(total))
		}
	}
	return out
}
