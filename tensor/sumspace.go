package tensor

import cr "github.com/chainrules-go/chainrules/chainrules"

var _ cr.SumSpace[*Dense] = Space{}

// SumOf returns sum_i v_i for a float64 v, the one element of SumTo(v, s) with s
// v's shape of 1s (so rounded as SumTo rounds it: for a contiguous v, vmath.Sum's
// eight running totals over its elements in row-major order), and true; for any
// other dtype (or a nil v) it returns 0 and false. It is the sum that a
// chainrules.SumPullbackRule hands along with a cotangent.
func (Space) SumOf(v *Dense) (float64, bool) {
	if v == nil || v.dtype != Float64 {
		return 0, false
	}
	ones := make([]int, len(v.shape))
	for k := range ones {
		ones[k] = 1
	}
	s, err := SumTo(v, ones)
	if err != nil {
		return 0, false
	}
	return s.f64s()[s.offset], true
}
