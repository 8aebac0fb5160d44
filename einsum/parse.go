package einsum

import (
	"fmt"
	"strings"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

// Labels are small integers: 'A'..'Z' are 0..25 and 'a'..'z' are 26..51, so that
// sorting label ids sorts letters in ASCII order (NumPy's implicit output order).
// The dims covered by "..." get the ids ellBase, ellBase+1, ..., right-aligned across
// operands as in broadcasting. noLabel marks a dim of size 1 that broadcasts against
// a larger dim of the same label: the operand does not depend on that index.
const (
	numLetters = 52
	ellBase    = numLetters
	maxLabels  = 128
	noLabel    = -1
)

// lset is a set of label ids.
type lset [2]uint64

func (s *lset) add(l int)         { s[l>>6] |= 1 << (l & 63) }
func (s lset) has(l int) bool     { return s[l>>6]&(1<<(l&63)) != 0 }
func (s lset) or(t lset) lset     { return lset{s[0] | t[0], s[1] | t[1]} }
func (s lset) and(t lset) lset    { return lset{s[0] & t[0], s[1] & t[1]} }
func (s lset) andNot(t lset) lset { return lset{s[0] &^ t[0], s[1] &^ t[1]} }
func (s lset) empty() bool        { return s[0]|s[1] == 0 }
func setOf(labels []int) (s lset) {
	for _, l := range labels {
		if l >= 0 {
			s.add(l)
		}
	}
	return s
}

// labelName returns the spelling of a label for messages.
func labelName(l int) string {
	switch {
	case l < 0:
		return "(broadcast)"
	case l < 26:
		return fmt.Sprintf("'%c'", 'A'+l)
	case l < numLetters:
		return fmt.Sprintf("'%c'", 'a'+l-26)
	}
	return fmt.Sprintf("'...' dim %d", l-ellBase)
}

func letterID(c byte) (int, bool) {
	switch {
	case 'A' <= c && c <= 'Z':
		return int(c - 'A'), true
	case 'a' <= c && c <= 'z':
		return int(c-'a') + 26, true
	}
	return 0, false
}

// term is one operand's (or the output's) subscripts: letter ids, with the position
// of "..." among them (ell == -1 if absent).
type term struct {
	letters []int
	ell     int
}

// syntax is a parsed spec before it meets the operands' shapes.
type syntax struct {
	in       []term
	out      term
	explicit bool
}

func specErr(spec, format string, args ...any) error {
	return cr.Errorf(cr.ErrInvalidArgument, "einsum %q: "+format, append([]any{spec}, args...)...)
}

// parse checks the characters and structure of spec. Spaces are ignored.
func parse(spec string) (syntax, error) {
	var sx syntax
	s := strings.ReplaceAll(spec, " ", "")
	lhs, rhs, explicit := strings.Cut(s, "->")
	if explicit && strings.Contains(rhs, "->") {
		return sx, specErr(spec, "more than one \"->\"")
	}
	sx.explicit = explicit
	for k, t := range strings.Split(lhs, ",") {
		tm, err := parseTerm(spec, t, fmt.Sprintf("operand %d", k))
		if err != nil {
			return sx, err
		}
		sx.in = append(sx.in, tm)
	}
	if explicit {
		tm, err := parseTerm(spec, rhs, "the output")
		if err != nil {
			return sx, err
		}
		var seen lset
		for _, l := range tm.letters {
			if seen.has(l) {
				return sx, specErr(spec, "output label %s is repeated", labelName(l))
			}
			seen.add(l)
		}
		sx.out = tm
	}
	return sx, nil
}

func parseTerm(spec, t, what string) (term, error) {
	tm := term{ell: -1}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if id, ok := letterID(c); ok {
			tm.letters = append(tm.letters, id)
			continue
		}
		if c == '.' {
			if !strings.HasPrefix(t[i:], "...") {
				return tm, specErr(spec, "%s: '.' must be part of \"...\"", what)
			}
			if tm.ell >= 0 {
				return tm, specErr(spec, "%s: more than one \"...\"", what)
			}
			tm.ell = len(tm.letters)
			i += 2
			continue
		}
		return tm, specErr(spec, "%s: invalid character %q (labels are letters a-z, A-Z)", what, rune(c))
	}
	return tm, nil
}

