package oracle

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"math/cmplx"
	"slices"
	"strings"
	"testing"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/tensor"
)

// Resolver maps a case to our op and its inputs, in the case's input order
// (normally c.DenseInputs()). It reads the op's parameters from the case (see
// Case.Kwargs and Case.ReductionAxes). A resolver that cannot express a case
// returns Skip(reason); any other error fails the case (or passes it, if the case
// expects an error).
type Resolver func(c *Case) (cr.Op[*tensor.Dense], []*tensor.Dense, error)

// SkipError is returned by a Resolver to skip a case it cannot express.
type SkipError struct{ Reason string }

// Error returns "skip: " and the reason.
func (e *SkipError) Error() string { return "skip: " + e.Reason }

// Skip returns a *SkipError: the way for a Resolver to skip a case, with a reason
// that the Report counts.
func Skip(reason string) error { return &SkipError{Reason: reason} }

// ErrMismatch is wrapped by the error of a case whose derivatives differ from the
// reference, or that succeeded where an error was expected.
var ErrMismatch = errors.New("oracle mismatch")

// Report summarises a replay.
type Report struct {
	// Replayed counts the cases run (not skipped); Passed those that matched.
	Replayed, Passed int
	// Skipped counts skipped cases by reason ("dtype float32", "observable svd_s",
	// or a Resolver's reason).
	Skipped map[string]int
	// Unchecked counts references that a replayed case could not be compared with,
	// by reason (e.g. "hvp: second-order rule not supported"): those parts are
	// neither passed nor failed, and a case with only such gaps still passes.
	Unchecked map[string]int
}

// String formats the report on one line, reasons sorted.
func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "oracle: %d replayed, %d passed, %d failed", r.Replayed, r.Passed, r.Replayed-r.Passed)
	for _, m := range []struct {
		name string
		m    map[string]int
	}{{"skipped", r.Skipped}, {"unchecked", r.Unchecked}} {
		if len(m.m) == 0 {
			continue
		}
		fmt.Fprintf(&b, "; %s:", m.name)
		for i, k := range slices.Sorted(maps.Keys(m.m)) {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, " %d %s", m.m[k], k)
		}
	}
	return b.String()
}

// Replay replays cases through t, one subtest per case (named by case ID), and
// logs and returns the Report. float32 and complex64 cases are skipped (reason
// "dtype float32", "dtype complex64"); ReplaySingle replays them too.
func Replay(t *testing.T, cases []Case, resolve Resolver) Report {
	t.Helper()
	return replay(t, cases, resolve, false)
}

// ReplaySingle is Replay that also replays the float32 and complex64 cases, in
// single precision: the resolver's inputs are rounded to each case input's own
// dtype (exactly: the reference data are single-precision values), the reference
// cotangents and directions to the dtypes of the outputs and inputs, and the
// results, which must have the single-precision dtypes, are compared with the
// references at the case's own tolerances capped at SingleTol.
func ReplaySingle(t *testing.T, cases []Case, resolve Resolver) Report {
	t.Helper()
	return replay(t, cases, resolve, true)
}

func replay(t *testing.T, cases []Case, resolve Resolver, single bool) Report {
	t.Helper()
	rep := newReport()
	for i := range cases {
		c := &cases[i]
		t.Run(c.ID, func(t *testing.T) {
			t.Helper()
			skip, err := replayCase(c, resolve, &rep, single)
			switch {
			case skip != "":
				t.Skip(skip)
			case err != nil:
				t.Error(err)
			}
		})
	}
	t.Log(rep)
	return rep
}

// Run replays cases outside go test and returns the Report with the failures
// joined by errors.Join (each wraps ErrMismatch, or the op's own error).
func Run(cases []Case, resolve Resolver) (Report, error) {
	return run(cases, resolve, false)
}

// RunSingle is Run replaying the float32 and complex64 cases too, as ReplaySingle.
func RunSingle(cases []Case, resolve Resolver) (Report, error) {
	return run(cases, resolve, true)
}

func run(cases []Case, resolve Resolver, single bool) (Report, error) {
	rep := newReport()
	var errs []error
	for i := range cases {
		if _, err := replayCase(&cases[i], resolve, &rep, single); err != nil {
			errs = append(errs, err)
		}
	}
	return rep, errors.Join(errs...)
}

func newReport() Report {
	return Report{Skipped: map[string]int{}, Unchecked: map[string]int{}}
}

