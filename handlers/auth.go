package handlers

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"concierge/models"
	"concierge/views"
)

const (
	sessionCookie = "concierge_session"
	csrfCookie    = "concierge_csrf"
)

const userKey = "concierge.user"

// endedKey holds why the browser's session was ended by someone else, when
// it was (models.EndedErased, …).
const endedKey = "concierge.ended"

// currentUser is the signed-in account, or nil.
func currentUser(c echo.Context) *models.User {
	u, _ := c.Get(userKey).(*models.User)
	return u
}

// authenticate resolves the caller: a bearer token on the API, the session
// cookie on pages. An unknown credential leaves the caller anonymous.
func (s *Server) authenticate(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		if isAPI(c) {
			if h := c.Request().Header.Get(echo.HeaderAuthorization); strings.HasPrefix(h, "Bearer ") {
				if u, err := s.store.UserByAPIToken(ctx, strings.TrimSpace(strings.TrimPrefix(h, "Bearer "))); err == nil {
					c.Set(userKey, u)
				} else if !errors.Is(err, models.ErrNotFound) {
					return err
				}
			}
			return next(c)
		}
		if ck, err := c.Cookie(sessionCookie); err == nil && ck.Value != "" {
			if u, err := s.store.UserByWebSession(ctx, ck.Value, s.cfg.SessionTTL, s.cfg.WebSessionIdle); err == nil {
				c.Set(userKey, u)
			} else if !errors.Is(err, models.ErrNotFound) {
				return err
			} else if why, err := s.store.WhyWebSessionEnded(ctx, ck.Value); err != nil {
				return err
			} else if why != "" {
				c.Set(endedKey, why)
			}
		}
		return next(c)
	}
}

func hasRole(u *models.User, roles []models.Role) bool {
	if len(roles) == 0 {
		return true
	}
	for _, r := range roles {
		if u.Role == r {
			return true
		}
	}
	return false
}

func toRoles(names []string) []models.Role {
	out := make([]models.Role, len(names))
	for i, n := range names {
		out[i] = models.Role(n)
	}
	return out
}

// requirePage lets signed-in callers with one of roles (any role when none
// is named) through; others are sent to the login page or refused. It is
// guard for a route without a target.
func (s *Server) requirePage(roles ...string) echo.MiddlewareFunc {
	return s.guard(rule{roles: toRoles(roles)}, noTarget)
}

// requireAPI is requirePage for the JSON API: 401 without a valid token,
// 403 for a role that may not call the endpoint.
func (s *Server) requireAPI(roles ...string) echo.MiddlewareFunc {
	return s.guard(rule{roles: toRoles(roles)}, noTarget)
}

func redirectToLogin(c echo.Context) error {
	target := "/login"
	if r := c.Request(); r.Method == http.MethodGet && r.URL.Path != "/" {
		target += "?next=" + url.QueryEscape(r.URL.RequestURI())
	}
	if fromHTMX(c) {
		c.Response().Header().Set(hxRedirect, target)
		return c.NoContent(http.StatusUnauthorized)
	}
	return c.Redirect(http.StatusSeeOther, target)
}

// safeNext keeps post-login redirects on this site: a path, never a scheme,
// a host, a backslash or a control character (browsers drop tabs and
// newlines, which can turn "/\t/evil" into "//evil").
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\t\r\n") {
		return "/"
	}
	for _, r := range next {
		if r < 0x20 || r == 0x7f {
			return "/"
		}
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" {
		return "/"
	}
	return next
}

func (s *Server) home(c echo.Context) error {
	if currentUser(c).Role.IsStaff() {
		return c.Redirect(http.StatusSeeOther, "/console")
	}
	return c.Redirect(http.StatusSeeOther, "/chat")
}

func (s *Server) loginPage(c echo.Context) error {
	if currentUser(c) != nil {
		return c.Redirect(http.StatusSeeOther, safeNext(c.QueryParam("next")))
	}
	f := views.LoginForm{Next: c.QueryParam("next"), DemoEnabled: s.cfg.DemoEnabled}
	p := s.page(c, "page.sign_in", "")
	if why, _ := c.Get(endedKey).(string); why != "" {
		// Said once: the dead cookie goes, so a reload shows the plain form.
		f.Notice, p.Focus = localizer(c).T("login.ended."+why), "#login-notice"
		c.SetCookie(&http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteLaxMode,
			Secure: s.cfg.SecureCookies || c.IsTLS()})
	}
	if ff := s.takeFormFlash(c); ff != nil && ff.Form == "login" {
		f.Email, f.Error, f.Field = ff.Values["email"], ff.Message, ff.Field
		p.Focus = "#" + ff.Field
	}
	return render(c, http.StatusOK, views.LoginPage(p, f))
}

// signInRefused reports whether err is a sign-in's refusal (wrong email or
// password, or locked), which the login page shows in its form; toError
// words it the same for an unknown email and a known one.
func signInRefused(err error) bool {
	var locked *models.LockedError
	return errors.As(err, &locked) || errors.Is(err, models.ErrBadCredentials)
}

// lockWait is how long a locked sign-in waits ("59s"), or "" when err is
// not a lock.
func lockWait(err error) string {
	var locked *models.LockedError
	if !errors.As(err, &locked) {
		return ""
	}
	return max(time.Until(locked.Until).Round(time.Second), time.Second).String()
}

