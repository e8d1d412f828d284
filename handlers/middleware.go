package handlers

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"golang.org/x/time/rate"

	"concierge/models"
)

func newRequestID() string { return models.NewID() }

// logRequests logs one structured line per request.
func (s *Server) logRequests() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			err := next(c)
			status := c.Response().Status
			if err != nil {
				// The error handler has not run yet; log the status it will send.
				e, _ := toError(err)
				status = e.Status
				c.Error(err)
			}
			level := slog.LevelInfo
			switch {
			case status == http.StatusServiceUnavailable: // overload or shutdown, answered on purpose
				level = slog.LevelWarn
			case status >= 500:
				level = slog.LevelError
			case status == statusClientGone, c.Path() == "/healthz" || strings.HasPrefix(c.Path(), "/static/"):
				level = slog.LevelDebug
			}
			// The line's fields are gathered only when it is written.
			if ctx := c.Request().Context(); s.log.Enabled(ctx, level) {
				s.log.Log(ctx, level, "request", logAttrs(c, status, float64(time.Since(start).Microseconds())/1000)...)
			}
			return nil
		}
	}
}

// recoverPanics turns a panic in a handler into a 500 and a log line.
func (s *Server) recoverPanics(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("panic", "request_id", requestID(c), "route", c.Path(), "panic", fmt.Sprint(r))
				err = localError(http.StatusInternalServerError, "internal", "chat.failed.ours")
			}
		}()
		return next(c)
	}
}

// contentSecurityPolicy allows only this origin's scripts and styles: no
// inline scripts, no framing.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'; object-src 'none'"

func securityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Frame-Options", "DENY")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		if c.IsTLS() {
			h.Set("Strict-Transport-Security", "max-age=31536000; includeSubDomains")
		}
		return next(c)
	}
}

// csrf protects every state-changing browser request with a token bound to
// a cookie; the bearer-token API is exempt because browsers never send its
// credentials on their own.
func (s *Server) csrf() echo.MiddlewareFunc {
	return middleware.CSRFWithConfig(middleware.CSRFConfig{
		Skipper:        func(c echo.Context) bool { return isAPI(c) || strings.HasPrefix(c.Path(), "/static/") },
		TokenLookup:    "form:_csrf,header:X-CSRF-Token",
		CookieName:     csrfCookie,
		CookiePath:     "/",
		CookieHTTPOnly: true,
		CookieSameSite: http.SameSiteLaxMode,
		CookieSecure:   s.cfg.SecureCookies,
		ErrorHandler: func(err error, c echo.Context) error {
			return localError(http.StatusForbidden, "csrf", "error.csrf")
		},
	})
}

// loginLimiter slows guessing from one address: a token bucket per client IP.
func (s *Server) loginLimiter() echo.MiddlewareFunc {
	store := middleware.NewRateLimiterMemoryStoreWithConfig(middleware.RateLimiterMemoryStoreConfig{
		Rate:      rate.Limit(s.cfg.LoginRatePerMinute / 60),
		Burst:     s.cfg.LoginBurst,
		ExpiresIn: 10 * time.Minute,
	})
	return middleware.RateLimiterWithConfig(middleware.RateLimiterConfig{
		Store: store,
		DenyHandler: func(c echo.Context, _ string, _ error) error {
			return localError(http.StatusTooManyRequests, "rate_limited", "error.sign_in_rate")
		},
	})
}

// MaxQueryValueChars bounds every query parameter; search queries have a
// tighter limit of their own (models.MaxSearchChars).
const MaxQueryValueChars = 1000

// cleanText reports whether s is valid UTF-8 without NUL bytes: text
// PostgreSQL can store and SQLite stores as sent.
func cleanText(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}

// errBadBytes refuses text that is not valid UTF-8 or carries NUL bytes.
func errBadBytes(where string) *Error {
	return newError(http.StatusBadRequest, "bad_encoding",
		"The "+where+" holds bytes that are not text (NUL or invalid UTF-8). Send UTF-8 text.")
}

// rejectBadBytes refuses, with a clear 400, a request whose path, path ids,
// query or form fields hold NUL bytes or invalid UTF-8, before anything
// reaches the database (PostgreSQL would fail on them with a 500, SQLite
// would store them). JSON bodies are checked in decodeJSON. It runs before
// authentication, so the login form is covered too.
func rejectBadBytes(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if !cleanText(r.URL.Path) {
			return errBadBytes("address")
		}
		for _, v := range c.ParamValues() {
			if !cleanText(v) {
				return errBadBytes("address")
			}
		}
		for k, vs := range r.URL.Query() {
			if !cleanText(k) {
				return errBadBytes("query")
			}
			for _, v := range vs {
				if !cleanText(v) {
					return errBadBytes("query")
				}
				if utf8.RuneCountInString(v) > MaxQueryValueChars {
					return localError(http.StatusBadRequest, "too_long", "error.query_too_long", "Max", strconv.Itoa(MaxQueryValueChars))
				}
			}
		}
		ct := r.Header.Get(echo.HeaderContentType)
		if strings.HasPrefix(ct, echo.MIMEApplicationForm) || strings.HasPrefix(ct, echo.MIMEMultipartForm) {
			form, err := c.FormParams()
			if err != nil {
				var tooLarge *http.MaxBytesError
				if errors.As(err, &tooLarge) {
					return localError(http.StatusRequestEntityTooLarge, "too_large", "error.too_large")
				}
				return localError(http.StatusBadRequest, "bad_form", "error.bad_form")
			}
			for k, vs := range form {
				if !cleanText(k) {
					return errBadBytes("form")
				}
				for _, v := range vs {
					if !cleanText(v) {
						return errBadBytes("form")
					}
				}
			}
		}
		return next(c)
	}
}