// replayCase runs one case, updating rep. It returns a skip reason or the failure.
func replayCase(c *Case, resolve Resolver, rep *Report, single bool) (skip string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("oracle: case %s: panic: %v", c.ID, p)
		}
		switch {
		case skip != "":
			rep.Skipped[skip]++
		case err == nil:
			rep.Replayed++
			rep.Passed++
		default:
			rep.Replayed++
		}
	}()
	singleCase := c.DType == "float32" || c.DType == "complex64"
	if !(c.DType == "float64" || c.DType == "complex128" || single && singleCase) {
		return "dtype " + c.DType, nil
	}
	if c.Observable.Kind != "" && c.Observable.Kind != "identity" {
		return "observable " + c.Observable.Kind, nil
	}
	fail := func(format string, args ...any) error {
		return fmt.Errorf("oracle: case %s (%s %s): %w: %s", c.ID, c.Op, c.DType, ErrMismatch, fmt.Sprintf(format, args...))
	}
	wantErr := c.ExpectedBehavior != "" && c.ExpectedBehavior != "success"

	op, inputs, err := resolve(c)
	var se *SkipError
	if errors.As(err, &se) {
		return se.Reason, nil
	}
	if err == nil && len(inputs) != len(c.Inputs) {
		err = cr.Errorf(cr.ErrInvalidArgument, "resolver returned %d inputs, the case has %d", len(inputs), len(c.Inputs))
	}
	if err == nil && op == nil {
		err = cr.Errorf(cr.ErrNoRule, "resolver returned a nil op")
	}
	if err == nil && singleCase {
		for k := range inputs {
			if inputs[k], err = asCaseDType(inputs[k], c.Inputs[k].DType); err != nil {
				break
			}
		}
	}
	var tape *core.Tape[*tensor.Dense]
	var ids []cr.NodeID
	var out cr.NodeID
	if err == nil {
		tape = core.NewTape[*tensor.Dense](tensor.Space{})
		ids = make([]cr.NodeID, len(inputs))
		for k, x := range inputs {
			ids[k] = tape.Leaf(x)
		}
		out = tape.Apply(op, ids...)
		err = tape.Err()
	}
	if wantErr {
		if err == nil {
			// The error may only show when differentiating.
			err = firstProbeError(tape, out, c)
		}
		if err == nil {
			return "", fail("expected an error (%s %s), got none", c.Comparison.Kind, c.Comparison.ReasonCode)
		}
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("oracle: case %s (%s %s): %w", c.ID, c.Op, c.DType, err)
	}
	if c.Comparison.FirstOrder == nil {
		return "", fail("case has no first-order tolerance")
	}
	var errs []error
	for pi := range c.Probes {
		if err := replayProbe(c, &c.Probes[pi], tape, ids, out, rep); err != nil {
			errs = append(errs, err)
		}
	}
	return "", errors.Join(errs...)
}

// firstProbeError runs the backward pass of an error case's first probe (or from a
// scalar seed) and returns its error.
func firstProbeError(tape *core.Tape[*tensor.Dense], out cr.NodeID, c *Case) error {
	y, err := tape.Value(out)
	if err != nil {
		return err
	}
	seed := tensor.Space{}.Rand(y, nil)
	if len(c.Probes) > 0 {
		if ct, ok := c.Probes[0].Cotangent.Get("value"); ok {
			if seed, err = ct.Dense(); err != nil {
				return err
			}
			if seed, err = like(seed, y); err != nil {
				return err
			}
		}
	}
	_, err = tape.BackwardSeed(out, seed)
	return err
}

// replayProbe compares JVP, VJP and HVP at one probe.
func replayProbe(c *Case, p *Probe, tape *core.Tape[*tensor.Dense], ids []cr.NodeID, out cr.NodeID, rep *Report) error {
	where := fmt.Sprintf("oracle: case %s (%s %s) probe %s", c.ID, c.Op, c.DType, p.ID)
	y, err := tape.Value(out)
	if err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	ctT, ok := p.Cotangent.Get("value")
	if !ok {
		return fmt.Errorf("%s: %w: probe has no output cotangent", where, cr.ErrInvalidArgument)
	}
	ybar, err := ctT.Dense()
	if err == nil {
		ybar, err = like(ybar, y)
	}
	if err != nil {
		return fmt.Errorf("%s: cotangent: %w", where, err)
	}
	if !slices.Equal(ybar.Shape(), y.Shape()) || ybar.DType() != y.DType() {
		return fmt.Errorf("%s: %w: output is %s, reference cotangent %s", where, ErrMismatch, y.Describe(), ybar.Describe())
	}
	seeds := map[cr.NodeID]*tensor.Dense{}
	for k, in := range c.Inputs {
		d, ok := p.Direction.Get(in.Name)
		if !ok {
			continue
		}
		v, err := d.Dense()
		if err == nil {
			var x *tensor.Dense
			if x, err = tape.Value(ids[k]); err == nil {
				v, err = like(v, x)
			}
		}
		if err != nil {
			return fmt.Errorf("%s: direction %s: %w", where, in.Name, err)
		}
		seeds[ids[k]] = v
	}
	var errs []error
	first, second := *c.Comparison.FirstOrder, c.Comparison.SecondOrder
	if c.DType == "float32" || c.DType == "complex64" {
		// The upstream single-precision tolerances are loose (exp's float32 cases
		// allow atol 10, rtol 1): cap them at SingleTol, so that a wrong
		// single-precision derivative cannot pass.
		first = capTol(first)
		if second != nil {
			s := capTol(*second)
			second = &s
		}
	}
	// compareInputs compares the per-input values got (zero for an input it leaves
	// out) with the references of the inputs refs has.
	compareInputs := func(what string, got *core.Gradients[*tensor.Dense], refs Tensors, tol Tolerance) {
		for k, in := range c.Inputs {
			ref, ok := refs.Get(in.Name)
			if !ok {
				continue
			}
			v, has := got.Of(ids[k])
			if !has {
				x, _ := tape.Value(ids[k])
				v = tensor.Space{}.Zero(x)
			}
			if err := compare(what+" "+in.Name, v, ref, tol); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", where, err))
			}
		}
	}

	// failed reports whether the sweep what failed with err, and records why: as
	// unchecked (what: reason) if err wraps unsupported, as an error otherwise.
	failed := func(what string, err, unsupported error, reason string) bool {
		switch {
		case err == nil:
			return false
		case unsupported != nil && errors.Is(err, unsupported):
			rep.Unchecked[what+": "+reason]++
		default:
			errs = append(errs, fmt.Errorf("%s: %s: %w", where, what, err))
		}
		return true
	}

	// J v by a forward sweep.
	tan, ferr := tape.ForwardTangents(seeds)
	if !failed("jvp", ferr, cr.ErrNoRule, "no forward rule") {
		if ref, ok := p.PyTorch.JVP.Get("value"); ok {
			ydot, has := tan.Of(out)
			if !has {
				ydot = tensor.Space{}.Zero(y)
			}
			if err := compare("jvp", ydot, ref, first); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", where, err))
			}
		}
	}

	// J* ybar by a backward sweep.
	if grads, err := tape.BackwardSeed(out, ybar); !failed("vjp", err, nil, "") {
		compareInputs("vjp", grads, p.PyTorch.VJP, first)
	}

	// H_phi v with phi(x) = Re<ybar, f(x)>: second-order sweep seeded with (ybar, 0).
	switch {
	case len(p.PyTorch.HVP) == 0:
	case second == nil:
		rep.Unchecked["hvp: no second-order tolerance"]++
	case ferr != nil:
		rep.Unchecked["hvp: no forward tangents"]++
	default:
		_, gt, err := tape.BackwardWithTangentsSeed(out, cr.Dual[*tensor.Dense]{Value: ybar}, tan)
		if !failed("hvp", err, cr.ErrHVPNotSupported, "second-order rule not supported") {
			compareInputs("hvp", gt, p.PyTorch.HVP, *second)
		}
	}
	return errors.Join(errs...)
}

