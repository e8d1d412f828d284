// Package static embeds Concierge's stylesheets, scripts and vendored htmx,
// and serves them at content-hashed URLs with long cache lifetimes.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

//go:embed *.css *.js vendor/*.js
var files embed.FS

// The names pages refer to.
const (
	CSS        = "app.css"
	ChatCSS    = "chat.css"
	ConsoleCSS = "console.css"
	JS         = "app.js"
	ChatJS     = "chat.js"
	HTMX       = "vendor/htmx-2.0.11.min.js"
	SSE        = "vendor/htmx-ext-sse-2.2.4.js"
)

// Assets serves the embedded files; each has a URL carrying a hash of its
// content, so a changed file gets a new URL and old ones can be cached forever.
type Assets struct {
	hashes map[string]string // name → short content hash
}

// New hashes every embedded file.
func New() *Assets {
	a := &Assets{hashes: map[string]string{}}
	_ = fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		a.hashes[p] = hex.EncodeToString(sum[:])[:12]
		return nil
	})
	return a
}

// URL is the cache-busted address of an embedded file.
func (a *Assets) URL(name string) string {
	return "/static/" + a.hashes[name] + "/" + name
}

// ServeHTTP answers /static/{hash}/{name}. A current hash is cached for a
// year as immutable; a stale or missing one is still served, briefly cached.
func (a *Assets) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest := strings.TrimPrefix(r.URL.Path, "/static/")
	hash, name, ok := strings.Cut(rest, "/")
	name = path.Clean(name)
	want, known := a.hashes[name]
	if !ok || !known {
		http.NotFound(w, r)
		return
	}
	if hash == want {
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		w.Header().Set("Cache-Control", "public, max-age=60")
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	http.ServeFileFS(w, r, files, name)
}
