package nn

import (
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// AvgPool1dOp returns PyTorch's avg_pool1d(x, kernel_size, stride, padding,
// ceil_mode, count_include_pad) of a real input of shape (N, C, L) or (C, L).
// See AvgPool2dOp (DivisorOverride is not an argument of avg_pool1d).
func AvgPool1dOp(kernel []int, opts ...PoolOption) cr.Op[*tensor.Dense] {
	return newAvgPool("avg_pool1d", 1, kernel, opts)
}

// AvgPool2dOp returns PyTorch's avg_pool2d(x, kernel_size, stride, padding,
// ceil_mode, count_include_pad, divisor_override) of a real input of shape
// (N, C, H, W) or (C, H, W):
//
//	y[n, c, i, j] = (1 / div) sum_{h in H_i, w in W_j} x[n, c, h, w],
//
// where H_i = [i s_h - p_h, i s_h - p_h + k_h) clipped to the input (the padding
// adds zeros) and W_j likewise. The divisor is DivisorOverride's value when given;
// otherwise, with CountIncludePad(true) (the default), the window size counting
// the padding but not the part of a ceil-mode window beyond it,
// (min(start + k, n + p) - start) per axis multiplied; with
// CountIncludePad(false), the number of input elements in the window. The output
// size is that of MaxPool2dOp with dilation 1.
//
// The op is linear, y = A x with A the same on every (n, c) plane, so
// xbar = A^T ybar, ydot = A xdot and xbardot = A^T ybardot; A is separable (a
// product of one sparse matrix per spatial axis) and is applied one axis at a
// time. Its rules come from chainrules.LinearRule, whose recorded pullback reaches
// every order. A float32 input is averaged in float32 (the weights 1/div
// rounded to float32), its derivatives too. Bad sizes are errors as for
// MaxPool2dOp; PoolDilation is an error, and so is DivisorOverride(0).
func AvgPool2dOp(kernel []int, opts ...PoolOption) cr.Op[*tensor.Dense] {
	return newAvgPool("avg_pool2d", 2, kernel, opts)
}

// AvgPool3dOp returns PyTorch's avg_pool3d(x, kernel_size, stride, padding,
// ceil_mode, count_include_pad, divisor_override) of a real input of shape
// (N, C, D, H, W) or (C, D, H, W). See AvgPool2dOp.
func AvgPool3dOp(kernel []int, opts ...PoolOption) cr.Op[*tensor.Dense] {
	return newAvgPool("avg_pool3d", 3, kernel, opts)
}

// AvgPool2d evaluates AvgPool2dOp(kernel, opts...) at x without a tape.
func AvgPool2d(x *tensor.Dense, kernel []int, opts ...PoolOption) (*tensor.Dense, error) {
	return cr.Eval(AvgPool2dOp(kernel, opts...), x)
}

func newAvgPool(name string, nd int, kernel []int, opts []PoolOption) cr.Op[*tensor.Dense] {
	c := poolConfig{countIncludePad: true}
	for _, f := range opts {
		f(&c)
	}
	kernel = slices.Clone(kernel)
	return &linearPlaneOp{name: name, build: func(shape []int) (*sepMap, error) {
		switch {
		case c.dilationSet:
			return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: dilation %v is not an argument of average pooling", name, c.dilation)
		case c.divisorSet && nd == 1:
			return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: divisor_override is not an argument of avg_pool1d", name)
		case c.divisorSet && c.divisor == 0:
			return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: divisor_override must not be 0", name)
		}
		g, err := geometry(name, nd, kernel, &c)
		if err != nil {
			return nil, err
		}
		_, sp, err := spatial(name, shape, nd)
		if err != nil {
			return nil, err
		}
		out, err := g.outShape(name, shape, sp)
		if err != nil {
			return nil, err
		}
		m := newSepMap(shape, out, func(i, n, mo int) *axisMap {
			a := newAxisMap(n, mo)
			for j := range mo {
				start := j*g.s[i] - g.p[i]
				end := min(start+g.k[i], n+g.p[i])
				size := end - start
				start, end = max(start, 0), min(end, n)
				w := 1 / float64(size)
				switch {
				case c.divisorSet:
					w = 1
				case !c.countIncludePad:
					w = 1 / float64(end-start)
				}
				a.row(start, end, w)
			}
			return a
		})
		if c.divisorSet {
			m.factor = 1 / float64(c.divisor)
		}
		return m, nil
	}}
}

// AdaptiveAvgPool1dOp returns PyTorch's adaptive_avg_pool1d(x, output_size) of a
// real input of shape (N, C, L) or (C, L): output j is the mean of x over
// [floor(j L / out), ceil((j+1) L / out)). See AdaptiveAvgPool2dOp.
func AdaptiveAvgPool1dOp(outputSize ...int) cr.Op[*tensor.Dense] {
	return newAdaptiveAvg("adaptive_avg_pool1d", 1, outputSize)
}

// AdaptiveAvgPool2dOp returns PyTorch's adaptive_avg_pool2d(x, output_size) of a
// real input of shape (N, C, H, W) or (C, H, W): output (i, j) is the mean of
// x over rows [floor(i H / oh), ceil((i+1) H / oh)) and columns
// [floor(j W / ow), ceil((j+1) W / ow)). output_size takes one value or two, each
// at least 1. It is linear, with the rules of AvgPool2dOp.
func AdaptiveAvgPool2dOp(outputSize ...int) cr.Op[*tensor.Dense] {
	return newAdaptiveAvg("adaptive_avg_pool2d", 2, outputSize)
}

func newAdaptiveAvg(name string, nd int, size []int) cr.Op[*tensor.Dense] {
	size = slices.Clone(size)
	return &linearPlaneOp{name: name, build: func(shape []int) (*sepMap, error) {
		out, err := adaptiveSize(name, size, nd)
		if err != nil {
			return nil, err
		}
		if _, _, err := spatial(name, shape, nd); err != nil {
			return nil, err
		}
		return newSepMap(shape, out, func(_, n, mo int) *axisMap {
			a := newAxisMap(n, mo)
			for _, w := range adaptiveWindows(n, mo) {
				a.row(w.lo, w.hi, 1/float64(w.hi-w.lo))
			}
			return a
		}), nil
	}}
}
