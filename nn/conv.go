package nn

import (
	"fmt"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// PadMode is how a convolution pads its input, as nn.Conv2d's padding_mode:
// the input is padded in that mode (F.pad), then convolved without padding.
type PadMode string

// The padding modes of PyTorch's nn.Conv1d/2d/3d.
const (
	PadZeros     PadMode = "zeros"     // zeros outside the input
	PadReflect   PadMode = "reflect"   // x[-i] = x[i], the edge not repeated (padding < size)
	PadReplicate PadMode = "replicate" // the edge element repeated
	PadCircular  PadMode = "circular"  // x[-i] = x[size-i], periodic (padding <= size)
)

// ConvOption sets an argument of a convolution, by PyTorch's name.
type ConvOption func(*convSpec)

type convSpec struct {
	stride, padding, dilation, outputPadding []int
	same, valid                              bool
	groups                                   int
	mode                                     PadMode
}

// Stride sets stride: one value for every spatial axis, or one per axis (default 1).
func Stride(s ...int) ConvOption { return func(c *convSpec) { c.stride = slices.Clone(s) } }

// Padding sets padding: one value for every spatial axis, or one per axis,
// added at both ends (default 0).
func Padding(p ...int) ConvOption {
	return func(c *convSpec) { c.padding, c.same, c.valid = slices.Clone(p), false, false }
}

// PaddingSame is PyTorch's padding="same": the output has the input's size,
// the total padding dilation (kernel - 1) split with the odd element at the
// end. It needs stride 1, as in PyTorch.
func PaddingSame() ConvOption {
	return func(c *convSpec) { c.padding, c.same, c.valid = nil, true, false }
}

// PaddingValid is PyTorch's padding="valid": no padding.
func PaddingValid() ConvOption {
	return func(c *convSpec) { c.padding, c.same, c.valid = nil, false, true }
}

// Dilation sets dilation, the spacing of the kernel elements: one value or
// one per axis (default 1).
func Dilation(d ...int) ConvOption { return func(c *convSpec) { c.dilation = slices.Clone(d) } }

// Groups sets groups (default 1): input and output channels split into groups
// blocks, block g of the output convolving block g of the input.
func Groups(g int) ConvOption { return func(c *convSpec) { c.groups = g } }

// PaddingMode sets padding_mode of nn.Conv1d/2d/3d (default PadZeros). The
// transposed convolutions take zeros only, as in PyTorch.
func PaddingMode(m PadMode) ConvOption { return func(c *convSpec) { c.mode = m } }

// OutputPadding sets output_padding of a transposed convolution: elements
// added at the end of each spatial axis of the output (default 0), smaller
// than the stride or the dilation.
func OutputPadding(p ...int) ConvOption {
	return func(c *convSpec) { c.outputPadding = slices.Clone(p) }
}

// convMode is one of the three bilinear maps of a geometry (see conv_kernel.go).
type convMode int

const (
	modeConv      convMode = iota // (x, w) -> y
	modeTranspose                 // (y, w) -> x
	modeWeight                    // (x, y) -> w
)

// Conv1dOp returns PyTorch's F.conv1d(x, weight, bias, stride, padding,
// dilation, groups) (with padding_mode as nn.Conv1d's) as an op of two inputs
// (x, weight) or three (x, weight, bias); see Conv2dOp.
func Conv1dOp(opts ...ConvOption) cr.Op[*tensor.Dense] { return newConvOp(1, modeConv, opts) }

// Conv2dOp returns PyTorch's F.conv2d(x, weight, bias, stride, padding,
// dilation, groups), with padding_mode as nn.Conv2d's, as an op of two inputs
// (x, weight) or three (x, weight, bias), float64 or float32, layout NCHW:
//
//	x [N, Cin, H, W], weight [Cout, Cin/groups, kH, kW], bias [Cout],
//	y[n, o, i, j] = bias[o] + sum_{c, a, b} weight[o, c, a, b]
//	                xp[n, g Cin/groups + c, i sH + a dH, j sW + b dW],
//
// where g = o / (Cout/groups) is the group of output channel o and xp is x
// padded (zeros, or reflect, replicate, circular), so that the output is
// floor((H + 2 pH - dH (kH - 1) - 1) / sH) + 1 high, likewise wide. The op is
// bilinear in (x, weight), and its rules are
//
//	pullback:  xbar = conv_transpose(ybar, weight)     (the adjoint in x, folded back through the padding)
//	           weightbar = sum_n ybar_n col(xp_n)^T    (the weight gradient, by im2col)
//	           biasbar = sum of ybar over n, i, j
//	tangent:   ydot = conv(xdot, weight) + conv(x, weightdot) + biasdot
//	second:    xbardot = conv_transpose(ybardot, weight) + conv_transpose(ybar, weightdot),
//	           weightbardot = wgrad(x, ybardot) + wgrad(xdot, ybar), biasbardot = sum ybardot.
//
// The recorded pullback records the same maps as ops (conv_transpose2d and
// conv2d_weight_grad), which are bilinear too and record each other, so
// derivatives of every order pass through. The value and every map run by
// im2col and the project's GEMM, one tile of output positions at a time with one
// im2col buffer (1 MiB) per goroutine. Inputs all float32 run the same kernels
// in float32 (the float32 GEMM, accumulating in single precision; the bias
// gradient sums in float64 and rounds once), at about half the time and memory
// of float64, and their rules and recorded pullbacks stay in float32; float32
// next to float64 is widened, the result float64 (tensor.PromoteTypes).
//
// Wrong ranks, channels that do not match the weight or the groups, a bias of
// the wrong length and a kernel larger than the padded input are errors
// wrapping chainrules.ErrShapeMismatch; a non-positive stride, dilation or
// groups, negative padding, "same" with a stride above 1, an unknown padding
// mode or reflect (circular) padding not smaller than (at most) the input are
// errors wrapping chainrules.ErrInvalidArgument. Every error names the op and
// the sizes.
func Conv2dOp(opts ...ConvOption) cr.Op[*tensor.Dense] { return newConvOp(2, modeConv, opts) }

// Conv3dOp returns PyTorch's F.conv3d (layout NCDHW); see Conv2dOp.
func Conv3dOp(opts ...ConvOption) cr.Op[*tensor.Dense] { return newConvOp(3, modeConv, opts) }

// ConvTranspose1dOp returns PyTorch's F.conv_transpose1d; see ConvTranspose2dOp.
func ConvTranspose1dOp(opts ...ConvOption) cr.Op[*tensor.Dense] {
	return newConvOp(1, modeTranspose, opts)
}

// ConvTranspose2dOp returns PyTorch's F.conv_transpose2d(x, weight, bias,
// stride, padding, output_padding, groups, dilation) as an op of two inputs
// (x, weight) or three (x, weight, bias), float64 or float32, layout NCHW: x [N, Cin, H,
// W], weight [Cin, Cout/groups, kH, kW], bias [Cout]. It is the adjoint in its
// input of Conv2dOp with the same weight, stride, padding, dilation and groups
// (the gradient of a convolution),
//
//	y = conv_transpose(x, weight) + bias,   <conv_transpose(x, w), z> = <x, conv(z, w)>,
//
// H_out = (H - 1) sH - 2 pH + dH (kH - 1) + output_paddingH + 1, likewise W_out.
// Its rules are those of a bilinear map: xbar = conv(ybar, weight), weightbar =
// wgrad(ybar, x) (the weight gradient of that convolution), biasbar the sum of
// ybar over all axes but 1, the tangent and the second-order rule by the
// product rule, recorded with the same ops. Errors as in Conv2dOp; also
// output_padding not smaller than the stride or the dilation, and an output
// size below 1, wrap chainrules.ErrInvalidArgument.
func ConvTranspose2dOp(opts ...ConvOption) cr.Op[*tensor.Dense] {
	return newConvOp(2, modeTranspose, opts)
}

// ConvTranspose3dOp returns PyTorch's F.conv_transpose3d; see ConvTranspose2dOp.
func ConvTranspose3dOp(opts ...ConvOption) cr.Op[*tensor.Dense] {
	return newConvOp(3, modeTranspose, opts)
}

// Conv1d evaluates Conv1dOp without a tape; bias may be nil.
func Conv1d(x, weight, bias *tensor.Dense, opts ...ConvOption) (*tensor.Dense, error) {
	return evalConv(Conv1dOp(opts...), x, weight, bias)
}

// Conv2d evaluates Conv2dOp without a tape; bias may be nil.
func Conv2d(x, weight, bias *tensor.Dense, opts ...ConvOption) (*tensor.Dense, error) {
	return evalConv(Conv2dOp(opts...), x, weight, bias)
}

// Conv3d evaluates Conv3dOp without a tape; bias may be nil.
func Conv3d(x, weight, bias *tensor.Dense, opts ...ConvOption) (*tensor.Dense, error) {
	return evalConv(Conv3dOp(opts...), x, weight, bias)
}

// ConvTranspose2d evaluates ConvTranspose2dOp without a tape; bias may be nil.
func ConvTranspose2d(x, weight, bias *tensor.Dense, opts ...ConvOption) (*tensor.Dense, error) {
	return evalConv(ConvTranspose2dOp(opts...), x, weight, bias)
}

// ConvTranspose1d evaluates ConvTranspose1dOp without a tape; bias may be nil.
func ConvTranspose1d(x, weight, bias *tensor.Dense, opts ...ConvOption) (*tensor.Dense, error) {
	return evalConv(ConvTranspose1dOp(opts...), x, weight, bias)
}

// ConvTranspose3d evaluates ConvTranspose3dOp without a tape; bias may be nil.
func ConvTranspose3d(x, weight, bias *tensor.Dense, opts ...ConvOption) (*tensor.Dense, error) {
	return evalConv(ConvTranspose3dOp(opts...), x, weight, bias)
}

func evalConv(op cr.Op[*tensor.Dense], x, w, b *tensor.Dense) (*tensor.Dense, error) {
	if b == nil {
		return cr.Eval(op, x, w)
	}
	return cr.Eval(op, x, w, b)
}

func newConvOp(nd int, mode convMode, opts []ConvOption) *convOp {
	s := convSpec{groups: 1, mode: PadZeros}
	for _, o := range opts {
		o(&s)
	}
	return &convOp{nd: nd, mode: mode, spec: s}
}

// convOp is a convolution (mode conv), a transposed convolution (mode
// transpose) or a weight gradient (mode weight). The public ops build their
// geometry from the inputs and spec; the ops that rules record carry it fixed.
type convOp struct {
	cr.OneOutput
	nd   int
	mode convMode
	spec convSpec
	geom *convGeom
}

func (o *convOp) Name() string { return convName(o.nd, o.mode) }

func convName(nd int, m convMode) string {
	switch m {
	case modeTranspose:
		return fmt.Sprintf("conv_transpose%dd", nd)
	case modeWeight:
		return fmt.Sprintf("conv%dd_weight_grad", nd)
	}
	return fmt.Sprintf("conv%dd", nd)
}

// shapes returns the shapes of the two operands and the output of mode m.
func (g *convGeom) shapes(m convMode) (a, b, y []int) {
	switch m {
	case modeTranspose:
		return g.yShape(), g.wShape(), g.xShape()
	case modeWeight:
		return g.xShape(), g.yShape(), g.wShape()
	}
	return g.xShape(), g.wShape(), g.yShape()
}

// eval computes the bilinear map of mode m.
func eval[T floating](g *convGeom, m convMode, a, b []T) ([]T, error) {
	switch m {
	case modeTranspose:
		return convT(g, a, b)
	case modeWeight:
		return convW(g, a, b)
	}
	return conv(g, a, b)
}

// biasDims returns the channels and the spatial size of the output of mode m
// (for the bias).
func (g *convGeom) biasDims(m convMode) (c, s int) {
	if m == modeTranspose {
		return g.cin, g.inSize()
	}
	return g.cout, g.pSize()
}

func (o *convOp) Apply(in []cr.NodeID, x, out []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	return o.ApplyMasked(in, x, out, nil)
}

// ApplyMasked is Apply whose rule leaves out the inputs whose need is false
// (chainrules.MaskedOp): a first layer's constant input costs no transposed
// convolution in the backward sweep. Inputs all float32 run the float32
// kernels (the float32 GEMM); float32 next to float64 is widened
// (applySingle), the result float64.
func (o *convOp) ApplyMasked(in []cr.NodeID, x, out []*tensor.Dense, need []bool) (cr.Rule[*tensor.Dense], error) {
	if opkit.HasSingle(x) && !allFloat32(x) {
		return applySingle(o, in, x, out, need)
	}
	name := o.Name()
	if need != nil && len(need) != len(x) {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: %d need flags for %d inputs", name, len(need), len(x))
	}
	arity := len(x)
	if arity != 3 || o.mode == modeWeight {
		arity = 2
	}
	if err := checkRealApplyNative(name, in, x, arity); err != nil {
		return nil, err
	}
	g := o.geom
	var err error
	switch {
	case g != nil:
		as, bs, _ := g.shapes(o.mode)
		if !slices.Equal(x[0].Shape(), as) || !slices.Equal(x[1].Shape(), bs) {
			return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: operands are %s and %s, the geometry wants %v and %v", name, x[0].Describe(), x[1].Describe(), as, bs)
		}
	case o.mode == modeTranspose:
		g, err = o.spec.transposeGeom(name, o.nd, x[0], x[1])
	default:
		g, err = o.spec.convGeom(name, o.nd, x[0], x[1])
	}
	if err != nil {
		return nil, err
	}
	c, _ := g.biasDims(o.mode)
	bias := arity == 3
	if bias && (x[2].Rank() != 1 || x[2].Shape()[0] != c) {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: bias is %s, want [%d] (one per output channel)", name, x[2].Describe(), c)
	}
	if x[0].DType() == tensor.Float32 {
		return applyConv[float32](o, g, in, x, out, bias, need)
	}
	return applyConv[float64](o, g, in, x, out, bias, need)
}

// applyConv computes the map of o's mode (plus the bias) in T, the inputs' dtype,
// and returns its rule.
func applyConv[T floating](o *convOp, g *convGeom, in []cr.NodeID, x, out []*tensor.Dense, bias bool, need []bool) (cr.Rule[*tensor.Dense], error) {
	_, _, ys := g.shapes(o.mode)
	c, s := g.biasDims(o.mode)
	y, err := eval(g, o.mode, elemsOf[T](x[0]), elemsOf[T](x[1]))
	if err != nil {
		return nil, err
	}
	if bias {
		addBias(y, elemsOf[T](x[2]), g.n, c, s)
	}
	out[0] = denseOf(y, ys)
	return &convRule[T]{g: g, nd: o.nd, mode: o.mode, in: slices.Clone(in), a: x[0], b: x[1], bias: bias, need: slices.Clone(need)}, nil
}

// expand returns a per-axis tuple from one value or nd values (def when none).
func expand(name, what string, v []int, nd, def, lo int) ([]int, error) {
	switch len(v) {
	case 0:
		v = []int{def}
		fallthrough
	case 1:
		v = slices.Repeat(v, nd)
	case nd:
	default:
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: %s has %d values, want 1 or %d", name, what, len(v), nd)
	}
	for _, e := range v {
		if e < lo {
			return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: %s is %v, want every value at least %d", name, what, v, lo)
		}
	}
	return v, nil
}

// common checks the ranks, stride, dilation and groups shared by both kinds.
func (s *convSpec) common(name string, nd int, x, w *tensor.Dense) (stride, dil []int, err error) {
	if x.Rank() != nd+2 || w.Rank() != nd+2 {
		return nil, nil, cr.Errorf(cr.ErrShapeMismatch, "%s: input is %s and weight %s, want both of rank %d (N, C and %d spatial axes; weight: out, in/groups and the kernel)",
			name, x.Describe(), w.Describe(), nd+2, nd)
	}
	if stride, err = expand(name, "stride", s.stride, nd, 1, 1); err != nil {
		return nil, nil, err
	}
	if dil, err = expand(name, "dilation", s.dilation, nd, 1, 1); err != nil {
		return nil, nil, err
	}
	if s.groups < 1 {
		return nil, nil, cr.Errorf(cr.ErrInvalidArgument, "%s: groups is %d, want at least 1", name, s.groups)
	}
	return stride, dil, nil
}

// convGeom checks the inputs of a convolution and returns its geometry.
func (s *convSpec) convGeom(name string, nd int, x, w *tensor.Dense) (*convGeom, error) {
	stride, dil, err := s.common(name, nd, x, w)
	if err != nil {
		return nil, err
	}
	xs, ws := x.Shape(), w.Shape()
	cin, cout, groups := xs[1], ws[0], s.groups
	if cout%groups != 0 || ws[1]*groups != cin {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: input %s has %d channels and weight is %s with groups %d; want weight [out, %d/%d, ...] with out divisible by %d",
			name, x.Describe(), cin, w.Describe(), groups, cin, groups, groups)
	}
	if len(s.outputPadding) > 0 {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: output_padding is an argument of the transposed convolutions", name)
	}
	in, k := xs[2:], ws[2:]
	lo, hi := make([]int, nd), make([]int, nd)
	switch {
	case s.same:
		for d := range nd {
			if stride[d] != 1 {
				return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: padding \"same\" needs stride 1, stride is %v", name, stride)
			}
			t := dil[d] * (k[d] - 1)
			lo[d], hi[d] = t/2, t-t/2
		}
	case !s.valid:
		p, err := expand(name, "padding", s.padding, nd, 0, 0)
		if err != nil {
			return nil, err
		}
		copy(lo, p)
		copy(hi, p)
	}
	for d := range nd {
		if e := dil[d]*(k[d]-1) + 1; e > lo[d]+in[d]+hi[d] {
			return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: kernel %v with dilation %v spans %d on spatial axis %d, the padded input only %d (input %s)",
				name, k, dil, e, d, lo[d]+in[d]+hi[d], x.Describe())
		}
		if s.mode == PadReflect && max(lo[d], hi[d]) >= in[d] || s.mode == PadCircular && max(lo[d], hi[d]) > in[d] {
			return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: %s padding (%d, %d) of spatial axis %d of size %d", name, s.mode, lo[d], hi[d], d, in[d])
		}
	}
	var src func(d, p int) int
	switch s.mode {
	case PadZeros, "":
		src = func(d, p int) int {
			if i := p - lo[d]; i >= 0 && i < in[d] {
				return i
			}
			return -1
		}
	case PadReflect:
		src = func(d, p int) int {
			i, n := p-lo[d], in[d]
			if i < 0 {
				i = -i
			}
			if i >= n {
				i = 2*(n-1) - i
			}
			return i
		}
	case PadReplicate:
		src = func(d, p int) int { return min(max(p-lo[d], 0), in[d]-1) }
	case PadCircular:
		src = func(d, p int) int { n := in[d]; return ((p-lo[d])%n + n) % n }
	default:
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: padding_mode %q, want zeros, reflect, replicate or circular", name, s.mode)
	}
	return newConvGeom(nd, xs[0], cin, cout, groups, in, k, stride, dil, lo, hi, nil, src), nil
}

