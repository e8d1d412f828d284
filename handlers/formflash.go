package handlers

import (
	"encoding/base64"
	"encoding/json"
	"net/http"

	"github.com/labstack/echo/v4"
)

// formFlashCookie carries a refused page form across its redirect.
const formFlashCookie = "concierge_form"

// formFlash is a refused form: which form (Form, e.g. "disable:<id>"), the
// field the error belongs to, the message, and what the person typed
// (never a password), so the page after the redirect shows the error at
// its field in the form that was sent. Forms post and redirect (303)
// whatever the outcome, so a reload never sends a form again.
type formFlash struct {
	Form    string            `json:"form"`
	Field   string            `json:"field"`
	Message string            `json:"message"`
	Values  map[string]string `json:"values,omitempty"`
}

// refuseForm redirects to the page at to, which will show f.
func (s *Server) refuseForm(c echo.Context, to string, f formFlash) error {
	b, _ := json.Marshal(f)
	c.SetCookie(&http.Cookie{Name: formFlashCookie, Value: base64.RawURLEncoding.EncodeToString(b), Path: "/", MaxAge: 120,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: s.cfg.SecureCookies || c.IsTLS()})
	return c.Redirect(http.StatusSeeOther, to)
}

// takeFormFlash reads the refused form the last redirect carried, if any,
// and clears it, so it shows once.
func (s *Server) takeFormFlash(c echo.Context) *formFlash {
	ck, err := c.Cookie(formFlashCookie)
	if err != nil || ck.Value == "" {
		return nil
	}
	c.SetCookie(&http.Cookie{Name: formFlashCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteLaxMode,
		Secure: s.cfg.SecureCookies || c.IsTLS()})
	b, err := base64.RawURLEncoding.DecodeString(ck.Value)
	var f formFlash
	if err != nil || json.Unmarshal(b, &f) != nil || f.Form == "" {
		return nil
	}
	return &f
}
