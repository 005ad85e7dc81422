package remote

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"os"
	"path"
	"strings"
	"time"
)

// webFiles is the web UI (remote/web): plain ES modules, HTML and CSS
// with no build step, so `go build` alone ships it inside the binary.
//
//go:embed web
var webFiles embed.FS

// contentSecurityPolicy is sent with every page and asset of the UI. What
// the agent writes is shown on these pages, so nothing but nova's own
// files may run or load: no inline script or style, no other origin, no
// frames, no plugins. connect-src 'self' covers the /ws WebSocket of the
// same host (CSP 3 matches ws: and wss: to 'self'); data: images are the
// transcript's pasted images.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// uiFS is what / serves: NOVA_FRONTEND_DIST when it names a directory
// (a UI being worked on, read from disk at each request), else the UI
// embedded in the binary. closeFn releases a directory it opened.
func (s *Server) uiFS() (fsys fs.FS, closeFn func(), err error) {
	if dir := s.o.FrontendDir; dir != "" {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			root, err := os.OpenRoot(dir)
			if err != nil {
				return nil, nil, err
			}
			return root.FS(), func() { root.Close() }, nil
		}
	}
	sub, err := fs.Sub(webFiles, "web")
	return sub, func() {}, err
}

// frontend serves the web UI: a missing asset (a name with an extension)
// is a 404, any other path falls back to index.html for the UI's own
// routes (/s/<session>). Every answer carries the UI's security headers.
func (s *Server) frontend(w http.ResponseWriter, r *http.Request) {
	fsys, closeFn, err := s.uiFS()
	if err != nil {
		writeError(w, http.StatusInternalServerError, "the web UI cannot be read: "+err.Error())
		return
	}
	defer closeFn()
	name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
	if name == "" {
		name = "index.html"
	}
	if fi, err := fs.Stat(fsys, name); err != nil || fi.IsDir() {
		if path.Ext(name) != "" {
			writeError(w, http.StatusNotFound, "not found: "+r.URL.Path)
			return
		}
		name = "index.html"
	}
	serveUIFile(w, r, fsys, name)
}

// serveUIFile answers with one file of the UI. The ETag is the content's
// hash: embedded files have no modification time, and a UI on disk
// changes under the same one while it is edited, so the browser
// revalidates every load (no-cache) and gets a 304 when nothing changed.
func serveUIFile(w http.ResponseWriter, r *http.Request, fsys fs.FS, name string) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		writeError(w, http.StatusNotFound, "not found: "+r.URL.Path)
		return
	}
	sum := sha256.Sum256(data)
	h := w.Header()
	setUIHeaders(h)
	h.Set("Cache-Control", "no-cache")
	h.Set("ETag", `"`+hex.EncodeToString(sum[:16])+`"`)
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(data))
}

// setUIHeaders are the headers of every UI answer: the CSP, no MIME
// sniffing (a module must be served as JavaScript to run), no Referer
// (a page's links go to sites the agent named), no framing.
func setUIHeaders(h http.Header) {
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
}