// transposeGeom checks the inputs of a transposed convolution and returns the
// geometry of the convolution it is the adjoint of.
func (s *convSpec) transposeGeom(name string, nd int, x, w *tensor.Dense) (*convGeom, error) {
	stride, dil, err := s.common(name, nd, x, w)
	if err != nil {
		return nil, err
	}
	if s.same || s.valid || s.mode != PadZeros {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: padding \"same\"/\"valid\" and padding modes other than zeros are arguments of the convolutions only", name)
	}
	xs, ws := x.Shape(), w.Shape()
	groups := s.groups
	if ws[0] != xs[1] || xs[1]%groups != 0 {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: input %s has %d channels and weight is %s with groups %d; want weight [%d, out/%d, ...] with %d divisible by %d",
			name, x.Describe(), xs[1], w.Describe(), groups, xs[1], groups, xs[1], groups)
	}
	pad, err := expand(name, "padding", s.padding, nd, 0, 0)
	if err != nil {
		return nil, err
	}
	op, err := expand(name, "output_padding", s.outputPadding, nd, 0, 0)
	if err != nil {
		return nil, err
	}
	ly, k := xs[2:], ws[2:]
	lx := make([]int, nd)
	for d := range nd {
		if op[d] >= stride[d] && op[d] >= dil[d] {
			return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: output_padding %v must be smaller than the stride %v or the dilation %v", name, op, stride, dil)
		}
		lx[d] = (ly[d]-1)*stride[d] - 2*pad[d] + dil[d]*(k[d]-1) + op[d] + 1
		if lx[d] < 1 {
			return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: input %s, kernel %v, stride %v, padding %v, dilation %v give output size %d on spatial axis %d",
				name, x.Describe(), k, stride, pad, dil, lx[d], d)
		}
	}
	src := func(d, p int) int {
		if i := p - pad[d]; i >= 0 && i < lx[d] {
			return i
		}
		return -1
	}
	return newConvGeom(nd, xs[0], ws[1]*groups, xs[1], groups, lx, k, stride, dil, pad, pad, ly, src), nil
}

