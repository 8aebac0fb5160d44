package tensor

import (
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/cblas128"
	"gonum.org/v1/gonum/mat"

	cr "github.com/chainrules-go/chainrules/chainrules"
)

// FromMat returns a fresh float64 tensor of shape [r c] holding the elements of the
// r×c matrix m.
func FromMat(m mat.Matrix) *Dense {
	var raw blas64.General
	if rm, ok := m.(mat.RawMatrixer); ok {
		raw = rm.RawMatrix()
	}
	return fromMatrix(m, raw.Data, raw.Stride)
}

// FromCMat returns a fresh complex128 tensor of shape [r c] holding the elements of
// the r×c complex matrix m.
func FromCMat(m mat.CMatrix) *Dense {
	var raw cblas128.General
	if rm, ok := m.(mat.RawCMatrixer); ok {
		raw = rm.RawCMatrix()
	}
	return fromMatrix(m, raw.Data, raw.Stride)
}

// matrix is the part of a gonum matrix that fromMatrix reads: mat.Matrix has it for
// float64 elements, mat.CMatrix for complex128 ones.
type matrix[T Element] interface {
	Dims() (r, c int)
	At(i, j int) T
}

// fromMatrix returns a fresh tensor of shape [r c] holding the elements of the r×c
// matrix m: copied row by row from raw, m's row-major storage with row stride
// stride, when m has it (raw != nil), and read one by one through At otherwise.
func fromMatrix[T Element](m matrix[T], raw []T, stride int) *Dense {
	r, c := m.Dims()
	t := New(dtypeOf[T](), r, c)
	dst := storage[T](t)
	if raw != nil {
		for i := range r {
			copy(dst[i*c:(i+1)*c], raw[i*stride:i*stride+c])
		}
		return t
	}
	for i := range r {
		for j := range c {
			dst[i*c+j] = m.At(i, j)
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

// ToMat returns a fresh gonum matrix holding the 2-D real tensor t (a float32 tensor
// is converted to float64: gonum's matrices are float64). It returns an error
// wrapping ErrShapeMismatch if t is not 2-D, has a zero dim, or is complex.
func (t *Dense) ToMat() (*mat.Dense, error) {
	if err := t.check2D("ToMat"); err != nil {
		return nil, err
	}
	switch t.dtype {
	case Float64:
		return mat.NewDense(t.shape[0], t.shape[1], t.Clone().f64s()), nil
	case Float32:
		return mat.NewDense(t.shape[0], t.shape[1], t.convert(Float64).f64s()), nil
	}
	return nil, cr.Errorf(cr.ErrShapeMismatch, "ToMat: %s is complex; use ToCMat", t.Describe())
}

// ToCMat returns a fresh gonum complex matrix holding the 2-D tensor t (a tensor of
// another dtype is converted to complex128, the element type of gonum's complex
// matrices). It returns an error wrapping ErrShapeMismatch if t is not 2-D or has a
// zero dim.
func (t *Dense) ToCMat() (*mat.CDense, error) {
	if err := t.check2D("ToCMat"); err != nil {
		return nil, err
	}
	var c []complex128
	if t.dtype == Complex128 {
		c = t.Clone().c128s()
	} else {
		c = t.convert(Complex128).c128s()
	}
	return mat.NewCDense(t.shape[0], t.shape[1], c), nil
}
