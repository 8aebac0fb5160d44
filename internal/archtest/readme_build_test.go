package archtest

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// The README's Go code blocks compile, each on its own, so that a reader can copy
// one into a program. TestREADMESnippetsBuild holds them to this convention:
//
//   - Every block fenced as ```go is compiled; output and pseudo-code are fenced as
//     ``` or ```text.
//   - A block that starts with a package clause is a complete file.
//   - Any other block is a fragment. Declarations (functions, types, ...) are
//     compiled as a file's top level; statements as the body of a function.
//   - A fragment names what it uses without declaring it in HTML comments on the
//     lines right above its fence, invisible on the rendered page:
//     <!-- snippet: func(a, b *tensor.Dense) (float64, error) --> makes the
//     statements the body of a function with these parameters and results, and
//     any other <!-- snippet: DECLARATION --> (type Tape = core.Tape[*tensor.Dense])
//     is added to the file's top level.
//   - Imports are inferred from the package names a block uses (cr and ew are
//     chainrules and elementwise, as in the project's code); variables that a
//     statement fragment declares and leaves unused are used for it (unless it
//     ends with a return).
//
// The blocks are written into a temporary directory under testdata (which go
// test ./... does not visit) and built with one go build; a compile error names the
// README's line (a //line directive maps each block to it).
func TestREADMESnippetsBuild(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := readmeGoBlocks(string(readme))
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) < 5 {
		t.Fatalf("only %d Go blocks found in README.md", len(blocks))
	}
	if err := os.MkdirAll(filepath.Join(root, "internal", "archtest", "testdata"), 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(filepath.Join(root, "internal", "archtest", "testdata"), "readme-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		os.RemoveAll(dir)
		os.Remove(filepath.Dir(dir)) // testdata, if nothing else is in it
	})
	var pkgs []string
	for i, b := range blocks {
		src, err := b.file(i)
		if err != nil {
			t.Errorf("README.md:%d: %v", b.line, err)
			continue
		}
		pkg := filepath.Join(dir, fmt.Sprintf("s%02d", i))
		if err := os.Mkdir(pkg, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(pkg, "snippet.go"), src, 0o644); err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, pkg)
		pkgs = append(pkgs, "./"+filepath.ToSlash(rel))
	}
	cmd := exec.Command(goTool, append([]string{"build"}, pkgs...)...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("README.md's Go blocks do not build (see the convention in readme_build_test.go):\n%s", out)
	}
}

// goBlock is a ```go block of the README with the snippet comments above it.
type goBlock struct {
	line    int      // the README line of the block's first code line
	code    string   // the block, its fence's indentation removed
	context []string // the <!-- snippet: ... --> texts, in order
}

var snippetComment = regexp.MustCompile(`^\s*<!--\s*snippet:\s*(.*?)\s*-->\s*$`)

// readmeGoBlocks returns the ```go blocks of a Markdown text.
func readmeGoBlocks(md string) ([]goBlock, error) {
	lines := strings.Split(md, "\n")
	var out []goBlock
	for i := 0; i < len(lines); i++ {
		trimmed := strings.TrimSpace(lines[i])
		if trimmed != "```go" {
			continue
		}
		indent := lines[i][:strings.Index(lines[i], "```")]
		var ctx []string
		for j := i - 1; j >= 0; j-- {
			m := snippetComment.FindStringSubmatch(lines[j])
			if m == nil {
				break
			}
			ctx = append([]string{m[1]}, ctx...)
		}
		start := i + 1
		end := start
		for end < len(lines) && strings.TrimSpace(lines[end]) != "```" {
			end++
		}
		if end == len(lines) {
			return nil, fmt.Errorf("README.md:%d: unterminated ```go block", i+1)
		}
		body := make([]string, 0, end-start)
		for _, l := range lines[start:end] {
			body = append(body, strings.TrimPrefix(l, indent))
		}
		out = append(out, goBlock{line: start + 1, code: strings.Join(body, "\n"), context: ctx})
		i = end
	}
	return out, nil
}

