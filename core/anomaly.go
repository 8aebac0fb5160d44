package core

import (
	"errors"
	"fmt"
	"math"
	"math/cmplx"
	"runtime"
	"strings"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

// FiniteChecker is the optional interface of a chainrules.Space that anomaly mode
// needs: IsFinite reports whether every element of v is finite (no NaN, no
// infinity, in either part of a complex number).
//
// The engine checks float64, float32, complex128 and complex64 values itself; any
// other value type needs a Space that implements FiniteChecker.
type FiniteChecker[V any] interface {
	IsFinite(v V) bool
}

// DetectAnomaly turns anomaly mode on or off. While it is on, the tape checks every
// value it records (leaves, constants, op outputs), every tangent of a forward sweep
// and every cotangent of a reverse or second-order sweep (each pullback's
// contributions, each node's accumulated cotangent and each hook's result) for NaN
// and infinities, and remembers where each node was recorded: the dir/file:line of
// the first caller outside this module, that is the program's call to Apply, Record,
// Leaf, Constant or Checkpoint, or to the library helper that made it (einsum.Record,
// index.ApplySplit, a composite op), as apply-time errors name their site.
//
// The first non-finite value fails the recording (a sticky error) or the sweep with
// a *chainrules.OpError that wraps chainrules.ErrNonFinite and names the op, the node
// and its recording site, e.g.
//
//	chainrules: log at node %3 (pullback): non-finite value: cotangent of input %1
//	(float64[]) is not finite; log was recorded at model/train.go:42
//
// Nodes recorded while anomaly mode was off have no site. Anomaly mode costs a walk
// of the stack per recorded node and a check per value; off, it costs nothing.
//
// It returns an error wrapping chainrules.ErrNoRule if the values cannot be checked:
// the value type is not a float64, float32, complex128 or complex64 scalar and the
// tape's Space does not implement FiniteChecker.
func (t *Tape[V]) DetectAnomaly(on bool) error {
	if !on {
		t.isFinite, t.sites = nil, nil
		return nil
	}
	f := finiteFunc(t.space)
	if f == nil {
		var v V
		return cr.Errorf(cr.ErrNoRule, "anomaly mode: %T cannot check %T values for NaN (it needs an IsFinite(%T) bool method)", t.space, v, v)
	}
	t.isFinite = f
	return nil
}

// AnomalyMode reports whether anomaly mode is on.
func (t *Tape[V]) AnomalyMode() bool { return t.isFinite != nil }

// finiteFunc returns the NaN/Inf check for values of space, or nil.
func finiteFunc[V any](space cr.Space[V]) func(V) bool {
	if c, ok := space.(FiniteChecker[V]); ok {
		return c.IsFinite
	}
	var zero V
	switch any(zero).(type) {
	case float64:
		return func(v V) bool { x := any(v).(float64); return !math.IsNaN(x) && !math.IsInf(x, 0) }
	case float32:
		return func(v V) bool { x := float64(any(v).(float32)); return !math.IsNaN(x) && !math.IsInf(x, 0) }
	case complex128:
		return func(v V) bool { x := any(v).(complex128); return !cmplx.IsNaN(x) && !cmplx.IsInf(x) }
	case complex64:
		return func(v V) bool { x := complex128(any(v).(complex64)); return !cmplx.IsNaN(x) && !cmplx.IsInf(x) }
	}
	return nil
}

// callerPC returns the recording site that anomaly mode reports: the program counter
// of the first caller outside this module's packages (see userSite), so that a node
// recorded through a library helper (einsum.Record, index.ApplySplit, a Composite's
// body) points at the program's line, not into the library. If every caller is in
// the module, it is the first caller outside the engine (this package). It walks the
// stack, which only anomaly mode pays for.
func callerPC() uintptr {
	var pcs [64]uintptr
	n := runtime.Callers(2, pcs[:]) // skip runtime.Callers and callerPC
	var outsideEngine uintptr
	for _, pc := range pcs[:n] {
		f, ok := userFrame(pc)
		if ok {
			return pc
		}
		if outsideEngine == 0 && !strings.HasPrefix(f.Function, enginePrefix) {
			outsideEngine = pc
		}
	}
	return outsideEngine
}

// enginePrefix begins the names of this package's functions and methods.
const enginePrefix = modulePrefix + "core."

// userFrame returns the first frame outside this module among the frames of the
// return address pc (more than one where calls were inlined into its function).
func userFrame(pc uintptr) (runtime.Frame, bool) {
	frames := runtime.CallersFrames([]uintptr{pc})
	for {
		f, more := frames.Next()
		if !inModule(f) && f.File != "" {
			return f, true
		}
		if !more {
			return f, false
		}
	}
}

// modulePrefix is the import path prefix of this module's packages.
const modulePrefix = "github.com/chainrules-go/chainrules/"

// userSite returns the dir/file:line of the first caller outside this module's
// packages (their tests and the example programs count as outside): where the
// program called into the library. It walks the stack, so it is only called once an
// error has happened. The file is named by its directory and base name, as in
// "model/train.go:42", so that messages do not depend on where the code is checked
// out.
func userSite() string {
	var pcs [64]uintptr
	n := runtime.Callers(2, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if !inModule(f) && f.File != "" {
			return frameSite(f)
		}
		if !more {
			return "an unknown site"
		}
	}
}

// frameSite formats f as dir/file:line.
func frameSite(f runtime.Frame) string {
	file := f.File
	if i := strings.LastIndexByte(file, '/'); i > 0 {
		if j := strings.LastIndexByte(file[:i], '/'); j >= 0 {
			file = file[j+1:]
		}
	}
	return fmt.Sprintf("%s:%d", file, f.Line)
}

// inModule reports whether f is code of this module's library packages.
func inModule(f runtime.Frame) bool {
	rest, ok := strings.CutPrefix(f.Function, modulePrefix)
	return ok && !strings.HasPrefix(rest, "examples/") && !strings.HasSuffix(f.File, "_test.go")
}

func (t *Tape[V]) setSite(i int, pc uintptr) {
	if n := i + 1 - len(t.sites); n > 0 {
		t.sites = append(t.sites, make([]uintptr, n)...)
	}
	t.sites[i] = pc
}

// site formats where node i was recorded.
func (t *Tape[V]) site(i int) string {
	if i < len(t.sites) && t.sites[i] != 0 {
		return formatPC(t.sites[i])
	}
	return "an unknown site (recorded with anomaly mode off)"
}

// formatPC formats a site of callerPC as dir/file:line, as userSite does.
func formatPC(pc uintptr) string {
	f, ok := userFrame(pc)
	if !ok {
		f, _ = runtime.CallersFrames([]uintptr{pc}).Next()
	}
	if f.File == "" {
		return "an unknown site"
	}
	return frameSite(f)
}

// checkValue is the anomaly check of a value about to be recorded as node i.
func (t *Tape[V]) checkValue(i int, name string, v V, pc uintptr) error {
	if t.isFinite(v) {
		return nil
	}
	where := "an unknown site"
	if pc != 0 {
		where = formatPC(pc)
	}
	return &cr.OpError{Op: name, Node: cr.NewNodeID(t.tag, i), Phase: "apply",
		Err: cr.Errorf(cr.ErrNonFinite, "value (%s) is not finite; %s was recorded at %s", t.space.Describe(v), name, where)}
}

// checkSweep is the anomaly check of a value met by a sweep at node i: what names the
// value ("cotangent", "cotangent of input %1", "tangent").
func (t *Tape[V]) checkSweep(i int, phase, what string, v V) error {
	if t.isFinite(v) {
		return nil
	}
	name := t.nameOf(i)
	return t.opErr(i, phase, cr.Errorf(cr.ErrNonFinite, "%s (%s) is not finite; %s was recorded at %s",
		what, t.space.Describe(v), name, t.site(i)))
}

// ruleErr is the error of node i's rule in a sweep. In anomaly mode, a non-finite
// value found inside the rule (a composite's inner op, say, which names its own
// site) also gets the site where node i was recorded.
func (t *Tape[V]) ruleErr(i int, phase string, err error) error {
	if t.isFinite != nil && errors.Is(err, cr.ErrNonFinite) {
		err = fmt.Errorf("%w; %s was recorded at %s", err, t.nameOf(i), t.site(i))
	}
	return t.opErr(i, phase, err)
}
