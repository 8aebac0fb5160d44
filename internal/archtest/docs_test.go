package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// snippet is a code block of a doc comment or of the README.
type snippet struct {
	where string // file:line
	code  string
}

// docSnippets returns the indented blocks of the doc comments of the module's
// non-test Go files (the comment text after "//\t").
func docSnippets(t *testing.T, root string) []snippet {
	var out []snippet
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
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
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		// The package doc and the docs of exported declarations: what godoc shows.
		var groups []*ast.CommentGroup
		add := func(doc *ast.CommentGroup, exported bool) {
			if doc != nil && exported {
				groups = append(groups, doc)
			}
		}
		anyExported := func(ids []*ast.Ident) bool {
			for _, id := range ids {
				if id.IsExported() {
					return true
				}
			}
			return false
		}
		add(f.Doc, true)
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				add(n.Doc, n.Name.IsExported())
			case *ast.GenDecl:
				exported := false
				for _, s := range n.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						exported = exported || s.Name.IsExported()
					case *ast.ValueSpec:
						exported = exported || anyExported(s.Names)
					}
				}
				add(n.Doc, exported)
			case *ast.TypeSpec:
				add(n.Doc, n.Name.IsExported())
			case *ast.ValueSpec:
				add(n.Doc, anyExported(n.Names))
			case *ast.Field:
				add(n.Doc, anyExported(n.Names))
			}
			return true
		})
		rel, _ := filepath.Rel(root, path)
		for _, g := range groups {
			var cur []string
			start := 0
			flush := func() {
				if len(cur) > 0 {
					out = append(out, snippet{where: rel + ":" + strconv.Itoa(start), code: strings.Join(cur, "\n")})
				}
				cur = nil
			}
			for _, c := range g.List {
				line := fset.Position(c.Pos()).Line
				text := strings.TrimPrefix(c.Text, "//")
				if strings.HasPrefix(text, "\t") {
					if cur == nil {
						start = line
					}
					cur = append(cur, text[1:])
					continue
				}
				if strings.TrimSpace(text) == "" && cur != nil {
					cur = append(cur, "")
					continue
				}
				flush()
			}
			flush()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var (
	fence = regexp.MustCompile("(?s)\n( *)```go\n(.*?)\n *```")
	// code tells Go code from formulas that happen to parse as Go: a short variable
	// declaration, a function, or a call of an exported name of a package.
	code = regexp.MustCompile(`:=|\bfunc\b|\b[a-z][A-Za-z0-9]*\.[A-Z][A-Za-z0-9]*[\[({]`)
)

// isGo reports whether s parses as Go declarations or statements.
func isGo(s string) bool {
	fset := token.NewFileSet()
	if _, err := parser.ParseFile(fset, "", "package p\n"+s, 0); err == nil {
		return true
	}
	_, err := parser.ParseFile(fset, "", "package p\nfunc _() {\n"+s+"\n}", 0)
	return err == nil
}

// normalize returns the code lines of s without comments, blank lines and
// indentation, so that a snippet matches the code it was copied from.
func normalize(s string) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(stripComment(line))
		if line != "" {
			out = append(out, line)
		}
	}
	return out
}

// stripComment drops a // comment that is not inside a string or rune literal.
func stripComment(line string) string {
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == '\\' && quote != '`' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case c == '/' && i+1 < len(line) && line[i+1] == '/':
			return line[:i]
		}
	}
	return line
}

// contains reports whether the lines of snip occur consecutively in lines.
func contains(lines, snip []string) bool {
	for i := 0; i+len(snip) <= len(lines); i++ {
		if slicesEqual(lines[i:i+len(snip)], snip) {
			return true
		}
	}
	return false
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// exempt lists the snippets that cannot be compiled here, by their first line,
// with the reason.
var exempt = map[string]string{
	"linalg.UseLAPACK64(true)    // every float64 factorisation through lapack64 and": "needs a native LAPACK implementation (impl), which is not a dependency",
	"blas64.Use(netlib.Implementation{})      // gonum.org/v1/netlib/blas/netlib":     "needs cgo and a system BLAS (gonum.org/v1/netlib is not a dependency)",
}

// TestDocSnippetsAreCompiled checks that every Go code block of a doc comment
// (package docs and exported declarations) and of the README is the code of a
// compiled file of the module — typically an Example or a test written for it — so
// that no documented snippet uses an API that does not exist. The comparison
// ignores indentation, comments and blank lines.
func TestDocSnippetsAreCompiled(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	var files [][]string
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
		if strings.HasSuffix(path, ".go") {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			files = append(files, normalize(string(b)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	snippets := docSnippets(t, root)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range fence.FindAllStringSubmatchIndex(string(readme), -1) {
		body := string(readme[m[4]:m[5]])
		line := 1 + strings.Count(string(readme[:m[4]]), "\n")
		snippets = append(snippets, snippet{where: "README.md:" + strconv.Itoa(line), code: body})
	}
	checked := 0
	for _, s := range snippets {
		if !isGo(s.code) || !code.MatchString(s.code) {
			continue
		}
		first := strings.TrimSpace(strings.SplitN(strings.TrimSpace(s.code), "\n", 2)[0])
		if _, ok := exempt[first]; ok {
			continue
		}
		checked++
		snip := normalize(s.code)
		found := false
		for _, f := range files {
			if contains(f, snip) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("%s: the code block is not the code of any compiled file (write it as an Example or test, or fix it):\n%s", s.where, s.code)
		}
	}
	if checked < 10 {
		t.Errorf("only %d code blocks checked: is the walk rooted at the module?", checked)
	}
}
