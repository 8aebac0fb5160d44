package tensor_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"testing"

	cr "github.com/chainrules-go/chainrules/chainrules"
	"github.com/chainrules-go/chainrules/tensor"
)

// TestCreationMatchesTorch replays torch.eye, torch.arange and torch.linspace
// (testdata/gen_creation_ref.py): shapes and eye exactly, arange and linspace within
// 2 ulp (torch's vectorised kernels round some elements differently), linspace's
// endpoints exactly.
func TestCreationMatchesTorch(t *testing.T) {
	b, err := os.ReadFile("testdata/creation_ref.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Cases []struct {
			Fn     string
			Args   []float64
			Shape  []int
			Values []float64
		}
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Cases) < 15 {
		t.Fatalf("%d cases", len(ref.Cases))
	}
	for _, c := range ref.Cases {
		name := fmt.Sprintf("%s%v", c.Fn, c.Args)
		var got *tensor.Dense
		switch c.Fn {
		case "eye":
			got, err = tensor.Eye(int(c.Args[0]), int(c.Args[1]))
		case "arange":
			got, err = tensor.Arange(c.Args[0], c.Args[1], c.Args[2])
		case "linspace":
			got, err = tensor.Linspace(c.Args[0], c.Args[1], int(c.Args[2]))
		default:
			t.Fatalf("unknown function %q", c.Fn)
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !slices.Equal(got.Shape(), c.Shape) {
			t.Errorf("%s: shape %v, torch %v", name, got.Shape(), c.Shape)
			continue
		}
		for i, w := range c.Values {
			g := got.Float64s()[i]
			if g != w && math.Abs(g-w) > 2*ulp(w) {
				t.Errorf("%s[%d] = %.17g, torch %.17g", name, i, g, w)
			}
		}
		if c.Fn == "linspace" && len(c.Values) > 1 && got.Float64s()[len(c.Values)-1] != c.Args[1] {
			t.Errorf("%s: the last value is not end", name)
		}
	}
}

func ulp(v float64) float64 { return math.Nextafter(math.Abs(v), math.Inf(1)) - math.Abs(v) }

func TestCreationErrors(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for name, f := range map[string]func() (*tensor.Dense, error){
		"eye negative":      func() (*tensor.Dense, error) { return tensor.Eye(-1, 2) },
		"eye too large":     func() (*tensor.Dense, error) { return tensor.Eye(1<<40, 1<<40) },
		"arange zero step":  func() (*tensor.Dense, error) { return tensor.Arange(0, 1, 0) },
		"arange wrong sign": func() (*tensor.Dense, error) { return tensor.Arange(0, 1, -1) },
		"arange NaN":        func() (*tensor.Dense, error) { return tensor.Arange(nan, 1, 1) },
		"arange Inf end":    func() (*tensor.Dense, error) { return tensor.Arange(0, inf, 1) },
		"arange too long":   func() (*tensor.Dense, error) { return tensor.Arange(0, 1, 1e-300) },
		"linspace negative": func() (*tensor.Dense, error) { return tensor.Linspace(0, 1, -2) },
		"linspace NaN":      func() (*tensor.Dense, error) { return tensor.Linspace(0, nan, 3) },
		"linspace too long": func() (*tensor.Dense, error) { return tensor.Linspace(0, 1, math.MaxInt) },
	} {
		got, err := f()
		if !errors.Is(err, cr.ErrInvalidArgument) || got != nil {
			t.Errorf("%s: %v, %v; want an error wrapping ErrInvalidArgument", name, got, err)
		}
	}
}

// The identity, a range and evenly spaced points, as in PyTorch.
func ExampleEye() {
	eye, _ := tensor.Eye(2, 3)
	r, _ := tensor.Arange(0, 1, 0.25)
	l, _ := tensor.Linspace(-1, 1, 5)
	fmt.Println(eye)
	fmt.Println(r)
	fmt.Println(l)
	// Output:
	// float64[2 3] [[1 0 0] [0 1 0]]
	// float64[4] [0 0.25 0.5 0.75]
	// float64[5] [-1 -0.5 0 0.5 1]
}
