package elementwise

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

// TestCheckerCatchesWrongRows guards the table machinery against vacuous passes: a
// row with a wrong first or second derivative, or a missing conjugate, must fail the
// rule checker.
func TestCheckerCatchesWrongRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	xr := tensor.RandUniform(rng, tensor.Float64, -1, 1, 3, 2)
	xc := tensor.RandUniform(rng, tensor.Complex128, -1, 1, 3, 2)
	wrongD2 := specOf(TanhOp)
	wrongD2.Real.D2 = tanhD1[float64]
	wrongD2c := specOf(TanhOp)
	wrongD2c.Complex.D2 = tanhD1[complex128]
	// f'(z) conjugated twice: conj(f') is what the pullback must apply.
	noConj := specOf(SinOp)
	noConj.Complex.D1 = func(z, w complex128) complex128 { c := csinD1(z, w); return complex(real(c), -imag(c)) }
	// sgn without its f_zbar part, and with f_zbarzbar dropped.
	noZbar := UnarySpec{Wirtinger: Wirtinger{F: sgnC, D2: sgnCD2,
		D1: func(z, y complex128) (complex128, complex128) { fz, _ := sgnCD1(z, y); return fz, 0 }}}
	noZbarZbar := UnarySpec{Wirtinger: Wirtinger{F: sgnC, D1: sgnCD1,
		D2: func(z, y complex128) (complex128, complex128, complex128) { a, b, _ := sgnCD2(z, y); return a, b, 0 }}}
	zc := tensor.RandUniform(rng, tensor.Complex128, 0.5, 1, 3, 2)
	wrongMul := binarySpecOf(MulOp)
	wrongMul.Real.D2 = zeroD2[float64]
	for _, c := range []struct {
		name   string
		verify func() error
	}{
		{"tanh with a wrong second derivative", func() error {
			return ruletest.Verify(tensor.Space{}, Unary("tanh", wrongD2), []*tensor.Dense{xr}, ruletest.Config{})
		}},
		{"complex tanh with a wrong second derivative", func() error {
			return ruletest.Verify(tensor.Space{}, Unary("tanh", wrongD2c), []*tensor.Dense{xc}, ruletest.Config{})
		}},
		{"complex sin with a conjugated derivative", func() error {
			return ruletest.Verify(tensor.Space{}, Unary("sin", noConj), []*tensor.Dense{xc}, ruletest.Config{})
		}},
		{"sgn without f_zbar", func() error {
			return ruletest.Verify(tensor.Space{}, Unary("sgn", noZbar), []*tensor.Dense{zc}, ruletest.Config{})
		}},
		{"sgn without f_zbarzbar", func() error {
			return ruletest.Verify(tensor.Space{}, Unary("sgn", noZbarZbar), []*tensor.Dense{zc}, ruletest.Config{})
		}},
		{"mul without its mixed second derivative", func() error {
			return ruletest.Verify(tensor.Space{}, Binary("mul", wrongMul), []*tensor.Dense{xr, xr}, ruletest.Config{})
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.verify()
			assert.True(t, errors.Is(err, ruletest.ErrCheckFailed), "want a failed check, got %v", err)
		})
	}
}

func TestLayoutCollapses(t *testing.T) {
	for _, c := range []struct {
		name      string
		out, a, b []int
		runs      int
	}{
		{"equal shapes", []int{4, 5, 6}, []int{4, 5, 6}, []int{4, 5, 6}, 1},
		{"row vector", []int{1000, 8}, []int{1000, 8}, []int{8}, 1000},
		{"column vector", []int{8, 1000}, []int{8, 1000}, []int{8, 1}, 8},
		{"scalar", []int{3, 4}, []int{3, 4}, nil, 1},
		{"size-1 dims", []int{1, 6, 1}, []int{1, 6, 1}, []int{6, 1}, 1},
		{"outer product", []int{3, 4}, []int{3, 1}, []int{1, 4}, 3},
		{"empty", []int{2, 0}, []int{2, 0}, []int{0}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := newLayout(c.out, c.a, c.b)
			runs, total := 0, 0
			next := 0
			l.runs(func(o, ia, ib, n, sa, sb int) {
				assert.Equal(t, next, o, "runs cover the output in order")
				next += n
				runs++
				total += n
			})
			assert.Equal(t, c.runs, runs)
			assert.Equal(t, l.size, total)
		})
	}
}

func TestParallelForCoversOnce(t *testing.T) {
	for _, n := range []int{0, 1, parallelGrain - 1, 2 * parallelGrain, 5*parallelGrain + 3} {
		hits := make([]int32, n)
		parallelFor(n, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				hits[i]++ // chunks are disjoint, so no two goroutines share an index
			}
		})
		for i, h := range hits {
			if h != 1 {
				t.Fatalf("n = %d: index %d visited %d times", n, i, h)
			}
		}
	}
}

// specOf returns the definition of a unary op of the table without its recorded
// derivative expressions, which the table's entries add.
func specOf(op cr.Op[*tensor.Dense]) UnarySpec {
	s := op.(*unaryOp).spec
	s.Deriv, s.VJP = nil, nil
	return s
}

// binarySpecOf is specOf for a binary op.
func binarySpecOf(op cr.Op[*tensor.Dense]) BinarySpec {
	s := op.(*binaryOp).spec
	s.Partials, s.VJP = nil, nil
	return s
}