// convRule differentiates the bilinear map B(a, b) of its mode (plus a bias),
// in T, the dtype of its inputs.
type convRule[T floating] struct {
	g    *convGeom
	nd   int
	mode convMode
	in   []cr.NodeID
	a, b *tensor.Dense
	bias bool
	need []bool // nil: every input
}

func (r *convRule[T]) Inputs() []cr.NodeID { return r.in }

// needs reports whether input k's cotangent is wanted.
func (r *convRule[T]) needs(k int) bool { return r.need == nil || r.need[k] }

func (r *convRule[T]) op(m convMode) cr.Op[*tensor.Dense] {
	return &convOp{nd: r.nd, mode: m, geom: r.g}
}

// adjA returns the adjoint of B(., b) at v: abar for the cotangent v.
func (r *convRule[T]) adjA(v, b []T) ([]T, error) {
	switch r.mode {
	case modeTranspose:
		return conv(r.g, v, b)
	case modeWeight:
		return convT(r.g, b, v)
	}
	return convT(r.g, v, b)
}

// adjB returns the adjoint of B(a, .) at v: bbar for the cotangent v.
func (r *convRule[T]) adjB(v, a []T) ([]T, error) {
	switch r.mode {
	case modeTranspose:
		return convW(r.g, v, a)
	case modeWeight:
		return conv(r.g, a, v)
	}
	return convW(r.g, a, v)
}

