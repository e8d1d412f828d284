package handlers

import (
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// routes registers every route: the whole HTTP surface is in this function.
func (s *Server) routes() {
	e := s.echo
	e.Pre(middleware.RequestIDWithConfig(middleware.RequestIDConfig{Generator: newRequestID}))
	e.Pre(noStore)
	e.Use(s.logRequests(), s.recoverPanics, securityHeaders, middleware.BodyLimit(s.cfg.BodyLimit), rejectBadBytes)
	e.Use(s.authenticate, s.csrf())

	e.GET("/healthz", s.healthz)
	e.GET("/metrics", s.metrics.handler(), s.requireAPI("support", "admin"))
	e.GET("/static/*", echo.WrapHandler(s.assets))

	limited := s.loginLimiter()
	e.GET("/login", s.loginPage)
	e.POST("/login", s.login, limited)
	e.POST("/logout", s.logout)
	e.GET("/", s.home, s.requirePage())

	// Middleware is attached per route: an Echo group with middleware would
	// also catch every unknown path under its prefix.
	s.travelerRoutes(e)
	s.consoleRoutes(e)

	api := e.Group("/api/v1")
	api.POST("/auth/token", s.apiToken, limited)
	anyone, travelers, staff := s.requireAPI(), s.requireAPI("traveler"), s.requireAPI("support", "admin")
	api.GET("/me", s.apiMe, anyone)
	api.POST("/sessions", s.apiCreateSession, travelers)
	api.GET("/sessions/:id", s.apiGetSession, anyone)
	api.POST("/sessions/:id/messages", s.apiPostMessage, travelers)
	api.GET("/sessions/:id/turns", s.apiGetTurns, staff)
	api.POST("/sessions/:id/close", s.apiCloseSession, anyone)
	api.GET("/consolidations/:job", s.apiGetConsolidation, anyone)
	api.GET("/users/:id/memory", s.apiGetMemory, anyone)
}
