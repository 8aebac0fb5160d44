package core_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/core"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// spyOp is y = x (a copy) whose rule is a chainrules.SumPullbackRule that
// records, at every call (of Pullback too: no sum), the sum the engine gave it and the true sum of its
// cotangent (tensor.Space.SumOf), and passes the cotangent on without a sum.
type spyOp struct{ seen *[]spySeen }

type spySeen struct {
	given cr.CotangentSum
	true  float64
}

func (spyOp) Name() string    { return "sum_spy" }
func (spyOp) NumOutputs() int { return 1 }
func (o spyOp) Apply(in []cr.NodeID, xs, ys []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	ys[0] = xs[0].Clone()
	return &spyRule{in: [1]cr.NodeID{in[0]}, seen: o.seen}, nil
}

type spyRule struct {
	in   [1]cr.NodeID
	seen *[]spySeen
}

func (r *spyRule) Inputs() []cr.NodeID { return r.in[:] }
func (r *spyRule) Pullback(ybar []*tensor.Dense, _ []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	s, _ := tensor.Space{}.SumOf(ybar[0])
	*r.seen = append(*r.seen, spySeen{true: s}) // called without a sum
	return append(dst, cr.Contribution[*tensor.Dense]{Node: r.in[0], Value: ybar[0]}), nil
}
func (r *spyRule) PullbackSum(ybar *tensor.Dense, sum cr.CotangentSum, dst []cr.Contribution[*tensor.Dense], sums []cr.CotangentSum) ([]cr.Contribution[*tensor.Dense], []cr.CotangentSum, error) {
	s, _ := tensor.Space{}.SumOf(ybar)
	*r.seen = append(*r.seen, spySeen{given: sum, true: s})
	return append(dst, cr.Contribution[*tensor.Dense]{Node: r.in[0], Value: ybar}), append(sums, cr.CotangentSum{}), nil
}

// noSums is tensor.Space without chainrules.SumSpace: its SumOf has another
// signature, so a tape over it trades no sums (the reference sweep).
type noSums struct{ tensor.Space }

func (noSums) SumOf() {}

