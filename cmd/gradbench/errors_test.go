package main

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
)

// shapeErrors are inputs of the wrong shape, one or more per eval: each must be
// refused with an error.
var shapeErrors = []struct{ name, line string }{
	{"llsq n too small", `{"id": 3, "kind": "evaluate", "module": "llsq", "function": "gradient", "input": {"x": [1, 2], "n": 1, "min_runs": 1, "min_seconds": 0}}`},
	{"llsq no coefficients", `{"id": 3, "kind": "evaluate", "module": "llsq", "function": "primal", "input": {"x": [], "n": 4, "min_runs": 1, "min_seconds": 0}}`},
	{"det A not ell²", `{"id": 3, "kind": "evaluate", "module": "det", "function": "gradient", "input": {"A": [1, 2, 3], "ell": 2, "min_runs": 1, "min_seconds": 0}}`},
	{"det ell 0", `{"id": 3, "kind": "evaluate", "module": "det", "function": "primal", "input": {"A": [], "ell": 0, "min_runs": 1, "min_seconds": 0}}`},
	{"gmm x row of the wrong length", `{"id": 3, "kind": "evaluate", "module": "gmm", "function": "jacobian", "input": {"d": 2, "k": 1, "n": 1, "m": 0, "gamma": 1, "x": [[1, 2, 3]], "alpha": [0], "mu": [[0, 0]], "q": [[0, 0]], "l": [[0]], "min_runs": 1, "min_seconds": 0}}`},
	{"gmm n not the number of points", `{"id": 3, "kind": "evaluate", "module": "gmm", "function": "objective", "input": {"d": 2, "k": 1, "n": 2, "m": 0, "gamma": 1, "x": [[1, 2]], "alpha": [0], "mu": [[0, 0]], "q": [[0, 0]], "l": [[0]], "min_runs": 1, "min_seconds": 0}}`},
	{"gmm l of the wrong length", `{"id": 3, "kind": "evaluate", "module": "gmm", "function": "jacobian", "input": {"d": 2, "k": 1, "n": 1, "m": 0, "gamma": 1, "x": [[1, 2]], "alpha": [0], "mu": [[0, 0]], "q": [[0, 0]], "l": [[0, 1]], "min_runs": 1, "min_seconds": 0}}`},
	{"kmeans ragged points", `{"id": 3, "kind": "evaluate", "module": "kmeans", "function": "dir", "input": {"points": [[1, 2], [3]], "centroids": [[1, 2]], "min_runs": 1, "min_seconds": 0}}`},
	{"kmeans centroids of another dimension", `{"id": 3, "kind": "evaluate", "module": "kmeans", "function": "cost", "input": {"points": [[1, 2]], "centroids": [[1, 2, 3]], "min_runs": 1, "min_seconds": 0}}`},
	{"kmeans no centroids", `{"id": 3, "kind": "evaluate", "module": "kmeans", "function": "dir", "input": {"points": [[1, 2]], "centroids": [], "min_runs": 1, "min_seconds": 0}}`},
	{"ode no steps", `{"id": 3, "kind": "evaluate", "module": "ode", "function": "gradient", "input": {"x": [1, 2], "s": 0, "min_runs": 1, "min_seconds": 0}}`},
	{"ode empty x", `{"id": 3, "kind": "evaluate", "module": "ode", "function": "primal", "input": {"x": [], "s": 2, "min_runs": 1, "min_seconds": 0}}`},
	{"lstm odd number of main_params rows", `{"id": 3, "kind": "evaluate", "module": "lstm", "function": "jacobian", "input": {"main_params": [[1, 2, 3, 4]], "extra_params": [[1], [1], [1]], "state": [[0], [0]], "sequence": [[1], [0]], "min_runs": 1, "min_seconds": 0}}`},
	{"lstm weights of the wrong width", `{"id": 3, "kind": "evaluate", "module": "lstm", "function": "objective", "input": {"main_params": [[1, 2, 3], [1, 2, 3]], "extra_params": [[1], [1], [1]], "state": [[0], [0]], "sequence": [[1], [0]], "min_runs": 1, "min_seconds": 0}}`},
	{"lstm one character", `{"id": 3, "kind": "evaluate", "module": "lstm", "function": "jacobian", "input": {"main_params": [[1, 2, 3, 4], [1, 2, 3, 4]], "extra_params": [[1], [1], [1]], "state": [[0], [0]], "sequence": [[1]], "min_runs": 1, "min_seconds": 0}}`},
	{"ba camera of 10 parameters", `{"id": 3, "kind": "evaluate", "module": "ba", "function": "jacobian", "input": {"n": 1, "m": 1, "p": 1, "cam": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], "x": [1, 2, 3], "w": 1, "feat": [1, 2], "min_runs": 1, "min_seconds": 0}}`},
	{"ba no observations", `{"id": 3, "kind": "evaluate", "module": "ba", "function": "objective", "input": {"n": 1, "m": 1, "p": 0, "cam": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], "x": [1, 2, 3], "w": 1, "feat": [1, 2], "min_runs": 1, "min_seconds": 0}}`},
	{"ht theta of 25", `{"id": 3, "kind": "evaluate", "module": "ht", "function": "jacobian", "input": {"theta": [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], "us": [], "data": {"model": {"bone_count": 0}, "correspondences": [], "points": []}, "min_runs": 1, "min_seconds": 0}}`},
	{"particle without w", `{"id": 3, "kind": "evaluate", "module": "particle", "function": "rr", "input": {"min_runs": 1, "min_seconds": 0}}`},
	{"particle unknown mode", `{"id": 3, "kind": "evaluate", "module": "particle", "function": "rx", "input": {"w": 0, "min_runs": 1, "min_seconds": 0}}`},
	{"saddle start of three", `{"id": 3, "kind": "evaluate", "module": "saddle", "function": "ff", "input": {"start": [1, 1, 1], "min_runs": 1, "min_seconds": 0}}`},
}

