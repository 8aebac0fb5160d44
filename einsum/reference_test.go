package einsum

import (
	"fmt"
	"slices"
	"strings"

	"github.com/chainrules-go/chainrules/tensor"
)

// refEinsum is the naive reference: it parses spec on its own (NumPy's rules, with
// "..." dims named by the characters '0', '1', ... right-aligned) and loops over
// every point of the joint index space. It is slow and simple on purpose.
func refEinsum(spec string, ops ...*tensor.Dense) (*tensor.Dense, error) {
	spec = strings.ReplaceAll(spec, " ", "")
	lhs, rhs, explicit := strings.Cut(spec, "->")
	terms := strings.Split(lhs, ",")
	if len(terms) != len(ops) {
		return nil, fmt.Errorf("ref: %d terms, %d operands", len(terms), len(ops))
	}
	nell := 0
	for k, t := range terms {
		if strings.Contains(t, "...") {
			nell = max(nell, ops[k].Rank()-(len(t)-3))
		}
	}
	ellChars := func(e int) string { // the last e of the nell "..." labels
		var sb strings.Builder
		for j := nell - e; j < nell; j++ {
			sb.WriteByte(byte('0' + j))
		}
		return sb.String()
	}
	for k, t := range terms {
		if strings.Contains(t, "...") {
			terms[k] = strings.Replace(t, "...", ellChars(ops[k].Rank()-(len(t)-3)), 1)
		}
		if len(terms[k]) != ops[k].Rank() {
			return nil, fmt.Errorf("ref: rank")
		}
	}
	size := map[byte]int{}
	for k, t := range terms {
		for d := range len(t) {
			n := ops[k].Shape()[d]
			if old, ok := size[t[d]]; !ok || old == 1 {
				size[t[d]] = n
			} else if n != old && n != 1 {
				return nil, fmt.Errorf("ref: size")
			}
		}
	}
	var out string
	if explicit {
		out = strings.Replace(rhs, "...", ellChars(nell), 1)
	} else {
		out = ellChars(nell)
		count := map[byte]int{}
		for _, t := range terms {
			for i := range len(t) {
				count[t[i]]++
			}
		}
		var once []byte
		for c, n := range count {
			if n == 1 && !(c >= '0' && c <= '9') {
				once = append(once, c)
			}
		}
		slices.Sort(once)
		out += string(once)
	}
	var all []byte
	for c := range size {
		all = append(all, c)
	}
	slices.Sort(all)
	outShape := make([]int, len(out))
	for i := range len(out) {
		outShape[i] = size[out[i]]
	}
	dt := tensor.Float64
	for _, x := range ops {
		dt = tensor.ResultDType(dt, x.DType())
	}
	res := tensor.New(dt, outShape...)
	idx := map[byte]int{}
	total := 1
	for _, c := range all {
		total *= size[c]
	}
	for flat := range total {
		r := flat
		for i := len(all) - 1; i >= 0; i-- {
			idx[all[i]] = r % size[all[i]]
			r /= size[all[i]]
		}
		prod := complex(1, 0)
		for k, t := range terms {
			at := make([]int, len(t))
			for d := range len(t) {
				if ops[k].Shape()[d] != 1 {
					at[d] = idx[t[d]]
				}
			}
			prod *= ops[k].At(at...)
		}
		at := make([]int, len(out))
		for i := range len(out) {
			at[i] = idx[out[i]]
		}
		res.Set(res.At(at...)+prod, at...)
	}
	return res, nil
}
