package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"concierge/models"
	"concierge/views/locale"
)

// pageLanguage is the one place the language of a request is chosen: the
// signed-in account's setting, else the browser's Accept-Language, else
// English.
func pageLanguage(u *models.User, acceptLanguage string) string {
	if u != nil && locale.Supported(u.Language) {
		return u.Language
	}
	if lang := locale.FromAcceptLanguage(acceptLanguage); lang != "" {
		return lang
	}
	return locale.Default
}

// localize puts the request's Localizer in its context, where views (T)
// and handlers (localizer) find it. It runs after authenticate.
func (s *Server) localize(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		l := locale.For(pageLanguage(currentUser(c), r.Header.Get("Accept-Language")))
		c.SetRequest(r.WithContext(locale.With(r.Context(), l)))
		c.Response().Header().Add("Vary", "Accept-Language")
		return next(c)
	}
}

// localizer is the request's Localizer, for the words handlers write.
func localizer(c echo.Context) *locale.Localizer { return locale.From(c.Request().Context()) }

// accountLanguage saves the caller's choice of language ("" follows the
// browser) and goes back to the account page, now in that language.
func (s *Server) accountLanguage(c echo.Context) error {
	lang := c.FormValue("language")
	if lang != "" && !locale.Supported(lang) {
		return localError(http.StatusUnprocessableEntity, "invalid", "error.bad_language")
	}
	u := currentUser(c)
	if err := s.store.SetUserLanguage(c.Request().Context(), u.ID, lang); err != nil {
		return err
	}
	s.log.Info("account language", "request_id", requestID(c), "user_id", u.ID, "language", lang)
	return c.Redirect(http.StatusSeeOther, "/account/tokens?done=language")
}
