package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// opPackages are the packages that export ops under the naming scheme of the
// chainrules package doc ("Naming").
var opPackages = []string{"einsum", "elementwise", "index", "linalg", "nn", "permute", "reduce"}

// TestOpNaming holds the op packages to the naming scheme of the chainrules package
// doc: an exported function XxxOp is an op constructor, returning
// cr.Op[*tensor.Dense] (of one output or several), and takes parameters, except in
// package linalg, whose parameterless ops are constructors too (the documented
// exception); an exported variable named XxxOp is not in linalg; and in linalg a
// plain function Xxx next to a constructor XxxOp evaluates it with eval, evalMulti,
// eval2 or eval3 (linalg's names for cr.Eval and cr.EvalMulti; see evaluates).
// elementwise/naming_test.go checks the variables and plain functions of package
// elementwise in more detail.
func TestOpNaming(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range opPackages {
		fset := token.NewFileSet()
		files, err := parseGoFiles(fset, filepath.Join(root, pkg))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) == 0 {
			t.Fatalf("package %s not found", pkg)
		}
		ctors := map[string]*ast.FuncDecl{}
		funcs := map[string]*ast.FuncDecl{}
		for _, f := range files {
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.GenDecl:
					if d.Tok != token.VAR || pkg != "linalg" {
						continue
					}
					for _, s := range d.Specs {
						for _, n := range s.(*ast.ValueSpec).Names {
							if n.IsExported() && strings.HasSuffix(n.Name, "Op") {
								t.Errorf("linalg: exported variable %s: linalg's ops are constructors", n.Name)
							}
						}
					}
				case *ast.FuncDecl:
					if d.Recv != nil || !d.Name.IsExported() {
						continue
					}
					if strings.HasSuffix(d.Name.Name, "Op") {
						ctors[d.Name.Name] = d
					} else {
						funcs[d.Name.Name] = d
					}
				}
			}
		}
		if len(ctors) == 0 {
			t.Errorf("%s: no op constructors found", pkg)
		}
		for name, fn := range ctors {
			if fn.Type.Params.NumFields() == 0 && pkg != "linalg" {
				t.Errorf("%s.%s takes no parameters: make it a variable", pkg, name)
			}
			res := fn.Type.Results
			if res == nil || res.NumFields() != 1 {
				t.Errorf("%s.%s does not return one op", pkg, name)
			} else if r := typeString(res.List[0].Type); r != "cr.Op[*tensor.Dense]" {
				t.Errorf("%s.%s returns %s, not an op", pkg, name, r)
			}
			if pkg != "linalg" {
				continue
			}
			plain, ok := funcs[strings.TrimSuffix(name, "Op")]
			if !ok {
				continue
			}
			if !evaluates(plain, name) {
				t.Errorf("linalg.%s does not evaluate %s(...) with eval, evalMulti, eval2 or eval3", plain.Name.Name, name)
			}
		}
	}
}

// evaluates reports whether fn evaluates op: its body is the one statement
// return eval(op(...), ...) (or eval2, eval3: a multi-output op whose outputs fn
// returns one by one), or starts with ys, err := evalMulti(op(...), ...).
func evaluates(fn *ast.FuncDecl, op string) bool {
	if fn.Body == nil || len(fn.Body.List) == 0 {
		return false
	}
	var call *ast.CallExpr
	switch s := fn.Body.List[0].(type) {
	case *ast.ReturnStmt:
		if len(fn.Body.List) == 1 && len(s.Results) == 1 {
			call, _ = s.Results[0].(*ast.CallExpr)
		}
	case *ast.AssignStmt:
		if len(s.Rhs) == 1 {
			call, _ = s.Rhs[0].(*ast.CallExpr)
		}
	}
	if call == nil || len(call.Args) == 0 {
		return false
	}
	switch typeString(call.Fun) {
	case "eval", "evalMulti", "eval2", "eval3":
	default:
		return false
	}
	inner, ok := call.Args[0].(*ast.CallExpr)
	return ok && typeString(inner.Fun) == op
}

// typeString spells the identifiers, selectors, stars and index expressions of a
// type or function expression.
func typeString(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return typeString(e.X) + "." + e.Sel.Name
	case *ast.StarExpr:
		return "*" + typeString(e.X)
	case *ast.IndexExpr:
		return typeString(e.X) + "[" + typeString(e.Index) + "]"
	}
	return "?"
}

// parseGoFiles parses the non-test Go files of dir (parser.ParseDir is deprecated).
func parseGoFiles(fset *token.FileSet, dir string) ([]*ast.File, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []*ast.File
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}
