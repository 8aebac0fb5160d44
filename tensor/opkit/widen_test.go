package opkit_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/tensor/opkit"
)

// twice is y = 2 x in double precision, its rule fresh or not as asked.
type twice struct{ fresh bool }

func (twice) Name() string    { return "twice" }
func (twice) NumOutputs() int { return 1 }

func (o twice) Apply(in []cr.NodeID, x, y []*tensor.Dense) (cr.Rule[*tensor.Dense], error) {
	y[0] = tensor.Scale(x[0], 2)
	r := twiceRule{in: in}
	if o.fresh {
		return freshTwiceRule{r}, nil
	}
	return r, nil
}

type twiceRule struct{ in []cr.NodeID }

func (r twiceRule) Inputs() []cr.NodeID { return r.in }

func (r twiceRule) Pullback(ybar []*tensor.Dense, _ []bool, dst []cr.Contribution[*tensor.Dense]) ([]cr.Contribution[*tensor.Dense], error) {
	for _, id := range r.in {
		dst = append(dst, cr.Contribution[*tensor.Dense]{Node: id, Value: tensor.Scale(ybar[0], 2)})
	}
	return dst, nil
}

type freshTwiceRule struct{ twiceRule }

func (freshTwiceRule) FreshStorage() {}

// A widened application promises fresh storage when every input is single
// precision (all it hands out are new roundings) or when the double-precision
// rule does; a mixed application of a rule without the promise makes none.
func TestApplyWidenedFreshStorage(t *testing.T) {
	f32 := tensor.Full(tensor.Float32, 1.5, 3)
	f64 := tensor.Full(tensor.Float64, 1.5, 3)
	for _, c := range []struct {
		name  string
		inner bool
		x     *tensor.Dense
		fresh bool
	}{
		{"single, inner not fresh", false, f32, true},
		{"single, inner fresh", true, f32, true},
		{"double, inner not fresh", false, f64, false},
		{"double, inner fresh", true, f64, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			y := make([]*tensor.Dense, 1)
			r, err := opkit.ApplyWidened(twice{c.inner}, []cr.NodeID{1}, []*tensor.Dense{c.x}, y)
			require.NoError(t, err)
			_, fresh := r.(cr.FreshStorage)
			require.Equal(t, c.fresh, fresh)
			require.Equal(t, c.x.DType(), y[0].DType())
			require.InDelta(t, 3.0, real(y[0].At(0)), 0)
			g, err := r.Pullback([]*tensor.Dense{y[0]}, []bool{true}, nil)
			require.NoError(t, err)
			require.Len(t, g, 1)
			require.Equal(t, c.x.DType(), g[0].Value.DType())
			require.InDelta(t, 6.0, real(g[0].Value.At(0)), 0)
		})
	}
}
