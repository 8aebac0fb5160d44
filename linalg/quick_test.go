package linalg

import (
	"math"
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

func TestQuickQR(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 6))
	for _, sh := range [][]int{{4, 4}, {5, 3}, {2, 3, 5}} {
		a := tensor.RandN(rng, tensor.Float64, sh...)
		ruletest.CheckMulti(t, space, QROp(), []*tensor.Dense{a}, ruletest.Config{})
	}
}

func TestQuickMore(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 7))
	r := func(sh ...int) *tensor.Dense { return tensor.RandN(rng, tensor.Float64, sh...) }
	c := func(sh ...int) *tensor.Dense { return tensor.RandN(rng, tensor.Complex128, sh...) }
	cfg := ruletest.Config{}
	ruletest.Check(t, space, PinvOp(PinvOptions{}), []*tensor.Dense{r(3, 5)}, cfg)
	ruletest.Check(t, space, PinvOp(PinvOptions{}), []*tensor.Dense{r(5, 3)}, cfg)
	ruletest.Check(t, space, PinvOp(PinvOptions{Hermitian: true}), []*tensor.Dense{spd(rng, 4)}, cfg)
	ruletest.CheckMulti(t, space, LstsqOp(), []*tensor.Dense{r(5, 3), r(5, 2)}, cfg)
	ruletest.CheckMulti(t, space, LstsqOp(), []*tensor.Dense{r(2, 3), r(2, 2)}, cfg)
	ruletest.Check(t, space, MatrixExpOp(), []*tensor.Dense{r(3, 3)}, cfg)
	ruletest.Check(t, space, MatrixExpOp(), []*tensor.Dense{c(2, 2)}, cfg)
	ruletest.Check(t, space, MatrixPowerOp(3), []*tensor.Dense{r(3, 3)}, cfg)
	ruletest.Check(t, space, MatrixPowerOp(-2), []*tensor.Dense{r(3, 3)}, cfg)
	ruletest.Check(t, space, MatrixPowerOp(0), []*tensor.Dense{r(3, 3)}, cfg)
	ruletest.Check(t, space, MatrixPowerOp(1), []*tensor.Dense{r(3, 3)}, cfg)
	for _, o := range []float64{2, 1, 3, 0.5, -1.5, 0, math.Inf(1), math.Inf(-1)} {
		ruletest.Check(t, space, VectorNormOp(o, []int{-1}, false), []*tensor.Dense{r(3, 4)}, cfg)
		ruletest.Check(t, space, VectorNormOp(o, nil, true), []*tensor.Dense{c(3, 4)}, cfg)
	}
	for _, o := range []MatrixOrd{OrdFro, OrdNuc, Ord1, OrdNeg1, Ord2, OrdNeg2, OrdInf, OrdNegInf} {
		ruletest.Check(t, space, MatrixNormOp(o, -2, -1, false), []*tensor.Dense{r(2, 3, 4)}, cfg)
		ruletest.Check(t, space, MatrixNormOp(o, 0, -1, true), []*tensor.Dense{r(3, 2, 4)}, cfg)
		ruletest.Check(t, space, CondOp(o), []*tensor.Dense{spd(rng, 3)}, cfg)
	}
	ruletest.Check(t, space, TraceOp(), []*tensor.Dense{c(2, 3, 3)}, cfg)
	ruletest.Check(t, space, CrossOp(-1), []*tensor.Dense{r(4, 3), r(1, 3)}, cfg)
	ruletest.Check(t, space, CrossOp(0), []*tensor.Dense{c(3, 2), c(3, 2)}, cfg)
	ruletest.Check(t, space, VecdotOp(-1), []*tensor.Dense{c(4, 3), c(1, 3)}, cfg)
	ruletest.Check(t, space, VanderOp(4), []*tensor.Dense{r(2, 3)}, cfg)
	ruletest.Check(t, space, TensorinvOp(2), []*tensor.Dense{r(2, 3, 6)}, cfg)
	ruletest.Check(t, space, TensorsolveOp(nil), []*tensor.Dense{r(2, 3, 6), r(2, 3)}, cfg)
	ruletest.Check(t, space, TensorsolveOp([]int{0, 2}), []*tensor.Dense{r(3, 4, 4, 3), r(3, 4)}, cfg)
	ruletest.Check(t, space, HouseholderProductOp(), []*tensor.Dense{r(5, 4), r(3)}, cfg)
	ruletest.Check(t, space, HouseholderProductOp(), []*tensor.Dense{c(4, 4), c(4)}, cfg)
	for _, sh := range [][]int{{4, 4}, {3, 5}, {5, 3}} {
		ruletest.CheckMulti(t, space, LUFactorOp(), []*tensor.Dense{r(sh...)}, cfg)
		ruletest.CheckMulti(t, space, LUOp(), []*tensor.Dense{c(sh...)}, cfg)
	}
	a := r(2, 3, 3)
	lu, piv, err := LUFactor(a)
	if err != nil {
		t.Fatal(err)
	}
	for _, left := range []bool{true, false} {
		for _, adj := range []bool{true, false} {
			ruletest.Check(t, space, LUSolveOp(left, adj), []*tensor.Dense{lu, piv, r(2, 3, 3)}, cfg)
		}
	}
}
