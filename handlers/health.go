package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// healthz answers 200 when the server is up and the database answers and
// takes writes; a database that refuses writes (a full disk) answers 503,
// though reads may still work. A check whose client hung up while it ran
// failed for that, not for the database: it is not logged as an outage.
func (s *Server) healthz(c echo.Context) error {
	ctx := c.Request().Context()
	if err := s.store.Ping(ctx); err != nil {
		if clientGone(c) {
			return errClientGone
		}
		s.log.Error("health check: database unreachable", "err", err)
		return newError(http.StatusServiceUnavailable, "unavailable", "The database is not answering.")
	}
	if err := s.store.CheckWrites(ctx); err != nil {
		if clientGone(c) {
			return errClientGone
		}
		s.log.Error("health check: database refuses writes", "err", err)
		return newError(http.StatusServiceUnavailable, "unavailable", "The database answers but refuses writes.")
	}
	return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
}
