package views_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"

	"concierge/views"
)

// renderDoc renders a component and parses it for querying.
func renderDoc(t *testing.T, c templ.Component) *goquery.Document {
	t.Helper()
	var buf bytes.Buffer
	if err := c.Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestLayoutNavigationByRole(t *testing.T) {
	tests := []struct {
		name      string
		viewer    *views.Viewer
		want      []string
		wantNoNav bool
	}{
		{"anonymous", nil, nil, true},
		{"traveler", &views.Viewer{Name: "John", Role: "traveler"}, []string{"/chat", "/memory"}, false},
		{"support", &views.Viewer{Name: "Sam", Role: "support"}, []string{"/console", "/console/review", "/console/audit", "/console/health"}, false},
		{"admin", &views.Viewer{Name: "Alex", Role: "admin"}, []string{"/console", "/console/review", "/console/audit", "/console/health", "/console/erasure", "/console/accounts"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := renderDoc(t, views.NotYet(views.Page{Title: "T", Viewer: tt.viewer, CSRF: "tok"}, "It", 5))
			var got []string
			doc.Find("nav.nav a").Each(func(_ int, s *goquery.Selection) {
				href, _ := s.Attr("href")
				got = append(got, href)
			})
			if tt.wantNoNav != (len(got) == 0) || (!tt.wantNoNav && len(got) != len(tt.want)) {
				t.Fatalf("nav links %v, want %v", got, tt.want)
			}
			for i := range tt.want {
				if got[i] != tt.want[i] {
					t.Errorf("link %d = %s, want %s", i, got[i], tt.want[i])
				}
			}
			if tt.viewer != nil && doc.Find(`[data-testid="logout"]`).Length() != 1 {
				t.Error("no sign-out button")
			}
		})
	}
}

func TestOfflineBanner(t *testing.T) {
	p := views.Page{Title: "Chat", Viewer: &views.Viewer{Name: "John", Role: "traveler"}, Offline: true}
	if renderDoc(t, views.NotYet(p, "It", 5)).Find(`[data-testid="offline-banner"]`).Length() != 1 {
		t.Error("offline model in use but no banner")
	}
	p.Offline = false
	if renderDoc(t, views.NotYet(p, "It", 5)).Find(`[data-testid="offline-banner"]`).Length() != 0 {
		t.Error("banner shown with a real model configured")
	}
}

func TestLoginPageEscapesInput(t *testing.T) {
	doc := renderDoc(t, views.LoginPage(views.Page{Title: "Sign in"}, views.LoginForm{Email: `"><script>alert(1)</script>`, Error: "bad"}))
	if doc.Find("script:not([src])").Length() != 0 {
		t.Error("user input rendered as a script")
	}
	if v, _ := doc.Find("#email").Attr("value"); v != `"><script>alert(1)</script>` {
		t.Errorf("email value %q not kept verbatim", v)
	}
}
