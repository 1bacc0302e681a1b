package daemon

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestLockedCallsHoldTheLock keeps the ...Locked names true: outside a
// ...Locked function, a call of one, or of the screen's methods (which
// call onReplyLocked and onEventLocked), must come after d.mu.Lock() and
// before the d.mu.Unlock() that lets go of it. The walk follows the
// code's shape, not every path: a branch that ends in return, continue
// or break leaves the lock as it found it, a switch or select case
// starts from the state before it, and a function literal (a timer's,
// a goroutine's) starts unlocked. That is how the daemon's code takes
// the lock; code that needs more than this to be read should be made
// simpler.
func TestLockedCallsHoldTheLock(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			w := lockWalk{t: t, fset: fset, fn: fn.Name.Name, calls: &checked}
			w.block(fn.Body.List, strings.HasSuffix(fn.Name.Name, "Locked"))
		}
	}
	if checked == 0 {
		t.Fatal("no call of a ...Locked function found: the walk is broken")
	}
}

type lockWalk struct {
	t     *testing.T
	fset  *token.FileSet
	fn    string
	calls *int
}

// block walks stmts with the lock held or not at the start, and returns
// whether it is held at the end.
func (w lockWalk) block(stmts []ast.Stmt, held bool) bool {
	for _, s := range stmts {
		held = w.stmt(s, held)
	}
	return held
}

func terminates(stmts []ast.Stmt) bool {
	if len(stmts) == 0 {
		return false
	}
	switch s := stmts[len(stmts)-1].(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.BranchStmt:
		return s.Tok == token.CONTINUE || s.Tok == token.BREAK || s.Tok == token.GOTO
	}
	return false
}

func (w lockWalk) branch(stmts []ast.Stmt, held bool) bool {
	end := w.block(stmts, held)
	if terminates(stmts) {
		return held
	}
	return end
}

func (w lockWalk) stmt(s ast.Stmt, held bool) bool {
	switch s := s.(type) {
	case *ast.ExprStmt:
		if sel := muCall(s.X); sel != "" {
			return sel == "Lock"
		}
		w.expr(s.X, held)
	case *ast.DeferStmt:
		if muCall(s.Call) == "" {
			w.expr(s.Call, held)
		}
	case *ast.BlockStmt:
		return w.block(s.List, held)
	case *ast.IfStmt:
		if s.Init != nil {
			held = w.stmt(s.Init, held)
		}
		w.expr(s.Cond, held)
		after := w.branch(s.Body.List, held)
		if s.Else != nil {
			w.stmt(s.Else, held)
		}
		return after
	case *ast.ForStmt:
		if s.Init != nil {
			held = w.stmt(s.Init, held)
		}
		if s.Cond != nil {
			w.expr(s.Cond, held)
		}
		return w.block(s.Body.List, held)
	case *ast.RangeStmt:
		w.expr(s.X, held)
		return w.block(s.Body.List, held)
	case *ast.SwitchStmt:
		if s.Init != nil {
			held = w.stmt(s.Init, held)
		}
		if s.Tag != nil {
			w.expr(s.Tag, held)
		}
		for _, c := range s.Body.List {
			cc := c.(*ast.CaseClause)
			for _, e := range cc.List {
				w.expr(e, held)
			}
			w.block(cc.Body, held)
		}
	case *ast.TypeSwitchStmt:
		for _, c := range s.Body.List {
			w.block(c.(*ast.CaseClause).Body, held)
		}
	case *ast.SelectStmt:
		for _, c := range s.Body.List {
			cc := c.(*ast.CommClause)
			if cc.Comm != nil {
				w.stmt(cc.Comm, held)
			}
			w.block(cc.Body, held)
		}
	case *ast.LabeledStmt:
		return w.stmt(s.Stmt, held)
	default:
		// Assignments, declarations, returns, sends, go statements:
		// their expressions, with the lock as it is.
		ast.Inspect(s, func(n ast.Node) bool {
			if e, ok := n.(ast.Expr); ok {
				w.expr(e, held)
				return false
			}
			return true
		})
	}
	return held
}

// expr checks the calls in e; a function literal is walked on its own,
// unlocked.
func (w lockWalk) expr(e ast.Expr, held bool) {
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			w.block(n.Body.List, false)
			return false
		case *ast.CallExpr:
			name := ""
			switch f := n.Fun.(type) {
			case *ast.Ident:
				name = f.Name
			case *ast.SelectorExpr:
				if base(f.X) == "layout" {
					return true // layout.At(root).Locked: the registry's file locks
				}
				name = f.Sel.Name
				if x, ok := f.X.(*ast.SelectorExpr); ok && x.Sel.Name == "screen" {
					// The screen is guarded by d.mu, and its
					// callbacks are ...Locked.
					name = "screen." + name + " (calls ...Locked)"
				}
			}
			if strings.HasSuffix(name, "Locked") || strings.HasSuffix(name, "(calls ...Locked)") {
				*w.calls++
				if !held {
					w.t.Errorf("%s: %s calls %s without d.mu", w.fset.Position(n.Pos()), w.fn, name)
				}
			}
		}
		return true
	})
}

// muCall returns "Lock" or "Unlock" for d.mu.Lock() and d.mu.Unlock().
func muCall(e ast.Expr) string {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return ""
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || (sel.Sel.Name != "Lock" && sel.Sel.Name != "Unlock") {
		return ""
	}
	mu, ok := sel.X.(*ast.SelectorExpr)
	if !ok || mu.Sel.Name != "mu" {
		return ""
	}
	return sel.Sel.Name
}

// base is the identifier an expression such as layout.At(root) starts
// from.
func base(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return x.Name
		case *ast.SelectorExpr:
			e = x.X
		case *ast.CallExpr:
			e = x.Fun
		default:
			return ""
		}
	}
}
