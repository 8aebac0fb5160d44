package tensor_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// naiveMatMul multiplies 2-D tensors through At.
func naiveMatMul(a, b *tensor.Dense) []complex128 {
	m, k, n := a.Shape()[0], a.Shape()[1], b.Shape()[1]
	out := make([]complex128, 0, m*n)
	for i := range m {
		for j := range n {
			var s complex128
			for l := range k {
				s += a.At(i, l) * b.At(l, j)
			}
			out = append(out, s)
		}
	}
	return out
}

// layouts returns a tensor holding the values of x in several memory layouts: as is,
// column-major (a transposed copy, transposed back), strided (a slice of a bigger
// tensor), and broadcast where x has a dim of size 1.
func layouts(rng *rand.Rand, x *tensor.Dense) map[string]*tensor.Dense {
	out := map[string]*tensor.Dense{"rowmajor": x}
	if x.Rank() != 2 {
		return out
	}
	r, c := x.Shape()[0], x.Shape()[1]
	tr, _ := x.Transpose(0, 1)
	col, _ := tr.Clone().Transpose(0, 1)
	out["colmajor"] = col

	big := tensor.RandN(rng, x.DType(), r, 2*c+1)
	sl, _ := big.Slice(1, 1, 1+2*c, 2)
	for i := range r {
		for j := range c {
			sl.Set(x.At(i, j), i, j)
		}
	}
	out["strided"] = sl

	pad := tensor.RandN(rng, x.DType(), r, c+3)
	pv, _ := pad.Slice(1, 2, 2+c, 1)
	for i := range r {
		for j := range c {
			pv.Set(x.At(i, j), i, j)
		}
	}
	out["padded"] = pv
	return out
}

func TestMatMul(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	shapes := [][3]int{{2, 3, 4}, {1, 5, 3}, {4, 1, 2}, {3, 4, 1}, {1, 1, 1}, {0, 3, 2}, {2, 0, 3}, {7, 6, 5}}
	dts := [][2]tensor.DType{
		{tensor.Float64, tensor.Float64},
		{tensor.Complex128, tensor.Complex128},
		{tensor.Float64, tensor.Complex128},
		{tensor.Complex128, tensor.Float64},
	}
	for _, s := range shapes {
		for _, dt := range dts {
			a0 := tensor.RandN(rng, dt[0], s[0], s[1])
			b0 := tensor.RandN(rng, dt[1], s[1], s[2])
			want := naiveMatMul(a0, b0)
			for an, a := range layouts(rng, a0) {
				for bn, b := range layouts(rng, b0) {
					name := fmt.Sprintf("%v/%v%v/%s*%s", s, dt[0], dt[1], an, bn)
					t.Run(name, func(t *testing.T) {
						got, err := tensor.MatMul(a, b)
						require.NoError(t, err)
						assert.Equal(t, tensor.ResultDType(dt[0], dt[1]), got.DType())
						assertClose(t, want, []int{s[0], s[2]}, got)
					})
				}
			}
		}
	}
	t.Run("broadcast operand", func(t *testing.T) {
		a, _ := tensor.FromFloat64([]float64{1, 2, 3}, 1, 3)
		ab, err := a.BroadcastTo(4, 3)
		require.NoError(t, err)
		b := tensor.RandN(rng, tensor.Float64, 3, 2)
		got, err := tensor.MatMul(ab, b)
		require.NoError(t, err)
		assertClose(t, naiveMatMul(ab, b), []int{4, 2}, got)
	})
	t.Run("errors", func(t *testing.T) {
		_, err := tensor.MatMul(seq(2, 3), seq(2, 3))
		assert.ErrorIs(t, err, cr.ErrShapeMismatch)
		_, err = tensor.MatMul(seq(3), seq(3, 2))
		assert.ErrorIs(t, err, cr.ErrShapeMismatch)
	})
}

