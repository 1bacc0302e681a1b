package web

import (
	"embed"
	"net/http"
	"path"
	"strings"
)

// The pages, their script and style sheet are ours and are served from
// the binary: nothing is fetched at run time, and nothing but these files
// is served.
//
//go:embed static/*.html static/*.js static/*.css
var staticFS embed.FS

var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
}

func servePage(w http.ResponseWriter, name string) { servePageStatus(w, name, http.StatusOK) }

func servePageStatus(w http.ResponseWriter, name string, code int) {
	b, err := staticFS.ReadFile("static/" + name)
	if err != nil {
		http.Error(w, "500 missing page", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", contentTypes[".html"])
	w.WriteHeader(code)
	w.Write(b)
}

func serveStatic(w http.ResponseWriter, r *http.Request, name string) {
	ct, ok := contentTypes[path.Ext(name)]
	if !ok || strings.Contains(name, "/") || strings.HasSuffix(name, ".html") {
		http.NotFound(w, r)
		return
	}
	b, err := staticFS.ReadFile("static/" + name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", ct)
	w.Write(b)
}
