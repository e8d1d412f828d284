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
	anyone, travelers := s.requireAPI(), s.requireAPI("traveler")
	session, job := sessionParam("id"), jobParam("job")
	api.GET("/me", s.apiMe, anyone)
	api.POST("/users/me/password", s.apiChangePassword, anyone)
	api.POST("/sessions", s.apiCreateSession, travelers)
	api.GET("/sessions/:id", s.apiGetSession, s.guard(ownerOrStaff, session))
	api.POST("/sessions/:id/messages", s.apiPostMessage, s.guard(ownTraveler, session))
	api.GET("/sessions/:id/turns", s.apiGetTurns, s.guard(staffOnly, session))
	api.POST("/sessions/:id/close", s.apiCloseSession, s.guard(ownerOrStaff, session))
	api.GET("/consolidations/:job", s.apiGetConsolidation, s.guard(ownerOrStaff, job))
	api.GET("/users/:id/memory", s.apiGetMemory, s.guard(ownerOrStaff, userParam("id")))
	api.GET("/tokens", s.apiTokens, anyone)
	api.DELETE("/tokens/:id", s.apiRevokeToken, s.guard(ownAccount, tokenParam("id")))
}
