package hvp_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/hvp"
	"github.com/chainrules-go/chainrules/tensor"
)

func TestSaveLoadParams(t *testing.T) {
	// numpy.savez(f, f8, [1, 2, 3], c16), from tensor/testdata/gen_npy_ref.py.
	b, err := os.ReadFile("../tensor/testdata/ref_params.npz")
	if err != nil {
		t.Fatal(err)
	}
	ps, err := hvp.LoadParams(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 3 || fmt.Sprint(ps[0].Shape(), ps[1].Shape(), ps[2].Shape()) != "[2 3] [3] [2 2]" ||
		ps[0].Float64s()[5] != 0.75 || ps[1].Float64s()[2] != 3 || ps[2].Complex128s()[3] != 4-1i {
		t.Errorf("numpy's parameter set: %v", ps)
	}

	// An MLP's parameter set round-trips, bit for bit, and checks against its layout.
	rng := rand.New(rand.NewPCG(7, 7))
	params := []*tensor.Dense{
		tensor.RandN(rng, tensor.Float64, 4, 3), tensor.RandN(rng, tensor.Float64, 3),
		tensor.RandN(rng, tensor.Float64, 3, 1), tensor.RandN(rng, tensor.Float64, 1),
	}
	var buf bytes.Buffer
	if err := hvp.SaveParams(&buf, params); err != nil {
		t.Fatal(err)
	}
	layout, err := hvp.LayoutOf(params)
	if err != nil {
		t.Fatal(err)
	}
	r := bytes.NewReader(buf.Bytes())
	got, err := hvp.LoadParamsLayout(r, int64(buf.Len()), layout)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := layout.Flatten(params)
	flat, err := layout.Flatten(got)
	if err != nil || !slices.Equal(flat, want) {
		t.Errorf("round trip: %v, %v", flat, err)
	}

	// A layout of other shapes, or of another number of tensors.
	other, _ := hvp.NewLayout([]int{4, 3}, []int{3}, []int{1, 3}, []int{1})
	if _, err := hvp.LoadParamsLayout(r, int64(buf.Len()), other); !errors.Is(err, cr.ErrShapeMismatch) {
		t.Errorf("other shapes: %v", err)
	}
	fewer, _ := hvp.NewLayout([]int{4, 3})
	if _, err := hvp.LoadParamsLayout(r, int64(buf.Len()), fewer); !errors.Is(err, cr.ErrShapeMismatch) {
		t.Errorf("fewer tensors: %v", err)
	}
	if _, err := hvp.LoadParamsLayout(bytes.NewReader(b), int64(len(b)), mustLayout(t, []int{2, 3}, []int{3}, []int{2, 2})); !errors.Is(err, cr.ErrInvalidArgument) {
		t.Errorf("complex128 tensor for a layout: %v", err)
	}

	// Archives that are not parameter sets.
	for name, arrays := range map[string]map[string]*tensor.Dense{
		"gap":        {"arr_0": params[0], "arr_2": params[1]},
		"other name": {"arr_0": params[0], "w": params[1]},
	} {
		var buf bytes.Buffer
		if err := tensor.SaveNPZ(&buf, arrays); err != nil {
			t.Fatal(err)
		}
		if _, err := hvp.LoadParams(bytes.NewReader(buf.Bytes()), int64(buf.Len())); !errors.Is(err, tensor.ErrNPY) {
			t.Errorf("%s: %v, want ErrNPY", name, err)
		}
	}
	if err := hvp.SaveParams(&bytes.Buffer{}, []*tensor.Dense{params[0], nil}); !errors.Is(err, cr.ErrInvalidArgument) {
		t.Errorf("nil parameter: %v", err)
	}
}

func mustLayout(t *testing.T, shapes ...[]int) hvp.Layout {
	t.Helper()
	l, err := hvp.NewLayout(shapes...)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// Save a parameter set as numpy.savez does (arr_0, arr_1, ...) and load it back.
func ExampleSaveParams() {
	w, _ := tensor.FromFloat64([]float64{1, 2, 3, 4}, 2, 2)
	b, _ := tensor.FromFloat64([]float64{0.5, -0.5}, 2)
	var buf bytes.Buffer // or an *os.File; numpy.load reads it
	if err := hvp.SaveParams(&buf, []*tensor.Dense{w, b}); err != nil {
		fmt.Println(err)
		return
	}
	params, err := hvp.LoadParams(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(params[0], params[1])
	// Output:
	// float64[2 2] [[1 2] [3 4]] float64[2] [0.5 -0.5]
}
