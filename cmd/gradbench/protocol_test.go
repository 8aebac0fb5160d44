package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// exchange feeds lines to serve and returns its responses, one per line.
func exchange(t *testing.T, lines []string) []map[string]any {
	t.Helper()
	var out bytes.Buffer
	w := bufio.NewWriter(&out)
	if err := serve(strings.NewReader(strings.Join(lines, "\n")+"\n"), w); err != nil {
		t.Fatalf("serve: %v", err)
	}
	var resps []map[string]any
	dec := json.NewDecoder(&out)
	for dec.More() {
		var r map[string]any
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("response is not JSON: %v", err)
		}
		resps = append(resps, r)
	}
	if len(resps) != len(lines) {
		t.Fatalf("%d responses to %d messages", len(resps), len(lines))
	}
	return resps
}

// mismatches compares got with want as the GradBench evals do: equal
// structure, and |x - y| / max(1, |x| + |y|) <= 1e-4 for every number.
func mismatches(path string, want, got any) []string {
	switch w := want.(type) {
	case float64:
		g, ok := got.(float64)
		if !ok {
			return []string{fmt.Sprintf("%s: got %T, want a number", path, got)}
		}
		if d := math.Abs(w-g) / math.Max(1, math.Abs(w)+math.Abs(g)); !(d <= 1e-4) {
			return []string{fmt.Sprintf("%s: got %v, want %v", path, g, w)}
		}
		return nil
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return []string{fmt.Sprintf("%s: got %v, want an array of %d", path, got, len(w))}
		}
		var out []string
		for i := range w {
			out = append(out, mismatches(fmt.Sprintf("%s[%d]", path, i), w[i], g[i])...)
		}
		return out
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || len(g) != len(w) {
			return []string{fmt.Sprintf("%s: got %v, want an object with %d keys", path, got, len(w))}
		}
		var out []string
		for k := range w {
			out = append(out, mismatches(path+"."+k, w[k], g[k])...)
		}
		return out
	}
	return []string{fmt.Sprintf("%s: unexpected expected value %v", path, want)}
}

type golden struct {
	Module string `json:"module"`
	Cases  []struct {
		Function string          `json:"function"`
		Input    json.RawMessage `json:"input"`
		Output   any             `json:"output"`
	} `json:"cases"`
}

// TestGolden replays, for each eval, the session GradBench's eval would run on
// the inputs of testdata/golden_<eval>.json (written by testdata/gen_golden.py
// with PyTorch): start, define, and an evaluate and an analysis per case.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/golden_*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var g golden
		if err := json.Unmarshal(b, &g); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		t.Run(g.Module, func(t *testing.T) {
			lines := []string{
				fmt.Sprintf(`{"id": 0, "kind": "start", "eval": %q}`, g.Module),
				fmt.Sprintf(`{"id": 1, "kind": "define", "module": %q}`, g.Module),
			}
			for i, c := range g.Cases {
				id := 2 + 2*i
				lines = append(lines,
					fmt.Sprintf(`{"id": %d, "kind": "evaluate", "module": %q, "function": %q, "input": %s}`, id, g.Module, c.Function, c.Input),
					fmt.Sprintf(`{"id": %d, "kind": "analysis", "of": %d, "valid": true}`, id+1, id))
			}
			resps := exchange(t, lines)
			for i, r := range resps {
				if r["id"] != float64(i) {
					t.Fatalf("response %d has id %v", i, r["id"])
				}
			}
			if resps[0]["tool"] != "chainrules" {
				t.Errorf("start: got %v", resps[0])
			}
			if resps[1]["success"] != true {
				t.Fatalf("define: got %v", resps[1])
			}
			for i, c := range g.Cases {
				r := resps[2+2*i]
				if r["success"] != true {
					t.Errorf("case %d (%s): %v", i, c.Function, r["error"])
					continue
				}
				if ts, _ := r["timings"].([]any); len(ts) == 0 {
					t.Errorf("case %d (%s): no timings", i, c.Function)
				}
				for _, m := range mismatches(fmt.Sprintf("case %d (%s)", i, c.Function), c.Output, r["output"]) {
					t.Error(m)
				}
				if a := resps[3+2*i]; len(a) != 1 {
					t.Errorf("analysis answered %v, want the id only", a)
				}
			}
		})
	}
}

// TestErrors sends messages the tool cannot serve: each gets "success": false
// and an error, and the session goes on.
func TestErrors(t *testing.T) {
	cases := []struct{ name, line string }{
		{"malformed JSON", `{"id": 3, "kind": "evaluate", `},
		{"not an object", `[1, 2, 3]`},
		{"no id", `{"kind": "define", "module": "lse"}`},
		{"no kind", `{"id": 3}`},
		{"unknown module", `{"id": 3, "kind": "define", "module": "nosuch"}`},
		{"evaluate unknown module", `{"id": 3, "kind": "evaluate", "module": "nosuch", "function": "primal", "input": {}}`},
		{"unknown function", `{"id": 3, "kind": "evaluate", "module": "lse", "function": "hessian", "input": {"x": [1], "min_runs": 1, "min_seconds": 0}}`},
		{"no input", `{"id": 3, "kind": "evaluate", "module": "lse", "function": "primal"}`},
		{"input of the wrong type", `{"id": 3, "kind": "evaluate", "module": "lse", "function": "primal", "input": {"x": "abc"}}`},
		{"hello input not a number", `{"id": 3, "kind": "evaluate", "module": "hello", "function": "square", "input": [1]}`},
		{"output not representable in JSON", `{"id": 3, "kind": "evaluate", "module": "kmeans", "function": "dir", "input": {"points": [[0], [1]], "centroids": [[0], [9]], "min_runs": 1, "min_seconds": 0}}`}, // the centroid at 9 is nobody's nearest: 0/0
		{"empty vector", `{"id": 3, "kind": "evaluate", "module": "lse", "function": "gradient", "input": {"x": [], "min_runs": 1, "min_seconds": 0}}`},
	}
	cases = append(cases, shapeErrors...)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resps := exchange(t, []string{c.line, `{"id": 9, "kind": "start"}`})
			r := resps[0]
			if r["success"] != false {
				t.Fatalf("got %v, want success false", r)
			}
			if msg, _ := r["error"].(string); msg == "" {
				t.Errorf("no error message: %v", r)
			} else {
				t.Log(msg)
			}
			if resps[1]["id"] != float64(9) {
				t.Errorf("the session did not go on: %v", resps[1])
			}
		})
	}
}
