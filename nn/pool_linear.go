package nn

import (
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/internal/vmath"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// The linear ops of this file's family (avg_pool, adaptive_avg_pool, interpolate)
// are separable: along each spatial axis a sparse matrix A_a maps the input
// positions to the output positions, and the op is
//
//	y = factor (A_1 ⊗ ... ⊗ A_d) x    applied to every (n, c) plane,
//
// computed one axis at a time (the last spatial axis first). Its adjoint applies
// the transposes A_a^T and the same factor. The ops use chainrules.LinearRule, so
// their recorded pullbacks (the adjoint as an op, whose adjoint is the map) reach
// every order.

// axisMap is a sparse matrix A of m rows and n columns along one axis:
//
//	out[j] = sum_{e in [start[j], start[j+1])} w[e] in[src[e]].
type axisMap struct {
	n, m  int
	start []int
	src   []int
	w     []float64
	// Set by prepare (newSepMap): win when every row is a run of consecutive inputs with
	// one weight (the windows of average pooling), uni when moreover every
	// weight is uw (the map is uw times a 0/1 matrix).
	win, uni bool
	uw       float64
	lo, ln   []int32 // the windows when win: row j sums inputs [lo[j], lo[j]+ln[j])
	// t is A^T when A is windowed, and its rows too are windows (uniform
	// weights, windows moving forward): the adjoint then gathers rows of
	// A^T instead of scattering rows of A into a cleared output.
	t *axisMap
}

// newAxisMap returns an empty map from n positions to none; rows are appended with
// add and closed with next.
func newAxisMap(n, m int) *axisMap {
	return &axisMap{n: n, m: m, start: make([]int, 1, m+1)}
}

// add appends the entry (i, w) to the current row.
func (a *axisMap) add(i int, w float64) {
	a.src = append(a.src, i)
	a.w = append(a.w, w)
}

// next closes the current row.
func (a *axisMap) next() { a.start = append(a.start, len(a.src)) }

// row appends the row of the inputs [lo, hi), each with weight w, and closes it.
func (a *axisMap) row(lo, hi int, w float64) {
	for h := lo; h < hi; h++ {
		a.add(h, w)
	}
	a.next()
}

// identity reports whether A is the identity (output j is input j with weight 1).
func (a *axisMap) identity() bool {
	if a.n != a.m || len(a.src) != a.m {
		return false
	}
	for j := range a.m {
		if a.src[j] != j || a.w[j] != 1 || a.start[j+1] != j+1 {
			return false
		}
	}
	return true
}

// prepare sets win, uni, uw and t.
func (a *axisMap) prepare() {
	a.classify()
	if a.win {
		t := a.transpose()
		if t.classify(); t.win {
			a.t = t
		}
	}
}

// classify sets win, uni and uw.
func (a *axisMap) classify() {
	a.win, a.uni = true, len(a.w) > 0
	if a.uni {
		a.uw = a.w[0]
	}
	for j := range a.m {
		for e := a.start[j]; e < a.start[j+1]; e++ {
			if a.src[e] != a.src[a.start[j]]+e-a.start[j] || a.w[e] != a.w[a.start[j]] {
				a.win = false
			}
			if a.w[e] != a.uw {
				a.uni = false
			}
		}
	}
	a.uni = a.uni && a.win
	a.lo, a.ln = nil, nil
	if a.win {
		a.lo, a.ln = make([]int32, a.m), make([]int32, a.m)
		for j := range a.m {
			if e := a.start[j]; e < a.start[j+1] {
				a.lo[j], a.ln[j] = int32(a.src[e]), int32(a.start[j+1]-e)
			}
		}
	}
}

// transpose returns A^T, its rows in order of the inputs of A.
func (a *axisMap) transpose() *axisMap {
	t := newAxisMap(a.m, a.n)
	count := make([]int, a.n+1)
	for _, h := range a.src {
		count[h+1]++
	}
	for h := range a.n {
		count[h+1] += count[h]
	}
	t.start = slices.Clone(count)
	t.src, t.w = make([]int, len(a.src)), make([]float64, len(a.w))
	for j := range a.m {
		for e := a.start[j]; e < a.start[j+1]; e++ {
			h := a.src[e]
			t.src[count[h]], t.w[count[h]] = j, a.w[e]
			count[h]++
		}
	}
	return t
}

// mapWindows is mapAxis for a map whose rows are windows (a.win): output j
// is mult w_j times the sum of the inputs [lo_j, hi_j), w_j = 1 when unit
// (the caller applies the uniform weight uw elsewhere). Rows of the last
// axis sum in a register for A and add into dst for A^T; longer rows are sums
// of whole rows of inner values in vectorised adds (addTo), scaled once.
func mapWindows[E floating](a *axisMap, dst, src []E, outer, inner int, adjoint, unit bool, mult E) {
	x, y := src, dst // x on the n side, y on the m side
	if adjoint {
		x, y = dst, src
		clear(dst)
	}
	for o := range outer {
		xo, yo := x[o*a.n*inner:(o+1)*a.n*inner], y[o*a.m*inner:(o+1)*a.m*inner]
		if inner == 1 && !adjoint && unit {
			sumWindows(a, xo, yo, mult)
			continue
		}
		for j := range a.m {
			e0, e1 := a.start[j], a.start[j+1]
			w := mult
			if !unit && e1 > e0 {
				w *= E(a.w[e0])
			}
			if e0 == e1 {
				if !adjoint {
					clear(yo[j*inner : (j+1)*inner])
				}
				continue
			}
			lo, hi := a.src[e0], a.src[e0]+e1-e0
			if inner == 1 {
				if adjoint {
					v := w * yo[j]
					for h := lo; h < hi; h++ {
						xo[h] += v
					}
					continue
				}
				var s E
				if r := xo[lo:hi]; len(r) == 3 {
					s = r[0] + r[1] + r[2]
				} else {
					for _, v := range r {
						s += v
					}
				}
				yo[j] = w * s
				continue
			}
			yr := yo[j*inner : (j+1)*inner]
			if adjoint {
				for h := lo; h < hi; h++ {
					xr := xo[h*inner : (h+1)*inner]
					if w == 1 {
						addTo(xr, yr)
					} else {
						axpyRow(xr, w, yr)
					}
				}
				continue
			}
			copy(yr, xo[lo*inner:(lo+1)*inner])
			for h := lo + 1; h < hi; h++ {
				addTo(yr, xo[h*inner:(h+1)*inner])
			}
			if w != 1 {
				for k := range yr {
					yr[k] *= w
				}
			}
		}
	}
}

// sumWindows sets y[j] = w sum(x[lo_j : lo_j + len_j]) for the windows of
// a (a.win) in a loop without the map's per-row weights, windows of up to
// three inputs (the pools' k <= 3, and A^T's rows for stride 2) summed
// without a loop.
func sumWindows[E floating](a *axisMap, x, y []E, w E) {
	lo, ln := a.lo[:len(y)], a.ln[:len(y)]
	for j := range y {
		l := int(lo[j])
		switch ln[j] {
		case 0:
			y[j] = 0
		case 1:
			y[j] = w * x[l]
		case 2:
			r := x[l : l+2 : l+2]
			y[j] = w * (r[0] + r[1])
		case 3:
			r := x[l : l+3 : l+3]
			y[j] = w * (r[0] + r[1] + r[2])
		default:
			var s E
			for _, v := range x[l : l+int(ln[j])] {
				s += v
			}
			y[j] = w * s
		}
	}
}

// mapAxis writes into dst A (adjoint false) or A^T applied along the middle
// axis of src: src [outer, n, inner] to dst [outer, m, inner] for A, src
// [outer, m, inner] to dst [outer, n, inner] for A^T. Rows of one element (the
// last axis) sum in a register for A and add into dst for A^T; longer rows are
// axpys either way.
func mapAxis[E floating](a *axisMap, dst, src []E, outer, inner int, adjoint bool) {
	clear(dst)
	x, y := src, dst // x on the n side, y on the m side
	if adjoint {
		x, y = dst, src
	}
	for o := range outer {
		xo, yo := x[o*a.n*inner:(o+1)*a.n*inner], y[o*a.m*inner:(o+1)*a.m*inner]
		switch {
		case inner == 1 && adjoint:
			for j, v := range yo {
				for e := a.start[j]; e < a.start[j+1]; e++ {
					xo[a.src[e]] += E(a.w[e]) * v
				}
			}
		case inner == 1:
			for j := range a.m {
				var s E
				for e := a.start[j]; e < a.start[j+1]; e++ {
					s += E(a.w[e]) * xo[a.src[e]]
				}
				yo[j] = s
			}
		default:
			for j := range a.m {
				yr := yo[j*inner : (j+1)*inner]
				for e := a.start[j]; e < a.start[j+1]; e++ {
					w, xr := E(a.w[e]), xo[a.src[e]*inner:(a.src[e]+1)*inner]
					if adjoint {
						axpyRow(xr, w, yr)
					} else {
						axpyRow(yr, w, xr)
					}
				}
			}
		}
	}
}

// axpyRow adds w src to dst, of the same length.
func axpyRow[E floating](dst []E, w E, src []E) {
	src = src[:len(dst)]
	for k := range dst {
		dst[k] += w * src[k]
	}
}

// sepMap is the separable map factor (A_1 ⊗ ... ⊗ A_d) on the last d axes of a
// tensor of shape in, giving shape out.
type sepMap struct {
	name    string
	in, out []int
	maps    []*axisMap // one per spatial axis, in axis order
	factor  float64
	dt      tensor.DType // of the values it maps: float64, or float32 (natively)
}

// run applies the map (adjoint false) or its adjoint to v, checking its dtype
// and shape.
func (s *sepMap) run(v *tensor.Dense, adjoint bool, what string) (*tensor.Dense, error) {
	from, to := s.in, s.out
	if adjoint {
		from, to = s.out, s.in
	}
	v = realAs(v, s.dt)
	if v == nil || v.DType() != s.dt || !slices.Equal(v.Shape(), from) {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: %s is %s, want %s%v", s.name, what, describe(v), s.dt, from)
	}
	if s.dt == tensor.Float32 {
		return denseOf(runMap(s, elemsOf[float32](v), from, to, adjoint), to), nil
	}
	return denseOf(runMap(s, float64s(v), from, to, adjoint), to), nil
}

// runMap applies s (adjoint false) or its adjoint to src of shape from, giving
// shape to. It works one (n, c) plane at a time, through two scratch planes, so
// that the intermediate results of the axes stay in cache.
func runMap[E floating](s *sepMap, src []E, from, to []int, adjoint bool) []E {
	lead := len(from) - len(s.maps)
	planes := 1
	for _, n := range from[:lead] {
		planes *= n
	}
	// The order of the axes (identities skipped): the last spatial axis first,
	// unless it shrinks (a pooling), then last, so that the axes before it
	// (vectorised sums of whole rows) see the larger plane and the last one
	// (scalar sums along a row) the smaller; the adjoint in the reverse order.
	// A map with uniform weights is applied as 0/1 sums, its weight folded
	// into the factor, which the last axis's windows apply (w_j factor, free in
	// their scalar sums) or a last pass over the output.
	factor := s.factor
	unit := make([]bool, len(s.maps))
	var steps []int
	for i := range s.maps {
		a := s.maps[i]
		if a.identity() {
			continue
		}
		if a.uni {
			unit[i] = true
			factor *= a.uw
		}
		steps = append(steps, i)
	}
	last := len(s.maps) - 1
	if a := s.maps[last]; !a.win || a.m >= a.n {
		slices.Reverse(steps)
	}
	if adjoint {
		slices.Reverse(steps)
	}
	fstep := -1
	if s.maps[last].win {
		fstep = slices.Index(steps, last)
	}
	// The spatial sizes after each step and the largest intermediate plane.
	d := slices.Clone(from[lead:])
	inSize, big := 1, 1
	for _, n := range d {
		inSize *= n
	}
	for _, i := range steps {
		d[i] = to[lead+i]
		size := 1
		for _, n := range d {
			size *= n
		}
		big = max(big, size)
	}
	outSize := 1
	for _, n := range to[lead:] {
		outSize *= n
	}
	out := vmath.MakeNoZero[E](planes * outSize) // every element is written by the last step
	// Planes in parallel (forPlanes), each range with scratch planes of its own.
	forPlanes(planes, inSize, func(lo, hi int) {
		d := make([]int, len(from)-lead)
		bufs := [2][]E{make([]E, big), make([]E, big)}
		for p := lo; p < hi; p++ {
			cur := src[p*inSize : (p+1)*inSize]
			copy(d, from[lead:])
			for k, i := range steps {
				a := s.maps[i]
				outer, inner := 1, 1
				for _, n := range d[:i] {
					outer *= n
				}
				for _, n := range d[i+1:] {
					inner *= n
				}
				d[i] = to[lead+i]
				dst := bufs[k%2]
				if k == len(steps)-1 {
					dst = out[p*outSize : (p+1)*outSize]
				}
				if adjoint {
					dst = dst[:outer*a.n*inner]
				} else {
					dst = dst[:outer*a.m*inner]
				}
				mult := E(1)
				if k == fstep {
					mult = E(factor)
				}
				switch {
				case adjoint && a.win && a.t != nil:
					mapWindows(a.t, dst, cur, outer, inner, false, unit[i], mult)
				case a.win:
					mapWindows(a, dst, cur, outer, inner, adjoint, unit[i], mult)
				default:
					mapAxis(a, dst, cur, outer, inner, adjoint)
				}
				cur = dst
			}
			if len(steps) == 0 {
				copy(out[p*outSize:(p+1)*outSize], cur)
			}
			if factor != 1 && fstep < 0 {
				f := E(factor)
				for i := range out[p*outSize : (p+1)*outSize] {
					out[p*outSize+i] *= f
				}
			}
		}
	})
	return out
}

// newSepMap returns the map on tensors of the given shape whose last len(out)
// axes, the spatial ones, become out: axis i by axis(i, n, m), a map of n
// inputs to m = out[i] outputs; factor 1.
func newSepMap(shape, out []int, axis func(i, n, m int) *axisMap) *sepMap {
	s := &sepMap{in: slices.Clone(shape), out: slices.Clone(shape), factor: 1}
	lead := len(shape) - len(out)
	for i, m := range out {
		s.out[lead+i] = m
		a := axis(i, shape[lead+i], m)
		a.prepare()
		s.maps = append(s.maps, a)
	}
	return s
}

// linearPlaneOp is an op y = M x for a sepMap M that a build function derives from
// the input's shape.
type linearPlaneOp struct {
	cr.OneOutput
	name  string
	build func(shape []int) (*sepMap, error)
}

func (o *linearPlaneOp) Name() string { return o.name }

// Apply builds the map for x's shape, computes y = M x and returns the linear
// rule. A float32 input is mapped in float32 (the map's weights rounded to
// float32), as are its derivatives.
func (o *linearPlaneOp) Apply(in []cr.NodeID, x, out []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if opkit.HasSingle(x) && !allFloat32(x) {
		return applySingle(o, in, x, out, nil)
	}
	if err := checkRealApplyNative(o.name, in, x, 1); err != nil {
		return nil, err
	}
	m, err := o.build(x[0].Shape())
	if err != nil {
		return nil, err
	}
	m.name, m.dt = o.name, x[0].DType()
	y, err := m.run(x[0], false, "input")
	if err != nil {
		return nil, err
	}
	out[0] = y
	return cr.LinearRule(in, nil,
		func(xdot []*tensor.Dense, _ []bool) (*tensor.Dense, error) { return m.run(xdot[0], false, "tangent") },
		func(_ int, ybar *tensor.Dense) (*tensor.Dense, error) { return m.run(ybar, true, "cotangent") }), nil
}
