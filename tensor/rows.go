package tensor

import (
	"slices"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

var _ cr.RowSpace[*Dense] = Space{}

// CheckRows returns nil if v can be added into the rows of a tensor shaped like like:
// like has rank at least 1, v has like's dtype and shape except that its first axis
// has length len(rows), and every row lies in [0, like.Shape()[0]). Otherwise it
// returns an error wrapping chainrules.ErrShapeMismatch (shapes, dtypes) or
// ErrInvalidArgument (rows).
func (Space) CheckRows(like *Dense, rows []int, v *Dense) error {
	if like == nil || v == nil {
		return cr.Errorf(cr.ErrInvalidArgument, "row cotangent: nil tensor")
	}
	if like.Rank() == 0 {
		return cr.Errorf(cr.ErrShapeMismatch, "row cotangent: %s has no rows", like.Describe())
	}
	want := slices.Clone(like.shape)
	want[0] = len(rows)
	if v.dtype != like.dtype || !slices.Equal(v.shape, want) {
		return cr.Errorf(cr.ErrShapeMismatch, "row cotangent is %s for %d rows of %s, want %s%v",
			v.Describe(), len(rows), like.Describe(), like.dtype, want)
	}
	for _, r := range rows {
		if r < 0 || r >= like.shape[0] {
			return cr.Errorf(cr.ErrInvalidArgument, "row cotangent: row %d out of range for %s", r, like.Describe())
		}
	}
	return nil
}

// AddRows returns acc with v[k, ...] added into acc[rows[k], ...] for every k
// (repeated rows add up). It writes into acc when acc owns its storage exactly (see
// Accumulate) and v's elements are apart from acc's in memory, and into a copy
// otherwise; v is never modified. acc and v must pass
// CheckRows.
func (s Space) AddRows(acc *Dense, rows []int, v *Dense) (*Dense, error) {
	if err := s.CheckRows(acc, rows, v); err != nil {
		return nil, err
	}
	if !acc.ownsStorage() || mayOverlap(acc, v) {
		acc = acc.Clone()
	}
	inner := rowLen(acc)
	addRowsOf(acc, inner, rows, v)
	return acc, nil
}

// CoalesceRows returns the distinct rows of parts in increasing order and the
// tensor whose k-th row is the sum of the slices the parts hold for rows[k]: the
// compact form of sum_p scatter(parts[p]) for tensors shaped like like. Every part
// must pass CheckRows against like.
func (s Space) CoalesceRows(like *Dense, parts []cr.RowContribution[*Dense]) ([]int, *Dense, error) {
	var rows []int
	for _, p := range parts {
		if err := s.CheckRows(like, p.Rows, p.Value); err != nil {
			return nil, nil, err
		}
		rows = append(rows, p.Rows...)
	}
	slices.Sort(rows)
	rows = slices.Compact(rows)
	shape := slices.Clone(like.shape)
	shape[0] = len(rows)
	out, err := Alloc(like.dtype, shape...)
	if err != nil {
		return nil, nil, err
	}
	inner := rowLen(like)
	for _, p := range parts {
		at := make([]int, len(p.Rows)) // the positions of the part's rows in rows
		for k, r := range p.Rows {
			at[k], _ = slices.BinarySearch(rows, r)
		}
		addRowsOf(out, inner, at, p.Value)
	}
	return rows, out, nil
}

// addRowsOf is addRows on the storage of the contiguous dst and the row-major
// elements of v, both of one dtype.
func addRowsOf(dst *Dense, inner int, rows []int, v *Dense) {
	switch dst.dtype {
	case Complex128:
		addRows(dst.c128s(), inner, rows, v.Complex128s())
	case Float32:
		addRows(dst.f32s(), inner, rows, v.Float32s())
	case Complex64:
		addRows(dst.c64s(), inner, rows, v.Complex64s())
	default:
		addRows(dst.f64s(), inner, rows, v.Float64s())
	}
}

// rowLen returns the number of elements in one row (first-axis slice) of t.
func rowLen(t *Dense) int { return prod(t.shape[1:]) }

// addRows adds the k-th row of src (rows of inner elements) into row rows[k] of dst.
func addRows[T Numeric](dst []T, inner int, rows []int, src []T) {
	for k, r := range rows {
		d, s := dst[r*inner:(r+1)*inner], src[k*inner:(k+1)*inner]
		for i := range d {
			d[i] += s[i]
		}
	}
}
