package handlers

import (
	"strings"

	"github.com/labstack/echo/v4"
)

// noStore keeps every dynamic answer out of the browser's caches: pages and
// API answers carry a traveler's conversations and memory, so after Sign
// out the Back button must ask the server again (and land on the sign-in
// page) instead of showing the previous person's chat from the cache.
// Only the checksummed static assets may be cached.
func noStore(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !strings.HasPrefix(c.Request().URL.Path, "/static/") {
			c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
		}
		return next(c)
	}
}
