package handlers

import "github.com/labstack/echo/v4"

// consoleRoutes registers the support and admin console's pages and API.
func (s *Server) consoleRoutes(e *echo.Echo) {
	staff, admin := s.requirePage("support", "admin"), s.requirePage("admin")
	e.GET("/console", s.notYet("Customers", "The customer console", 6), staff)
	e.GET("/console/audit", s.notYet("Audit", "The audit timeline", 6), staff)
	e.GET("/console/health", s.notYet("Memory health", "The memory health dashboard", 6), staff)
	e.GET("/console/erasure", s.notYet("Erasure", "The erasure queue", 6), admin)
	e.GET("/console/accounts", s.notYet("Accounts", "The accounts list", 6), admin)
}