// recAdjA and recAdjB record adjA and adjB with the ops of the geometry.
func (r *convRule[T]) recAdjA(rec recorder, v, b cr.NodeID) cr.NodeID {
	switch r.mode {
	case modeTranspose:
		return rec.Apply(r.op(modeConv), v, b)
	case modeWeight:
		return rec.Apply(r.op(modeTranspose), b, v)
	}
	return rec.Apply(r.op(modeTranspose), v, b)
}

func (r *convRule[T]) recAdjB(rec recorder, v, a cr.NodeID) cr.NodeID {
	switch r.mode {
	case modeTranspose:
		return rec.Apply(r.op(modeWeight), v, a)
	case modeWeight:
		return rec.Apply(r.op(modeConv), a, v)
	}
	return rec.Apply(r.op(modeWeight), a, v)
}

// data checks that v is real of the given shape and returns its elements in T
// (v of the other real dtype converted).
func (r *convRule[T]) data(v *tensor.Dense, shape []int, what string) ([]T, error) {
	v = realAs(v, dtypeOf[T]())
	if v == nil || v.DType() != dtypeOf[T]() || !slices.Equal(v.Shape(), shape) {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: %s is %s, want %s%v", convName(r.nd, r.mode), what, describe(v), dtypeOf[T](), shape)
	}
	return elemsOf[T](v), nil
}

