package elementwise

import (
	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// Func1 is a scalar function with its first two derivatives: the definition of a
// unary elementwise op on one element type, a [tensor.Element]: float64 for its real
// rules, complex128 for its complex ones. A formula that needs only arithmetic can be
// written once as a generic function and instantiated for both (see the Unary
// example). The zero Func1 (F nil) means the op is not defined on that type.
type Func1[T tensor.Element] struct {
	// F returns y = f(x).
	F func(x T) T
	// D1 and D2 return f'(x) and f"(x). They also receive y = f(x), so that
	// derivatives such as exp' = exp or tanh' = 1 - tanh² cost no new evaluation.
	// Both are required when F is set.
	D1, D2 func(x, y T) T
	// Slice, if set, is a fast path for F: it sets dst[i] = F(x[i]) for every i
	// (len(dst) == len(x)), for instance with a vectorised kernel. It must agree with
	// F (bit for bit, if values must not depend on the path that computed them).
	Slice func(dst, x []T)
	// Pull, if set, is a fast path for the first-order pullback: it sets
	// dst[i] = conj(D1(x[i], y[i])) * ybar[i] for every i, as the generic loop does
	// (bit for bit), without a call per element.
	Pull func(dst, x, y, ybar []T)

	// pullY marks the package's ops whose Pull is y[i] ybar[i] (exp: f' = f),
	// so that a uniform cotangent ybar_i = c pulls back as vmath.Scale(y, c) in
	// one vectorised pass, without Pull's calls on a block of copies of c.
	pullY bool

	// affine marks the package's ops whose D2 is zero[T] (scale, shift, neg),
	// so that the second-order pullback writes its term conj(0 * xdot) ybar
	// without a call per element.
	affine bool

	// single, set on the package's real definitions with a native float32 kernel
	// (exp, tanh), computes F on float32 input without widening; singleD1, with
	// it, sets dst[i] = F'(x[i]) v[i] from y = F(x) in float32, the first-order
	// pullback (v = ybar) and the forward tangent (v = xdot). See single.go.
	single   func(dst, x []float32)
	singleD1 func(dst, y, v []float32)
	// singleD2, set on exp, tanh, sigmoid, relu and sqrt, is the second-order pullback in
	// float32 from y: xb[i] = F'(x[i]) w[i] and xbd[i] = F'(x[i]) wd[i] +
	// F"(x[i]) xd[i] w[i], where a nil wd or xd is zero.
	singleD2 func(xb, xbd, y, w, wd, xd []float32)
}

// ComplexToReal is a real-valued function of a complex variable, g(z) = g(a, b) with
// z = a + ib, given with its gradient and Hessian in (a, b): the definition of an op
// such as abs, abs2, real, imag or angle on complex128 input, which is not
// holomorphic. The zero ComplexToReal (F nil) means no such definition.
type ComplexToReal struct {
	// F returns y = g(z), a float64.
	F func(z complex128) float64
	// Grad returns (g_a, g_b).
	Grad func(z complex128) (ga, gb float64)
	// Hess returns (g_aa, g_ab, g_bb).
	Hess func(z complex128) (gaa, gab, gbb float64)
}

// Wirtinger is a complex function that is not holomorphic, f(z) with z = a + ib and
// conj(z) independent, given with its Wirtinger derivatives f_z = (f_a - i f_b)/2 and
// f_zbar = (f_a + i f_b)/2 and their second derivatives: the definition of an op such
// as conj, sgn or softsign on complex128 input. (A holomorphic f has f_zbar = 0; use
// Func1 for it.) The zero Wirtinger (F nil) means no such definition.
type Wirtinger struct {
	// F returns y = f(z).
	F func(z complex128) complex128
	// D1 returns (f_z, f_zbar) and D2 returns (f_zz, f_zzbar, f_zbarzbar), given also
	// y = f(z).
	D1 func(z, y complex128) (fz, fzbar complex128)
	D2 func(z, y complex128) (fzz, fzzbar, fzbarzbar complex128)
}

// UnarySpec defines a unary elementwise op for Unary: its function on float64 and,
// optionally, on complex128.
type UnarySpec struct {
	// Real defines the op on float64 input. With Real.F nil, float64 input is an
	// error (unless Promote is set), as it is for imag.
	Real Func1[float64]
	// Complex, if Complex.F is set, defines the op on complex128 input as a
	// holomorphic function, differentiated with PyTorch's convention (see Unary).
	Complex Func1[complex128]
	// ComplexToReal, if its F is set, defines the op on complex128 input as a
	// real-valued function of (Re z, Im z) instead.
	ComplexToReal ComplexToReal
	// Wirtinger, if its F is set, defines the op on complex128 input as a
	// complex-valued function that is not holomorphic. At most one of Complex,
	// ComplexToReal and Wirtinger may be set; with none, complex128 input is an error.
	Wirtinger Wirtinger
	// Promote computes in complex128 with Complex even for float64 input, for a
	// function with a complex parameter (y = a x with complex a). The float64 input
	// then receives the real part of its cotangent.
	Promote bool

	// Deriv, if set, records the derivative f'(x) with ops, as an expression of
	// the input node x and the output node y (JAX's defjvp, ChainRules'
	// @scalar_rule): sin' = cos(x), exp' = y, tanh' = 1 - y². The op's rule then
	// records its pullback
	//
	//	xbar = conj(f'(x)) ybar
	//
	// with ConjOp and MulOp (and RealOp for a promoted float64 input), which a
	// recorded backward sweep (core.Tape.GradGraph) differentiates again: the op
	// has derivatives of every order that the ops of the expression have. Deriv is
	// used for the Real and Complex definitions (not for ComplexToReal and
	// Wirtinger, which have no single derivative: see VJP). The result must have
	// x's shape or broadcast to it (a scalar is fine), and the dtype of the
	// function's values, float64 for Real and float64 or complex128 for Complex.
	// The zero NodeID means that f' is 0 everywhere (a piecewise-constant
	// function such as floor): the pullback is then the zero cotangent. Ops
	// applied through r report their errors through r.Err, which the rule checks;
	// Deriv returns an error of its own only for what r cannot report. Deriv must
	// agree with Real.D1 and Complex.D1, and its own derivative with D2.
	Deriv func(r cr.Recorder[*tensor.Dense], x, y cr.NodeID) (cr.NodeID, error)
	// VJP, if set, records the pullback xbar = J^* ybar itself with ops, from the
	// nodes of the input x, the output y and the output cotangent ybar, for the
	// modes Deriv does not cover: the ComplexToReal and Wirtinger definitions
	// (abs on complex128 records xbar = ybar sgn(x)), and the Real and Complex
	// ones when Deriv is nil (a linear op's pullback is an op: scale's is scale by
	// conj(a)). The result must have x's shape; a complex128 result for a float64
	// x is replaced by its real part. The zero NodeID is the zero cotangent.
	//
	// With neither Deriv nor VJP for the mode of its input, the op's rule declines
	// to record its pullback, so that a recorded sweep through it fails with an
	// *chainrules.OrderError naming the op and the order.
	VJP func(r cr.Recorder[*tensor.Dense], x, y, ybar cr.NodeID) (cr.NodeID, error)
}

// Unary returns the elementwise op y = f(x) named name (its registry key), defined by
// spec. The op applies to one tensor of any shape and returns a fresh tensor of the
// same shape; its rule keeps x and y and evaluates the derivatives only when called,
// so recording the op costs only its forward pass. Forward passes of 2^17 elements or
// more are split across goroutines.
//
// The rules are, elementwise, for a holomorphic f (every float64 f, and the Complex
// function of spec):
//
//	forward:       ydot    = f'(x) xdot
//	pullback:      xbar    = conj(f'(x)) ybar
//	second order:  xbardot = conj(f'(x)) ybardot + conj(f"(x) xdot) ybar
//
// which is PyTorch's convention for complex input: the pullback is the adjoint of the
// forward map under the real inner product Re<a, b>, and the second-order term is the
// derivative of the pullback along xdot. For a ComplexToReal g with gradient
// (g_a, g_b) and Hessian H = (g_aa, g_ab; g_ab, g_bb) at z = a + ib:
//
//	ydot    = g_a Re(xdot) + g_b Im(xdot)
//	xbar    = ybar (g_a + i g_b)
//	xbardot = ybardot (g_a + i g_b) + ybar ((H xdot)_a + i (H xdot)_b)
//
// and for a Wirtinger f, with the Wirtinger derivatives f_z, f_zbar, f_zz, f_zzbar,
// f_zbarzbar at x:
//
//	ydot    = f_z xdot + f_zbar conj(xdot)
//	xbar    = conj(f_z) ybar + f_zbar conj(ybar)
//	xbardot = conj(f_z) ybardot + f_zbar conj(ybardot)
//	          + conj(f_zz xdot + f_zzbar conj(xdot)) ybar + (f_zzbar xdot + f_zbarzbar conj(xdot)) conj(ybar)
//
// With spec.Deriv (or spec.VJP) for the mode of its input, the rule also records
// its pullback with ops (chainrules.PullbackRecorder), which makes the op
// differentiable to any order by recorded backward sweeps; without, such a sweep
// through it fails with an *chainrules.OrderError (see Derivatives of any order in
// the package doc).
//
// Input of a dtype spec does not define, and a spec that is incomplete (F without D1
// or D2, two complex definitions, an empty name), make Apply return an error
// wrapping chainrules.ErrInvalidArgument; no user input makes the op panic.
func Unary(name string, spec UnarySpec) cr.Op[*tensor.Dense] {
	if err := spec.check(name); err != nil {
		return cr.FailOp[*tensor.Dense](name, err)
	}
	return &unaryOp{name: name, spec: spec}
}

func (s *UnarySpec) check(name string) error {
	complexDefs := btoi(s.Complex.F != nil) + btoi(s.ComplexToReal.F != nil) + btoi(s.Wirtinger.F != nil)
	return checkSpec("elementwise.Unary", name,
		specProblem{s.Real.incomplete(), "Real.F without Real.D1 and Real.D2"},
		specProblem{s.Complex.incomplete(), "Complex.F without Complex.D1 and Complex.D2"},
		specProblem{s.ComplexToReal.F != nil && (s.ComplexToReal.Grad == nil || s.ComplexToReal.Hess == nil), "ComplexToReal.F without Grad and Hess"},
		specProblem{s.Wirtinger.F != nil && (s.Wirtinger.D1 == nil || s.Wirtinger.D2 == nil), "Wirtinger.F without D1 and D2"},
		specProblem{complexDefs > 1, "more than one of Complex, ComplexToReal and Wirtinger is set"},
		specProblem{s.Promote && s.Complex.F == nil, "Promote without Complex"})
}

// incomplete reports whether f has F without both derivatives.
func (f *Func1[T]) incomplete() bool { return f.F != nil && (f.D1 == nil || f.D2 == nil) }

// specProblem is a condition that makes a spec invalid, and what it is.
type specProblem struct {
	holds bool
	what  string
}

// checkSpec returns an error wrapping chainrules.ErrInvalidArgument, reported by
// constructor for the op name, if name is empty or any of problems holds (the first
// that holds); nil if the spec is valid.
func checkSpec(constructor, name string, problems ...specProblem) error {
	if name == "" {
		return cr.Errorf(cr.ErrInvalidArgument, "%s(%q): empty name", constructor, name)
	}
	for _, p := range problems {
		if p.holds {
			return cr.Errorf(cr.ErrInvalidArgument, "%s(%q): %s", constructor, name, p.what)
		}
	}
	return nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Func2 is a scalar function of two arguments with its partial derivatives up to the
// second order: the definition of a binary elementwise op on one element type. The
// zero Func2 (F nil) means the op is not defined on that type.
type Func2[T tensor.Element] struct {
	// F returns y = f(a, b).
	F func(a, b T) T
	// D1 returns the partials (f_a, f_b) and D2 the second partials (f_aa, f_ab,
	// f_bb), given also y = f(a, b). Both are required when F is set.
	D1 func(a, b, y T) (fa, fb T)
	D2 func(a, b, y T) (faa, fab, fbb T)
	// Run, if set, is a fast path for F over one run of the broadcast:
	// dst[i] = F(a[i*sa], b[i*sb]) for every i < len(dst), where the stride sa or sb
	// is 0 for an operand broadcast along the run.
	Run func(dst, a []T, sa int, b []T, sb int)
	// PullRun, if set, is a fast path for the first-order pullback over one run:
	// ga[i] = conj(f_a) ybar[i] and gb[i] = conj(f_b) ybar[i] at (a[i*sa], b[i*sb]),
	// for every i < len(ybar).
	PullRun func(ga, gb, ybar, a []T, sa int, b []T, sb int)
	// Linear declares f(a, b) = c_a a + c_b b with constants c_a, c_b (add, sub):
	// every second partial is 0, so the second-order pullback is the pullback of
	// ybardot and may use PullRun.
	Linear bool
	// pull2, set on the package's fused ops, is a fast path for the second-order
	// pullback over one run: the terms of binaryData.pull's second-order loop, in
	// the same order, without its calls of D1 and D2 per element. ybd, ad and bd
	// may be nil (zero); ad and bd step with a and b.
	pull2 func(ga, gb, gad, gbd, yb, ybd, a []T, sa int, b []T, sb int, ad, bd []T)
	// jvp1, likewise, is a fast path for the forward tangent over one run: the
	// terms of binaryData.jvp's loop in its order, ydot = f_a adot + f_b bdot.
	jvp1 func(yd, a []T, sa int, b []T, sb int, ad, bd []T)
}

// RealToComplex is a complex-valued function of two real arguments, f(a, b) with a
// and b real, given with its partial derivatives (complex numbers: those of Re f and
// Im f, combined) up to the second order: the definition of an op such as
// complex(re, im) or polar(abs, angle), which builds complex output from real
// input. The zero RealToComplex (F nil) means no such definition.
type RealToComplex struct {
	// F returns y = f(a, b).
	F func(a, b float64) complex128
	// D1 returns the partials (f_a, f_b) and D2 the second partials (f_aa, f_ab,
	// f_bb), given also y = f(a, b). Both are required when F is set.
	D1 func(a, b float64, y complex128) (fa, fb complex128)
	D2 func(a, b float64, y complex128) (faa, fab, fbb complex128)
}

// BinarySpec defines a binary elementwise op for Binary.
type BinarySpec struct {
	// Real defines the op on two float64 operands; with Real.F nil they are an error.
	Real Func2[float64]
	// Complex, if Complex.F is set, defines the op on complex128 operands as a
	// function holomorphic in each argument. A float64 operand next to a complex128
	// one is promoted and receives the real part of its cotangent. With Complex.F
	// nil, complex128 input is an error.
	Complex Func2[complex128]
	// RealToComplex, if its F is set, defines the op on two float64 operands as a
	// complex-valued function: the output is complex128, and complex128 operands are
	// an error. It excludes Real and Complex.
	RealToComplex RealToComplex

	// Partials, if set, records the partial derivatives f_a and f_b with ops, as
	// expressions of the operand nodes a, b and the output node y (mul's are b
	// and a), the binary form of UnarySpec.Deriv. The op's rule then records its
	// pullback
	//
	//	abar = SumTo(conj(f_a) ybar, shape(a)),  bbar = SumTo(conj(f_b) ybar, shape(b))
	//
	// with ConjOp, MulOp, a sum over the broadcast axes (a linear op, whose
	// adjoint broadcasts) and RealOp for a float64 operand of a complex result,
	// which makes the op differentiable to every order its partials' ops reach.
	// Each partial must broadcast to the output's shape; the zero NodeID means a
	// partial that is 0 everywhere. Errors are as for UnarySpec.Deriv.
	Partials func(r cr.Recorder[*tensor.Dense], a, b, y cr.NodeID) (fa, fb cr.NodeID, err error)
	// VJP, if set, records the cotangents conj(f_a) ybar and conj(f_b) ybar
	// themselves (before the sums over broadcast axes, which the rule adds, as it
	// takes the real part for a float64 operand of a complex result), in place of
	// Partials: for ops linear in their operands, whose cotangents are ops of
	// ybar (sub's are ybar and -ybar). Each must have the output's shape or the
	// operand's; the zero NodeID is a zero cotangent.
	//
	// With neither, the op's rule declines to record its pullback, and a
	// recorded sweep through it fails with an *chainrules.OrderError.
	VJP func(r cr.Recorder[*tensor.Dense], a, b, y, ybar cr.NodeID) (ga, gb cr.NodeID, err error)

	// sum marks add, f(a, b) = a + b, whose pullback passes ybar on to both
	// operands (see passThrough).
	sum bool
	// diff marks sub, f(a, b) = a - b, whose pullback passes ybar on to a and
	// its negation to b (see passThrough).
	diff bool
	// single, set on add, sub, mul and div, names their float32 kernel: two
	// float32 operands are computed in float32 (see binary_single.go).
	single arith32
}

// Binary returns the elementwise op y = f(a, b) named name (its registry key),
// defined by spec. The operands broadcast like NumPy's (tensor.BroadcastShapes;
// shapes that do not broadcast are an error wrapping chainrules.ErrShapeMismatch),
// and each operand's cotangent is summed over the axes it was broadcast along
// (tensor.SumTo), so that it has the operand's shape. With the partials f_a, f_b and
// second partials f_aa, f_ab, f_bb at (a, b):
//
//	forward:       ydot    = f_a adot + f_b bdot
//	pullback:      abar    = SumTo(conj(f_a) ybar, shape(a))
//	               bbar    = SumTo(conj(f_b) ybar, shape(b))
//	second order:  abardot = SumTo(conj(f_a) ybardot + conj(f_aa adot + f_ab bdot) ybar, shape(a))
//	               bbardot = SumTo(conj(f_b) ybardot + conj(f_ab adot + f_bb bdot) ybar, shape(b))
//
// where conj is the identity on float64 (PyTorch's convention for complex input, as
// in Unary). For a RealToComplex f the same formulas hold with real adot and bdot,
// and each operand's cotangent and its tangent are the real parts of those above
// (Re(conj(f_a) ybar) is the adjoint of adot -> f_a adot under Re<a, b>).
// The rule keeps a, b and y and evaluates the partials when called. With
// spec.Partials (or spec.VJP) it also records its pullback with ops, as Unary's
// does with UnarySpec.Deriv.
// Input of a dtype spec does not define, and an incomplete spec, make Apply return an
// error wrapping chainrules.ErrInvalidArgument; no user input makes the op panic.
func Binary(name string, spec BinarySpec) cr.Op[*tensor.Dense] {
	if err := spec.check(name); err != nil {
		return cr.FailOp[*tensor.Dense](name, err)
	}
	o := &binaryOp{name: name, spec: spec}
	if rc := spec.RealToComplex; rc.F != nil {
		// Computed in complex128 on the promoted operands, whose imaginary parts are 0.
		o.realToComplex = Func2[complex128]{
			F: func(a, b complex128) complex128 { return rc.F(real(a), real(b)) },
			D1: func(a, b, y complex128) (complex128, complex128) {
				return rc.D1(real(a), real(b), y)
			},
			D2: func(a, b, y complex128) (complex128, complex128, complex128) {
				return rc.D2(real(a), real(b), y)
			},
		}
	}
	return o
}

func (s *BinarySpec) check(name string) error {
	return checkSpec("elementwise.Binary", name,
		specProblem{s.Real.incomplete(), "Real.F without Real.D1 and Real.D2"},
		specProblem{s.Complex.incomplete(), "Complex.F without Complex.D1 and Complex.D2"},
		specProblem{s.RealToComplex.F != nil && (s.RealToComplex.D1 == nil || s.RealToComplex.D2 == nil), "RealToComplex.F without RealToComplex.D1 and RealToComplex.D2"},
		specProblem{s.RealToComplex.F != nil && (s.Real.F != nil || s.Complex.F != nil), "RealToComplex together with Real or Complex"})
}

// incomplete reports whether f has F without both derivatives.
func (f *Func2[T]) incomplete() bool { return f.F != nil && (f.D1 == nil || f.D2 == nil) }
