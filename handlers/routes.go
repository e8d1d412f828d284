package handlers

import (
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// routes registers every route: the whole HTTP surface is in this function.
func (s *Server) routes() {
	e := s.echo
	e.Pre(middleware.RequestIDWithConfig(middleware.RequestIDConfig{Generator: newRequestID}))
	e.Use(s.logRequests(), s.recoverPanics, securityHeaders, middleware.BodyLimit(s.cfg.BodyLimit))
	e.Use(s.authenticate, s.csrf())

	e.GET("/healthz", s.healthz)
	e.GET("/static/*", echo.WrapHandler(s.assets))

	limited := s.loginLimiter()
	e.GET("/login", s.loginPage)
	e.POST("/login", s.login, limited)
	e.POST("/logout", s.logout)
	e.GET("/", s.home, s.requirePage())

	// Middleware is attached per route: an Echo group with middleware would
	// also catch every unknown path under its prefix.
	traveler := s.requirePage("traveler")
	e.GET("/chat", s.notYet("Chat", "The chat", 5), traveler)
	e.GET("/memory", s.notYet("What Concierge remembers", "The memory page", 5), traveler)

	staffPage, admin := s.requirePage("support", "admin"), s.requirePage("admin")
	e.GET("/console", s.notYet("Customers", "The customer console", 6), staffPage)
	e.GET("/console/audit", s.notYet("Audit", "The audit timeline", 6), staffPage)
	e.GET("/console/health", s.notYet("Memory health", "The memory health dashboard", 6), staffPage)
	e.GET("/console/erasure", s.notYet("Erasure", "The erasure queue", 6), admin)
	e.GET("/console/accounts", s.notYet("Accounts", "The accounts list", 6), admin)

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
