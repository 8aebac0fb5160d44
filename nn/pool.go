package nn

import (
	"math"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/internal/vmath"
	"github.com/chainrules-go/chainrules/permute"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// PoolOption sets an optional argument of the pooling ops, under PyTorch's names
// and defaults: PoolStride (default: the kernel size), PoolPadding (0),
// PoolDilation (1, max pooling only), CeilMode (false), CountIncludePad (true, average pooling only)
// and DivisorOverride (none, avg_pool2d and avg_pool3d only). A sequence option
// takes one value for every spatial axis or one value per axis.
type PoolOption func(*poolConfig)

type poolConfig struct {
	stride, padding, dilation []int
	strideSet, dilationSet    bool
	ceil                      bool
	countIncludePad           bool
	countSet                  bool
	divisor                   int
	divisorSet                bool
}

// PoolStride sets the step between windows; with no values, or never given, it is the
// kernel size.
func PoolStride(s ...int) PoolOption {
	return func(c *poolConfig) { c.stride, c.strideSet = slices.Clone(s), len(s) > 0 }
}

// PoolPadding sets the implicit padding on both sides of every spatial axis (at most
// half the kernel size; max pooling pads with -inf, average pooling with zeros).
func PoolPadding(p ...int) PoolOption { return func(c *poolConfig) { c.padding = slices.Clone(p) } }

// PoolDilation sets the spacing between the elements of a max-pooling window.
func PoolDilation(d ...int) PoolOption {
	return func(c *poolConfig) { c.dilation, c.dilationSet = slices.Clone(d), true }
}

// CeilMode sets whether the output size rounds up (a last, partial window) rather
// than down.
func CeilMode(on bool) PoolOption { return func(c *poolConfig) { c.ceil = on } }

// CountIncludePad sets whether average pooling divides by the window size counting
// the padded positions (true, the default) or by the number of input elements in
// the window.
func CountIncludePad(on bool) PoolOption {
	return func(c *poolConfig) { c.countIncludePad, c.countSet = on, true }
}

// DivisorOverride makes average pooling divide every window's sum by d (not 0).
func DivisorOverride(d int) PoolOption {
	return func(c *poolConfig) { c.divisor, c.divisorSet = d, true }
}

// poolGeom is the geometry of a pooling op along its nd spatial axes.
type poolGeom struct {
	k, s, p, d []int
	ceil       bool
}

// perAxis expands v (one value, or nd values) to nd values, or returns an error.
func perAxis(name, what string, v []int, nd int) ([]int, error) {
	switch len(v) {
	case 1:
		out := make([]int, nd)
		for i := range out {
			out[i] = v[0]
		}
		return out, nil
	case nd:
		return slices.Clone(v), nil
	}
	return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: %s has %d values %v, want 1 or %d", name, what, len(v), v, nd)
}

// geometry checks the kernel and the options and returns the geometry.
func geometry(name string, nd int, kernel []int, c *poolConfig) (poolGeom, error) {
	var g poolGeom
	var err error
	if g.k, err = perAxis(name, "kernel_size", kernel, nd); err != nil {
		return g, err
	}
	g.s = g.k
	if c.strideSet {
		if g.s, err = perAxis(name, "stride", c.stride, nd); err != nil {
			return g, err
		}
	}
	g.p = make([]int, nd)
	if c.padding != nil {
		if g.p, err = perAxis(name, "padding", c.padding, nd); err != nil {
			return g, err
		}
	}
	g.d = []int{1}
	if c.dilationSet {
		g.d = c.dilation
	}
	if g.d, err = perAxis(name, "dilation", g.d, nd); err != nil {
		return g, err
	}
	g.ceil = c.ceil
	for i := range nd {
		switch {
		case g.k[i] <= 0:
			return g, cr.Errorf(cr.ErrInvalidArgument, "%s: kernel_size %v must be positive", name, g.k)
		case g.s[i] <= 0:
			return g, cr.Errorf(cr.ErrInvalidArgument, "%s: stride %v must be positive", name, g.s)
		case g.d[i] <= 0:
			return g, cr.Errorf(cr.ErrInvalidArgument, "%s: dilation %v must be positive", name, g.d)
		case g.p[i] < 0:
			return g, cr.Errorf(cr.ErrInvalidArgument, "%s: padding %v must be non-negative", name, g.p)
		case g.p[i] > g.k[i]/2:
			return g, cr.Errorf(cr.ErrInvalidArgument, "%s: padding %v must be at most half of kernel_size %v", name, g.p, g.k)
		}
	}
	return g, nil
}

// floorDiv is a / b rounded down (b > 0).
func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// outSize returns PyTorch's pooling_output_shape along axis i for n input
// positions:
//
//	out = floor((n + 2p - d(k-1) - 1 + (ceil ? s-1 : 0)) / s) + 1,
//
// less one in ceil mode when the last window would start in the right padding.
func (g poolGeom) outSize(i, n int) int {
	num := n + 2*g.p[i] - g.d[i]*(g.k[i]-1) - 1
	if g.ceil {
		num += g.s[i] - 1
	}
	out := floorDiv(num, g.s[i]) + 1
	if g.ceil && (out-1)*g.s[i] >= n+g.p[i] {
		out--
	}
	return out
}

// spatial checks the rank of shape (nd spatial axes after one channel axis and an
// optional batch axis) and returns the number of planes and the spatial sizes.
func spatial(name string, shape []int, nd int) (planes int, sp []int, err error) {
	if len(shape) != nd+1 && len(shape) != nd+2 {
		return 0, nil, cr.Errorf(cr.ErrShapeMismatch, "%s: input of shape %v, want %d-D (C, spatial) or %d-D (N, C, spatial)", name, shape, nd+1, nd+2)
	}
	lead := len(shape) - nd
	planes = 1
	for _, n := range shape[:lead] {
		planes *= n
	}
	sp = shape[lead:]
	for _, n := range sp {
		if n <= 0 {
			return 0, nil, cr.Errorf(cr.ErrShapeMismatch, "%s: input of shape %v has an empty spatial axis", name, shape)
		}
	}
	return planes, sp, nil
}

// outShape returns the output sizes of g on the spatial sizes sp, or an error
// when one is below 1.
func (g poolGeom) outShape(name string, shape, sp []int) ([]int, error) {
	out := make([]int, len(sp))
	for i, n := range sp {
		if out[i] = g.outSize(i, n); out[i] < 1 {
			return nil, cr.Errorf(cr.ErrInvalidArgument,
				"%s: input of shape %v with kernel_size %v, stride %v, padding %v, dilation %v gives output size %d < 1 along spatial axis %d",
				name, shape, g.k, g.s, g.p, g.d, out[i], i)
		}
	}
	return out, nil
}

// window lists the input positions of output position j along one axis: lo,
// lo+step, ..., below hi.
type window struct{ lo, hi, step int }

// maxWindows returns the windows of max pooling along axis i (PyTorch's: start at
// j s - p, stride d, clipped to [0, n)).
func (g poolGeom) maxWindows(i, n, m int) []window {
	w := make([]window, m)
	for j := range m {
		lo := j*g.s[i] - g.p[i]
		hi := min(lo+(g.k[i]-1)*g.d[i]+1, n)
		for lo < 0 {
			lo += g.d[i]
		}
		w[j] = window{lo, hi, g.d[i]}
	}
	return w
}

// adaptiveWindows returns PyTorch's adaptive windows of m outputs over n inputs:
// [floor(j n / m), ceil((j+1) n / m)).
func adaptiveWindows(n, m int) []window {
	w := make([]window, m)
	for j := range m {
		w[j] = window{j * n / m, ((j+1)*n + m - 1) / m, 1}
	}
	return w
}

// MaxPool1dOp returns PyTorch's max_pool1d(x, kernel_size, stride, padding,
// dilation, ceil_mode, return_indices=True) of a real input of shape (N, C, L)
// or (C, L). See MaxPool2dOp.
func MaxPool1dOp(kernel []int, opts ...PoolOption) cr.Op[*tensor.Dense] {
	return newMaxPool("max_pool1d", 1, kernel, opts)
}

// MaxPool2dOp returns PyTorch's max_pool2d(x, kernel_size, stride, padding,
// dilation, ceil_mode, return_indices=True) of a real input of shape
// (N, C, H, W) or (C, H, W): a multi-output op (record it with
// core.Tape.ApplyMulti) with the outputs
//
//	values   y[n, c, i, j] = max over the window of x[n, c, h, w],
//	         h = i s_h - p_h + a d_h (0 <= a < k_h), w likewise, padding at -inf;
//	indices  the flat position h W + w, within the (n, c) plane, of the maximum,
//	         as integers in the input's dtype (PyTorch's return_indices).
//
// kernel_size, and the options PoolStride, PoolPadding and PoolDilation, take one value or
// one per spatial axis; the output size along an axis is
// floor((n + 2p - d(k-1) - 1) / s) + 1, rounded up instead with CeilMode(true)
// (a window starting in the right padding is dropped). Ties go to the first
// maximum in row-major window order, as in PyTorch's CPU kernel; a NaN is taken as
// the maximum (the last NaN of the window).
//
// The indices are not differentiable. The values are a gather y = P x at the
// argmax positions, linear in x away from ties, so
//
//	xbar = P^T ybar  (ybar scattered, and summed, at the argmax positions),
//	ydot = P xdot,   xbardot = P^T ybardot.
//
// The pullback is recorded as index.ScatterAddOp on the (N C, H W) planes, so
// derivatives of every order pass through. A float32 input is pooled in
// float32 (values and indices float32, the indices exact below 2^24), its
// derivatives too. A kernel_size, stride or dilation
// below 1, a padding above half the kernel, an output size below 1 or an input
// of the wrong rank is an error wrapping chainrules.ErrInvalidArgument or
// ErrShapeMismatch that names the op and the sizes.
func MaxPool2dOp(kernel []int, opts ...PoolOption) cr.Op[*tensor.Dense] {
	return newMaxPool("max_pool2d", 2, kernel, opts)
}

// MaxPool3dOp returns PyTorch's max_pool3d(x, kernel_size, stride, padding,
// dilation, ceil_mode, return_indices=True) of a real input of shape
// (N, C, D, H, W) or (C, D, H, W); the indices are d H W + h W + w. See
// MaxPool2dOp.
func MaxPool3dOp(kernel []int, opts ...PoolOption) cr.Op[*tensor.Dense] {
	return newMaxPool("max_pool3d", 3, kernel, opts)
}

// MaxPool2d evaluates MaxPool2dOp(kernel, opts...) at x without a tape and returns
// the values and the indices.
func MaxPool2d(x *tensor.Dense, kernel []int, opts ...PoolOption) (values, indices *tensor.Dense, err error) {
	return evalPair(MaxPool2dOp(kernel, opts...), x)
}

// AdaptiveMaxPool1dOp returns PyTorch's adaptive_max_pool1d(x, output_size,
// return_indices=True) of a real input of shape (N, C, L) or (C, L): output j
// is the maximum of x over [floor(j L / out), ceil((j+1) L / out)), with its
// index, and the rules of MaxPool2dOp.
func AdaptiveMaxPool1dOp(outputSize ...int) cr.Op[*tensor.Dense] {
	return &maxPoolOp{name: "adaptive_max_pool1d", nd: 1, adaptive: slices.Clone(outputSize)}
}

// AdaptiveMaxPool2dOp returns PyTorch's adaptive_max_pool2d(x, output_size,
// return_indices=True) of a real input of shape (N, C, H, W) or (C, H, W):
// output (i, j) is the maximum over rows [floor(i H / oh), ceil((i+1) H / oh))
// and columns [floor(j W / ow), ceil((j+1) W / ow)), with its index h W + w.
// output_size takes one value or two. Its rules are those of MaxPool2dOp.
func AdaptiveMaxPool2dOp(outputSize ...int) cr.Op[*tensor.Dense] {
	return &maxPoolOp{name: "adaptive_max_pool2d", nd: 2, adaptive: slices.Clone(outputSize)}
}

func newMaxPool(name string, nd int, kernel []int, opts []PoolOption) *maxPoolOp {
	o := &maxPoolOp{name: name, nd: nd, kernel: slices.Clone(kernel)}
	for _, f := range opts {
		f(&o.cfg)
	}
	return o
}

type maxPoolOp struct {
	name     string
	nd       int
	kernel   []int
	cfg      poolConfig
	adaptive []int // output size of an adaptive pool (kernel unused)
}

func (o *maxPoolOp) Name() string { return o.name }

// NumOutputs returns 2: the values and the indices.
func (o *maxPoolOp) NumOutputs() int { return 2 }

// Differentiable reports that the input is differentiable.
func (o *maxPoolOp) Differentiable(int) bool { return true }

// OutputDifferentiable reports that the values carry derivatives, the indices not.
func (o *maxPoolOp) OutputDifferentiable(m int) bool { return m == 0 }

// windows returns the windows of every spatial axis and the output shape.
func (o *maxPoolOp) windows(shape, sp []int) ([][]window, []int, error) {
	oshape := slices.Clone(shape)
	lead := len(shape) - o.nd
	wins := make([][]window, o.nd)
	if o.adaptive != nil {
		out, err := adaptiveSize(o.name, o.adaptive, o.nd)
		if err != nil {
			return nil, nil, err
		}
		for i, n := range sp {
			wins[i] = adaptiveWindows(n, out[i])
			oshape[lead+i] = out[i]
		}
		return wins, oshape, nil
	}
	if o.cfg.countSet || o.cfg.divisorSet {
		return nil, nil, cr.Errorf(cr.ErrInvalidArgument, "%s: count_include_pad and divisor_override are options of average pooling", o.name)
	}
	g, err := geometry(o.name, o.nd, o.kernel, &o.cfg)
	if err != nil {
		return nil, nil, err
	}
	out, err := g.outShape(o.name, shape, sp)
	if err != nil {
		return nil, nil, err
	}
	for i, n := range sp {
		wins[i] = g.maxWindows(i, n, out[i])
		oshape[lead+i] = out[i]
	}
	return wins, oshape, nil
}

// adaptiveSize checks an adaptive pool's output_size (one value or nd, each >= 1).
func adaptiveSize(name string, size []int, nd int) ([]int, error) {
	out, err := perAxis(name, "output_size", size, nd)
	if err != nil {
		return nil, err
	}
	for _, n := range out {
		if n < 1 {
			return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: output_size %v must be positive", name, size)
		}
	}
	return out, nil
}

// Apply computes the maxima and their indices and returns the rule. A float32
// input runs the float32 loops: values and indices float32, as ApplyWidened
// would round them.
func (o *maxPoolOp) Apply(in []cr.NodeID, x, out []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	if opkit.HasSingle(x) && !allFloat32(x) {
		return applySingle(o, in, x, out, nil)
	}
	if err := checkRealApplyNative(o.name, in, x, 1); err != nil {
		return nil, err
	}
	shape := x[0].Shape()
	planes, sp, err := spatial(o.name, shape, o.nd)
	if err != nil {
		return nil, err
	}
	wins, oshape, err := o.windows(shape, sp)
	if err != nil {
		return nil, err
	}
	// Pad to three axes (D, H, W) with one-position windows.
	var n3 [3]int
	var w3 [3][]window
	for i := range 3 - o.nd {
		n3[i], w3[i] = 1, []window{{0, 1, 1}}
	}
	for i := range o.nd {
		n3[3-o.nd+i], w3[3-o.nd+i] = sp[i], wins[i]
	}
	if int64(x[0].Size()) > math.MaxInt32 {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: input of shape %v has more than 2^31 elements", o.name, shape)
	}
	if x[0].DType() == tensor.Float32 {
		return applyMaxPool(o.name, in[0], elemsOf[float32](x[0]), out, shape, oshape, planes, n3, w3)
	}
	return applyMaxPool(o.name, in[0], float64s(x[0]), out, shape, oshape, planes, n3, w3)
}

// applyMaxPool computes the maxima of the windows w3 over the planes of xs
// (the input, of the given shape, as planes of shape n3) and their indices,
// sets out and returns the rule.
func applyMaxPool[E floating](name string, in cr.NodeID, xs []E, out []*tensor.Dense, shape, oshape []int, planes int, n3 [3]int, w3 [3][]window) (cr.Rule[*tensor.Dense], error) {
	isz := n3[0] * n3[1] * n3[2]
	osz := len(w3[0]) * len(w3[1]) * len(w3[2])
	vals := vmath.MakeNoZero[E](planes * osz) // both loops write every window
	idx := vmath.MakeNoZero[E](planes * osz)
	src := make([]int32, planes*osz)
	tiles := 0 // the row length W when the windows tile the planes (2x2 pairs, H and W even)
	if n3[0] == 1 && len(w3[0]) == 1 && w3[0][0] == (window{0, 1, 1}) && pairs(w3[1]) && pairs(w3[2]) {
		if n3[1] == 2*len(w3[1]) && n3[2] == 2*len(w3[2]) {
			tiles = n3[2]
		}
		forPlanes(planes, isz, func(lo, hi int) {
			maxPool2x2(vals, idx, src, xs, lo, hi, n3[1], n3[2], len(w3[1]), len(w3[2]))
		})
	} else {
		forPlanes(planes, isz, func(lo, hi int) {
			maxPoolLoop(vals, idx, src, xs, lo, hi, n3, w3)
		})
	}
	out[0], out[1] = denseOf(vals, oshape), denseOf(idx, oshape)
	return &maxPoolRule{gatherRule[int32]{name: name, in: in, shape: slices.Clone(shape), oshape: oshape, src: src, dt: dtypeOf[E]()}, planes, isz, tiles}, nil
}

// planeGrain is the fewest input elements a goroutine of a pooling kernel takes:
// half of parallelGrain, so that the digits CNN's pools (64 samples of 16 8x8
// planes, 64k elements) still split in two.
const planeGrain = parallelGrain / 2

// forPlanes calls body(lo, hi) on disjoint ranges of the planes [0, planes) of
// size elements each, on the goroutines of vmath.ParallelFor in ranges of at
// least planeGrain elements (on the calling goroutine below two ranges or at
// GOMAXPROCS 1). A kernel that computes each plane whole, with the operations of
// the serial loop, gives results that do not depend on the split.
func forPlanes(planes, size int, body func(lo, hi int)) {
	vmath.ParallelFor(planes, max(1, planeGrain/max(size, 1)), body)
}

// maxPoolLoop is max pooling's general loop: every window of w3 over planes
// p0 to p1 of shape n3 (D, H, W).
func maxPoolLoop[E floating](vals, idx []E, src []int32, xs []E, p0, p1 int, n3 [3]int, w3 [3][]window) {
	isz := n3[0] * n3[1] * n3[2]
	osz := len(w3[0]) * len(w3[1]) * len(w3[2])
	hw := n3[1] * n3[2]
	for p := p0; p < p1; p++ {
		xp := xs[p*isz : (p+1)*isz]
		q := p * osz
		for _, wd := range w3[0] {
			for _, wh := range w3[1] {
				for _, ww := range w3[2] {
					best, bi := E(math.Inf(-1)), wd.lo*hw+wh.lo*n3[2]+ww.lo
					for d := wd.lo; d < wd.hi; d += wd.step {
						for h := wh.lo; h < wh.hi; h += wh.step {
							row := d*hw + h*n3[2]
							for w := ww.lo; w < ww.hi; w += ww.step {
								if v := xp[row+w]; v > best || v != v {
									best, bi = v, row+w
								}
							}
						}
					}
					vals[q], idx[q], src[q] = best, E(bi), int32(p*isz+bi)
					q++
				}
			}
		}
	}
}

// pairs reports whether the windows are [2j, 2j+2), step 1, for j = 0, 1, ...:
// kernel 2, stride 2, no padding, no dilation, every window whole.
func pairs(w []window) bool {
	for j, e := range w {
		if e != (window{2 * j, 2*j + 2, 1}) {
			return false
		}
	}
	return true
}

// maxPool2x2 is max pooling's loop for 2x2 windows at stride 2 over planes
// [p0, p1) of xs, each [H, W] with oh x ow windows: the maximum of x[2i, 2j],
// x[2i, 2j+1], x[2i+1, 2j], x[2i+1, 2j+1] with the general loop's choice
// among them (the first of equal values, the last NaN), written to vals, with
// its index in the plane (idx) and in xs (src). Random data makes every
// comparison a coin toss, so the loop computes indices from the comparisons
// without branches: the first maximum of each row's pair, then of the two
// (ties to the first, -0 equal to +0), the value read back at the index. A
// window whose sum is NaN (a NaN in it, or +Inf and -Inf) takes the general
// rule instead.
func maxPool2x2[E floating](vals, idx []E, src []int32, xs []E, p0, p1, H, W, oh, ow int) {
	isz, osz := H*W, oh*ow
	for p := p0; p < p1; p++ {
		xp := xs[p*isz : (p+1)*isz]
		vp, ip, sp := vals[p*osz:(p+1)*osz], idx[p*osz:(p+1)*osz], src[p*osz:(p+1)*osz]
		for i := range oh {
			r := xp[2*i*W : (2*i+2)*W] // rows 2i and 2i+1
			vr, ir, sr := vp[i*ow:(i+1)*ow], ip[i*ow:(i+1)*ow], sp[i*ow:(i+1)*ow]
			for j := range vr {
				c := 2 * j
				a, b, e, d := r[c], r[c+1], r[W+c], r[W+c+1]
				// The winner of each row's pair, then of the two, by
				// arithmetic on the comparisons (not selects, which the
				// compiler makes branches when they feed a load).
				i1, i2 := c+int(b2u(b > a)), W+c+int(b2u(d > e))
				v1, v2 := r[i1], r[i2]
				bi := i1 + (i2-i1)*int(b2u(v2 > v1))
				if s := (a + b) + (e + d); s != s {
					bi = maxOf4(a, b, e, d, c, W)
				}
				vr[j] = r[bi]
				bi += 2 * i * W
				ir[j], sr[j] = E(bi), int32(p*isz+bi)
			}
		}
	}
}

// b2u is 1 for true, 0 for false, without a branch.
func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// maxOf4 returns the index in rows 2i, 2i+1 (of W elements) of the window
// (a, b, e, d) at column c that the general loop picks.
func maxOf4[E floating](a, b, e, d E, c, W int) int {
	best, bi := a, c
	for k, v := range [3]E{b, e, d} {
		if v > best || v != v {
			best, bi = v, [3]int{c + 1, W + c, W + c + 1}[k]
		}
	}
	return bi
}

// maxPoolRule differentiates the values of a max pool: output element i is input
// element src[i].
type maxPoolRule struct {
	gatherRule[int32]
	planes, isz int
	tiles       int // W when the windows are 2x2 pairs tiling planes [H, W], else 0
}

// Pullback appends xbar = P^T ybar. When the 2x2 windows tile the planes,
// every element of x is in exactly one window, and xbar is written whole,
// window by window (zeros, and ybar at the window's maximum), in storage from
// the buffer pool rather than cleared by the allocator first.
func (r *maxPoolRule) Pullback(ybar []*tensor.Dense, has []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	W := r.tiles
	if W == 0 || len(ybar) != 2 || len(has) != 2 || !has[0] || ybar[0] == nil || ybar[0].DType() != r.dtype() || !slices.Equal(ybar[0].Shape(), r.oshape) {
		return r.gatherRule.Pullback(ybar, has, dst) // which checks the arguments
	}
	var xbar *tensor.Dense
	if r.dtype() == tensor.Float32 {
		xbar = denseOf(scatter2x2(elemsOf[float32](ybar[0]), r.src, r.planes*r.isz, W), r.shape)
	} else {
		xbar = denseOf(scatter2x2(float64s(ybar[0]), r.src, r.planes*r.isz, W), r.shape)
	}
	return append(dst, cr.Contribution[*tensor.Dense]{Node: r.in, Value: xbar}), nil
}

// scatter2x2 returns the n elements of P^T g for 2x2 windows tiling planes of
// rows of W: each window's four elements zero but g's at src.
func scatter2x2[E floating](g []E, src []int32, n, W int) []E {
	g = g[:len(src)]
	d := vmath.MakeNoZero[E](n)
	q := 0
	for row := 0; row < len(d); row += 2 * W { // rows 2i and 2i+1 of a plane
		for b := row; b < row+W; b += 2 {
			d[b], d[b+1], d[b+W], d[b+W+1] = 0, 0, 0, 0
			d[src[q]] = g[q]
			q++
		}
	}
	return d
}

// RecordPullback records xbar = P^T ybar with ops (chainrules.PullbackRecorder):
// ybar reshaped to the (planes, outputs per plane) matrix, index.ScatterAddOp
// along axis 1 at the argmax positions onto a zero (planes, inputs per plane)
// constant, reshaped to x's shape. The positions are fixed, so the recorded
// pullback is linear and differentiable to every order.
func (r *maxPoolRule) RecordPullback(rec cr.Recorder[*tensor.Dense], _, _, ybar []cr.NodeID) ([]cr.NodeID, error) {
	g := ybar[0]
	if !g.Valid() {
		return []cr.NodeID{0}, nil
	}
	osz := len(r.src) / max(r.planes, 1)
	pos := make([]int, len(r.src))
	for i, s := range r.src {
		pos[i] = int(s) - (i/osz)*r.isz
	}
	zero, err := constant(rec, r.name, tensor.New(r.dtype(), r.planes, r.isz))
	if err != nil {
		return nil, err
	}
	g2 := rec.Apply(permute.ReshapeOp(r.planes, osz), g)
	xbar := rec.Apply(index.ScatterAddOp(1, pos, r.planes, osz), zero, g2)
	return []cr.NodeID{rec.Apply(permute.ReshapeOp(r.shape...), xbar)}, rec.Err()
}
