package main

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
)

// TestNested checks the nested derivatives of particle and saddle in every
// mode pair against testdata/nested_ref.json (PyTorch, create_graph): the
// value and the outer gradient of x_f(w)_0², whose Euler steps take the force
// by an inner gradient, and of max over p2 of f(p1, p2), whose inner descent
// is recorded.
func TestNested(t *testing.T) {
	b, err := os.ReadFile("testdata/nested_ref.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Particle []struct {
			W     []float64 `json:"w"`
			Value float64   `json:"value"`
			Grad  []float64 `json:"grad"`
		} `json:"particle"`
		Saddle []struct {
			P1    []float64 `json:"p1"`
			Start []float64 `json:"start"`
			Value float64   `json:"value"`
			Grad  []float64 `json:"grad"`
		} `json:"saddle"`
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	check := func(name string, value float64, grad []float64, wantValue float64, wantGrad []float64) {
		t.Helper()
		want := map[string]any{"value": wantValue, "grad": toAny(wantGrad)}
		got := map[string]any{"value": value, "grad": toAny(grad)}
		for _, m := range mismatches(name, want, got) {
			t.Error(m)
		}
	}
	for _, inner := range []gradMode{'r', 'f'} {
		for _, outer := range []gradMode{'r', 'f'} {
			for _, c := range ref.Particle {
				f := naiveEuler(inner)
				v, err := value(f, c.W)
				if err != nil {
					t.Fatal(err)
				}
				g, err := gradient(outer, f, c.W)
				if err != nil {
					t.Fatal(err)
				}
				check(fmt.Sprintf("particle %c%c w=%v", outer, inner, c.W), v, g, c.Value, c.Grad)
			}
			for _, c := range ref.Saddle {
				f := innerMax(inner, c.Start)
				v, err := value(f, c.P1)
				if err != nil {
					t.Fatal(err)
				}
				g, err := gradient(outer, f, c.P1)
				if err != nil {
					t.Fatal(err)
				}
				check(fmt.Sprintf("saddle %c%c p1=%v", outer, inner, c.P1), v, g, c.Value, c.Grad)
			}
		}
	}
}

func toAny(v []float64) []any {
	out := make([]any, len(v))
	for i, x := range v {
		out[i] = x
	}
	return out
}