// TestSweepSums checks the sums the sweep hands a rule (core/sums.go): known, and
// exact, when the rule's cotangent is one contribution that came with its sum
// (exp's pullback); unknown when the slot's value is anything else — two
// contributions added (two readers of a node: a DAG), a row-sparse term settled
// in, a hook's result, a tape with hooks anywhere. A stale or summed sum would be
// seen here as a known sum that is not the cotangent's.
func TestSweepSums(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	xv := tensor.RandN(rng, tensor.Float64, 37)
	sumAll := reduce.SumOp(nil, false)
	cases := []struct {
		name  string
		known bool
		// f records the loss from u, the spy's output; hook, if set, goes on u.
		f    func(tp *core.Tape[*tensor.Dense], u cr.NodeID) cr.NodeID
		hook core.Hook[*tensor.Dense]
		// leafHook puts a hook on x instead (no sums on a tape with hooks).
		leafHook bool
	}{
		{name: "chain", known: true, f: func(tp *core.Tape[*tensor.Dense], u cr.NodeID) cr.NodeID {
			return tp.Apply(sumAll, tp.Apply(elementwise.ExpOp, u))
		}},
		{name: "dense cotangent", known: true, f: func(tp *core.Tape[*tensor.Dense], u cr.NodeID) cr.NodeID {
			e := tp.Apply(elementwise.ExpOp, u)
			return tp.Apply(sumAll, tp.Apply(elementwise.MulOp, e, e))
		}},
		{name: "two contributions with sums", f: func(tp *core.Tape[*tensor.Dense], u cr.NodeID) cr.NodeID {
			a := tp.Apply(sumAll, tp.Apply(elementwise.ExpOp, u))
			b := tp.Apply(sumAll, tp.Apply(elementwise.ExpOp, tp.Apply(elementwise.ExpOp, u)))
			return tp.Apply(elementwise.AddOp, a, b)
		}},
		{name: "a contribution with a sum and one without", f: func(tp *core.Tape[*tensor.Dense], u cr.NodeID) cr.NodeID {
			a := tp.Apply(sumAll, tp.Apply(elementwise.ExpOp, u))
			b := tp.Apply(sumAll, tp.Apply(elementwise.TanhOp, u))
			return tp.Apply(elementwise.AddOp, b, a)
		}},
		{name: "a row-sparse term", f: func(tp *core.Tape[*tensor.Dense], u cr.NodeID) cr.NodeID {
			a := tp.Apply(sumAll, tp.Apply(elementwise.ExpOp, u))
			return tp.Apply(elementwise.AddOp, tp.Apply(reduce.MaxOp(nil, false), u), a)
		}},
		{name: "hook on the node", hook: func(v *tensor.Dense) (*tensor.Dense, error) { return tensor.Scale(v, 3), nil },
			f: func(tp *core.Tape[*tensor.Dense], u cr.NodeID) cr.NodeID {
				return tp.Apply(sumAll, tp.Apply(elementwise.ExpOp, u))
			}},
		{name: "hook elsewhere", leafHook: true, f: func(tp *core.Tape[*tensor.Dense], u cr.NodeID) cr.NodeID {
			return tp.Apply(sumAll, tp.Apply(elementwise.ExpOp, u))
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			grads := map[bool][]float64{}
			for _, trade := range []bool{true, false} {
				var seen []spySeen
				var space cr.Space[*tensor.Dense] = tensor.Space{}
				if !trade {
					space = noSums{}
				}
				tp := core.NewTape(space)
				x := tp.Leaf(xv)
				u := tp.Apply(spyOp{seen: &seen}, x)
				out := c.f(tp, u)
				if c.hook != nil {
					require.NoError(t, tp.AddHook(u, c.hook))
				}
				if c.leafHook {
					require.NoError(t, tp.AddHook(x, func(v *tensor.Dense) (*tensor.Dense, error) { return v, nil }))
				}
				g, err := tp.Backward(out)
				require.NoError(t, err)
				gx, ok := g.Of(x)
				require.True(t, ok)
				grads[trade] = gx.Float64s()
				require.Len(t, seen, 1)
				s := seen[0]
				if !trade {
					require.False(t, s.given.Known, "a Space without SumOf")
					continue
				}
				require.Equal(t, c.known, s.given.Known, "whether the spy was given a sum")
				if s.given.Known {
					require.Equal(t, math.Float64bits(s.true), math.Float64bits(s.given.Value), "the sum given, %v, is not the cotangent's, %v", s.given.Value, s.true)
				}
			}
			require.Equal(t, grads[false], grads[true], "the gradient with sums traded differs from the one without")
		})
	}
}

// TestSumsExactLSE: lse's gradient written from its parts (the sum of exp's
// pullback read by the difference x - max x) is bit for bit the gradient of the
// sweep that trades no sums, at lengths around the kernels' blocks and with
// ties for the max, through Backward and through AllNodes.
func TestSumsExactLSE(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{1, 2, 7, 8, 9, 100, 2500, 4099} {
		xv := tensor.RandN(rng, tensor.Float64, n)
		if n > 2 {
			d := xv.Float64s()
			d[n-1] = 3
			d[n/2] = 3 // a tie for the max
		}
		for _, all := range []bool{false, true} {
			var got [2][]float64
			for k, space := range []cr.Space[*tensor.Dense]{tensor.Space{}, noSums{}} {
				tp := core.NewTape(space)
				x := tp.Leaf(xv)
				out, _ := lseParts(tp, x)
				var opts []core.BackwardOption
				if all {
					opts = append(opts, core.AllNodes())
				}
				g, err := tp.Backward(out, opts...)
				require.NoError(t, err)
				gx, ok := g.Of(x)
				require.True(t, ok)
				got[k] = gx.Float64s()
			}
			require.Equal(t, got[1], got[0], "n=%d AllNodes=%v", n, all)
		}
	}
}