func (r *convRule[T]) dense(v []T, shape []int) *tensor.Dense { return denseOf(v, shape) }

// cotangents returns abar, bbar and (with a bias) biasbar for the cotangent g,
// nil for an input not needed.
func (r *convRule[T]) cotangents(g []T) ([]*tensor.Dense, error) {
	as, bs, _ := r.g.shapes(r.mode)
	out := make([]*tensor.Dense, len(r.in)) // nil for the inputs not needed
	B := r.g.blockSamples()
	if r.mode == modeConv && r.needs(0) && r.needs(1) && B > 0 {
		// Small images: both in one sweep over the blocks.
		xbar, wbar, err := backBlocks(r.g, elemsOf[T](r.a), elemsOf[T](r.b), g, B, true, true)
		if err != nil {
			return nil, err
		}
		out[0], out[1] = r.dense(xbar, as), r.dense(wbar, bs)
	}
	if r.needs(0) && out[0] == nil {
		abar, err := r.adjA(g, elemsOf[T](r.b))
		if err != nil {
			return nil, err
		}
		out[0] = r.dense(abar, as)
	}
	if r.needs(1) && out[1] == nil {
		bbar, err := r.adjB(g, elemsOf[T](r.a))
		if err != nil {
			return nil, err
		}
		out[1] = r.dense(bbar, bs)
	}
	if r.bias && r.needs(2) {
		c, s := r.g.biasDims(r.mode)
		out[2] = r.dense(biasSum(g, r.g.n, c, s), []int{c})
	}
	return out, nil
}

