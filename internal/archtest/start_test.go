package archtest

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestPackageDocsSayWhereToStart requires the package docs of the packages a
// newcomer opens first to say, in their first paragraphs, where to start: the
// gradient transform of hvp, the op packages and the protocol.
func TestPackageDocsSayWhereToStart(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range []string{"chainrules", "core", "hvp", "ops", "tensor"} {
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(root, pkg, "doc.go"), nil, parser.ParseComments|parser.PackageClauseOnly)
		if err != nil {
			t.Fatal(err)
		}
		doc := f.Doc.Text()
		paras := strings.SplitN(doc, "\n\n", 3)
		if len(paras) < 2 || !strings.HasPrefix(paras[1], "Where to start:") {
			t.Errorf("%s: the package doc's second paragraph does not say where to start:\n%s", pkg, doc[:min(len(doc), 600)])
			continue
		}
		for _, want := range []string{"Grad", "Eval", "elementwise", "chainrules"} {
			if !strings.Contains(paras[1], want) {
				t.Errorf("%s: where to start does not mention %s", pkg, want)
			}
		}
	}
}