// TestHTBadModel corrupts a valid ht input (from the golden file) one field at
// a time: each corruption must be refused.
func TestHTBadModel(t *testing.T) {
	b, err := os.ReadFile("testdata/golden_ht.json")
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	corrupt := map[string]func(in map[string]any){
		"weights row too short": func(in map[string]any) {
			w := in["data"].(map[string]any)["model"].(map[string]any)["weights"].([]any)
			w[0] = w[0].([]any)[1:]
		},
		"correspondence out of range": func(in map[string]any) {
			in["data"].(map[string]any)["correspondences"].([]any)[0] = 100000.0
		},
		"parent after its child": func(in map[string]any) {
			in["data"].(map[string]any)["model"].(map[string]any)["parents"].([]any)[1] = 5
		},
		"base relative of three rows": func(in map[string]any) {
			r := in["data"].(map[string]any)["model"].(map[string]any)["base_relatives"].([]any)
			r[0] = r[0].([]any)[:3]
		},
		"one point too many": func(in map[string]any) {
			d := in["data"].(map[string]any)
			d["points"] = append(d["points"].([]any), []any{1.0, 2.0, 3.0})
		},
	}
	for name, f := range corrupt {
		for _, c := range g.Cases[:2] {
			var in map[string]any
			if err := json.Unmarshal(c.Input, &in); err != nil {
				t.Fatal(err)
			}
			f(in)
			raw, _ := json.Marshal(in)
			line := fmt.Sprintf(`{"id": 3, "kind": "evaluate", "module": "ht", "function": %q, "input": %s}`, c.Function, raw)
			r := exchange(t, []string{line})[0]
			if r["success"] != false || r["error"] == "" {
				t.Errorf("%s (%s): got %v, want an error", name, c.Function, r["success"])
			}
		}
	}
}