// compare checks ours against the reference elementwise at tol, naming the worst
// element.
func compare(what string, ours *tensor.Dense, ref Tensor, tol Tolerance) error {
	if !slices.Equal(ours.Shape(), ref.Shape) {
		return fmt.Errorf("%s: %w: ours is %s, reference has shape %v", what, ErrMismatch, ours.Describe(), ref.Shape)
	}
	wide, err := tensor.AsType(ours, tensor.Complex128)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	got := wide.Complex128s()
	// The element that exceeds its tolerance by the most (a NaN by infinitely much).
	at, excess := -1, 0.0
	for i, a := range got {
		e := ref.Data[i]
		if a == e {
			continue
		}
		x := cmplx.Abs(a-e) - (tol.Atol + tol.Rtol*math.Max(cmplx.Abs(a), cmplx.Abs(e)))
		if math.IsNaN(x) {
			x = math.Inf(1)
		}
		if x > excess {
			at, excess = i, x
		}
	}
	if at < 0 {
		return nil
	}
	idx := make([]int, len(ref.Shape))
	rem := at
	for k := len(ref.Shape) - 1; k >= 0; k-- {
		idx[k] = rem % ref.Shape[k]
		rem /= ref.Shape[k]
	}
	return fmt.Errorf("%s: %w at element %v: ours %v, PyTorch %v (atol %g, rtol %g)", what, ErrMismatch, idx, got[at], ref.Data[at], tol.Atol, tol.Rtol)
}

// asCaseDType returns x rounded to dtype, the name of a case input's dtype, when
// that is float32 or complex64 (x otherwise).
func asCaseDType(x *tensor.Dense, dtype string) (*tensor.Dense, error) {
	switch dtype {
	case "float32":
		return tensor.AsType(x, tensor.Float32)
	case "complex64":
		return tensor.AsType(x, tensor.Complex64)
	}
	return x, nil
}

// like returns v (a reference value, read in double precision) rounded to the
// single-precision dtype of x when x is float32 or complex64 (v otherwise).
func like(v, x *tensor.Dense) (*tensor.Dense, error) {
	if x == nil || !x.DType().IsSingle() {
		return v, nil
	}
	if x.DType() == tensor.Float32 && v.DType().IsComplex() {
		return v, nil // a mismatch the caller reports
	}
	return tensor.AsType(v, x.DType())
}

// SingleTol caps the tolerances ReplaySingle applies to float32 and complex64
// cases: each of atol and rtol is the case's own or 1e-4, whichever is smaller
// (float32's unit roundoff is 6e-8; PyTorch's single-precision derivatives and
// ours, computed in double precision and rounded, agree far closer than that).
const SingleTol = 1e-4

func capTol(t Tolerance) Tolerance {
	t.Atol, t.Rtol = min(t.Atol, SingleTol), min(t.Rtol, SingleTol)
	return t
}
