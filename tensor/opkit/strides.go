package opkit

// MergeAxes2 simplifies the iteration of a multi-index i over shape that moves two
// offsets, sum_k i_k st1[k] and sum_k i_k st2[k] (two operands of a strided copy or
// reduction): it drops the axes of size 1, and merges an axis into the one before it
// when both operands step over the pair as over one axis (st[k-1] = st[k] shape[k]
// for both), so that a block of whole rows contiguous in both is one run. The
// merged shape and strides are appended to sh, s1 and s2 (which may be the empty
// heads of stack buffers) and returned. ok is false when an axis has size 0: there
// is nothing to iterate.
func MergeAxes2(shape, st1, st2, sh, s1, s2 []int) (msh, ms1, ms2 []int, ok bool) {
	for k, n := range shape {
		if n == 0 {
			return sh, s1, s2, false
		}
		if n == 1 {
			continue
		}
		if m := len(sh) - 1; m >= 0 && s1[m] == st1[k]*n && s2[m] == st2[k]*n {
			sh[m] *= n
			s1[m], s2[m] = st1[k], st2[k]
			continue
		}
		sh, s1, s2 = append(sh, n), append(s1, st1[k]), append(s2, st2[k])
	}
	return sh, s1, s2, true
}

// Step2 advances the multi-index idx over shape[:len(idx)] like an odometer (the
// last index fastest), moving the offsets *o1 and *o2 by the strides s1 and s2. It
// returns false, with idx back at zero and the offsets at their start, after the
// last index. The loop
//
//	for {
//		visit(o1, o2)
//		if !Step2(idx, shape, s1, s2, &o1, &o2) {
//			break
//		}
//	}
//
// visits every multi-index once.
func Step2(idx, shape, s1, s2 []int, o1, o2 *int) bool {
	for k := len(idx) - 1; k >= 0; k-- {
		idx[k]++
		*o1 += s1[k]
		*o2 += s2[k]
		if idx[k] < shape[k] {
			return true
		}
		*o1 -= s1[k] * shape[k]
		*o2 -= s2[k] * shape[k]
		idx[k] = 0
	}
	return false
}
