package elementwise_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNamingScheme holds the package to its naming scheme, from its source: every
// exported package-level variable is an op without parameters, named XxxOp, and has
// a plain function Xxx that evaluates it through cr.Eval(XxxOp, ...); every exported
// function XxxOp is an op constructor (it takes the parameters, so it has some) and
// returns cr.Op[*tensor.Dense]; and a plain function Xxx next to a constructor XxxOp
// evaluates cr.Eval(XxxOp(...), ...).
func TestNamingScheme(t *testing.T) {
	fset := token.NewFileSet()
	files, err := parseGoFiles(fset, ".")
	require.NoError(t, err)
	require.NotEmpty(t, files)

	vars := map[string]bool{}
	ctors := map[string]*ast.FuncDecl{}
	funcs := map[string]*ast.FuncDecl{}
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				if d.Tok != token.VAR {
					continue
				}
				for _, s := range d.Specs {
					for _, n := range s.(*ast.ValueSpec).Names {
						if n.IsExported() {
							vars[n.Name] = true
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
	require.NotEmpty(t, vars)

	for name := range vars {
		if !assert.True(t, strings.HasSuffix(name, "Op"), "exported variable %s is not named XxxOp", name) {
			continue
		}
		plain := strings.TrimSuffix(name, "Op")
		fn, ok := funcs[plain]
		if assert.True(t, ok, "op %s has no plain function %s", name, plain) {
			arg, ok := evalArg(fn)
			if assert.True(t, ok, "%s does not return cr.Eval(%s, ...)", plain, name) {
				id, isIdent := arg.(*ast.Ident)
				assert.True(t, isIdent && id.Name == name, "%s evaluates something other than %s", plain, name)
			}
		}
	}
	for name, fn := range ctors {
		assert.NotZero(t, fn.Type.Params.NumFields(), "constructor %s takes no parameters: make it a variable", name)
		assert.False(t, vars[name], "%s is both a variable and a constructor", name)
		res := fn.Type.Results
		if assert.True(t, res != nil && res.NumFields() == 1, "%s does not return one op", name) {
			assert.Equal(t, "cr.Op[*tensor.Dense]", exprString(res.List[0].Type), "result of %s", name)
		}
		if fn, ok := funcs[strings.TrimSuffix(name, "Op")]; ok {
			arg, ok := evalArg(fn)
			if assert.True(t, ok, "%s does not return cr.Eval(%s(...), ...)", fn.Name.Name, name) {
				call, isCall := arg.(*ast.CallExpr)
				assert.True(t, isCall && exprString(call.Fun) == name, "%s evaluates something other than %s(...)", fn.Name.Name, name)
			}
		}
	}
}

// evalArg returns the op argument of the cr.Eval call that fn's body returns, if its
// body is the one statement return cr.Eval(op, ...).
func evalArg(fn *ast.FuncDecl) (ast.Expr, bool) {
	if fn.Body == nil || len(fn.Body.List) != 1 {
		return nil, false
	}
	ret, ok := fn.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return nil, false
	}
	call, ok := ret.Results[0].(*ast.CallExpr)
	if !ok || exprString(call.Fun) != "cr.Eval" || len(call.Args) == 0 {
		return nil, false
	}
	return call.Args[0], true
}

// exprString spells the identifiers, selectors, stars and index expressions of a
// type or function expression.
func exprString(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return exprString(e.X) + "." + e.Sel.Name
	case *ast.StarExpr:
		return "*" + exprString(e.X)
	case *ast.IndexExpr:
		return exprString(e.X) + "[" + exprString(e.Index) + "]"
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