// importPaths are the packages a README block may use by name.
var importPaths = map[string]string{
	"chainrules":  "github.com/chainrules-go/chainrules/chainrules",
	"cr":          "github.com/chainrules-go/chainrules/chainrules",
	"core":        "github.com/chainrules-go/chainrules/core",
	"tensor":      "github.com/chainrules-go/chainrules/tensor",
	"einsum":      "github.com/chainrules-go/chainrules/einsum",
	"elementwise": "github.com/chainrules-go/chainrules/elementwise",
	"ew":          "github.com/chainrules-go/chainrules/elementwise",
	"index":       "github.com/chainrules-go/chainrules/index",
	"permute":     "github.com/chainrules-go/chainrules/permute",
	"reduce":      "github.com/chainrules-go/chainrules/reduce",
	"nn":          "github.com/chainrules-go/chainrules/nn",
	"linalg":      "github.com/chainrules-go/chainrules/linalg",
	"ops":         "github.com/chainrules-go/chainrules/ops",
	"hvp":         "github.com/chainrules-go/chainrules/hvp",
	"optim":       "github.com/chainrules-go/chainrules/optim",
	"ruletest":    "github.com/chainrules-go/chainrules/testing/ruletest",
	"oracle":      "github.com/chainrules-go/chainrules/testing/oracle",
	"optimize":    "gonum.org/v1/gonum/optimize",
	"mat":         "gonum.org/v1/gonum/mat",
	"floats":      "gonum.org/v1/gonum/floats",
	"errors":      "errors",
	"fmt":         "fmt",
	"io":          "io",
	"log":         "log",
	"math":        "math",
	"os":          "os",
	"strings":     "strings",
	"testing":     "testing",
}

// file returns the Go file that compiles block b (the i-th) by the convention of
// TestREADMESnippetsBuild.
func (b goBlock) file(i int) ([]byte, error) {
	lineDirective := fmt.Sprintf("//line README.md:%d\n", b.line)
	if strings.HasPrefix(strings.TrimSpace(b.code), "package ") {
		return []byte(b.code + "\n"), nil
	}
	sig := "func()"
	var decls []string
	for _, c := range b.context {
		if strings.HasPrefix(c, "func(") {
			sig = c
		} else {
			decls = append(decls, c)
		}
	}
	fset := token.NewFileSet()
	var body strings.Builder
	header := fmt.Sprintf("package s%02d\n\n", i)
	context := strings.Join(decls, "\n") + "\n"
	if _, err := parser.ParseFile(fset, "", "package p\n"+b.code, 0); err == nil {
		// Declarations.
		body.WriteString(context)
		body.WriteString(lineDirective)
		body.WriteString(b.code)
		body.WriteString("\n")
	} else {
		f, err := parser.ParseFile(fset, "", "package p\nfunc _() {\n"+b.code+"\n}", 0)
		if err != nil {
			return nil, fmt.Errorf("the block parses neither as declarations nor as statements: %v", err)
		}
		fn := f.Decls[0].(*ast.FuncDecl)
		var used []string
		for _, s := range fn.Body.List {
			used = append(used, declaredNames(s)...)
		}
		if n := len(fn.Body.List); n > 0 {
			if _, ok := fn.Body.List[n-1].(*ast.ReturnStmt); ok {
				used = nil // a fragment that returns has used what it needed
			}
		}
		body.WriteString(context)
		body.WriteString("func _" + strings.TrimPrefix(sig, "func") + " {\n")
		body.WriteString(lineDirective)
		body.WriteString(b.code)
		body.WriteString("\n")
		for _, name := range used {
			body.WriteString("_ = " + name + "\n")
		}
		body.WriteString("}\n")
	}
	// The imports: the package names the file uses and does not declare.
	f, err := parser.ParseFile(fset, "", header+body.String(), 0)
	if err != nil {
		return nil, err
	}
	unresolved := map[string]bool{}
	for _, id := range f.Unresolved {
		unresolved[id.Name] = true
	}
	imports := map[string]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if x, ok := sel.X.(*ast.Ident); ok && unresolved[x.Name] {
				if path, ok := importPaths[x.Name]; ok {
					imports[x.Name] = path
				}
			}
		}
		return true
	})
	names := make([]string, 0, len(imports))
	for name := range imports {
		names = append(names, name)
	}
	sort.Strings(names)
	var src bytes.Buffer
	src.WriteString(header)
	if len(names) > 0 {
		src.WriteString("import (\n")
		for _, name := range names {
			fmt.Fprintf(&src, "\t%s %q\n", name, imports[name])
		}
		src.WriteString(")\n\n")
	}
	src.WriteString(body.String())
	return src.Bytes(), nil
}

// declaredNames returns the names that statement s declares at its own level.
func declaredNames(s ast.Stmt) []string {
	var names []string
	switch s := s.(type) {
	case *ast.AssignStmt:
		if s.Tok == token.DEFINE {
			for _, e := range s.Lhs {
				if id, ok := e.(*ast.Ident); ok && id.Name != "_" {
					names = append(names, id.Name)
				}
			}
		}
	case *ast.DeclStmt:
		if g, ok := s.Decl.(*ast.GenDecl); ok && g.Tok == token.VAR {
			for _, spec := range g.Specs {
				for _, id := range spec.(*ast.ValueSpec).Names {
					if id.Name != "_" {
						names = append(names, id.Name)
					}
				}
			}
		}
	}
	return names
}
