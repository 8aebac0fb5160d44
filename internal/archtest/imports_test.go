package archtest

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/chainrules-go/chainrules/"

// primitive are the op packages whose rules are written by hand on tensor.
var primitive = []string{"einsum", "elementwise", "index", "permute", "reduce"}

// allowed maps each package (relative to the module) to the module packages it may
// import. Packages under examples/ and cmd/ (programs) may import anything.
var allowed = map[string][]string{
	"chainrules":                     nil,
	"internal/race":                  nil,
	"internal/vmath":                 {"internal/race"},  // race.Enabled: Put poisons buffers under the race detector
	"internal/gemm":                  {"internal/vmath"}, // vmath.Each, the one dynamic schedule
	"internal/archtest":              nil,
	"tensor":                         {"chainrules", "internal/gemm", "internal/vmath"},
	"tensor/opkit":                   {"chainrules", "tensor"},        // helpers for op authors: input checks, axes and lanes, strided steps, single precision by widening
	"core":                           {"chainrules", "internal/race"}, // race.Enabled: leave's atomic store under the race detector
	"einsum":                         {"chainrules", "tensor", "tensor/opkit", "internal/vmath"},
	"elementwise":                    {"chainrules", "tensor", "tensor/opkit", "internal/vmath"},
	"index":                          {"chainrules", "tensor", "tensor/opkit"},
	"permute":                        {"chainrules", "tensor", "tensor/opkit"},
	"reduce":                         {"chainrules", "tensor", "tensor/opkit", "internal/vmath"},
	"nn":                             append([]string{"chainrules", "core", "tensor", "tensor/opkit", "internal/vmath"}, primitive...),
	"linalg":                         append([]string{"chainrules", "core", "tensor", "tensor/opkit", "internal/vmath", "linalg/internal/lapack"}, primitive...),
	"linalg/internal/lapack":         {"tensor", "internal/vmath"}, // the LAPACK-style kernels on raw slices (tensor for Gemm and the element constraint; vmath for scratch from the buffer pool)
	"ops":                            append([]string{"chainrules", "tensor", "nn", "linalg"}, primitive...),
	"hvp":                            {"chainrules", "core", "tensor", "ops", "nn", "elementwise", "reduce"}, // nn: the losses of the Gauss-Newton products; elementwise, reduce: the inner products of the nested transforms
	"optim":                          {"chainrules", "tensor", "internal/vmath"},                             // optimisers over a parameter set: never hvp (a model is the caller's function)
	"testing/ruletest":               {"chainrules", "core"},
	"testing/oracle":                 {"chainrules", "core", "tensor", "tensor/opkit"},
	"testing/oracle/internal/vendor": nil,
	"internal/recordtest":            append([]string{"chainrules", "core", "tensor", "testing/ruletest"}, primitive...), // test helpers, imported by _test.go files only (no package lists it)
}

// TestImportGraph reads the imports of every non-test Go file of the module and
// checks them against allowed.
func TestImportGraph(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found from %s: %v", root, err)
	}
	seen := map[string]bool{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
		seen[pkg] = true
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		if pkg == "examples" || strings.HasPrefix(pkg, "examples/") || strings.HasPrefix(pkg, "cmd/") {
			return nil
		}
		ok, known := allowed[pkg]
		if !known {
			t.Errorf("package %s is not placed in the layering: add it to allowed (and to the package doc)", pkg)
			return nil
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if !strings.HasPrefix(p, module) {
				continue
			}
			if dep := strings.TrimPrefix(p, module); !slices.Contains(ok, dep) {
				t.Errorf("%s imports %s, which the layering does not allow", filepath.ToSlash(path[len(root)+1:]), dep)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"chainrules", "core", "tensor", "ops", "hvp"} {
		if !seen[p] {
			t.Errorf("package %s not found: is the walk rooted at the module?", p)
		}
	}
}
