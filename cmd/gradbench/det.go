package main

import (
	"encoding/json"
	"fmt"
	"math/bits"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/elementwise"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/index"
	"github.com/chainrules-go/chainrules/permute"
	"github.com/chainrules-go/chainrules/reduce"
	"github.com/chainrules-go/chainrules/tensor"
)

// The det eval (cmpad's det_by_minor): the determinant of an l x l matrix A by
// expansion by minors along the first row,
//
//	det M = sum_j (-1)^j M[0, j] det(M without row 0 and column j).
//
// The minors of A met by the recursion are those of the last k rows and a set S
// of k columns; the recursion computes each of them many times (l! products in
// all), here each is computed once, level by level from k = 1 (single elements
// of the last row) to k = l (A itself): with r = l - k and the columns of S in
// increasing order s_0 < s_1 < ...,
//
//	D(S) = sum_p (-1)^p A[r, s_p] D(S without s_p),
//
// one gather of A, one of the previous level, two products and a sum per level
// (O(l 2^l) work instead of O(l!)). The gradient is the engine's.
func init() {
	modules["det"] = map[string]prepare{
		"primal":   detJob(false),
		"gradient": detJob(true),
	}
}

type detInput struct {
	runs
	A   []float64 `json:"A"`
	Ell int       `json:"ell"`
}

// minorLevel is the bookkeeping of level k: for every set S of k columns (in
// the order of the level's vector) and every p, the index of A[r, s_p] in the
// flattened A, the index of S without s_p in the previous level and (-1)^p.
type minorLevel struct {
	sets     int
	aIdx     []int
	prevIdx  []int
	sign     *tensor.Dense
	position map[uint32]int
}

// minorLevels enumerates the column sets of every level for an l x l matrix.
func minorLevels(l int) []minorLevel {
	levels := make([]minorLevel, l+1)
	levels[0] = minorLevel{sets: 1, position: map[uint32]int{0: 0}}
	byCount := make([][]uint32, l+1)
	for mask := uint32(0); mask < 1<<l; mask++ {
		c := bits.OnesCount32(mask)
		byCount[c] = append(byCount[c], mask)
	}
	for k := 1; k <= l; k++ {
		r := l - k
		lv := minorLevel{sets: len(byCount[k]), position: map[uint32]int{}}
		var sign []float64
		for i, mask := range byCount[k] {
			lv.position[mask] = i
			p := 0
			for j := 0; j < l; j++ {
				if mask&(1<<j) == 0 {
					continue
				}
				lv.aIdx = append(lv.aIdx, r*l+j)
				lv.prevIdx = append(lv.prevIdx, levels[k-1].position[mask&^(1<<j)])
				sign = append(sign, float64(1-2*(p%2)))
				p++
			}
		}
		lv.sign = vector(sign)
		levels[k] = lv
	}
	return levels
}

// detByMinors returns the determinant of the l x l matrix x[0] (given flat,
// row-major) by expansion by minors.
func detByMinors(l int) hvp.Func {
	levels := minorLevels(l)
	return func(t *hvp.Tape, x []cr.NodeID) cr.NodeID {
		d := t.Constant(tensor.Ones(tensor.Float64, 1))
		for k := 1; k <= l; k++ {
			lv := levels[k]
			a := t.Apply(index.IndexSelectOp(0, lv.aIdx...), x[0])
			prev := t.Apply(index.IndexSelectOp(0, lv.prevIdx...), d)
			terms := t.Apply(elementwise.MulOp, t.Apply(elementwise.MulOp, a, prev), t.Constant(lv.sign))
			d = t.Apply(reduce.SumOp([]int{1}, false), t.Apply(permute.ReshapeOp(lv.sets, k), terms))
		}
		return t.Apply(permute.ReshapeOp(), d)
	}
}

// maxEll bounds the matrix size: level k of the expansion has k C(l, k) terms.
const maxEll = 20

func detJob(grad bool) prepare {
	return func(input json.RawMessage) (job, error) {
		var in detInput
		if err := decode(input, &in); err != nil {
			return job{}, err
		}
		if in.Ell < 1 || in.Ell > maxEll {
			return job{}, fmt.Errorf("ell = %d, want 1 to %d", in.Ell, maxEll)
		}
		if len(in.A) != in.Ell*in.Ell {
			return job{}, fmt.Errorf("the matrix A has %d elements, want ell² = %d", len(in.A), in.Ell*in.Ell)
		}
		f := detByMinors(in.Ell)
		a := []*tensor.Dense{vector(in.A)}
		return scalarJob(in.runs, f, a, grad, firstFlat), nil
	}
}