func TestBatchMatMul(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	batchSlice := func(x *tensor.Dense, p int) *tensor.Dense {
		s, err := x.Slice(0, p, p+1, 1)
		if err != nil {
			panic(err)
		}
		r, err := s.Reshape(x.Shape()[1], x.Shape()[2])
		if err != nil {
			panic(err)
		}
		return r
	}
	type tc struct {
		bmk      [4]int
		dA, dB   tensor.DType
		tA, tB   bool
		permA    bool // store a with its batch axis innermost
		stridedB bool
	}
	var cases []tc
	for _, s := range [][4]int{{3, 2, 4, 5}, {1, 1, 3, 1}, {2, 3, 1, 2}, {0, 2, 2, 2}, {2, 0, 3, 2}, {2, 2, 0, 3}} {
		for _, d := range [][2]tensor.DType{{tensor.Float64, tensor.Float64}, {tensor.Complex128, tensor.Complex128}, {tensor.Float64, tensor.Complex128}} {
			for _, tA := range []bool{false, true} {
				for _, tB := range []bool{false, true} {
					cases = append(cases, tc{bmk: s, dA: d[0], dB: d[1], tA: tA, tB: tB})
				}
			}
		}
	}
	cases = append(cases,
		tc{bmk: [4]int{3, 4, 5, 2}, dA: tensor.Float64, dB: tensor.Float64, permA: true},
		tc{bmk: [4]int{3, 4, 5, 2}, dA: tensor.Complex128, dB: tensor.Complex128, tA: true, permA: true, stridedB: true},
		tc{bmk: [4]int{2, 3, 3, 3}, dA: tensor.Float64, dB: tensor.Float64, tB: true, stridedB: true},
	)
	for _, c := range cases {
		bt, m, k, n := c.bmk[0], c.bmk[1], c.bmk[2], c.bmk[3]
		name := fmt.Sprintf("%v/%v%v/tA=%v/tB=%v/perm=%v/strided=%v", c.bmk, c.dA, c.dB, c.tA, c.tB, c.permA, c.stridedB)
		t.Run(name, func(t *testing.T) {
			aShape := []int{bt, m, k}
			if c.tA {
				aShape = []int{bt, k, m}
			}
			bShape := []int{bt, k, n}
			if c.tB {
				bShape = []int{bt, n, k}
			}
			var a *tensor.Dense
			if c.permA {
				// Stored [M K B] (or [K M B]) and permuted to put the batch first:
				// neither matrix axis has stride 1, so BatchMatMul must copy.
				raw := tensor.RandN(rng, c.dA, aShape[1], aShape[2], bt)
				var err error
				a, err = raw.Permute(2, 0, 1)
				require.NoError(t, err)
			} else {
				a = tensor.RandN(rng, c.dA, aShape...)
			}
			b := tensor.RandN(rng, c.dB, bShape...)
			if c.stridedB {
				big := tensor.RandN(rng, c.dB, bShape[0], bShape[1], 2*bShape[2])
				sl, err := big.Slice(2, 0, 2*bShape[2], 2)
				require.NoError(t, err)
				forEachIndex(bShape, func(i []int) { sl.Set(b.At(i...), i...) })
				b = sl
			}
			got, err := tensor.BatchMatMul(a, b, c.tA, c.tB)
			require.NoError(t, err)
			require.Equal(t, []int{bt, m, n}, got.Shape())
			var want []complex128
			for p := range bt {
				ap, bp := batchSlice(a, p), batchSlice(b, p)
				if c.tA {
					ap, _ = ap.Transpose(0, 1)
				}
				if c.tB {
					bp, _ = bp.Transpose(0, 1)
				}
				want = append(want, naiveMatMul(ap, bp)...)
			}
			assertClose(t, want, []int{bt, m, n}, got)
		})
	}
	t.Run("complex transpose is not conjugate", func(t *testing.T) {
		a, _ := tensor.FromComplex128([]complex128{1i, 2}, 1, 2, 1) // [B K M] = [1 2 1]
		b, _ := tensor.FromComplex128([]complex128{1i, 1}, 1, 2, 1)
		got, err := tensor.BatchMatMul(a, b, true, false)
		require.NoError(t, err)
		assert.Equal(t, []complex128{1i*1i + 2}, got.Complex128s())
	})
	t.Run("errors", func(t *testing.T) {
		_, err := tensor.BatchMatMul(seq(2, 3, 4), seq(3, 4, 5), false, false)
		assert.ErrorIs(t, err, cr.ErrShapeMismatch)
		_, err = tensor.BatchMatMul(seq(2, 3, 4), seq(2, 3, 5), false, false)
		assert.ErrorIs(t, err, cr.ErrShapeMismatch)
		_, err = tensor.BatchMatMul(seq(3, 4), seq(4, 5), false, false)
		assert.ErrorIs(t, err, cr.ErrShapeMismatch)
		_, err = tensor.BatchMatMul(seq(2, 3, 4), seq(2, 3, 5), true, false)
		assert.NoError(t, err)
	})
}
