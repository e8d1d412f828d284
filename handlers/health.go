package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// healthz answers 200 when the server is up and the database answers.
func (s *Server) healthz(c echo.Context) error {
	if err := s.store.Ping(c.Request().Context()); err != nil {
		s.log.Error("health check: database unreachable", "err", err)
		return newError(http.StatusServiceUnavailable, "unavailable", "The database is not answering.")
	}
	return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
}