func (r *convRule[T]) Pullback(ybar []*tensor.Dense, _ []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	_, _, ys := r.g.shapes(r.mode)
	g, err := r.data(ybar[0], ys, "cotangent")
	if err != nil {
		return dst, err
	}
	cts, err := r.cotangents(g)
	if err != nil {
		return dst, err
	}
	for k, v := range cts {
		if v != nil {
			dst = append(dst, cr.Contribution[*tensor.Dense]{Node: r.in[k], Value: v})
		}
	}
	return dst, nil
}

// tangents returns the tangents of the inputs that have one (nil otherwise).
func (r *convRule[T]) tangents(tangentOf cr.TangentOf[*tensor.Dense]) (ad, bd, cd []T, err error) {
	as, bs, _ := r.g.shapes(r.mode)
	if t, ok := tangentOf(r.in[0]); ok && r.needs(0) {
		if ad, err = r.data(t, as, "tangent of input 0"); err != nil {
			return
		}
	}
	if t, ok := tangentOf(r.in[1]); ok && r.needs(1) {
		if bd, err = r.data(t, bs, "tangent of input 1"); err != nil {
			return
		}
	}
	if r.bias {
		if t, ok := tangentOf(r.in[2]); ok && r.needs(2) {
			c, _ := r.g.biasDims(r.mode)
			cd, err = r.data(t, []int{c}, "tangent of the bias")
		}
	}
	return
}

