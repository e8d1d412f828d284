package handlers

import (
	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"concierge/models"
	"concierge/static"
	"concierge/views"
)

// render writes a templ component as an HTML response.
func render(c echo.Context, status int, comp templ.Component) error {
	c.Response().Header().Set(echo.HeaderContentType, echo.MIMETextHTMLCharsetUTF8)
	c.Response().WriteHeader(status)
	return comp.Render(c.Request().Context(), c.Response())
}

// page builds the layout's view model for the current request.
func (s *Server) page(c echo.Context, title, active string) views.Page {
	p := views.Page{
		Title:   title,
		Active:  active,
		Offline: s.cfg.Offline,
		Assets: views.Assets{
			CSS: s.assets.URL(static.CSS), ChatCSS: s.assets.URL(static.ChatCSS), ConsoleCSS: s.assets.URL(static.ConsoleCSS),
			JS: s.assets.URL(static.JS), ChatJS: s.assets.URL(static.ChatJS),
			HTMX: s.assets.URL(static.HTMX), SSE: s.assets.URL(static.SSE),
		},
	}
	p.CSRF = csrfToken(c)
	if u := currentUser(c); u != nil {
		p.Viewer = &views.Viewer{Name: u.Name, Role: string(u.Role)}
		if u.Role.IsStaff() {
			// Staff navigation shows the open review items they may work;
			// a failed count only hides the badge.
			if n, err := s.store.ReviewCounts(c.Request().Context(), models.ReviewFilter{Status: models.ReviewOpen, Role: managedRole(u)}); err == nil {
				for _, k := range n {
					p.OpenReviews += k
				}
			}
		}
		if u.Role == models.RoleAdmin {
			// The navigation shows admins how many erasures wait; a failed
			// count only hides the badge.
			if n, err := s.store.PendingErasureCount(c.Request().Context()); err == nil {
				p.PendingErasures = int(n)
			}
		}
	}
	return p
}

// The htmx headers the handlers read and set.
const (
	hxRequest            = "HX-Request"
	hxRedirect           = "HX-Redirect"
	hxTrigger            = "HX-Trigger"
	hxTriggerAfterSettle = "HX-Trigger-After-Settle"
	hxRetarget           = "HX-Retarget"
	hxReswap             = "HX-Reswap"
)

// fromHTMX reports whether htmx sent the request (rather than a plain
// form or link).
func fromHTMX(c echo.Context) bool { return c.Request().Header.Get(hxRequest) == "true" }

// csrfToken is the request's CSRF token, for the forms a page or fragment
// renders: the one way to get it (page uses it too).
func csrfToken(c echo.Context) string {
	tok, _ := c.Get(middleware.DefaultCSRFConfig.ContextKey).(string)
	return tok
}
