// Package views holds Concierge's templ components. Components take view
// models built by handlers and never touch the database.
package views

import "github.com/a-h/templ"

// Viewer is the signed-in person as the layout shows them.
type Viewer struct {
	Name string
	Role string // traveler, support or admin
}

// IsStaff reports whether the viewer may use the console.
func (v *Viewer) IsStaff() bool { return v != nil && (v.Role == "support" || v.Role == "admin") }

// Assets are the cache-busted URLs of the static files.
type Assets struct {
	CSS, ChatCSS, ConsoleCSS, JS, ChatJS, HTMX, SSE string
}

// Page is what every full page needs from its handler.
type Page struct {
	Title   string
	Viewer  *Viewer // nil when nobody is signed in
	CSRF    string
	Active  string // the navigation entry to highlight
	Offline bool   // the built-in offline model answers
	Assets  Assets
	// PendingErasures is the number of erasure requests waiting, shown in
	// an admin's navigation.
	PendingErasures int
	// OpenReviews is the number of open review items the viewer may work,
	// shown in staff navigation.
	OpenReviews int
	// Say and Focus are what the page's live region announces and where
	// the focus goes once the page has loaded: the result of the form that
	// posted and redirected here (see static/app.js).
	Say, Focus string
}

// FormError is a refused form shown again after its redirect: the form
// (a name such as "new" or "disable:<id>"), the id of the field the error
// belongs to, and the message.
type FormError struct {
	Form, Field, Message string
}

// At is the message when the error belongs to field of form, else "".
func (e *FormError) At(form, field string) string {
	if e == nil || e.Form != form || e.Field != field {
		return ""
	}
	return e.Message
}

// In reports whether the error belongs to form.
func (e *FormError) In(form string) bool { return e != nil && e.Form == form }

// Attrs marks field of form invalid and points it at its message when the
// error is there; nothing otherwise.
func (e *FormError) Attrs(form, field string) templ.Attributes {
	if e.At(form, field) == "" {
		return templ.Attributes{}
	}
	return templ.Attributes{"aria-invalid": "true", "aria-describedby": field + "-error"}
}

// NavItem is one entry of the top navigation; Label is a message id.
type NavItem struct {
	Key, Label, Href string
	Count            int // a badge after the label when above 0
}

// Nav lists the navigation entries for the viewer's role.
func (p Page) Nav() []NavItem {
	if p.Viewer == nil {
		return nil
	}
	if p.Viewer.IsStaff() {
		items := []NavItem{
			{Key: "customers", Label: "nav.customers", Href: "/console"},
			{Key: "review", Label: "nav.review", Href: "/console/review", Count: p.OpenReviews},
			{Key: "audit", Label: "nav.audit", Href: "/console/audit"},
			{Key: "health", Label: "nav.health", Href: "/console/health"},
		}
		if p.Viewer.Role == "admin" {
			items = append(items, NavItem{"erasure", "nav.erasure", "/console/erasure", p.PendingErasures}, NavItem{Key: "accounts", Label: "nav.accounts", Href: "/console/accounts"})
		}
		return items
	}
	return []NavItem{
		{Key: "chat", Label: "nav.chat", Href: "/chat"},
		{Key: "memory", Label: "nav.memory", Href: "/memory"},
	}
}

// LoginForm is the login page's state.
type LoginForm struct {
	Email       string
	Error       string
	Field       string // the id of the field Error is about
	Notice      string // why the browser was signed out, when it was not by its own choice
	Next        string
	DemoEnabled bool
}

// Attrs marks field invalid and points it at the error when the error is
// about it; nothing otherwise.
func (f LoginForm) Attrs(field string) templ.Attributes {
	if f.Error == "" || f.Field != field {
		return templ.Attributes{}
	}
	return templ.Attributes{"aria-invalid": "true", "aria-describedby": field + "-error"}
}