// Forward computes ydot = B(adot, b) + B(a, bdot) + biasdot.
func (r *convRule[T]) Forward(tangentOf cr.TangentOf[*tensor.Dense], ydot []*tensor.Dense, has []bool) error {
	ad, bd, cd, err := r.tangents(tangentOf)
	if err != nil || ad == nil && bd == nil && cd == nil {
		return err
	}
	_, _, ys := r.g.shapes(r.mode)
	var y []T
	if ad != nil {
		if y, err = eval(r.g, r.mode, ad, elemsOf[T](r.b)); err != nil {
			return err
		}
	}
	if bd != nil {
		t, err := eval(r.g, r.mode, elemsOf[T](r.a), bd)
		if err != nil {
			return err
		}
		y = addInto(y, t)
	}
	if y == nil {
		n := 1
		for _, e := range ys {
			n *= e
		}
		y = make([]T, n)
	}
	if cd != nil {
		c, s := r.g.biasDims(r.mode)
		addBias(y, cd, r.g.n, c, s)
	}
	ydot[0], has[0] = r.dense(y, ys), true
	return nil
}

// addInto returns acc + v, in acc's storage (v itself when acc is nil).
func addInto[T floating](acc, v []T) []T {
	if acc == nil {
		return v
	}
	for i, e := range v {
		acc[i] += e
	}
	return acc
}

