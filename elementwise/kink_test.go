package elementwise_test

import (
	"math"
	"math/cmplx"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

// mapReal returns the float64 tensor g(x_i, w_i) over the elements of x and w (same
// shape), a naive loop through At.
func mapReal(x, w *tensor.Dense, g func(x, w complex128) float64) *tensor.Dense {
	out := tensor.New(tensor.Float64, x.Shape()...)
	eachIndex(x.Shape(), func(idx []int) { out.Set(complex(g(x.At(idx...), w.At(idx...)), 0), idx...) })
	return out
}

// mapComplex is mapReal with a complex result.
func mapComplex(x, w *tensor.Dense, g func(x, w complex128) complex128) *tensor.Dense {
	out := tensor.New(tensor.Complex128, x.Shape()...)
	eachIndex(x.Shape(), func(idx []int) { out.Set(g(x.At(idx...), w.At(idx...)), idx...) })
	return out
}

// eachIndex calls f with every multi-index of shape in row-major order.
func eachIndex(shape []int, f func(idx []int)) {
	n := 1
	for _, d := range shape {
		n *= d
	}
	idx := make([]int, len(shape))
	for range n {
		f(idx)
		for k := len(shape) - 1; k >= 0; k-- {
			idx[k]++
			if idx[k] < shape[k] {
				break
			}
			idx[k] = 0
		}
	}
}

func mustDense(t *testing.T, data []float64, shape ...int) *tensor.Dense {
	d, err := tensor.FromFloat64(data, shape...)
	require.NoError(t, err)
	return d
}

// TestKinks checks the documented derivative at the non-smooth points: abs'(0) = 0,
// relu'(0) = 0, angle and abs of complex 0, and ties of maximum and minimum, which
// split the cotangent 1/2, 1/2 (also when one side is broadcast).
func TestKinks(t *testing.T) {
	step := func(x complex128) float64 { // relu' with relu'(0) = 0
		if real(x) > 0 {
			return 1
		}
		return 0
	}
	sgn := func(x complex128) float64 { // abs' with abs'(0) = 0
		switch {
		case real(x) > 0:
			return 1
		case real(x) < 0:
			return -1
		}
		return 0
	}
	xr := mustDense(t, []float64{-1.5, 0, 2, 0, 0.5, -0.25}, 2, 3)
	zc, err := tensor.FromComplex128([]complex128{0, 1 + 2i, -0.5 + 0.25i, 0}, 4)
	require.NoError(t, err)
	zsgn := func(z complex128) complex128 { // z/|z|, 0 at 0
		if z == 0 {
			return 0
		}
		return z / complex(cmplx.Abs(z), 0)
	}

	unary := []struct {
		name string
		op   cr.Op[*tensor.Dense]
		x    *tensor.Dense
		pb   func(x, ybar complex128) complex128
		jvp  func(x, xdot complex128) complex128
		real bool // the output is float64
		// d1 and d2, for a real op, are f' and f'' with the documented convention at
		// the kinks: the second-order rule must give f' ybardot + f'' ybar xdot
		// (elementwise/doc.go: second derivatives are those of the side taken).
		d1, d2 func(x float64) float64
	}{
		{"relu at 0", elementwise.ReluOp, xr,
			func(x, yb complex128) complex128 { return complex(step(x), 0) * yb },
			func(x, xd complex128) complex128 { return complex(step(x), 0) * xd }, true,
			func(x float64) float64 { return step(complex(x, 0)) }, zero},
		{"abs at 0", elementwise.AbsOp, xr,
			func(x, yb complex128) complex128 { return complex(sgn(x), 0) * yb },
			func(x, xd complex128) complex128 { return complex(sgn(x), 0) * xd }, true,
			func(x float64) float64 { return sgn(complex(x, 0)) }, zero},
		{"complex abs at 0", elementwise.AbsOp, zc,
			func(z, yb complex128) complex128 { return zsgn(z) * yb },
			func(z, zd complex128) complex128 { return complex(real(cmplx.Conj(zsgn(z))*zd), 0) }, true, nil, nil},
		{"complex angle at 0", elementwise.AngleOp, zc,
			func(z, yb complex128) complex128 {
				if z == 0 {
					return 0
				}
				return 1i * z / complex(real(z)*real(z)+imag(z)*imag(z), 0) * yb
			},
			func(z, zd complex128) complex128 {
				if z == 0 {
					return 0
				}
				return complex(imag(cmplx.Conj(z)*zd)/(real(z)*real(z)+imag(z)*imag(z)), 0)
			}, true, nil, nil},
	}
	// The piecewise activations at their kinks: elu, selu and celu take the
	// exponential side at 0 (first and second derivatives), hardtanh 0 at its ends.
	xk := mustDense(t, []float64{-1.5, 0, 2, 0, -1, 1, 0.5, -0.25}, 2, 4)
	expSide := func(scale, alpha float64) (d1, d2 func(float64) float64) {
		d1 = func(x float64) float64 {
			if x > 0 {
				return scale
			}
			return scale * math.Exp(x/alpha)
		}
		d2 = func(x float64) float64 {
			if x > 0 {
				return 0
			}
			return scale / alpha * math.Exp(x/alpha)
		}
		return d1, d2
	}
	const seluScale, seluAlpha = 1.0507009873554805, 1.6732632423543772
	eluD1, eluD2 := expSide(1, 1)
	celuD1, celuD2 := expSide(1, 2)
	seluD1, seluD2 := func(x float64) float64 {
		if x > 0 {
			return seluScale
		}
		return seluScale * seluAlpha * math.Exp(x)
	}, func(x float64) float64 {
		if x > 0 {
			return 0
		}
		return seluScale * seluAlpha * math.Exp(x)
	}
	hardtanhD1 := func(x float64) float64 { // 0 at the ends -1 and 1
		if x > -1 && x < 1 {
			return 1
		}
		return 0
	}
	for _, a := range []struct {
		name   string
		op     cr.Op[*tensor.Dense]
		d1, d2 func(float64) float64
	}{
		{"elu at 0: the exponential side", elementwise.EluOp, eluD1, eluD2},
		{"selu at 0: the exponential side", elementwise.SeluOp, seluD1, seluD2},
		{"celu(alpha 2) at 0: the exponential side", elementwise.CeluAlphaOp(2), celuD1, celuD2},
		{"hardtanh at -1 and 1: 0", elementwise.HardtanhRangeOp(-1, 1), hardtanhD1, zero},
	} {
		d1 := a.d1
		unary = append(unary, struct {
			name   string
			op     cr.Op[*tensor.Dense]
			x      *tensor.Dense
			pb     func(x, ybar complex128) complex128
			jvp    func(x, xdot complex128) complex128
			real   bool
			d1, d2 func(x float64) float64
		}{a.name, a.op, xk,
			func(x, yb complex128) complex128 { return complex(d1(real(x)), 0) * yb },
			func(x, xd complex128) complex128 { return complex(d1(real(x)), 0) * xd }, true, a.d1, a.d2})
	}
	for _, c := range unary {
		t.Run(c.name, func(t *testing.T) {
			x := c.x
			kink := &ruletest.Kink[*tensor.Dense]{
				Reason: c.name,
				Pullback: func(ybar *tensor.Dense) ([]*tensor.Dense, error) {
					g := mapComplex(x, ybar, c.pb)
					if x.DType() == tensor.Float64 {
						g = g.Real()
					}
					return []*tensor.Dense{g}, nil
				},
				JVP: func(xdot []*tensor.Dense) (*tensor.Dense, error) {
					if c.real {
						return mapReal(x, xdot[0], func(a, b complex128) float64 { return real(c.jvp(a, b)) }), nil
					}
					return mapComplex(x, xdot[0], c.jvp), nil
				},
			}
			if c.d2 != nil {
				kink.SecondOrder = func(ybar, ybardot *tensor.Dense, xdot []*tensor.Dense) ([]*tensor.Dense, error) {
					out := tensor.New(tensor.Float64, x.Shape()...)
					eachIndex(x.Shape(), func(idx []int) {
						xv := x.AtFloat64(idx...)
						out.Set(complex(c.d1(xv)*ybardot.AtFloat64(idx...)+c.d2(xv)*ybar.AtFloat64(idx...)*xdot[0].AtFloat64(idx...), 0), idx...)
					})
					return []*tensor.Dense{out}, nil
				}
			}
			ruletest.Check(t, tensor.Space{}, c.op, []*tensor.Dense{x}, ruletest.Config{Kink: kink})
		})
	}

	// Ties: a = [[1 2 3] [0 5 -1]] against b = [1 5 3] broadcast over the rows.
	a := mustDense(t, []float64{1, 2, 3, 0, 5, -1}, 2, 3)
	b := mustDense(t, []float64{1, 5, 3}, 3)
	weights := func(x, y float64, isMax bool) (float64, float64) {
		switch {
		case x == y:
			return 0.5, 0.5
		case (x > y) == isMax:
			return 1, 0
		}
		return 0, 1
	}
	for _, c := range []struct {
		name  string
		op    cr.Op[*tensor.Dense]
		isMax bool
	}{{"maximum ties", elementwise.MaximumOp, true}, {"minimum ties", elementwise.MinimumOp, false}} {
		t.Run(c.name, func(t *testing.T) {
			pullback := func(ybar *tensor.Dense) ([]*tensor.Dense, error) {
				ga, gb := tensor.New(tensor.Float64, 2, 3), tensor.New(tensor.Float64, 3)
				eachIndex([]int{2, 3}, func(idx []int) {
					wa, wb := weights(a.AtFloat64(idx...), b.AtFloat64(idx[1]), c.isMax)
					yb := ybar.AtFloat64(idx...)
					ga.Set(complex(wa*yb, 0), idx...)
					gb.Set(gb.At(idx[1])+complex(wb*yb, 0), idx[1])
				})
				return []*tensor.Dense{ga, gb}, nil
			}
			kink := &ruletest.Kink[*tensor.Dense]{
				Reason:   c.name + " split the cotangent evenly",
				Pullback: pullback,
				// Piecewise linear: the second derivatives are 0, at ties too.
				SecondOrder: func(_, ybardot *tensor.Dense, _ []*tensor.Dense) ([]*tensor.Dense, error) {
					return pullback(ybardot)
				},
				JVP: func(xdot []*tensor.Dense) (*tensor.Dense, error) {
					yd := tensor.New(tensor.Float64, 2, 3)
					eachIndex([]int{2, 3}, func(idx []int) {
						wa, wb := weights(a.AtFloat64(idx...), b.AtFloat64(idx[1]), c.isMax)
						yd.Set(complex(wa*xdot[0].AtFloat64(idx...)+wb*xdot[1].AtFloat64(idx[1]), 0), idx...)
					})
					return yd, nil
				},
			}
			ruletest.Check(t, tensor.Space{}, c.op, []*tensor.Dense{a, b}, ruletest.Config{Kink: kink})
		})
	}

	// hypot and atan2 at the origin: all derivatives, the second ones too, are taken
	// as 0 there.
	za, zb := mustDense(t, []float64{0, 3}, 2), mustDense(t, []float64{0, -4}, 2)
	cube := func(a, b float64) float64 { h := math.Hypot(a, b); return h * h * h }
	r4 := func(a, b float64) float64 { r2 := a*a + b*b; return r2 * r2 }
	for _, c := range []struct {
		name          string
		op            cr.Op[*tensor.Dense]
		fa, fb        func(a, b float64) float64
		faa, fab, fbb func(a, b float64) float64
	}{
		{"hypot at the origin", elementwise.HypotOp,
			func(a, b float64) float64 { return a / math.Hypot(a, b) }, func(a, b float64) float64 { return b / math.Hypot(a, b) },
			func(a, b float64) float64 { return b * b / cube(a, b) }, func(a, b float64) float64 { return -a * b / cube(a, b) },
			func(a, b float64) float64 { return a * a / cube(a, b) }},
		{"atan2 at the origin", elementwise.Atan2Op,
			func(a, b float64) float64 { return b / (a*a + b*b) }, func(a, b float64) float64 { return -a / (a*a + b*b) },
			func(a, b float64) float64 { return -2 * a * b / r4(a, b) }, func(a, b float64) float64 { return (a*a - b*b) / r4(a, b) },
			func(a, b float64) float64 { return 2 * a * b / r4(a, b) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := func(f func(a, b float64) float64, a, b float64) float64 {
				if a == 0 && b == 0 {
					return 0
				}
				return f(a, b)
			}
			kink := &ruletest.Kink[*tensor.Dense]{
				Reason: c.name + ": derivatives 0",
				Pullback: func(ybar *tensor.Dense) ([]*tensor.Dense, error) {
					ga := mapReal(za, ybar, func(a, yb complex128) float64 { return 0 })
					gb := ga.Clone()
					for i := range 2 {
						av, bv, yb := za.AtFloat64(i), zb.AtFloat64(i), ybar.AtFloat64(i)
						ga.Set(complex(d(c.fa, av, bv)*yb, 0), i)
						gb.Set(complex(d(c.fb, av, bv)*yb, 0), i)
					}
					return []*tensor.Dense{ga, gb}, nil
				},
				JVP: func(xdot []*tensor.Dense) (*tensor.Dense, error) {
					yd := tensor.New(tensor.Float64, 2)
					for i := range 2 {
						av, bv := za.AtFloat64(i), zb.AtFloat64(i)
						yd.Set(complex(d(c.fa, av, bv)*xdot[0].AtFloat64(i)+d(c.fb, av, bv)*xdot[1].AtFloat64(i), 0), i)
					}
					return yd, nil
				},
				SecondOrder: func(ybar, ybardot *tensor.Dense, xdot []*tensor.Dense) ([]*tensor.Dense, error) {
					ga, gb := tensor.New(tensor.Float64, 2), tensor.New(tensor.Float64, 2)
					for i := range 2 {
						av, bv, yb, ybd := za.AtFloat64(i), zb.AtFloat64(i), ybar.AtFloat64(i), ybardot.AtFloat64(i)
						ad, bd := xdot[0].AtFloat64(i), xdot[1].AtFloat64(i)
						ga.Set(complex(d(c.fa, av, bv)*ybd+(d(c.faa, av, bv)*ad+d(c.fab, av, bv)*bd)*yb, 0), i)
						gb.Set(complex(d(c.fb, av, bv)*ybd+(d(c.fab, av, bv)*ad+d(c.fbb, av, bv)*bd)*yb, 0), i)
					}
					return []*tensor.Dense{ga, gb}, nil
				},
			}
			ruletest.Check(t, tensor.Space{}, c.op, []*tensor.Dense{za, zb}, ruletest.Config{Kink: kink})
		})
	}
}

// zero is the second derivative of a piecewise linear function.
func zero(float64) float64 { return 0 }
