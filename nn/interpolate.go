package nn

import (
	"math"
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// InterpOption sets an optional argument of InterpolateOp: InterpSize or
// InterpScaleFactor (exactly one of them), and AlignCorners.
type InterpOption func(*interpConfig)

type interpConfig struct {
	size              []int
	scale             []float64
	align, alignSet   bool
	sizeSet, scaleSet bool
}

// InterpSize sets size, the output's spatial size (one value for every spatial
// axis, or one per axis).
func InterpSize(s ...int) InterpOption {
	return func(c *interpConfig) { c.size, c.sizeSet = slices.Clone(s), true }
}

// InterpScaleFactor sets scale_factor, the multiplier of the spatial sizes (one
// value, or one per axis): the output size is floor(n * scale), and the scale
// itself (not the ratio of the sizes) maps output positions to input positions,
// as in PyTorch 1.13 with recompute_scale_factor unset.
func InterpScaleFactor(s ...float64) InterpOption {
	return func(c *interpConfig) { c.scale, c.scaleSet = slices.Clone(s), true }
}

// AlignCorners sets align_corners of the linear modes: true maps the corner
// pixels' centres onto each other, false (the default) the corners themselves. It
// is an error with mode "nearest".
func AlignCorners(on bool) InterpOption {
	return func(c *interpConfig) { c.align, c.alignSet = on, true }
}

// InterpolateOp returns PyTorch 1.13's F.interpolate(x, size, scale_factor, mode,
// align_corners) of a float64 input of shape (N, C, spatial...), for the modes
//
//	"nearest"    3-D, 4-D or 5-D input;
//	"linear"     3-D (N, C, L);
//	"bilinear"   4-D (N, C, H, W);
//	"trilinear"  5-D (N, C, D, H, W).
//
// Along each spatial axis, with n input and m output positions, and
// scale = 1/scale_factor when InterpScaleFactor is given, n/m otherwise:
//
//	nearest:  y[j] = x[min(floor(j scale), n-1)]   (computed in float32 as PyTorch
//	          does; j itself when m = n, j/2 when m = 2n);
//	linear:   src = j r (align corners, r = (n-1)/(m-1), 0 for m = 1) or
//	          max(r (j + 1/2) - 1/2, 0) (r = scale), i0 = floor(src),
//	          i1 = min(i0 + 1, n-1), l = src - i0 clamped to [0, 1]:
//	          y[j] = (1-l) x[i0] + l x[i1]   (y = x when m = n);
//
// and the multi-axis modes are the tensor products of these. The op is linear
// in x, y = A x with A the same on every (n, c) plane, so xbar = A^T ybar,
// ydot = A xdot, xbardot = A^T ybardot (chainrules.LinearRule, every order).
//
// Giving both or neither of InterpSize and InterpScaleFactor, a non-positive size
// or scale, an output size below 1, a mode that does not fit the input's rank, an unknown
// mode or AlignCorners with "nearest" is an error wrapping
// chainrules.ErrInvalidArgument or ErrShapeMismatch that names the op and sizes.
func InterpolateOp(mode string, opts ...InterpOption) cr.Op[*tensor.Dense] {
	var c interpConfig
	for _, f := range opts {
		f(&c)
	}
	const name = "interpolate"
	return &linearPlaneOp{name: name, build: func(shape []int) (*sepMap, error) {
		var nd int
		switch mode {
		case "nearest":
			nd = len(shape) - 2
			if nd < 1 || nd > 3 {
				return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: mode nearest takes a 3-D, 4-D or 5-D input, got shape %v", name, shape)
			}
			if c.alignSet {
				return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: align_corners is an option of the linear modes only, not of mode nearest", name)
			}
		case "linear", "bilinear", "trilinear":
			nd = map[string]int{"linear": 1, "bilinear": 2, "trilinear": 3}[mode]
			if len(shape) != nd+2 {
				return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: mode %s takes a %d-D input, got shape %v", name, mode, nd+2, shape)
			}
		default:
			return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: unknown mode %q (want nearest, linear, bilinear or trilinear)", name, mode)
		}
		sp := shape[2:]
		for _, n := range sp {
			if n <= 0 {
				return nil, cr.Errorf(cr.ErrShapeMismatch, "%s: input of shape %v has an empty spatial axis", name, shape)
			}
		}
		out := make([]int, nd)
		scales := make([]float64, nd) // 0: no scale given
		switch {
		case c.sizeSet == c.scaleSet:
			return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: give exactly one of size and scale_factor", name)
		case c.sizeSet:
			s, err := perAxis(name, "size", c.size, nd)
			if err != nil {
				return nil, err
			}
			copy(out, s)
		default:
			switch len(c.scale) {
			case 1:
				for i := range scales {
					scales[i] = c.scale[0]
				}
			case nd:
				copy(scales, c.scale)
			default:
				return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: scale_factor has %d values %v, want 1 or %d", name, len(c.scale), c.scale, nd)
			}
			for i, s := range scales {
				if !(s > 0) || math.IsInf(s, 0) {
					return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: scale_factor %v must be positive and finite", name, c.scale)
				}
				out[i] = int(float64(sp[i]) * s)
			}
		}
		for i, m := range out {
			if m < 1 {
				return nil, cr.Errorf(cr.ErrInvalidArgument, "%s: input of shape %v gives output size %v; sizes must be at least 1 (axis %d)", name, shape, out, i)
			}
		}
		return newSepMap(shape, out, func(i, n, m int) *axisMap {
			if mode == "nearest" {
				return nearestMap(n, m, scales[i])
			}
			return linearMap(n, m, scales[i], c.align)
		}), nil
	}}
}

// Interpolate evaluates InterpolateOp(mode, opts...) at x without a tape.
func Interpolate(x *tensor.Dense, mode string, opts ...InterpOption) (*tensor.Dense, error) {
	return cr.Eval(InterpolateOp(mode, opts...), x)
}

// nearestMap returns PyTorch's nearest_idx map of m outputs over n inputs (scale
// 0: none given).
func nearestMap(n, m int, scale float64) *axisMap {
	a := newAxisMap(n, m)
	var s float32
	if scale > 0 {
		s = float32(1 / scale)
	} else {
		s = float32(n) / float32(m)
	}
	for j := range m {
		var i int
		switch {
		case m == n:
			i = j
		case m == 2*n:
			i = j >> 1
		default:
			i = min(int(math.Floor(float64(float32(j)*s))), n-1)
		}
		a.add(i, 1)
		a.next()
	}
	return a
}

// linearMap returns PyTorch's linear interpolation map of m outputs over n inputs
// (scale 0: none given).
func linearMap(n, m int, scale float64, align bool) *axisMap {
	a := newAxisMap(n, m)
	var r float64
	switch {
	case align && m > 1:
		r = float64(n-1) / float64(m-1)
	case align:
		r = 0
	case scale > 0:
		r = 1 / scale
	default:
		r = float64(n) / float64(m)
	}
	for j := range m {
		if m == n {
			a.add(j, 1)
			a.next()
			continue
		}
		var src float64
		if align {
			src = r * float64(j)
		} else {
			src = max(r*(float64(j)+0.5)-0.5, 0)
		}
		i0 := int(src)
		i1 := i0
		if i0 < n-1 {
			i1 = i0 + 1
		}
		l := min(max(src-float64(i0), 0), 1)
		a.add(i0, 1-l)
		a.add(i1, l)
		a.next()
	}
	return a
}
