package hvp

import (
	"fmt"
	"io"
	"strconv"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// SaveParams writes a parameter set to w as a NumPy .npz archive, the tensors named
// arr_0, arr_1, ... in order — what numpy.savez(f, *params) writes, so that
// numpy.load(f)["arr_0"] is the first tensor (and torch.from_numpy takes it from
// there). Tensors of any dtype and shape (float32 ones as <f4 arrays); a nil tensor
// is an error wrapping chainrules.ErrInvalidArgument. See tensor.SaveNPZ for named
// arrays.
func SaveParams(w io.Writer, params []*tensor.Dense) error {
	arrays := make(map[string]*tensor.Dense, len(params))
	for k, p := range params {
		if p == nil {
			return cr.Errorf(cr.ErrInvalidArgument, "hvp.SaveParams: parameter %d is nil", k)
		}
		arrays[paramName(k)] = p
	}
	return tensor.SaveNPZ(w, arrays)
}

// LoadParams reads a parameter set from a .npz archive of size bytes written by
// SaveParams or numpy.savez(f, *params): the arrays arr_0, ..., arr_{n-1}, in that
// order. An archive whose names are not exactly those (a missing arr_k, or another
// name) is an error wrapping tensor.ErrNPY, and so is one that tensor.LoadNPZ cannot
// read. With a layout l (LoadParamsLayout), the shapes are checked as well.
func LoadParams(r io.ReaderAt, size int64) ([]*tensor.Dense, error) {
	arrays, err := tensor.LoadNPZ(r, size)
	if err != nil {
		return nil, err
	}
	params := make([]*tensor.Dense, len(arrays))
	for k := range params {
		p, ok := arrays[paramName(k)]
		if !ok {
			for name := range arrays {
				if _, err := paramIndex(name); err != nil {
					return nil, fmt.Errorf("%w: hvp.LoadParams: array %q is not named arr_<k>", tensor.ErrNPY, name)
				}
			}
			return nil, fmt.Errorf("%w: hvp.LoadParams: %d arrays but no %s", tensor.ErrNPY, len(arrays), paramName(k))
		}
		params[k] = p
	}
	return params, nil
}

// LoadParamsLayout is LoadParams for a parameter set of layout l: an archive whose
// tensors do not have l's shapes (or number) is an error wrapping
// chainrules.ErrShapeMismatch, naming the first tensor that differs. Each tensor
// must have the layout's dtype for it (float64 or float32): another dtype, complex
// or the other precision, is an error wrapping chainrules.ErrInvalidArgument that
// names both (convert with tensor.AsType).
func LoadParamsLayout(r io.ReaderAt, size int64, l Layout) ([]*tensor.Dense, error) {
	params, err := LoadParams(r, size)
	if err != nil {
		return nil, err
	}
	if len(params) != l.Len() {
		return nil, cr.Errorf(cr.ErrShapeMismatch, "hvp.LoadParamsLayout: %d tensors, the layout has %d", len(params), l.Len())
	}
	for k, p := range params {
		if p.DType() != l.DType(k) {
			return nil, cr.Errorf(cr.ErrInvalidArgument, "hvp.LoadParamsLayout: %s is %v, the layout holds %v there", paramName(k), p.DType(), l.DType(k))
		}
		if fmt.Sprint(p.Shape()) != fmt.Sprint(l.Shape(k)) {
			return nil, cr.Errorf(cr.ErrShapeMismatch, "hvp.LoadParamsLayout: %s has shape %v, the layout %v", paramName(k), p.Shape(), l.Shape(k))
		}
	}
	return params, nil
}

func paramName(k int) string { return "arr_" + strconv.Itoa(k) }

func paramIndex(name string) (int, error) {
	if len(name) < 5 || name[:4] != "arr_" {
		return 0, fmt.Errorf("not arr_<k>")
	}
	return strconv.Atoi(name[4:])
}