func (s *Server) login(c echo.Context) error {
	email, password := c.FormValue("email"), c.FormValue("password")
	u, err := s.store.Authenticate(c.Request().Context(), email, password, c.RealIP(), s.cfg.LoginPolicy)
	if err != nil {
		if !signInRefused(err) {
			return err
		}
		e, _ := toError(err)
		s.log.Info("login refused", "request_id", requestID(c), "reason", e.Code)
		// Post/redirect/get: the sign-in page shows the error at the
		// password, the email kept, and a reload sends nothing again.
		to := "/login"
		if next := c.FormValue("next"); next != "" {
			to += "?next=" + url.QueryEscape(next)
		}
		msg := localizer(c).T("login.bad_credentials")
		if e.Code == "locked" {
			msg = localizer(c).T("login.locked", "Wait", lockWait(err))
		}
		return s.refuseForm(c, to, formFlash{Form: "login", Field: "password", Message: msg, Values: map[string]string{"email": email}})
	}
	// This browser's earlier session ends, whoever it belonged to, and its
	// CSRF cookie goes with it: the next page issues a fresh one.
	if ck, err := c.Cookie(sessionCookie); err == nil && ck.Value != "" {
		if err := s.store.DeleteWebSession(c.Request().Context(), ck.Value); err != nil {
			return err
		}
	}
	c.SetCookie(&http.Cookie{Name: csrfCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteLaxMode,
		Secure: s.cfg.SecureCookies || c.IsTLS()})
	token, err := s.store.CreateWebSession(c.Request().Context(), u.ID, s.cfg.SessionTTL, s.cfg.WebSessionIdle)
	if err != nil {
		return err
	}
	c.SetCookie(&http.Cookie{
		Name: sessionCookie, Value: token, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode,
		Secure: s.cfg.SecureCookies || c.IsTLS(), Expires: time.Now().Add(s.cfg.SessionTTL),
	})
	s.log.Info("login", "request_id", requestID(c), "user_id", u.ID, "role", u.Role)
	next := safeNext(c.FormValue("next"))
	if next == "/" {
		if u.Role.IsStaff() {
			next = "/console"
		} else {
			next = "/chat"
		}
	}
	return c.Redirect(http.StatusSeeOther, next)
}

func (s *Server) logout(c echo.Context) error {
	if ck, err := c.Cookie(sessionCookie); err == nil {
		if err := s.store.DeleteWebSession(c.Request().Context(), ck.Value); err != nil {
			return err
		}
	}
	c.SetCookie(&http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteLaxMode,
		Secure: s.cfg.SecureCookies || c.IsTLS()})
	return c.Redirect(http.StatusSeeOther, "/login")
}

// apiUser is how the API shows an account.
type apiUser struct {
	ID    string `json:"id"`
	Role  string `json:"role"`
	Name  string `json:"name"`
	Email string `json:"email"`
}

func toAPIUser(u *models.User) apiUser {
	return apiUser{ID: u.ID, Role: string(u.Role), Name: u.Name, Email: u.Email}
}

func (s *Server) apiToken(c echo.Context) error {
	var req struct {
		Email    string `json:"email"`
		Password string `json:"password"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if req.Email == "" || req.Password == "" {
		return localError(http.StatusUnprocessableEntity, "invalid", "error.sign_in_empty")
	}
	u, err := s.store.Authenticate(c.Request().Context(), req.Email, req.Password, c.RealIP(), s.cfg.LoginPolicy)
	if err != nil {
		return err
	}
	token, _, err := s.store.CreateAPIToken(c.Request().Context(), u.ID, s.cfg.TokenTTL)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"token": token, "user": toAPIUser(u)})
}

func (s *Server) apiMe(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]any{"user": toAPIUser(currentUser(c))})
}

// apiChangePassword changes the caller's own password with the current one
// and signs the account out everywhere else: every other browser session
// and every other API token.
func (s *Server) apiChangePassword(c echo.Context) error {
	var req struct {
		Current string `json:"current"`
		New     string `json:"new"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if req.Current == "" || req.New == "" {
		return localError(http.StatusUnprocessableEntity, "invalid", "error.password_empty")
	}
	return s.changePassword(c, req.Current, req.New, func() error { return c.NoContent(http.StatusNoContent) })
}

// changePassword is the password change of the API and of the account
// page: the credential the request came with stays signed in.
func (s *Server) changePassword(c echo.Context, current, next string, done func() error) error {
	me := currentUser(c)
	var keep models.KeptCredential
	if h := c.Request().Header.Get(echo.HeaderAuthorization); isAPI(c) && strings.HasPrefix(h, "Bearer ") {
		keep.APIToken = strings.TrimSpace(strings.TrimPrefix(h, "Bearer "))
	} else if ck, err := c.Cookie(sessionCookie); err == nil {
		keep.WebSession = ck.Value
	}
	err := s.store.ChangePassword(c.Request().Context(), me, current, next, c.RealIP(), s.cfg.LoginPolicy, keep)
	if err != nil {
		return err
	}
	s.log.Info("password changed", "request_id", requestID(c), "user_id", me.ID)
	return done()
}

// accountChangePassword is the account page's password form.
func (s *Server) accountChangePassword(c echo.Context) error {
	err := s.changePassword(c, c.FormValue("current"), c.FormValue("new"), func() error {
		return c.Redirect(http.StatusSeeOther, "/account/tokens?done=password")
	})
	if signInRefused(err) || errors.Is(err, models.ErrWrongPassword) {
		return c.Redirect(http.StatusSeeOther, "/account/tokens?error="+url.QueryEscape(userMessage(c, err)))
	}
	return err
}