// bound is a spec bound to operand shapes: the label of every dim of every operand
// (repeats allowed, noLabel for broadcast dims of size 1), the output labels and the
// size of every label.
type bound struct {
	dims   [][]int
	shapes [][]int
	out    []int
	size   [maxLabels]int
	used   lset // labels that occur in some operand
}

// bind expands "..." and checks the shapes against the spec.
func bind(spec string, sx syntax, shapes [][]int) (*bound, error) {
	if len(shapes) != len(sx.in) {
		return nil, cr.Errorf(cr.ErrInvalidArgument, "einsum %q: the spec has %d operand terms but %d operands were given", spec, len(sx.in), len(shapes))
	}
	b := &bound{dims: make([][]int, len(shapes)), shapes: shapes}
	nell := 0
	for k, tm := range sx.in {
		r := len(shapes[k])
		switch {
		case tm.ell < 0 && r != len(tm.letters):
			return nil, cr.Errorf(cr.ErrShapeMismatch, "einsum %q: operand %d has rank %d (shape %v) but its term names %d dims", spec, k, r, shapes[k], len(tm.letters))
		case tm.ell >= 0 && r < len(tm.letters):
			return nil, cr.Errorf(cr.ErrShapeMismatch, "einsum %q: operand %d has rank %d (shape %v) but its term names at least %d dims", spec, k, r, shapes[k], len(tm.letters))
		}
		if tm.ell >= 0 {
			nell = max(nell, r-len(tm.letters))
		}
	}
	if ellBase+nell > maxLabels {
		return nil, specErr(spec, "\"...\" covers %d dims, more than the %d supported", nell, maxLabels-ellBase)
	}
	// Sizes: letters must agree exactly; "..." dims broadcast (1 stretches).
	var set lset
	where := [maxLabels][2]int{}
	for k, tm := range sx.in {
		sh := shapes[k]
		e := len(sh) - len(tm.letters)
		dims := make([]int, 0, len(sh))
		for i, l := range tm.letters {
			if i == tm.ell {
				for j := range e {
					dims = append(dims, ellBase+nell-e+j)
				}
			}
			dims = append(dims, l)
		}
		if tm.ell == len(tm.letters) {
			for j := range e {
				dims = append(dims, ellBase+nell-e+j)
			}
		}
		for d, l := range dims {
			n := sh[d]
			if n < 0 {
				return nil, cr.Errorf(cr.ErrInvalidArgument, "einsum %q: operand %d has a negative dim in shape %v", spec, k, sh)
			}
			if !set.has(l) {
				set.add(l)
				b.size[l] = n
				where[l] = [2]int{k, d}
				continue
			}
			if n == b.size[l] {
				continue
			}
			if l >= ellBase && (n == 1 || b.size[l] == 1) {
				if b.size[l] == 1 {
					b.size[l] = n
					where[l] = [2]int{k, d}
				}
				continue
			}
			w := where[l]
			return nil, cr.Errorf(cr.ErrShapeMismatch, "einsum %q: label %s has size %d in operand %d (dim %d) but size %d in operand %d (dim %d)", spec, labelName(l), b.size[l], w[0], w[1], n, k, d)
		}
		b.dims[k] = dims
	}
	b.used = set
	for k, dims := range b.dims {
		for d, l := range dims {
			if shapes[k][d] == 1 && b.size[l] != 1 {
				dims[d] = noLabel
			}
		}
	}
	// Output labels.
	ellOut := make([]int, nell)
	for j := range ellOut {
		ellOut[j] = ellBase + j
	}
	if sx.explicit {
		for i, l := range sx.out.letters {
			if i == sx.out.ell {
				b.out = append(b.out, ellOut...)
			}
			if !set.has(l) {
				return nil, specErr(spec, "output label %s does not occur in any operand", labelName(l))
			}
			b.out = append(b.out, l)
		}
		if sx.out.ell == len(sx.out.letters) {
			b.out = append(b.out, ellOut...)
		}
		return b, nil
	}
	// Implicit output: the "..." dims, then the letters that occur exactly once, in
	// ASCII order.
	var count [numLetters]int
	for _, tm := range sx.in {
		for _, l := range tm.letters {
			count[l]++
		}
	}
	b.out = ellOut
	for l, c := range count {
		if c == 1 {
			b.out = append(b.out, l)
		}
	}
	return b, nil
}

// outShape returns the shape of the result.
func (b *bound) outShape() []int {
	sh := make([]int, len(b.out))
	for i, l := range b.out {
		sh[i] = b.size[l]
	}
	return sh
}
