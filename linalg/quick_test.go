package linalg

import (
	"math/rand/v2"
	"testing"

	"github.com/chainrules-go/chainrules/tensor"
	"github.com/chainrules-go/chainrules/testing/ruletest"
)

func spd(rng *rand.Rand, n int) *tensor.Dense {
	a := tensor.RandN(rng, tensor.Float64, n, n)
	s, _ := tensor.MatMul(a, mustT(a))
	d := s.Float64s()
	for i := range n {
		d[i*n+i] += float64(n)
	}
	return s
}

func mustT(a *tensor.Dense) *tensor.Dense {
	v, err := a.Transpose(0, 1)
	if err != nil {
		panic(err)
	}
	return v.Clone()
}

func TestQuick(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	a := tensor.RandN(rng, tensor.Float64, 4, 4)
	b := tensor.RandN(rng, tensor.Float64, 4, 2)
	ruletest.Check(t, space, SolveOp(), []*tensor.Dense{a, b}, ruletest.Config{})
	ruletest.Check(t, space, SolveTriangularOp(true, true, false), []*tensor.Dense{spd(rng, 4), b}, ruletest.Config{})
	ruletest.Check(t, space, CholeskyOp(false), []*tensor.Dense{spd(rng, 4)}, ruletest.Config{})
	ruletest.Check(t, space, CholeskyOp(true), []*tensor.Dense{spd(rng, 3)}, ruletest.Config{})
	ruletest.Check(t, space, InvOp(), []*tensor.Dense{a}, ruletest.Config{})
}

func TestQuickDet(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 3))
	a := tensor.RandN(rng, tensor.Float64, 2, 4, 4)
	ruletest.Check(t, space, DetOp(), []*tensor.Dense{a}, ruletest.Config{})
	ruletest.Check(t, space, LogdetOp(), []*tensor.Dense{spd(rng, 4)}, ruletest.Config{})
	ruletest.CheckMulti(t, space, SlogdetOp(), []*tensor.Dense{a}, ruletest.Config{})
	ac := tensor.RandN(rng, tensor.Complex128, 3, 3)
	ruletest.Check(t, space, DetOp(), []*tensor.Dense{ac}, ruletest.Config{})
	ruletest.Check(t, space, LogdetOp(), []*tensor.Dense{ac}, ruletest.Config{})
	ruletest.Check(t, space, InvOp(), []*tensor.Dense{ac}, ruletest.Config{})
	ruletest.Check(t, space, SolveOp(), []*tensor.Dense{ac, tensor.RandN(rng, tensor.Complex128, 3)}, ruletest.Config{})
}

func TestQuickEigh(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 4))
	a := tensor.RandN(rng, tensor.Float64, 2, 4, 4)
	ruletest.CheckMulti(t, space, EighOp(), []*tensor.Dense{a}, ruletest.Config{})
	ruletest.Check(t, space, EigvalshOp(), []*tensor.Dense{a}, ruletest.Config{})
}

func TestQuickSVD(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 5))
	for _, sh := range [][]int{{4, 4}, {5, 3}, {2, 3, 5}} {
		a := tensor.RandN(rng, tensor.Float64, sh...)
		ruletest.CheckMulti(t, space, SVDOp(), []*tensor.Dense{a}, ruletest.Config{})
		ruletest.Check(t, space, SvdvalsOp(), []*tensor.Dense{a}, ruletest.Config{})
	}
}
