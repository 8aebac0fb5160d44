package tensor

import (
	"gonum.org/v1/gonum/mat"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

// FromMat returns a fresh float64 tensor of shape [r c] holding the elements of the
// r×c matrix m.
func FromMat(m mat.Matrix) *Dense {
	r, c := m.Dims()
	t := New(Float64, r, c)
	if rm, ok := m.(mat.RawMatrixer); ok {
		raw := rm.RawMatrix()
		for i := range r {
			copy(t.f64[i*c:(i+1)*c], raw.Data[i*raw.Stride:i*raw.Stride+c])
		}
		return t
	}
	for i := range r {
		for j := range c {
			t.f64[i*c+j] = m.At(i, j)
		}
	}
	return t
}

// FromCMat returns a fresh complex128 tensor of shape [r c] holding the elements of
// the r×c complex matrix m.
func FromCMat(m mat.CMatrix) *Dense {
	r, c := m.Dims()
	t := New(Complex128, r, c)
	if rm, ok := m.(mat.RawCMatrixer); ok {
		raw := rm.RawCMatrix()
		for i := range r {
			copy(t.c128[i*c:(i+1)*c], raw.Data[i*raw.Stride:i*raw.Stride+c])
		}
		return t
	}
	for i := range r {
		for j := range c {
			t.c128[i*c+j] = m.At(i, j)
		}
	}
	return t
}

// check2D returns an ErrShapeMismatch error unless t is a non-empty matrix (gonum's
// matrices cannot have a zero dim).
func (t *Dense) check2D(what string) error {
	if len(t.shape) != 2 {
		return cr.Errorf(cr.ErrShapeMismatch, "%s: %s is not 2-D", what, t.Describe())
	}
	if t.shape[0] == 0 || t.shape[1] == 0 {
		return cr.Errorf(cr.ErrShapeMismatch, "%s: gonum matrices cannot be empty (%s)", what, t.Describe())
	}
	return nil
}

// ToMat returns a fresh gonum matrix holding the 2-D float64 tensor t. It returns an
// error wrapping ErrShapeMismatch if t is not 2-D, has a zero dim, or is complex.
func (t *Dense) ToMat() (*mat.Dense, error) {
	if err := t.check2D("ToMat"); err != nil {
		return nil, err
	}
	if t.dtype != Float64 {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "ToMat: %s is complex; use ToCMat", t.Describe())
	}
	return mat.NewDense(t.shape[0], t.shape[1], t.Clone().f64), nil
}

// ToCMat returns a fresh gonum complex matrix holding the 2-D tensor t (a float64
// tensor is promoted). It returns an error wrapping ErrShapeMismatch if t is not 2-D
// or has a zero dim.
func (t *Dense) ToCMat() (*mat.CDense, error) {
	if err := t.check2D("ToCMat"); err != nil {
		return nil, err
	}
	c := t.AsComplex()
	if c == t {
		c = t.Clone()
	}
	return mat.NewCDense(t.shape[0], t.shape[1], c.c128), nil
}
