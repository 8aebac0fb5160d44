package einsum

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/chainrules-go/chainrules/tensor"
)

// randomCase draws a valid spec with operands: 1 to 4 operands of rank 0 to 3 over
// the labels a-d (repeats allowed), an optional "..." with broadcast dims, sizes 0
// to 3, and an implicit or explicit output.
func randomCase(rng *rand.Rand) (string, []*tensor.Dense) {
	size := map[byte]int{}
	for _, c := range []byte("abcd") {
		size[c] = rng.IntN(3) + 1
		if rng.IntN(20) == 0 {
			size[c] = 0
		}
	}
	nell := rng.IntN(3)
	ellSize := make([]int, nell)
	for j := range ellSize {
		ellSize[j] = rng.IntN(3) + 1
	}
	useEll := rng.IntN(2) == 0
	n := rng.IntN(4) + 1
	terms := make([]string, n)
	ops := make([]*tensor.Dense, n)
	used := map[byte]bool{}
	anyEll := false
	for k := range n {
		var sb strings.Builder
		var shape []int
		r := rng.IntN(4)
		ellAt := -1
		if useEll && rng.IntN(2) == 0 {
			ellAt = rng.IntN(r + 1)
			anyEll = true
		}
		for i := 0; i <= r; i++ {
			if i == ellAt {
				sb.WriteString("...")
				e := rng.IntN(nell + 1)
				for j := nell - e; j < nell; j++ {
					d := ellSize[j]
					if rng.IntN(3) == 0 {
						d = 1
					}
					shape = append(shape, d)
				}
			}
			if i == r {
				break
			}
			c := "abcd"[rng.IntN(4)]
			used[c] = true
			sb.WriteByte(c)
			shape = append(shape, size[c])
		}
		terms[k] = sb.String()
		dt := tensor.Float64
		if rng.IntN(3) == 0 {
			dt = tensor.Complex128
		}
		ops[k] = tensor.RandN(rng, dt, shape...)
	}
	spec := strings.Join(terms, ",")
	if rng.IntN(3) > 0 {
		var out []byte
		for _, c := range rng.Perm(4) {
			if used["abcd"[c]] && rng.IntN(2) == 0 {
				out = append(out, "abcd"[c])
			}
		}
		o := string(out)
		if anyEll && rng.IntN(2) == 0 {
			at := rng.IntN(len(o) + 1)
			o = o[:at] + "..." + o[at:]
		}
		spec += "->" + o
	}
	return spec, ops
}

func FuzzEval(f *testing.F) {
	for s := range uint64(40) {
		f.Add(s, s*7919)
	}
	f.Fuzz(func(t *testing.T, s1, s2 uint64) {
		rng := rand.New(rand.NewPCG(s1, s2))
		spec, ops := randomCase(rng)
		want, err := refEinsum(spec, ops...)
		if err != nil {
			t.Fatalf("reference failed on %q: %v", spec, err)
		}
		got, err := Eval(spec, ops...)
		if err != nil {
			t.Fatalf("%q %v: %v", spec, shapesOf(ops), err)
		}
		if !tensor.EqualApprox(want, got, 1e-12, 1e-12) {
			t.Fatalf("%q %v:\ngot  %v\nwant %v", spec, shapesOf(ops), got, want)
		}
		for _, algo := range []PathAlgorithm{Greedy, Optimal} {
			p, err := NewPlanWith(spec, algo, shapesOf(ops)...)
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.Eval(ops...)
			if err != nil || !tensor.EqualApprox(want, got, 1e-12, 1e-12) {
				t.Fatalf("%q path %v: got %v, want %v (%v)", spec, p.Path(), got, want, err)
			}
		}
	})
}

func shapesOf(ops []*tensor.Dense) [][]int {
	s := make([][]int, len(ops))
	for k, x := range ops {
		s[k] = x.Shape()
	}
	return s
}

// FuzzParse feeds arbitrary specs to Eval: it must return an error or a result,
// never panic, and a result must match the reference.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"ij,jk->ik", "ii", "...ij->j...", "i,j", "ij->->", "i..j", "a$b", "ij,,k", "->", ",", "iij->i", "AbZ,Zb"} {
		f.Add(s)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	ops := []*tensor.Dense{
		tensor.RandN(rng, tensor.Float64, 2, 2),
		tensor.RandN(rng, tensor.Complex128, 2, 1),
		tensor.RandN(rng, tensor.Float64, 2),
	}
	f.Fuzz(func(t *testing.T, spec string) {
		if len(spec) > 40 {
			return
		}
		n := strings.Count(spec, ",") + 1
		if n > len(ops) {
			n = len(ops)
		}
		got, err := Eval(spec, ops[:n]...)
		if err != nil {
			return
		}
		if strings.ContainsAny(spec, "0123456789") {
			return // the reference names "..." dims with digits
		}
		want, err := refEinsum(spec, ops[:n]...)
		if err != nil {
			t.Fatalf("Eval accepted %q but the reference did not: %v", spec, err)
		}
		if !tensor.EqualApprox(want, got, 1e-12, 1e-12) {
			t.Fatalf("%q: got %v, want %v", spec, got, want)
		}
	})
}
