package archtest

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// row is a row of the import table of ARCHITECTURE.md: | `pkg` | `a`, `b` |.
var row = regexp.MustCompile("(?m)^\\| `([^`]+)` \\| (.*) \\|$")

// TestArchitectureDoc checks that the import table of ARCHITECTURE.md at the module
// root lists exactly the packages of allowed, each with exactly its allowed imports
// (in any order), and examples/... and cmd/... as free.
func TestArchitectureDoc(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, m := range row.FindAllStringSubmatch(string(b), -1) {
		pkg, cell := m[1], strings.TrimSpace(m[2])
		if pkg == "examples/..." || pkg == "cmd/..." {
			seen[pkg] = true
			continue
		}
		want, ok := allowed[pkg]
		if !ok {
			t.Errorf("ARCHITECTURE.md lists %s, which allowed does not place", pkg)
			continue
		}
		seen[pkg] = true
		var got []string
		if cell != "—" {
			for _, f := range strings.Split(cell, ",") {
				got = append(got, strings.Trim(strings.TrimSpace(f), "`"))
			}
		}
		got, want = slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))
		if !slices.Equal(got, want) {
			t.Errorf("ARCHITECTURE.md: %s may import %v; allowed says %v", pkg, got, want)
		}
	}
	for pkg := range allowed {
		if !seen[pkg] {
			t.Errorf("ARCHITECTURE.md does not list %s", pkg)
		}
	}
	for _, free := range []string{"examples/...", "cmd/..."} {
		if !seen[free] {
			t.Errorf("ARCHITECTURE.md does not list %s", free)
		}
	}
}