// PullbackWithTangents computes, B being bilinear,
//
//	abardot = adjA(ybardot, b) + adjA(ybar, bdot),
//	bbardot = adjB(ybardot, a) + adjB(ybar, adot),
//	biasbardot = the channel sums of ybardot.
func (r *convRule[T]) PullbackWithTangents(a cr.SecondOrderArgs[*tensor.Dense], dst []cr.DualContribution[*tensor.Dense]) ([]cr.DualContribution[*tensor.Dense], error) {
	ct := a.Cotangents[0]
	as, bs, ys := r.g.shapes(r.mode)
	g, err := r.data(ct.Value, ys, "cotangent")
	if err != nil {
		return dst, err
	}
	cts, err := r.cotangents(g)
	if err != nil {
		return dst, err
	}
	var gd []T
	if ct.HasTangent {
		if gd, err = r.data(ct.Tangent, ys, "cotangent tangent"); err != nil {
			return dst, err
		}
	}
	ad, bd, _, err := r.tangents(a.TangentOf)
	if err != nil {
		return dst, err
	}
	av, bv := elemsOf[T](r.a), elemsOf[T](r.b)
	var td [3][]T
	if gd != nil {
		if r.needs(0) {
			if td[0], err = r.adjA(gd, bv); err != nil {
				return dst, err
			}
		}
		if r.needs(1) {
			if td[1], err = r.adjB(gd, av); err != nil {
				return dst, err
			}
		}
		if r.bias && r.needs(2) {
			c, s := r.g.biasDims(r.mode)
			td[2] = biasSum(gd, r.g.n, c, s)
		}
	}
	if bd != nil && r.needs(0) {
		t, err := r.adjA(g, bd)
		if err != nil {
			return dst, err
		}
		td[0] = addInto(td[0], t)
	}
	if ad != nil && r.needs(1) {
		t, err := r.adjB(g, ad)
		if err != nil {
			return dst, err
		}
		td[1] = addInto(td[1], t)
	}
	shapes := [][]int{as, bs}
	if r.bias {
		c, _ := r.g.biasDims(r.mode)
		shapes = append(shapes, []int{c})
	}
	for k, v := range cts {
		if v == nil {
			continue
		}
		d := cr.Dual[*tensor.Dense]{Value: v}
		if td[k] != nil {
			d.Tangent, d.HasTangent = r.dense(td[k], shapes[k]), true
		}
		dst = append(dst, cr.DualContribution[*tensor.Dense]{Node: r.in[k], Cotangent: d})
	}
	return dst, nil
}

// RecordPullback records abar = adjA(ybar, b) and bbar = adjB(ybar, a) with the
// convolution ops of the same geometry (each bilinear, recording the others),
// and the bias cotangent with reduce.SumOp.
func (r *convRule[T]) RecordPullback(rec cr.Recorder[*tensor.Dense], x, _, ybar []cr.NodeID) ([]cr.NodeID, error) {
	g := ybar[0]
	out := make([]cr.NodeID, len(x))
	if !g.Valid() {
		return out, nil
	}
	if r.needs(0) {
		out[0] = r.recAdjA(rec, g, x[1])
	}
	if r.needs(1) {
		out[1] = r.recAdjB(rec, g, x[0])
	}
	if r.bias && r.needs(2) {
		axes := []int{0}
		for d := range r.nd {
			axes = append(axes, d+2)
		}
		out[2] = rec.Apply(reduce.SumOp(axes, false), g)
	}
	return out, rec.Err()
}

// FreshStorage marks the convolution's output and every derivative its rule
// returns as storage of its own (chainrules.FreshStorage), so that a released tape
// reuses it.
func (*convRule[T]) FreshStorage() {}
