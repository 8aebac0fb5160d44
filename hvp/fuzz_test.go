package hvp_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	cr "github.com/chainrules-go/chainrules/chainrules"
	ew "github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/ops"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// fuzzEntries are the default registry's differentiable entries with samples, in a
// fixed order (those marked NoDerivative fail every derivative with ErrNoRule, as
// TestEveryFamilyHVPMatchesFiniteDifferences checks, and have none to compare).
func fuzzEntries() []cr.Entry[*tensor.Dense] {
	var out []cr.Entry[*tensor.Dense]
	for _, e := range ops.Default().Entries() {
		if e.Samples != nil && !e.NoDerivative {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b cr.Entry[*tensor.Dense]) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	return out
}

// shapeKeeping are smooth ops that keep their input's shape and dtype.
var shapeKeeping = []cr.Op[*tensor.Dense]{ew.SinOp, ew.TanhOp, ew.SquareOp, ew.ScaleOp(0.5), ew.NegOp}

// FuzzRegistryGraphs records random graphs over the default registry's ops at their
// sample points — a few registry ops, chains of smooth ops with fan-out (a node
// multiplied by itself or added to another), a sum of |y|² as the loss — and checks,
// through the public API only, that nothing panics, that no caller-owned value is
// modified, that the forward and reverse sweeps agree (<grad, v> = d/de f(x + e v),
// the adjoint identity), and that the Hessian-vector products are symmetric
// (<u, H v> = <v, H u>).
func FuzzRegistryGraphs(f *testing.F) {
	for _, s := range []uint64{0, 1, 2, 3, 17, 42, 99, 123456} {
		f.Add(s, uint8(s), uint8(s>>3))
	}
	entries := fuzzEntries()
	f.Fuzz(func(t *testing.T, seed uint64, nops, chain uint8) {
		rng := rand.New(rand.NewPCG(seed, uint64(nops)<<8|uint64(chain)))
		var inputs []*tensor.Dense
		type part struct {
			s     cr.Sample[*tensor.Dense]
			first int // index of its first input
		}
		var parts []part
		for range 1 + int(nops)%3 {
			e := entries[rng.IntN(len(entries))]
			samples := e.Samples(rng)
			if len(samples) == 0 {
				continue
			}
			s := samples[rng.IntN(len(samples))]
			s.Name = e.Name + "/" + s.Name
			parts = append(parts, part{s, len(inputs)})
			inputs = append(inputs, s.Inputs...)
		}
		if len(inputs) == 0 {
			return
		}
		before := make([]*tensor.Dense, len(inputs))
		for k, x := range inputs {
			before[k] = x.Clone()
		}
		steps := int(chain) % 6
		fn := func(tp *hvp.Tape, x []cr.NodeID) cr.NodeID {
			r := rand.New(rand.NewPCG(seed, 1)) // the same graph at every point
			// Chains of sin, tanh and squares overflow easily: a point with a
			// non-finite value anywhere is skipped (ErrNonFinite), not compared.
			if err := tp.DetectAnomaly(true); err != nil {
				t.Fatal(err)
			}
			var loss cr.NodeID
			for _, p := range parts {
				in := x[p.first : p.first+len(p.s.Inputs)]
				ys := tp.ApplyMulti(p.s.Op, in...)
				for _, y := range ys {
					for range steps {
						switch r.IntN(3) {
						case 0:
							y = tp.Apply(shapeKeeping[r.IntN(len(shapeKeeping))], y)
						case 1:
							y = tp.Apply(ew.MulOp, y, y) // fan-out
						default:
							y = tp.Apply(ew.AddOp, y, tp.Apply(ew.SinOp, y))
						}
					}
					l := tp.Apply(reduce.SumOp(nil, false), tp.Apply(ew.Abs2Op, y))
					if loss.Valid() {
						l = tp.Apply(ew.AddOp, loss, l)
					}
					loss = l
				}
			}
			return loss
		}
		val, grad, err := hvp.Grad(fn, inputs)
		if errors.Is(err, cr.ErrNonFinite) {
			return
		}
		if err != nil {
			t.Fatalf("grad: %v", err)
		}
		if v := val.AtFloat64(); math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1e12 {
			return
		}
		u, v := make([]*tensor.Dense, len(inputs)), make([]*tensor.Dense, len(inputs))
		for k, x := range inputs {
			u[k] = tensor.RandN(rng, x.DType(), x.Shape()...)
			v[k] = tensor.RandN(rng, x.DType(), x.Shape()...)
		}
		_, yd, err := hvp.JVP(fn, inputs, v)
		if errors.Is(err, cr.ErrNonFinite) {
			return
		}
		if err != nil {
			t.Fatalf("jvp: %v", err)
		}
		// Adjoint identity: d/de f(x + e v) = Re <grad, v>.
		gv := 0.0
		for k := range inputs {
			d, _ := tensor.Dot(grad[k], v[k])
			gv += real(d)
		}
		if !approxEqual(yd.AtFloat64(), gv, 1e-8) {
			for _, p := range parts {
				t.Logf("%s %v", p.s.Name, p.s.Inputs)
			}
			t.Fatalf("JVP %v, <grad, v> %v", yd.AtFloat64(), gv)
		}
		op, err := hvp.NewOperator(fn, inputs)
		if err != nil {
			t.Fatalf("operator: %v", err)
		}
		hu, err := op.Apply(u)
		if errors.Is(err, cr.ErrNonFinite) {
			return
		}
		if err != nil {
			t.Fatalf("hvp: %v", err)
		}
		hv, err := op.Apply(v)
		if errors.Is(err, cr.ErrNonFinite) {
			return
		}
		if err != nil {
			t.Fatalf("hvp: %v", err)
		}
		uhv, vhu := 0.0, 0.0
		for k := range inputs {
			d, _ := tensor.Dot(u[k], hv[k])
			uhv += real(d)
			d, _ = tensor.Dot(v[k], hu[k])
			vhu += real(d)
		}
		t.Logf("checked: %d parts, %d inputs, f = %v, <u, H v> = %v", len(parts), len(inputs), val.AtFloat64(), uhv)
		if !approxEqual(uhv, vhu, 1e-7) {
			t.Fatalf("<u, H v> = %v, <v, H u> = %v", uhv, vhu)
		}
		for k := range inputs {
			if !tensor.EqualApprox(before[k], inputs[k], 0, 0) {
				t.Fatalf("input %d was modified", k)
			}
		}
	})
}

// approxEqual compares a and b to a relative tolerance.
func approxEqual(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}
