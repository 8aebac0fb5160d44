package elementwise

import (
	"math/rand/v2"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// The table of the package's elementwise functions, after ChainRules'
// fastmath_able.jl: one entry per function, in the file of its topic (fn_arith.go,
// fn_exp_log.go, fn_trig.go, fn_hyperbolic.go, fn_activation.go, fn_special.go,
// fn_rounding.go, fn_complex.go). An entry holds everything of its function: the
// exported variable its op is stored in, its name, its definition (the kernels and
// their derivatives, a UnarySpec or BinarySpec), the derivative written with ops
// from which its rule records its pullback, the dtypes and the domain its registry
// samples are drawn from, and the one-line formula of its registry entry. The
// files' init functions hand their entries to defUnary and defBinary, which make
// the ops, store them, and keep the entries for Register.
//
// The entries are made in init functions, not in the initializers of the
// exported variables, because the derivative expressions refer to one another's
// ops (sin' = cos, cos' = -sin; neg's pullback is neg), which package-level
// initializers cannot.

// unaryFn is the table entry of a unary function.
type unaryFn struct {
	// op is the exported variable the op is stored in; nil for a family that
	// only a constructor makes (scale, fill), which the entry registers.
	op *cr.Op[*tensor.Dense]
	// name is the op's name and registry key.
	name string
	// spec defines the op: defUnary makes it with Unary(name, spec).
	spec UnarySpec
	// of, if set, is the op itself, made by its constructor with the default
	// parameters (EluAlphaOp(1)), in place of spec.
	of cr.Op[*tensor.Dense]
	// deriv records f'(x) with ops (UnarySpec.Deriv), vjp the pullback itself
	// (UnarySpec.VJP); step records a piecewise-constant f' as a step op (relu).
	deriv derivExpr
	vjp   vjpExpr
	step  bool

	// dtypes and dom are the dtypes and the domain of the registry's samples, doc
	// its formula; extra adds samples (other parameters) to the default ones.
	dtypes []string
	dom    domain
	doc    string
	extra  func(*rand.Rand) []cr.Sample[*tensor.Dense]
}

// binaryFn is the table entry of a binary function, as unaryFn.
type binaryFn struct {
	op   *cr.Op[*tensor.Dense]
	name string
	spec BinarySpec
	of   cr.Op[*tensor.Dense]
	// partials records (f_a, f_b) with ops (BinarySpec.Partials), vjp the
	// cotangents themselves (BinarySpec.VJP); steps records piecewise-constant
	// partials as step ops: stepsAB both, stepsA f_a only (f_b = 0).
	partials partialsExpr
	vjp      vjp2Expr
	steps    stepKind

	// dtypes, da and db (the operands' domains) and doc are those of the registry
	// entry; extra adds samples to the default ones, and samples, if set,
	// replaces them.
	dtypes  []string
	da, db  domain
	doc     string
	extra   func(*rand.Rand) []cr.Sample[*tensor.Dense]
	samples func(*rand.Rand) []cr.Sample[*tensor.Dense]
}

// stepKind says which partials of a binary function are piecewise constant.
type stepKind int

const (
	noSteps stepKind = iota
	stepsAB          // f_a and f_b
	stepsA           // f_a, with f_b = 0
)

// The entries of the table, in the order the init functions give them.
var (
	unaryTable  []unaryFn
	binaryTable []binaryFn
)

// defUnary makes the ops of fns, stores each in its variable and keeps the entries
// for Register.
func defUnary(fns []unaryFn) {
	for _, f := range fns {
		op := f.of
		if op == nil {
			op = Unary(f.name, f.spec)
		}
		if u, ok := op.(*unaryOp); ok {
			switch {
			case f.step:
				u.spec = piecewiseLinear(u.name, u.spec)
			case f.deriv != nil:
				u.spec.Deriv = f.deriv.spec()
			}
			if f.vjp != nil {
				u.spec.VJP = f.vjp.spec()
			}
		}
		if f.op != nil {
			*f.op = op
		}
		if f.name == "" {
			f.name = op.Name()
		}
		f.of = op
		unaryTable = append(unaryTable, f)
	}
}

// defBinary makes the ops of fns, as defUnary.
func defBinary(fns []binaryFn) {
	for _, f := range fns {
		op := f.of
		if op == nil {
			op = Binary(f.name, f.spec)
		}
		if b, ok := op.(*binaryOp); ok {
			switch {
			case f.steps != noSteps:
				b.spec.Partials = stepPartials(b.name, b.spec.Real, f.steps == stepsA).spec()
			case f.partials != nil:
				b.spec.Partials = f.partials.spec()
			}
			if f.vjp != nil {
				b.spec.VJP = f.vjp.spec()
			}
		}
		if f.op != nil {
			*f.op = op
		}
		if f.name == "" {
			f.name = op.Name()
		}
		f.of = op
		binaryTable = append(binaryTable, f)
	}
}

// unaryEntries returns the registry entries of the unary functions of the table.
func unaryEntries() []cr.Entry[*tensor.Dense] {
	out := make([]cr.Entry[*tensor.Dense], 0, len(unaryTable))
	for _, f := range unaryTable {
		samples := unarySamples(f.of, f.dtypes, f.dom)
		if f.extra != nil {
			samples = withExtra(samples, f.extra)
		}
		out = append(out, cr.Entry[*tensor.Dense]{Name: f.name, Arity: 1, DTypes: f.dtypes,
			Forward: true, SecondOrder: true, Doc: f.doc, Samples: samples})
	}
	return out
}

// binaryEntries returns the registry entries of the binary functions of the table.
func binaryEntries() []cr.Entry[*tensor.Dense] {
	out := make([]cr.Entry[*tensor.Dense], 0, len(binaryTable))
	for _, f := range binaryTable {
		samples := f.samples
		if samples == nil {
			samples = binarySamples(f.of, len(f.dtypes) > 1, f.da, f.db)
		}
		if f.extra != nil {
			samples = withExtra(samples, f.extra)
		}
		out = append(out, cr.Entry[*tensor.Dense]{Name: f.name, Arity: 2, DTypes: f.dtypes,
			Forward: true, SecondOrder: true, Doc: f.doc, Samples: samples})
	}
	return out
}
